//! VR mode against a real OpenXR runtime: Monado, headless (null compositor on
//! lavapipe), built by `../shared/tools/monado/build-monado.sh` (scripts/test does it
//! and sets VRMA_MAKER_MONADO_JSON). The *simulated* driver proves the session starts,
//! reaches FOCUSED and ends cleanly; the *remote* driver, fed by the controller
//! simulator below over TCP, proves grab → drag → release edits the pose end to end.
//!
//! Without the `xr` feature only the "no VR here" test runs.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::*;
use bevy::math::{Quat, Vec2, Vec3};

/// Starts the editor window on `display` with `args`; its log lines arrive on the channel.
fn start_editor(display: &str, args: &[&str], envs: &[(&str, &str)]) -> (Child, Receiver<String>) {
    let mut command = bin();
    command
        .args(args)
        .env("DISPLAY", display)
        .env("VRMA_MAKER_VR_RESOLUTION", "320x240")
        .env("XRT_LOG", "warn")
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in envs {
        command.env(k, v);
    }
    let mut child = command.spawn().expect("the editor starts");
    let (send, receive) = channel();
    for stream in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let send = send.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                eprintln!("    app: {line}");
                if send.send(line).is_err() {
                    break;
                }
            }
        });
    }
    (child, receive)
}

/// Waits for a log line containing `needle`; all lines seen go into `seen`.
fn wait_for_line(
    lines: &Receiver<String>,
    needle: &str,
    limit: Duration,
    seen: &mut Vec<String>,
) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Ok(line) = lines.recv_timeout(Duration::from_millis(200)) {
            let found = line.contains(needle);
            seen.push(line);
            if found {
                return true;
            }
        }
    }
    false
}

fn drain(lines: &Receiver<String>, seen: &mut Vec<String>) {
    while let Ok(line) = lines.recv_timeout(Duration::from_millis(100)) {
        seen.push(line);
    }
}

#[test]
fn asking_for_vr_without_a_runtime_says_why_and_stays_on_the_desktop() {
    if !required_or_skip("Xvfb and a Vulkan driver", have_display_stack()) {
        return;
    }
    let (_xvfb, display) = start_xvfb().expect("Xvfb starts");
    let (mut child, lines) = start_editor(
        &display,
        &["--vr", "--exit-after", "8"],
        &[("XR_RUNTIME_JSON", "/nonexistent/openxr_runtime.json")],
    );
    let mut seen = Vec::new();
    let said = wait_for_line(
        &lines,
        "VR is not available",
        Duration::from_secs(60),
        &mut seen,
    );
    let status = wait_with_timeout(&mut child, Duration::from_secs(60));
    drain(&lines, &mut seen);
    assert!(said, "no message about VR: {seen:#?}");
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
    assert!(
        !seen.iter().any(|l| l.contains("panicked")),
        "a panic: {seen:#?}"
    );
}

#[test]
fn with_a_runtime_the_desktop_window_still_renders_until_vr_is_wanted() {
    let Some(manifest) = vr_ready() else {
        return;
    };
    let (_xvfb, display) = start_xvfb().expect("Xvfb starts");
    let dir = scratch("vr-desktop");
    let shot = dir.join("window.png");
    let (mut child, lines) = start_editor(
        &display,
        &["--screenshot", shot.to_str().unwrap()],
        &[
            ("XR_RUNTIME_JSON", manifest.to_str().unwrap()),
            ("XDG_CONFIG_HOME", dir.to_str().unwrap()),
            ("SIMULATED_ENABLE", "1"),
        ],
    );
    let status = wait_with_timeout(&mut child, Duration::from_secs(120));
    let mut seen = Vec::new();
    drain(&lines, &mut seen);
    assert!(status.is_some_and(|s| s.success()), "{status:?} {seen:#?}");
    // OpenXR created the renderer (the runtime was found) but no session started.
    assert!(
        seen.iter().any(|l| l.contains("OpenXR runtime found")),
        "{seen:#?}"
    );
    assert!(!seen.iter().any(|l| l.contains("entering VR")), "{seen:#?}");
    let img = image::open(&shot).expect("screenshot").to_rgba8();
    let centre = view_centre_covered(&img);
    assert!(
        centre > 0.25,
        "the mannequin covers only {centre:.2} of the view"
    );
    // The VR panel's colour is nowhere on the desktop (the mirror test looks for it).
    assert!(panel_coloured(&img) < 0.001);
}

#[test]
fn the_view_menu_enters_and_leaves_vr() {
    let Some(manifest) = vr_ready() else {
        return;
    };
    if !required_or_skip("xdotool", have_xdotool()) {
        return;
    }
    let (_xvfb, display) = start_xvfb().expect("Xvfb starts");
    let dir = scratch("vr-menu");
    let (mut child, lines) = start_editor(
        &display,
        &["--exit-after", "40"],
        &[
            ("XR_RUNTIME_JSON", manifest.to_str().unwrap()),
            ("XDG_CONFIG_HOME", dir.to_str().unwrap()),
            ("SIMULATED_ENABLE", "1"),
        ],
    );
    let window = wait_for_window(&display);
    let mut seen = Vec::new();
    assert!(
        wait_for_line(&lines, "model shown", Duration::from_secs(60), &mut seen),
        "{seen:#?}"
    );
    pause(2.0);
    let click = |x: &str, y: &str| {
        xdotool(&display, &["mousemove", "--window", &window, x, y]);
        pause(0.4);
        xdotool(&display, &["mousedown", "1"]);
        pause(0.3);
        xdotool(&display, &["mouseup", "1"]);
        pause(1.0);
    };
    // View ▸ Enter VR (the menu's second item), then View ▸ Leave VR in the same place.
    click("131", "11");
    click("150", "66");
    assert!(
        wait_for_line(
            &lines,
            "VR session state: FOCUSED",
            Duration::from_secs(60),
            &mut seen
        ),
        "Enter VR did not start a session: {seen:#?}"
    );
    pause(2.0);
    click("131", "11");
    click("150", "66");
    assert!(
        wait_for_line(
            &lines,
            "VR session ended",
            Duration::from_secs(60),
            &mut seen
        ),
        "Leave VR did not end the session: {seen:#?}"
    );
    // Back on the desktop, still running until --exit-after.
    assert!(
        child.try_wait().unwrap().is_none(),
        "the app quit with the session"
    );
    let status = wait_with_timeout(&mut child, Duration::from_secs(90));
    drain(&lines, &mut seen);
    assert!(status.is_some_and(|s| s.success()), "{status:?} {seen:#?}");
}

/// The Monado runtime manifest, when scripts/test built it.
fn monado() -> Option<PathBuf> {
    std::env::var_os("VRMA_MAKER_MONADO_JSON")
        .map(PathBuf::from)
        .filter(|p| p.is_file())
}

fn vr_ready() -> Option<PathBuf> {
    if !cfg!(feature = "xr") {
        eprintln!("SKIPPED: built without the `xr` feature (scripts/test runs it with)");
        return None;
    }
    let ok = required_or_skip("Xvfb and a Vulkan driver", have_display_stack())
        && required_or_skip(
            "Monado (VRMA_MAKER_MONADO_JSON, built by scripts/test)",
            monado().is_some(),
        );
    if ok { monado() } else { None }
}

/// The editor in VR on Monado, in an X server of its own.
struct VrRun {
    _xvfb: Xvfb,
    display: String,
    child: Child,
    lines: Receiver<String>,
    /// Every log line so far.
    seen: Vec<String>,
    launched: Instant,
    exit_after: u64,
}

impl VrRun {
    /// Starts `--vr --exit-after EXIT_AFTER ARGS…` on the runtime, with `envs`, and waits
    /// until the session has focus.
    fn start(manifest: &Path, exit_after: u64, args: &[&str], envs: &[(&str, &str)]) -> VrRun {
        let (xvfb, display) = start_xvfb().expect("Xvfb starts");
        let launched = Instant::now();
        let exit_after_text = exit_after.to_string();
        let mut all_args = vec!["--vr", "--exit-after", exit_after_text.as_str()];
        all_args.extend_from_slice(args);
        let mut all_envs = vec![("XR_RUNTIME_JSON", manifest.to_str().unwrap())];
        all_envs.extend_from_slice(envs);
        let (child, lines) = start_editor(&display, &all_args, &all_envs);
        let display_name = display.clone();
        let mut seen = Vec::new();
        let focused = wait_for_line(
            &lines,
            "VR session state: FOCUSED",
            Duration::from_secs(120),
            &mut seen,
        );
        assert!(focused, "the session never reached FOCUSED: {seen:#?}");
        VrRun {
            _xvfb: xvfb,
            display: display_name,
            child,
            lines,
            seen,
            launched,
            exit_after,
        }
    }

    /// Ctrl+S in the desktop window (the project was opened from `path`, so it saves
    /// there), then the project as written.
    fn save(&self, path: &Path) -> serde_json::Value {
        let window = wait_for_window(&self.display);
        xdotool(&self.display, &["windowfocus", "--sync", &window]);
        save_by_ctrl_s(&self.display, path)
    }

    /// Saves until the project as written satisfies `done` (a press is applied a frame
    /// or two after its release, and frames take up to a few hundred milliseconds on a
    /// loaded machine), at most for 6 s; returns the last one written either way.
    fn save_until(
        &self,
        path: &Path,
        done: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let start = Instant::now();
        loop {
            let saved = self.save(path);
            if done(&saved) || start.elapsed() > Duration::from_secs(6) {
                return saved;
            }
            pause(0.3);
        }
    }

    /// A scripted sequence must be over 5 s before --exit-after ends the app.
    fn assert_in_time(&self) {
        assert!(
            self.launched.elapsed() < Duration::from_secs(self.exit_after - 5),
            "too slow for this test's timing: the sequence ended {:?} after launch, \
             --exit-after is {} s",
            self.launched.elapsed(),
            self.exit_after
        );
    }

    /// Waits (up to `limit`) for the app to quit by itself, cleanly; returns the log.
    fn finish(mut self, limit: Duration) -> Vec<String> {
        let status = wait_with_timeout(&mut self.child, limit);
        drain(&self.lines, &mut self.seen);
        assert!(
            status.is_some_and(|s| s.success()),
            "exit: {status:?} {:#?}",
            self.seen
        );
        self.seen
    }
}

#[test]
fn the_simulated_headset_reaches_focus_and_the_session_ends_cleanly() {
    let Some(manifest) = vr_ready() else {
        return;
    };
    let config = scratch("vr-simulated-config");
    let run = VrRun::start(
        &manifest,
        25,
        &[],
        &[
            ("XDG_CONFIG_HOME", config.to_str().unwrap()),
            ("SIMULATED_ENABLE", "1"),
            ("SIMULATED_LEFT", "simple"),
            ("SIMULATED_RIGHT", "simple"),
        ],
    );
    let seen = run.finish(Duration::from_secs(120));
    for needle in [
        "entering VR",
        "VR session state: STOPPING",
        "VR session ended",
    ] {
        assert!(
            seen.iter().any(|l| l.contains(needle)),
            "no '{needle}' in the log: {seen:#?}"
        );
    }
}

/// One controller's state as Monado's remote driver reads it.
#[derive(Clone, Copy, Debug)]
struct Controller {
    position: Vec3,
    rotation: Quat,
    trigger: f32,
    squeeze: f32,
    stick: Vec2,
    a: bool,
    b: bool,
    /// The thumbstick pressed down.
    stick_click: bool,
    /// Hand tracking: Monado simulates the hand's joints from these finger curls
    /// (index and thumb, 0 open … 1 curled; 1 and 1 make a pinch).
    hand_tracking: bool,
    index_curl: f32,
    thumb_curl: f32,
}

impl Controller {
    fn at(position: Vec3) -> Controller {
        Controller {
            position,
            rotation: Quat::IDENTITY,
            trigger: 0.0,
            squeeze: 0.0,
            stick: Vec2::ZERO,
            a: false,
            b: false,
            stick_click: false,
            hand_tracking: false,
            index_curl: 0.0,
            thumb_curl: 0.0,
        }
    }
}

/// The remote driver's packet: `struct r_remote_data` of Monado 25
/// (src/xrt/drivers/remote/r_interface.h), 376 bytes, little-endian.
fn remote_packet(left: &Controller, right: &Controller) -> Vec<u8> {
    let mut b = Vec::with_capacity(376);
    let f = |b: &mut Vec<u8>, v: f32| b.extend_from_slice(&v.to_le_bytes());
    b.extend_from_slice(b"mndrmt3\0");
    // head.views[2]: fov (4 f32), pose (7 f32), padding: unused (per_view_data_valid = 0).
    for _ in 0..2 {
        for _ in 0..12 {
            f(&mut b, 0.0);
        }
    }
    // head.center: orientation xyzw, then position.
    for v in [0.0, 0.0, 0.0, 1.0, 0.0, 1.6, 0.0] {
        f(&mut b, v);
    }
    b.extend_from_slice(&[0u8; 4]); // per_view_data_valid + padding
    for c in [left, right] {
        let q = c.rotation;
        for v in [q.x, q.y, q.z, q.w, c.position.x, c.position.y, c.position.z] {
            f(&mut b, v);
        }
        for _ in 0..6 {
            f(&mut b, 0.0); // linear and angular velocity
        }
        // hand_curl[5]: little, ring, middle, index, thumb.
        for v in [0.0, 0.0, 0.0, c.index_curl, c.thumb_curl] {
            f(&mut b, v);
        }
        f(&mut b, c.trigger);
        f(&mut b, c.squeeze);
        f(&mut b, 0.0); // squeeze force
        f(&mut b, c.stick.x);
        f(&mut b, c.stick.y);
        for _ in 0..3 {
            f(&mut b, 0.0); // trackpad force, trackpad x, y
        }
        let flags = [
            c.hand_tracking, // hand_tracking_active
            true,            // active
            false,           // system_click
            false,           // system_touch
            c.a,             // a_click (left hand: X)
            c.a,             // a_touch
            c.b,             // b_click (left hand: Y)
            c.b,             // b_touch
            c.trigger > 0.5,
            c.trigger > 0.1,
            c.stick_click, // thumbstick_click
            c.stick_click, // thumbstick_touch
            false,
            false,
            false,
            false,
        ];
        b.extend(flags.iter().map(|&x| x as u8));
    }
    assert_eq!(b.len(), 376);
    b
}

/// Streams the shared controller state to Monado at 100 Hz until dropped.
struct Feeder {
    state: Arc<Mutex<(Controller, Controller)>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    connected: Arc<std::sync::atomic::AtomicBool>,
}

impl Feeder {
    fn start(port: u16, left: Controller, right: Controller) -> Feeder {
        use std::sync::atomic::{AtomicBool, Ordering};
        let state = Arc::new(Mutex::new((left, right)));
        let stop = Arc::new(AtomicBool::new(false));
        let connected = Arc::new(AtomicBool::new(false));
        let (s, st, co) = (state.clone(), stop.clone(), connected.clone());
        std::thread::spawn(move || {
            let start = Instant::now();
            let mut socket = loop {
                if st.load(Ordering::SeqCst) {
                    return;
                }
                match std::net::TcpStream::connect(("127.0.0.1", port)) {
                    Ok(socket) => break socket,
                    Err(_) if start.elapsed() < Duration::from_secs(180) => {
                        std::thread::sleep(Duration::from_millis(50))
                    }
                    Err(e) => {
                        eprintln!("feeder: cannot connect to Monado on port {port}: {e}");
                        return;
                    }
                }
            };
            co.store(true, Ordering::SeqCst);
            while !st.load(Ordering::SeqCst) {
                let (l, r) = *s.lock().unwrap();
                if socket.write_all(&remote_packet(&l, &r)).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        Feeder {
            state,
            stop,
            connected,
        }
    }

    fn set(&self, change: impl FnOnce(&mut Controller, &mut Controller)) {
        let mut state = self.state.lock().unwrap();
        let (l, r) = &mut *state;
        change(l, r);
    }

    /// Moves one hand's controller in a straight line over `secs`, at ~60 steps a second.
    fn glide(&self, right_hand: bool, from: Vec3, to: Vec3, secs: f32) {
        let steps = (secs * 60.0) as usize;
        for i in 1..=steps {
            let p = from.lerp(to, i as f32 / steps as f32);
            self.set(|l, r| {
                if right_hand {
                    r.position = p
                } else {
                    l.position = p
                }
            });
            std::thread::sleep(Duration::from_secs_f32(secs / steps as f32));
        }
    }
}

impl Feeder {
    /// Turns one hand's controller by `angle` about its own forward axis (−Z), from
    /// `start`, over `secs`, at ~60 steps a second.
    fn twist(&self, right_hand: bool, start: Quat, angle: f32, secs: f32) {
        let forward = start * Vec3::NEG_Z;
        let steps = (secs * 60.0) as usize;
        for i in 1..=steps {
            let q = Quat::from_axis_angle(forward, angle * i as f32 / steps as f32) * start;
            self.set(|l, r| {
                if right_hand {
                    r.rotation = q
                } else {
                    l.rotation = q
                }
            });
            std::thread::sleep(Duration::from_secs_f32(secs / steps as f32));
        }
    }
}

impl Drop for Feeder {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

fn pause(secs: f32) {
    std::thread::sleep(Duration::from_secs_f32(secs));
}

/// World (model space) → the floor space the runtime reports controllers in: the player
/// stands 2 m in front of the avatar.
fn floor_space(world: Vec3) -> Vec3 {
    world - Vec3::new(0.0, 0.0, 2.0)
}

fn saved_pose_world(
    project: &Path,
    rig: &vrma_maker::core::body::rig::Rig,
) -> vrma_maker::core::body::rig::WorldPose {
    let project = vrma_maker::core::animation::project::Project::load(project, &mut Vec::new())
        .expect("saved project");
    rig.world_pose(&project.pose)
}

#[test]
fn controllers_grab_the_hips_and_a_hand_and_the_saved_project_shows_it() {
    use vrma_maker::core::animation::edit::{Edit, Editor, Gesture, PoseEdit};
    use vrma_maker::core::model::humanoid::Bone;
    use vrma_maker::core::model::mannequin::{self, MannequinVariant};

    let Some(manifest) = vr_ready() else {
        return;
    };
    let dir = scratch("vr-remote");
    let port = 4300 + (std::process::id() % 500) as u16;
    let config = remote_config(&dir, port);
    let saved = dir.join("saved.json");

    // Where things are: the built-in mannequin at rest (what the editor opens).
    let rig =
        vrma_maker::core::body::rig::rig_from_bytes(&mannequin::build(MannequinVariant::Vrm1))
            .unwrap();
    let mut expected = Editor::new(rig.clone());
    let rest = rig.world_pose(&expected.pose);
    let at =
        |world: &vrma_maker::core::body::rig::WorldPose, bone: Bone| world[bone.index()].unwrap().0;
    let hips = at(&rest, Bone::Hips);
    // The hand, after the hips went down 0.2 m.
    let lowered = hips - Vec3::Y * 0.2;
    expected
        .apply(Edit::preview(PoseEdit::MoveHips {
            to: Some(lowered),
            rotate: None,
            hold_pins: true,
        }))
        .unwrap();
    expected.apply(Edit::Gesture(Gesture::End)).unwrap();
    let hand = at(&rig.world_pose(&expected.pose), Bone::LeftHand);
    // In towards the chest, down and forward: well within the arm's reach.
    let hand_target = hand + Vec3::new(-0.15, -0.12, 0.12);

    let park_left = floor_space(hips + Vec3::new(0.8, 0.0, 0.6));
    let feeder = Feeder::start(
        port,
        Controller::at(park_left),
        Controller::at(floor_space(hips)),
    );
    let run = VrRun::start(
        &manifest,
        75,
        &["--save-on-exit", saved.to_str().unwrap()],
        &[("XDG_CONFIG_HOME", config.to_str().unwrap())],
    );
    assert!(feeder.connected.load(std::sync::atomic::Ordering::SeqCst));
    pause(2.0); // poses valid, spheres placed

    // Right controller: squeeze on the hips sphere, down 0.2 m, let go.
    feeder.set(|_, r| r.squeeze = 1.0);
    pause(1.0);
    feeder.glide(true, floor_space(hips), floor_space(lowered), 2.0);
    pause(1.5);
    feeder.set(|_, r| r.squeeze = 0.0);
    pause(1.0);
    // Park the right hand away; left controller: grab the left hand sphere and move it.
    feeder.glide(
        true,
        floor_space(lowered),
        floor_space(hips + Vec3::new(-0.8, 0.0, 0.6)),
        0.5,
    );
    feeder.glide(false, park_left, floor_space(hand), 1.0);
    pause(1.0);
    feeder.set(|l, _| l.squeeze = 1.0);
    pause(1.0);
    feeder.glide(false, floor_space(hand), floor_space(hand_target), 2.0);
    pause(1.5);
    feeder.set(|l, _| l.squeeze = 0.0);
    pause(1.0);
    // A (right hand) adds a key.
    feeder.set(|_, r| r.a = true);
    pause(1.0);
    feeder.set(|_, r| r.a = false);
    pause(1.0);
    // The right stick scrubs the playhead forward.
    feeder.set(|_, r| r.stick = Vec2::new(1.0, 0.0));
    pause(1.0);
    feeder.set(|_, r| r.stick = Vec2::ZERO);
    pause(0.5);
    // B undoes the key, Y (left hand's second button) redoes it, X plays and stops.
    for (right_hand, second) in [(true, true), (false, true), (false, false), (false, false)] {
        feeder.set(|l, r| {
            let c = if right_hand { r } else { l };
            if second { c.b = true } else { c.a = true }
        });
        pause(0.6);
        feeder.set(|l, r| {
            let c = if right_hand { r } else { l };
            c.a = false;
            c.b = false;
        });
        pause(0.8);
    }

    run.assert_in_time();
    let seen = run.finish(Duration::from_secs(200));
    drop(feeder);
    let world = saved_pose_world(&saved, &rig);

    // The hips went down ~0.2 m; the feet stayed pinned.
    let hips_after = at(&world, Bone::Hips);
    assert!(
        (hips_after.y - lowered.y).abs() < 0.01
            && Vec2::new(hips_after.x - hips.x, hips_after.z - hips.z).length() < 0.01,
        "hips {hips} → {hips_after}, expected {lowered}"
    );
    for foot in [Bone::LeftFoot, Bone::RightFoot] {
        let moved = at(&world, foot).distance(at(&rest, foot));
        assert!(moved < 0.005, "{foot:?} moved {moved} m");
    }
    // The left hand followed the controller.
    let hand_after = at(&world, Bone::LeftHand);
    assert!(
        hand_after.distance(hand_target) < 0.01,
        "hand at {hand_after}, controller took it to {hand_target}"
    );
    // A added a key holding that pose.
    let project = vrma_maker::core::animation::project::Project::load(&saved, &mut Vec::new())
        .expect("saved project");
    assert_eq!(project.timeline.keys().len(), 1, "{seen:#?}");
    let key_world = rig.world_pose(&project.timeline.keys()[0].pose);
    assert!(at(&key_world, Bone::LeftHand).distance(hand_after) < 1e-4);
    for command in ["AddKey", "Undo", "Redo", "PlayStop"] {
        assert!(
            seen.iter()
                .any(|l| l.contains(&format!("VR button: {command}"))),
            "no {command}: {seen:#?}"
        );
    }
    // Played and stopped: X twice.
    let play_stops = seen
        .iter()
        .filter(|l| l.contains("VR button: PlayStop"))
        .count();
    assert_eq!(play_stops, 2);
    // The stick moved the playhead (about 1 s at full deflection for 1 s, then playback).
    assert!(project.playhead > 0.3, "playhead {}", project.playhead);
}

/// A test's own folder with a Monado config for the remote driver on a port of its own
/// (`port_base` + a share of the process id), the mannequin written out, and `project`
/// saved there on it: (folder, port, config, model, project file).
fn remote_project(
    name: &str,
    port_base: u16,
    mut project: serde_json::Value,
) -> (PathBuf, u16, PathBuf, PathBuf, PathBuf) {
    let dir = scratch(name);
    let port = port_base + (std::process::id() % 500) as u16;
    let config = remote_config(&dir, port);
    let (model, _) = mannequins(&dir);
    project["model"] = serde_json::json!({"path": model});
    let path = dir.join("project.json");
    std::fs::write(&path, project.to_string()).unwrap();
    (dir, port, config, model, path)
}

/// Writes a Monado config selecting the remote driver on a port of this test's own.
fn remote_config(dir: &Path, port: u16) -> PathBuf {
    let config = dir.join("config");
    std::fs::create_dir_all(config.join("monado")).unwrap();
    std::fs::write(
        config.join("monado/config_v0.json"),
        format!(r#"{{"active":"remote","remote":{{"version":0,"port":{port},"view_count":2}}}}"#),
    )
    .unwrap();
    config
}

#[test]
fn a_pinch_lifts_a_foot_and_a_laser_lowers_the_hips_and_the_saved_project_shows_it() {
    use vrma_maker::core::model::humanoid::Bone;
    use vrma_maker::core::model::mannequin::{self, MannequinVariant};

    let Some(manifest) = vr_ready() else {
        return;
    };
    let dir = scratch("vr-pinch");
    let port = 4800 + (std::process::id() % 500) as u16;
    let config = remote_config(&dir, port);
    let saved = dir.join("saved.json");
    let rig =
        vrma_maker::core::body::rig::rig_from_bytes(&mannequin::build(MannequinVariant::Vrm1))
            .unwrap();
    let rest = rig.world_pose(&vrma_maker::core::body::pose::Pose::default());
    let at =
        |world: &vrma_maker::core::body::rig::WorldPose, bone: Bone| world[bone.index()].unwrap().0;
    let foot = at(&rest, Bone::LeftFoot);
    let hips = at(&rest, Bone::Hips);
    // Forward and up: the knee bends.
    let lift = Vec3::new(0.03, 0.18, 0.12);

    // The right hand, tracked, waits at the left foot with its fingers half curled (not
    // yet a pinch); the left controller is parked away.
    let mut hand = Controller::at(floor_space(foot));
    hand.hand_tracking = true;
    hand.index_curl = 0.6;
    hand.thumb_curl = 0.6;
    let park = floor_space(Vec3::new(-0.8, 1.0, 0.6));
    let feeder = Feeder::start(port, Controller::at(park), hand);
    let run = VrRun::start(
        &manifest,
        55,
        &["--save-on-exit", saved.to_str().unwrap()],
        &[("XDG_CONFIG_HOME", config.to_str().unwrap())],
    );
    pause(2.0); // joints tracked and smoothed
    // Pinch (the fingers close on the sphere), lift, hold still, open the hand. Closing
    // and opening move the fingertips' midpoint by a few centimetres; the sphere must
    // not follow that, only the hand.
    feeder.set(|_, r| {
        r.index_curl = 1.0;
        r.thumb_curl = 1.0;
    });
    pause(1.5);
    feeder.glide(true, floor_space(foot), floor_space(foot + lift), 2.0);
    pause(1.5);
    feeder.set(|_, r| {
        r.index_curl = 0.0;
        r.thumb_curl = 0.0;
    });
    pause(1.5);
    // The left controller, 1 m in front of the hips, points its laser at them (aim is
    // −Z, towards the avatar), pulls the trigger and tilts the laser down 0.1 m at that
    // distance by moving down.
    let aim_from = hips + Vec3::new(0.0, 0.0, 1.0);
    feeder.glide(false, park, floor_space(aim_from), 0.5);
    pause(1.0);
    feeder.set(|l, _| l.trigger = 1.0);
    pause(1.0);
    feeder.glide(
        false,
        floor_space(aim_from),
        floor_space(aim_from - Vec3::Y * 0.1),
        1.5,
    );
    pause(1.5);
    feeder.set(|l, _| l.trigger = 0.0);
    pause(1.0);
    run.assert_in_time();
    run.finish(Duration::from_secs(120));
    drop(feeder);
    let world = saved_pose_world(&saved, &rig);
    let moved = at(&world, Bone::LeftFoot) - foot;
    eprintln!(
        "pinch drag: foot moved {moved}, hand {lift}, error {} m",
        moved.distance(lift)
    );
    // The sphere follows the pinch point.
    assert!(
        moved.distance(lift) < 0.01,
        "the foot moved {moved}, the hand {lift}"
    );
    // The laser drag lowered the hips 0.1 m; both feet stayed where they were (pinned).
    let hips_after = at(&world, Bone::Hips);
    assert!(
        hips_after.distance(hips - Vec3::Y * 0.1) < 0.01,
        "hips {hips} → {hips_after}"
    );
    assert!(at(&world, Bone::RightFoot).distance(at(&rest, Bone::RightFoot)) < 0.005);
    assert!(at(&world, Bone::LeftFoot).distance(foot + lift) < 0.01);
}

/// Grab the head's turn handle and twist the controller 30° about its forward axis: the
/// head turns 30° about that axis and nothing below it moves. Then the neck's handle,
/// tilted the other way by the left controller: the neck turns (the head rides on it),
/// the spine still does not. Last, the right index finger's curl sphere, turned
/// inwards an eighth of a turn: that finger half curls, the others stay straight.
#[test]
fn twisting_a_controller_turns_the_head_only_and_the_neck_and_a_finger_their_own() {
    use vrma_maker::core::body::hand::{Finger, HandDirections};
    use vrma_maker::core::model::humanoid::{Bone, Side};
    use vrma_maker::core::model::mannequin::{self, MannequinVariant};
    use vrma_maker::core::vr::{PoseHandle, spheres};

    let Some(manifest) = vr_ready() else {
        return;
    };
    let dir = scratch("vr-turn");
    let port = 5300 + (std::process::id() % 500) as u16;
    let config = remote_config(&dir, port);
    let saved = dir.join("saved.json");
    let rig =
        vrma_maker::core::body::rig::rig_from_bytes(&mannequin::build(MannequinVariant::Vrm1))
            .unwrap();
    let rest_pose = vrma_maker::core::body::pose::Pose::default();
    let rest = rig.world_pose(&rest_pose);
    let handle_at = |handle: PoseHandle| {
        spheres(&rig, &HandDirections::measure(&rig), &rest_pose)
            .into_iter()
            .find(|s| s.handle == handle)
            .unwrap()
            .center
    };
    let head = handle_at(PoseHandle::Turn(Bone::Head));
    let neck = handle_at(PoseHandle::Turn(Bone::Neck));
    let index = handle_at(PoseHandle::Curl(Bone::RightIndexProximal));
    // The right controller is held pitched down a little and turned, so its forward
    // axis is none of the world's.
    let held = Quat::from_rotation_y(0.35) * Quat::from_rotation_x(-0.25);
    let forward = held * Vec3::NEG_Z;
    let mut right = Controller::at(floor_space(head));
    right.rotation = held;
    let park_left = floor_space(Vec3::new(-0.8, 1.0, 0.6));
    let feeder = Feeder::start(port, Controller::at(park_left), right);
    let run = VrRun::start(
        &manifest,
        80,
        &["--save-on-exit", saved.to_str().unwrap()],
        &[("XDG_CONFIG_HOME", config.to_str().unwrap())],
    );
    pause(2.0);
    let twist = 30f32.to_radians();
    feeder.set(|_, r| r.squeeze = 1.0);
    pause(1.0);
    feeder.twist(true, held, twist, 1.5);
    pause(1.5);
    feeder.set(|_, r| r.squeeze = 0.0);
    pause(1.0);
    // The right hand leaves; the left one takes the neck and turns it 20° the other way
    // about its own forward axis (the world's −Z).
    feeder.glide(
        true,
        floor_space(head),
        floor_space(Vec3::new(0.8, 1.0, 0.6)),
        0.5,
    );
    feeder.glide(false, park_left, floor_space(neck), 1.0);
    pause(1.0);
    feeder.set(|l, _| l.squeeze = 1.0);
    pause(1.0);
    let neck_twist = -20f32.to_radians();
    feeder.twist(false, Quat::IDENTITY, neck_twist, 1.5);
    pause(1.5);
    feeder.set(|l, _| l.squeeze = 0.0);
    pause(1.0);
    // The right hand takes its index finger's curl sphere and turns inwards an eighth.
    let right_now = Quat::from_axis_angle(forward, twist) * held;
    feeder.glide(
        true,
        floor_space(Vec3::new(0.8, 1.0, 0.6)),
        floor_space(index),
        1.0,
    );
    pause(1.0);
    feeder.set(|_, r| r.squeeze = 1.0);
    pause(1.0);
    feeder.twist(true, right_now, std::f32::consts::FRAC_PI_4, 1.5);
    pause(1.5);
    feeder.set(|_, r| r.squeeze = 0.0);
    pause(1.0);
    run.assert_in_time();
    run.finish(Duration::from_secs(120));
    drop(feeder);

    let project = vrma_maker::core::animation::project::Project::load(&saved, &mut Vec::new())
        .expect("saved project");
    let world = rig.world_pose(&project.pose);
    let pose = &project.pose;
    // The head's own turn, as it was made (its parents were at rest then): 30° about the
    // controller's forward axis.
    let hands = HandDirections::measure(&rig);
    let curl = |finger| hands.read_finger(pose, Side::Right, finger).curl;
    assert!(
        (curl(Finger::Index) - 0.5).abs() < 0.05,
        "an eighth of a turn half curls the index: {}",
        curl(Finger::Index)
    );
    for finger in [Finger::Thumb, Finger::Middle, Finger::Ring, Finger::Little] {
        assert!(
            curl(finger).abs() < 1e-3,
            "{finger:?} curled {}",
            curl(finger)
        );
    }
    let (axis, angle) = pose.rotation(Bone::Head).to_axis_angle();
    eprintln!(
        "head turned {:.2}° about {axis} (controller forward {forward})",
        angle.to_degrees()
    );
    assert!(
        (angle - twist).abs() < 1f32.to_radians(),
        "the head turned {:.2}°",
        angle.to_degrees()
    );
    assert!(
        axis.angle_between(forward) < 1f32.to_radians(),
        "about {axis}, the controller's forward is {forward}"
    );
    // The neck: 20° about the world's −Z, the way the left controller turned.
    let (axis, angle) = pose.rotation(Bone::Neck).to_axis_angle();
    let (axis, angle) = if axis.z > 0.0 {
        (-axis, -angle)
    } else {
        (axis, angle)
    };
    assert!(
        (angle - neck_twist).abs() < 1f32.to_radians() && axis.angle_between(Vec3::NEG_Z) < 0.02,
        "the neck turned {:.2}° about {axis}",
        angle.to_degrees()
    );
    // The head rode on the neck; nothing below the neck moved.
    let head_world = world[Bone::Head.index()].unwrap().1;
    let neck_world = world[Bone::Neck.index()].unwrap().1;
    assert!(head_world.angle_between(neck_world * pose.rotation(Bone::Head)) < 1e-4);
    for bone in [Bone::UpperChest, Bone::Chest, Bone::Spine, Bone::Hips] {
        let (_, was) = rest[bone.index()].unwrap();
        let (_, is) = world[bone.index()].unwrap();
        assert!(
            is.angle_between(was) < 1e-4,
            "{bone} turned {:.3}°",
            is.angle_between(was).to_degrees()
        );
    }
}

/// The face buttons and the right stick, checked by what the project holds: B brings
/// back exactly the state saved before the last edit, Y the state after it; the right
/// stick moves the playhead while playback is off, and it stays there.
#[test]
fn b_and_y_bring_back_the_saved_states_and_the_right_stick_scrubs_while_stopped() {
    use vrma_maker::core::model::humanoid::Bone;
    use vrma_maker::core::model::mannequin::{self, MannequinVariant};

    let Some(manifest) = vr_ready() else {
        return;
    };
    let (dir, port, config, _, project) = remote_project(
        "vr-buttons",
        5800,
        serde_json::json!({"v": 1, "fps": 30, "playhead": 0.0, "keys": [
            {"id": 1, "t": 0, "pose": {"bones": {"leftUpperArm": [0, 0, 0.5, 0.866]}}},
            {"id": 2, "t": 2, "pose": {"bones": {"spine": [0, 0.3, 0, 0.95]}}}]}),
    );
    let at_exit = dir.join("at-exit.json");
    let rig =
        vrma_maker::core::body::rig::rig_from_bytes(&mannequin::build(MannequinVariant::Vrm1))
            .unwrap();
    let hips = rig.world_pose(&vrma_maker::core::body::pose::Pose::default())[Bone::Hips.index()]
        .unwrap()
        .0;
    let feeder = Feeder::start(
        port,
        Controller::at(floor_space(Vec3::new(-0.8, 1.0, 0.6))),
        Controller::at(floor_space(hips)),
    );
    let run = VrRun::start(
        &manifest,
        90,
        &[
            project.to_str().unwrap(),
            "--save-on-exit",
            at_exit.to_str().unwrap(),
        ],
        &[("XDG_CONFIG_HOME", config.to_str().unwrap())],
    );
    pause(2.0);
    let kept = |p: &serde_json::Value| serde_json::json!({"keys": p["keys"], "pose": p["pose"]});
    let before = run.save(&project);

    // The edit: the hips down 0.1 m (the key at the playhead takes it).
    feeder.set(|_, r| r.squeeze = 1.0);
    pause(1.0);
    feeder.glide(
        true,
        floor_space(hips),
        floor_space(hips - Vec3::Y * 0.1),
        1.5,
    );
    pause(1.0);
    feeder.set(|_, r| r.squeeze = 0.0);
    pause(1.0);
    let after = run.save(&project);
    assert_ne!(kept(&after), kept(&before), "the grab changed the project");
    let press = |right_hand: bool| {
        feeder.set(|l, r| if right_hand { r.b = true } else { l.b = true });
        pause(0.6);
        feeder.set(|l, r| {
            l.b = false;
            r.b = false;
        });
        pause(0.8);
    };
    press(true); // B: undo
    let undone = run.save(&project);
    assert_eq!(
        kept(&undone),
        kept(&before),
        "B brings back the state before the edit"
    );
    press(false); // Y: redo
    let redone = run.save(&project);
    assert_eq!(
        kept(&redone),
        kept(&after),
        "Y brings back the state after it"
    );

    // The right stick, playback off: the playhead moves, then stays.
    assert_eq!(redone["playhead"].as_f64(), Some(0.0));
    feeder.set(|_, r| r.stick = Vec2::new(1.0, 0.0));
    pause(1.0);
    feeder.set(|_, r| r.stick = Vec2::ZERO);
    pause(0.5);
    let scrubbed = run.save(&project)["playhead"].as_f64().unwrap();
    assert!(
        (0.3..1.6).contains(&scrubbed),
        "about a second of full deflection moved the playhead to {scrubbed}"
    );
    pause(1.0);
    let later = run.save(&project)["playhead"].as_f64().unwrap();
    assert_eq!(later, scrubbed, "playback stayed off");
    run.assert_in_time();
    run.finish(Duration::from_secs(120));
    drop(feeder);
}

/// Where the panel stands when VR starts, in the world (the player as VR starts).
fn panel_at_start() -> vrma_maker::core::vr::panel::PanelPlace {
    use vrma_maker::core::vr::Place;
    vrma_maker::core::vr::panel::pinned_at_start().in_world(&Place::at_start())
}

/// The right controller, 0.35 m in front of the panel, aiming its laser (its −Z) straight
/// at the panel point `at`.
fn aim_at_panel(feeder: &Feeder, at: Vec2) {
    let place = panel_at_start();
    let from = place.point(at) + place.normal() * 0.35;
    feeder.set(|_, r| {
        r.position = floor_space(from);
        r.rotation = place.rotation;
    });
    pause(0.8);
}

/// A trigger pull, released.
fn pull_trigger(feeder: &Feeder) {
    feeder.set(|_, r| r.trigger = 1.0);
    pause(0.6);
    feeder.set(|_, r| r.trigger = 0.0);
    pause(0.8);
}

/// The panel in the headset, worked with the right controller's laser and trigger, each
/// outcome read from the project as saved: a press on the library's first thumbnail
/// applies that pose (and B takes it back in one step); a key dragged along the ruler
/// lands at its new time; the panel's Play runs playback; the hand-preset menu on the
/// left controller shapes both hands.
#[test]
fn the_panels_laser_applies_a_library_pose_moves_a_key_plays_and_the_hand_menu_shapes_the_hands() {
    use vrma_maker::core::animation::edit::{GripSide, PoseEdit};
    use vrma_maker::core::body::pose::{BodyMask, Pose};
    use vrma_maker::core::model::humanoid::Bone;
    use vrma_maker::core::vr::panel::{
        ADD_KEY_BUTTON, DELETE_KEY_BUTTON, EASE_BUTTON, EXPORT_BUTTON, PLAY_BUTTON, RULER,
        library_slot, radial_at, radial_slot,
    };
    use vrma_maker::core::vr::{Place, Pointer};

    let Some(manifest) = vr_ready() else {
        return;
    };
    let (dir, port, config, model, project) = remote_project(
        "vr-panel",
        6300,
        serde_json::json!({"v": 1, "fps": 30, "playhead": 0.0, "settings": {"length": 3.0},
            "keys": [
            {"id": 1, "t": 0, "pose": {"bones": {"spine": [0, 0.2, 0, 0.98]}}},
            {"id": 2, "t": 1, "pose": {"bones": {"spine": [0, -0.2, 0, 0.98]}}}]}),
    );
    // A library with one pose: the left arm raised.
    let data = dir.join("data");
    let mut arm_up = Pose::default();
    let raised = Quat::from_rotation_z(1.1);
    arm_up.set_rotation(Bone::LeftUpperArm, raised);
    let mut library = vrma_maker::core::animation::library::Library::open(&data.join("library"))
        .expect("library");
    library
        .add_part("arm up", &arm_up, BodyMask::WholeBody)
        .expect("saved");

    // The right controller starts aimed at the floor, away from the panel and spheres.
    let mut right = Controller::at(floor_space(Vec3::new(0.3, 1.0, 1.6)));
    right.rotation = Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2);
    let feeder = Feeder::start(
        port,
        Controller::at(floor_space(Vec3::new(-0.8, 0.6, 1.9))),
        right,
    );
    let run = VrRun::start(
        &manifest,
        130,
        &[project.to_str().unwrap()],
        &[
            ("XDG_CONFIG_HOME", config.to_str().unwrap()),
            ("VRMA_MAKER_DATA_DIR", data.to_str().unwrap()),
            ("RUST_LOG", "info,vrma_maker::app::vr=debug"),
        ],
    );
    pause(3.0);
    let kept = |p: &serde_json::Value| serde_json::json!({"keys": p["keys"], "pose": p["pose"]});
    let before = run.save(&project);

    // The library's first thumbnail: its pose is applied (and written into the key at
    // the playhead), in one undo step.
    aim_at_panel(&feeder, library_slot(0).center());
    pull_trigger(&feeder);
    let arm = |p: &serde_json::Value| {
        let q = &p["pose"]["bones"]["leftUpperArm"];
        Quat::from_xyzw(
            q[0].as_f64().unwrap_or(0.0) as f32,
            q[1].as_f64().unwrap_or(0.0) as f32,
            q[2].as_f64().unwrap_or(0.0) as f32,
            q[3].as_f64().unwrap_or(1.0) as f32,
        )
    };
    let applied = run.save_until(&project, |p| arm(p).angle_between(raised) < 1e-3);
    assert!(
        arm(&applied).angle_between(raised) < 1e-3,
        "the library pose was not applied: {}",
        applied["pose"]
    );
    feeder.set(|_, r| r.b = true);
    pause(0.6);
    feeder.set(|_, r| r.b = false);
    pause(0.8);
    let undone = run.save_until(&project, |p| kept(p) == kept(&before));
    assert_eq!(kept(&undone), kept(&before), "one B took the pose back");

    // The key at 1 s, dragged along the ruler to 2 s (the ruler spans the 3 s length).
    let x = |t: f32| RULER.min.x + 10.0 + t / 3.0 * (RULER.size.x - 20.0);
    let key_row = RULER.min.y + 76.0;
    let (from, to) = (Vec2::new(x(1.0), key_row), Vec2::new(x(2.0), key_row));
    aim_at_panel(&feeder, from);
    let place = panel_at_start();
    let start = floor_space(place.point(from) + place.normal() * 0.35);
    let end = start + (place.point(to) - place.point(from));
    feeder.set(|_, r| r.trigger = 1.0);
    pause(0.6);
    feeder.glide(true, start, end, 1.5);
    pause(0.6);
    feeder.set(|_, r| r.trigger = 0.0);
    pause(0.8);
    let moved = run.save_until(&project, |p| {
        p["keys"][1]["t"]
            .as_f64()
            .is_some_and(|t| (t - 2.0).abs() < 0.07)
    });
    let times: Vec<f64> = moved["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["t"].as_f64().unwrap())
        .collect();
    assert_eq!(times.len(), 2, "{times:?}");
    assert!(
        times[0].abs() < 1e-6 && (times[1] - 2.0).abs() < 0.07,
        "the key did not move from 1 s to 2 s: {times:?}"
    );

    // The library's thumbnail dragged down onto the ruler at 1.5 s: a key there with
    // that pose.
    let thumb = library_slot(0).center();
    let drop_at = Vec2::new(x(1.5), key_row);
    aim_at_panel(&feeder, thumb);
    let start = floor_space(place.point(thumb) + place.normal() * 0.35);
    let end = start + (place.point(drop_at) - place.point(thumb));
    feeder.set(|_, r| r.trigger = 1.0);
    pause(0.6);
    feeder.glide(true, start, end, 1.5);
    pause(0.6);
    feeder.set(|_, r| r.trigger = 0.0);
    pause(0.8);
    let dropped = run.save_until(&project, |p| {
        p["keys"].as_array().is_some_and(|k| k.len() == 3)
    });
    let keys = dropped["keys"].as_array().unwrap();
    let placed = keys
        .iter()
        .find(|k| (k["t"].as_f64().unwrap() - 1.5).abs() < 0.07)
        .unwrap_or_else(|| panic!("no key near 1.5 s: {keys:?}"));
    let q = &placed["pose"]["bones"]["leftUpperArm"];
    let placed_arm = Quat::from_xyzw(
        q[0].as_f64().unwrap() as f32,
        q[1].as_f64().unwrap() as f32,
        q[2].as_f64().unwrap() as f32,
        q[3].as_f64().unwrap() as f32,
    );
    assert!(placed_arm.angle_between(raised) < 1e-3, "{placed}");
    assert_eq!(keys.len(), 3);
    // + Key on the panel keys the pose at the playhead (the drop left it at 1.5 s, on
    // the new key): one more key only where none was, so the right stick first moves
    // the playhead back about half a second, between the keys at 0 s and 1.5 s.
    feeder.set(|_, r| r.stick = Vec2::new(-1.0, 0.0));
    pause(0.5);
    feeder.set(|_, r| r.stick = Vec2::ZERO);
    pause(0.5);
    aim_at_panel(&feeder, ADD_KEY_BUTTON.center());
    pull_trigger(&feeder);
    let keyed = run.save_until(&project, |p| {
        p["keys"].as_array().is_some_and(|k| k.len() == 4)
    });
    let at = keyed["playhead"].as_f64().unwrap();
    let keys = keyed["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 4, "+ Key at {at}: {keys:?}");
    assert!(
        keys.iter()
            .any(|k| (k["t"].as_f64().unwrap() - at).abs() < 0.02)
    );

    // Ease on the panel steps the ease of the key it acts on (the selection's first, or
    // the key at the playhead), and Delete key then removes that same key: each one edit.
    let eases = |p: &serde_json::Value| -> Vec<(u64, String)> {
        p["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| (k["id"].as_u64().unwrap(), k["ease"].to_string()))
            .collect()
    };
    aim_at_panel(&feeder, EASE_BUTTON.center());
    pull_trigger(&feeder);
    let eased = run.save_until(&project, |p| eases(p) != eases(&keyed));
    let changed: Vec<u64> = eases(&eased)
        .iter()
        .zip(eases(&keyed))
        .filter(|(now, was)| **now != *was)
        .map(|(now, _)| now.0)
        .collect();
    assert_eq!(
        changed.len(),
        1,
        "Ease changed {changed:?}: {:?}",
        eased["keys"]
    );
    aim_at_panel(&feeder, DELETE_KEY_BUTTON.center());
    pull_trigger(&feeder);
    let deleted = run.save_until(&project, |p| {
        p["keys"].as_array().is_some_and(|k| k.len() == 3)
    });
    let left: Vec<u64> = eases(&deleted).iter().map(|k| k.0).collect();
    assert_eq!(left.len(), 3, "Delete key: {:?}", deleted["keys"]);
    assert!(
        !left.contains(&changed[0]),
        "Delete key removed another key than the eased one ({}): {left:?}",
        changed[0]
    );
    let dropped = deleted;

    // Play on the panel: the playhead, still before (no stick, no button), runs by
    // itself after.
    let stopped = dropped["playhead"].as_f64().unwrap();
    pause(1.0);
    assert_eq!(run.save(&project)["playhead"].as_f64(), Some(stopped));
    aim_at_panel(&feeder, PLAY_BUTTON.center());
    pull_trigger(&feeder);
    let first = run.save(&project)["playhead"].as_f64().unwrap();
    pause(1.0);
    let second = run.save(&project)["playhead"].as_f64().unwrap();
    assert!(
        second != first,
        "playback did not run: {stopped} → {first} → {second}"
    );

    // Stop on the panel, then the hand-preset menu: the right stick's click opens it
    // on the left controller, and a trigger pull on Fist shapes both hands as the
    // same edit does in the core (one undo step).
    aim_at_panel(&feeder, PLAY_BUTTON.center());
    pull_trigger(&feeder);
    let stopped = run.save(&project);
    let left_grip = Vec3::new(-0.3, 1.0, -0.35);
    feeder.set(|l, r| {
        l.position = left_grip;
        l.rotation = Quat::IDENTITY;
        r.stick_click = true;
    });
    pause(0.5);
    feeder.set(|_, r| r.stick_click = false);
    pause(0.8);
    let menu = radial_at(&Pointer::new(left_grip, Quat::IDENTITY)).in_world(&Place::at_start());
    let presets = vrma_maker::core::body::hand::presets();
    let fist = presets
        .iter()
        .position(|p| p.name == "fist")
        .expect("a fist preset");
    let target = menu.point(radial_slot(fist, presets.len()).center());
    feeder.set(|_, r| {
        r.position = floor_space(target + menu.normal() * 0.3);
        r.rotation = menu.rotation;
    });
    pause(0.8);
    pull_trigger(&feeder);
    let rig = vrma_maker::core::body::rig::rig_from_bytes(&std::fs::read(&model).unwrap()).unwrap();
    let mut editor = vrma_maker::core::animation::edit::Editor::new(rig);
    editor.pose = Pose::from_json(&stopped["pose"], &mut Vec::new()).unwrap();
    editor
        .apply(vrma_maker::core::animation::edit::Edit::Pose(
            PoseEdit::Hand {
                side: GripSide::Both,
                shape: Box::new(presets[fist].shape),
                amount: 1.0,
            },
        ))
        .unwrap();
    let fist_in = |p: &serde_json::Value| {
        Pose::from_json(&p["pose"], &mut Vec::new()).is_ok_and(|pose| {
            pose.rotation(Bone::LeftIndexProximal)
                .angle_between(editor.pose.rotation(Bone::LeftIndexProximal))
                < 1e-3
        })
    };
    let shaped = run.save_until(&project, fist_in);
    let saved_pose = Pose::from_json(&shaped["pose"], &mut Vec::new()).unwrap();
    for bone in [
        Bone::LeftIndexProximal,
        Bone::RightIndexDistal,
        Bone::RightThumbProximal,
    ] {
        let (got, want) = (saved_pose.rotation(bone), editor.pose.rotation(bone));
        assert!(
            got.angle_between(want) < 1e-3 && want.angle_between(Quat::IDENTITY) > 0.3,
            "{bone:?}: {got} after the hand menu's Fist, {want} expected"
        );
    }

    // Export VRMA on the panel: written beside the project, its keys where the project
    // has them (read back by import-anim).
    feeder.set(|_, r| r.stick_click = true);
    pause(0.5);
    feeder.set(|_, r| r.stick_click = false);
    aim_at_panel(&feeder, EXPORT_BUTTON.center());
    pull_trigger(&feeder);
    let exported = dir.join("project.vrma");
    let start = Instant::now();
    while !exported.exists() && start.elapsed() < Duration::from_secs(20) {
        pause(0.3);
    }
    pause(0.5);
    let back = dir.join("back.json");
    json_stdout(&crate::common::run(&[
        "import-anim",
        "--model",
        model.to_str().unwrap(),
        "--anim",
        exported.to_str().unwrap(),
        "-o",
        back.to_str().unwrap(),
    ]));
    let times = |p: &serde_json::Value| -> Vec<f64> {
        p["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| (k["t"].as_f64().unwrap() * 30.0).round())
            .collect()
    };
    let back: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&back).unwrap()).unwrap();
    assert_eq!(times(&back), times(&shaped), "the exported keys");
    run.assert_in_time();
    run.finish(Duration::from_secs(120));
    drop(feeder);
}

/// Counts the pixels of the VR panel's own background colour in a picture.
fn panel_coloured(img: &image::RgbaImage) -> f32 {
    let fill = [18i32, 30, 52];
    let near = img
        .pixels()
        .filter(|p| (0..3).all(|c| (p[c] as i32 - fill[c]).abs() <= 6))
        .count();
    near as f32 / (img.width() * img.height()) as f32
}

/// Turning, recentring and scaling, each checked by where a grab lands in the saved
/// project: after a snap turn the hands' floor space is turned 30° about the head, so a
/// sideways drag moves the hips along the turned direction; held down, the left stick
/// puts the player back where VR starts; both grips pulled apart show the avatar twice
/// as big, so the same drag moves it half as far. The window meanwhile mirrors the
/// headset: the panel, seen only by the headset's cameras, shows in it.
#[test]
fn a_snap_turn_a_recentre_and_a_two_handed_pull_change_where_the_hands_reach() {
    use vrma_maker::core::model::humanoid::Bone;
    use vrma_maker::core::model::mannequin::{self, MannequinVariant};
    use vrma_maker::core::vr::{Place, SNAP_TURN};

    let Some(manifest) = vr_ready() else {
        return;
    };
    let (dir, port, config, _, project) = remote_project(
        "vr-comfort",
        6800,
        serde_json::json!({"v": 1, "fps": 30, "keys": []}),
    );
    let rig =
        vrma_maker::core::body::rig::rig_from_bytes(&mannequin::build(MannequinVariant::Vrm1))
            .unwrap();
    let hips_in = |p: &serde_json::Value| {
        let pose = vrma_maker::core::body::pose::Pose::from_json(&p["pose"], &mut Vec::new())
            .expect("pose");
        rig.world_pose(&pose)[Bone::Hips.index()].unwrap().0
    };
    let park_left = Vec3::new(-0.8, 0.6, 1.9);
    let park_right = Vec3::new(0.8, 0.6, 1.9);
    let feeder = Feeder::start(
        port,
        Controller::at(floor_space(park_left)),
        Controller::at(floor_space(park_right)),
    );
    let run = VrRun::start(
        &manifest,
        110,
        &[project.to_str().unwrap()],
        &[("XDG_CONFIG_HOME", config.to_str().unwrap())],
    );
    pause(2.0);
    let mut hips = hips_in(&run.save(&project));

    // A grab of the hips by the right grip, with the player at `place`: the controller
    // goes to where the hips are, squeezes, moves `floor_move` in its floor space, lets go.
    let drag_hips = |place: &Place, from: Vec3, floor_move: Vec3| {
        let start = place.floor(from);
        feeder.glide(true, place.floor(park_right), start, 0.6);
        pause(0.5);
        feeder.set(|_, r| r.squeeze = 1.0);
        pause(0.6);
        feeder.glide(true, start, start + floor_move, 1.0);
        pause(0.6);
        feeder.set(|_, r| r.squeeze = 0.0);
        pause(0.6);
        feeder.glide(true, start + floor_move, place.floor(park_right), 0.6);
    };
    let floor_move = Vec3::new(0.08, -0.05, 0.0);

    // Snap turn to the right: one push of the left stick.
    feeder.set(|l, _| l.stick = Vec2::new(1.0, 0.0));
    pause(0.6);
    feeder.set(|l, _| l.stick = Vec2::ZERO);
    pause(0.6);
    let head = Vec3::new(0.0, 1.6, 0.0);
    let turned = Place::at_start().turned(head, SNAP_TURN);
    drag_hips(&turned, hips, floor_move);
    let after_turn = hips_in(&run.save(&project));
    let expected = turned.rotation * floor_move;
    assert!(
        (after_turn - hips).distance(expected) < 0.01,
        "after a snap turn the hips moved {} for a hand move of {floor_move} (expected {expected})",
        after_turn - hips
    );
    hips = after_turn;

    // Recentre: hold the left stick down.
    feeder.set(|l, _| l.stick_click = true);
    pause(1.8);
    feeder.set(|l, _| l.stick_click = false);
    pause(0.5);
    let start = Place::at_start();
    drag_hips(&start, hips, floor_move);
    let after_recentre = hips_in(&run.save(&project));
    // Back where VR started, the window mirrors the headset (the panel in view).
    let mirrored = grab_display(&run.display, &dir.join("mirror.png"));
    assert!(
        (after_recentre - hips).distance(floor_move) < 0.01,
        "after recentring the hips moved {}",
        after_recentre - hips
    );
    hips = after_recentre;

    // Both grips, away from every sphere, pulled from 0.5 m to 1 m apart.
    let (l0, r0) = (Vec3::new(-0.25, 1.0, -0.2), Vec3::new(0.25, 1.0, -0.2));
    feeder.glide(false, start.floor(park_left), l0, 0.5);
    feeder.glide(true, start.floor(park_right), r0, 0.5);
    pause(0.5);
    feeder.set(|l, r| {
        l.squeeze = 1.0;
        r.squeeze = 1.0;
    });
    pause(0.6);
    let apart = Vec3::X * 0.25;
    let steps = 60;
    for i in 1..=steps {
        let f = i as f32 / steps as f32;
        feeder.set(|l, r| {
            l.position = l0 - apart * f;
            r.position = r0 + apart * f;
        });
        pause(1.5 / steps as f32);
    }
    pause(0.6);
    feeder.set(|l, r| {
        l.squeeze = 0.0;
        r.squeeze = 0.0;
    });
    pause(0.5);
    feeder.glide(false, l0 - apart, start.floor(park_left), 0.5);
    let middle = (l0 + r0) * 0.5;
    let world_middle = start.point(middle);
    let scaled = Place {
        translation: world_middle - middle * 0.5,
        rotation: start.rotation,
        scale: 0.5,
    };
    feeder.glide(true, r0 + apart, scaled.floor(park_right), 0.5);
    drag_hips(&scaled, hips, floor_move);
    let after_scale = hips_in(&run.save(&project));
    assert!(
        (after_scale - hips).distance(floor_move * 0.5) < 0.01,
        "with the avatar shown twice as big the hips moved {} for a hand move of {floor_move}",
        after_scale - hips
    );
    run.assert_in_time();
    run.finish(Duration::from_secs(120));
    drop(feeder);
    // The window showed the headset's view: the panel (which only the headset's cameras
    // and the mirror see) covers part of it.
    let panel = panel_coloured(&mirrored);
    assert!(
        panel > 0.004,
        "the panel covers {panel:.4} of the mirrored window"
    );
}

/// In the headset the body follows a pulled hand (on by default there): the left hand's
/// sphere gripped and pulled 30 % past the arm's reach is reached by leaning the waist
/// and chest after it, the pinned feet staying put. A grip-click (squeeze and let go) on
/// the right hand's sphere pins that hand, and a second one lets it go.
#[test]
fn a_hand_pulled_past_reach_leans_the_body_and_a_grip_click_pins_a_hand() {
    use vrma_maker::core::body::hand::HandDirections;
    use vrma_maker::core::model::humanoid::Bone;
    use vrma_maker::core::model::mannequin::{self, MannequinVariant};
    use vrma_maker::core::vr::{PoseHandle, spheres};

    let Some(manifest) = vr_ready() else {
        return;
    };
    let (dir, port, config, _, project) = remote_project(
        "vr-reach",
        7300,
        serde_json::json!({"v": 1, "fps": 30, "keys": []}),
    );
    let at_exit = dir.join("at-exit.json");
    let rig =
        vrma_maker::core::body::rig::rig_from_bytes(&mannequin::build(MannequinVariant::Vrm1))
            .unwrap();
    let rest_pose = vrma_maker::core::body::pose::Pose::default();
    let rest = rig.world_pose(&rest_pose);
    let at =
        |world: &vrma_maker::core::body::rig::WorldPose, bone: Bone| world[bone.index()].unwrap().0;
    let right_hand = spheres(&rig, &HandDirections::measure(&rig), &rest_pose)
        .into_iter()
        .find(|s| s.handle == PoseHandle::Reach(Bone::RightHand))
        .unwrap()
        .center;
    let (shoulder, elbow, hand) = (
        at(&rest, Bone::LeftUpperArm),
        at(&rest, Bone::LeftLowerArm),
        at(&rest, Bone::LeftHand),
    );
    let arm = shoulder.distance(elbow) + elbow.distance(hand);
    let target = shoulder + Vec3::new(0.5, -0.2, 1.0).normalize() * arm * 1.3;

    let park_left = floor_space(Vec3::new(0.9, 1.0, 0.8));
    let park_right = floor_space(Vec3::new(-0.9, 1.0, 0.8));
    let feeder = Feeder::start(
        port,
        Controller::at(park_left),
        Controller::at(floor_space(right_hand)),
    );
    let run = VrRun::start(
        &manifest,
        60,
        &[
            project.to_str().unwrap(),
            "--save-on-exit",
            at_exit.to_str().unwrap(),
        ],
        &[("XDG_CONFIG_HOME", config.to_str().unwrap())],
    );
    pause(2.0);
    let pins = |p: &serde_json::Value| p["pins"].clone();
    let grip_click = || {
        feeder.set(|_, r| r.squeeze = 1.0);
        pause(0.3);
        feeder.set(|_, r| r.squeeze = 0.0);
        pause(0.8);
    };
    grip_click();
    let pinned = run.save_until(&project, |p| pins(p).to_string().contains("rightHand"));
    assert_eq!(
        pins(&pinned),
        serde_json::json!(["rightHand", "leftFoot", "rightFoot"]),
        "a grip-click pinned the right hand"
    );
    grip_click();
    let let_go = run.save_until(&project, |p| !pins(p).to_string().contains("rightHand"));
    assert_eq!(pins(&let_go), serde_json::json!(["leftFoot", "rightFoot"]));

    // The right controller out of the way; the left one takes the left hand and pulls.
    feeder.glide(true, floor_space(right_hand), park_right, 0.5);
    feeder.glide(false, park_left, floor_space(hand), 1.0);
    pause(1.0);
    feeder.set(|l, _| l.squeeze = 1.0);
    pause(1.0);
    feeder.glide(false, floor_space(hand), floor_space(target), 2.0);
    pause(1.5);
    feeder.set(|l, _| l.squeeze = 0.0);
    pause(1.0);
    run.assert_in_time();
    run.finish(Duration::from_secs(120));
    drop(feeder);

    let world = saved_pose_world(&at_exit, &rig);
    let reached = at(&world, Bone::LeftHand);
    assert!(
        reached.distance(target) < 0.02,
        "the hand reached {reached}, pulled to {target} ({:.3} m off)",
        reached.distance(target)
    );
    for foot in [Bone::LeftFoot, Bone::RightFoot] {
        let moved = at(&world, foot).distance(at(&rest, foot));
        assert!(moved < 0.005, "{foot:?} moved {moved} m");
    }
    let project = vrma_maker::core::animation::project::Project::load(&at_exit, &mut Vec::new())
        .expect("saved project");
    let turned = |b: Bone| {
        project
            .pose
            .rotation(b)
            .angle_between(Quat::IDENTITY)
            .to_degrees()
    };
    assert!(
        turned(Bone::Spine) + turned(Bone::Chest) > 3.0,
        "the waist and chest leaned: spine {:.1}°, chest {:.1}°",
        turned(Bone::Spine),
        turned(Bone::Chest)
    );
}
