//! The 3D view and the keyboard driven as a person drives them: real pointer moves,
//! button presses and key taps through xdotool, under Xvfb on lavapipe. Outcomes are
//! read from screenshots and from the project the window saves at exit.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::*;

mod posing;

fn pause(seconds: f32) {
    std::thread::sleep(Duration::from_secs_f32(seconds));
}

/// Bright pixels of the 3D view above the pose library window (the lit mannequin and
/// its markers; the floor grid is darker): how many, and where their centre is.
fn silhouette(img: &image::RgbaImage) -> (u32, f32) {
    let (mut count, mut sum_x) = (0u32, 0f64);
    for y in 40..400 {
        for x in 280..1050 {
            let p = img.get_pixel(x, y);
            let luma = 0.3 * p[0] as f32 + 0.59 * p[1] as f32 + 0.11 * p[2] as f32;
            if luma > 185.0 {
                count += 1;
                sum_x += x as f64;
            }
        }
    }
    (count, (sum_x / count.max(1) as f64) as f32)
}

/// The share of pixels in a region that differ clearly between two screenshots.
/// A box of the window: (x from, x to), (y from, y to).
type Region = ((u32, u32), (u32, u32));

fn changed(a: &image::RgbaImage, b: &image::RgbaImage, x: (u32, u32), y: (u32, u32)) -> f64 {
    let mut hit = 0;
    for py in y.0..y.1 {
        for px in x.0..x.1 {
            let (p, q) = (a.get_pixel(px, py), b.get_pixel(px, py));
            hit += (0..3).any(|c| (p[c] as i32 - q[c] as i32).abs() > 40) as u32;
        }
    }
    hit as f64 / ((x.1 - x.0) * (y.1 - y.0)) as f64
}

/// A scratch folder with the mannequin in it, or `None` when the display stack is
/// missing (then the test has said so and checks nothing).
fn prepare(name: &str) -> Option<(std::path::PathBuf, std::path::PathBuf)> {
    if !required_or_skip(
        "Xvfb, a Vulkan driver, xdotool and ImageMagick",
        have_display_stack() && have_xdotool() && have_time_and_import(),
    ) {
        return None;
    }
    let dir = scratch(name);
    let (model, _) = mannequins(&dir);
    Some((dir, model))
}

struct Session {
    _xvfb: Xvfb,
    display: String,
    window: String,
    app: std::process::Child,
    log: std::path::PathBuf,
    /// Written when the test is done: the app quits then (`--quit-when`), not at its
    /// `--exit-after` deadline, which is set long for a slow machine.
    quit_file: std::path::PathBuf,
}

fn start(dir: &Path, model: &Path, saved: &Path) -> Session {
    start_for(dir, model, saved, 45)
}

/// Opens a model or project; the window saves to `saved` and exits after `seconds`.
fn start_for(dir: &Path, opened: &Path, saved: &Path, seconds: u32) -> Session {
    start_with(dir, opened, saved, seconds, &[])
}

/// As [`start_for`], with more arguments for the app.
fn start_with(dir: &Path, opened: &Path, saved: &Path, seconds: u32, extra: &[&str]) -> Session {
    start_with_env(dir, opened, saved, seconds, extra, &[])
}

/// As [`start_with`], with more environment for the app.
fn start_with_env(
    dir: &Path,
    opened: &Path,
    saved: &Path,
    seconds: u32,
    extra: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
) -> Session {
    let (xvfb, display) = start_xvfb().expect("Xvfb starts");
    static RUNS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let log = dir.join(format!("log-{run}.txt"));
    let quit_file = dir.join(format!("quit-{run}"));
    let _ = std::fs::remove_file(&quit_file);
    let file = std::fs::File::create(&log).unwrap();
    let app = bin()
        .arg(opened)
        .args(["--exit-after", &seconds.to_string(), "--save-on-exit"])
        .arg(saved)
        .arg("--quit-when")
        .arg(&quit_file)
        .args(extra)
        .env("DISPLAY", &display)
        .env("VRMA_MAKER_DATA_DIR", dir.join("data"))
        // The pose models where they are installed (the data folder above is a scratch one).
        .env(
            "VRMA_MAKER_POSE_MODELS",
            vrma_maker::vision::default_models_dir(),
        )
        // No desktop bus (and no portal): every file dialog is the window's built-in
        // one, driven here like any other control.
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env("XDG_RUNTIME_DIR", dir)
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .stdin(Stdio::null())
        .envs(env.iter().copied())
        .spawn()
        .unwrap();
    let window = wait_for_window(&display);
    wait_for_log(&log, "model ready to pose", Duration::from_secs(120));
    pause(2.0); // the first frames after it (layout, fonts)
    xdotool(&display, &["windowfocus", "--sync", &window]);
    // The pointer rests over the 3D view, clear of the avatar and its markers.
    xdotool(&display, &["mousemove", "--window", &window, "360", "560"]);
    pause(1.0);
    Session {
        _xvfb: xvfb,
        display,
        window,
        app,
        log,
        quit_file,
    }
}

impl Session {
    fn drag(&self, button: &str, from: (i32, i32), by: (i32, i32), shift: bool) {
        let d = &self.display;
        xdotool(
            d,
            &[
                "mousemove",
                "--window",
                &self.window,
                &from.0.to_string(),
                &from.1.to_string(),
            ],
        );
        pause(0.4);
        if shift {
            xdotool(d, &["keydown", "shift"]);
        }
        xdotool(d, &["mousedown", button]);
        pause(0.3);
        for step in 1..=10 {
            let x = from.0 + by.0 * step / 10;
            let y = from.1 + by.1 * step / 10;
            xdotool(
                d,
                &[
                    "mousemove",
                    "--window",
                    &self.window,
                    &x.to_string(),
                    &y.to_string(),
                ],
            );
            pause(0.1);
        }
        pause(0.3);
        xdotool(d, &["mouseup", button]);
        if shift {
            xdotool(d, &["keyup", "shift"]);
        }
        pause(1.0);
    }

    /// Moves the pointer to a window position and lets a frame see it.
    fn point(&self, (x, y): (i32, i32)) {
        let (x, y) = (x.to_string(), y.to_string());
        xdotool(
            &self.display,
            &["mousemove", "--window", &self.window, &x, &y],
        );
        pause(0.4);
    }

    fn click(&self, at: (i32, i32)) {
        self.point(at);
        xdotool(&self.display, &["click", "1"]);
        pause(0.8);
    }

    /// Presses the left button at the first point, moves through the others, releases.
    fn left_drag(&self, path: &[(i32, i32)]) {
        self.point(path[0]);
        xdotool(&self.display, &["mousedown", "1"]);
        pause(0.3);
        for &at in &path[1..] {
            let (x, y) = (at.0.to_string(), at.1.to_string());
            xdotool(
                &self.display,
                &["mousemove", "--window", &self.window, &x, &y],
            );
            pause(0.15);
        }
        pause(0.3);
        xdotool(&self.display, &["mouseup", "1"]);
        pause(0.8);
    }

    /// Gives the built-in file dialog (it has the keyboard) `path` in place of its
    /// default name, and Enter.
    fn answer_path_dialog(&self, path: &Path) {
        pause(1.0);
        retype_field(&self.display, path.to_str().unwrap());
        pause(0.5);
        xdotool(&self.display, &["key", "Return"]);
    }

    /// Ctrl+S, then the project as written to `path`.
    fn save(&self, path: &Path) -> Value {
        save_by_ctrl_s(&self.display, path)
    }

    /// Checks that an action was one undo step: Ctrl+Z brings back `before` exactly,
    /// Ctrl+Y brings back `after`.
    fn one_undo_step(&self, path: &Path, what: &str, before: &Value, after: &Value) {
        ctrl_chord(&self.display, "z");
        let undone = self.save(path);
        assert_eq!(
            content(&undone, before),
            content(before, &undone),
            "one Ctrl+Z undid all of {what}"
        );
        ctrl_chord(&self.display, "y");
        let redone = self.save(path);
        assert_eq!(
            content(&redone, after),
            content(after, &redone),
            "Ctrl+Y redid {what}"
        );
    }

    fn shot(&self, name: &str, dir: &Path) -> image::RgbaImage {
        grab_display(&self.display, &dir.join(name))
    }

    /// A screenshot once the window has stopped changing (it draws on demand, so it
    /// settles quickly; on a loaded machine a frame can take a second, so it must stay
    /// the same for three looks in a row).
    fn settled(&self, name: &str, dir: &Path) -> image::RgbaImage {
        let mut last = self.shot(name, dir);
        let mut unchanged = 0;
        for _ in 0..40 {
            pause(0.4);
            let now = self.shot(name, dir);
            let (w, h) = (now.width(), now.height());
            unchanged = if changed(&last, &now, (0, w), (0, h)) < 0.0002 {
                unchanged + 1
            } else {
                0
            };
            last = now;
            if unchanged == 3 {
                break;
            }
        }
        last
    }

    /// Clicks, then waits until `region` shows the click's outcome (it changes).
    fn click_until_changed(&self, at: (i32, i32), region: Region, dir: &Path) {
        let before = self.shot("before-click.png", dir);
        self.click(at);
        for _ in 0..60 {
            if changed(
                &before,
                &self.shot("after-click.png", dir),
                region.0,
                region.1,
            ) > 0.005
            {
                return;
            }
            pause(0.25);
        }
        panic!("a click at {at:?} changed nothing in {region:?}");
    }

    /// Chooses a menu item, waiting at each step for the window to show it (on a loaded
    /// machine a frame can take seconds, and a click sent before the menu is drawn lands
    /// on whatever was under it). `region` holds the open menu; the menu is closed
    /// afterwards (Escape if the item left it open).
    fn choose(&self, title: (i32, i32), item: (i32, i32), region: Region, dir: &Path) {
        let wait_for = |what: &str, done: &dyn Fn(&image::RgbaImage) -> bool| {
            for _ in 0..60 {
                if done(&self.shot("menu.png", dir)) {
                    return;
                }
                pause(0.25);
            }
            panic!("the menu at {title:?}: {what} did not show");
        };
        let (x, y) = region;
        // The pointer rests on the title first, so that no highlight in `region` goes
        // out when it moves there; the open menu changes about a tenth of the region, a
        // highlight a hundredth.
        self.point(title);
        pause(0.5);
        let closed = self.shot("menu-closed.png", dir);
        self.click(title);
        wait_for("opening", &|now| changed(&closed, now, x, y) > 0.05);
        let open = self.shot("menu-open.png", dir);
        self.click(item);
        wait_for("the choice", &|now| changed(&open, now, x, y) > 0.0005);
        // The pointer leaves the menu, so that what it hovers once the menu closes (a
        // highlight, a tooltip) is not taken for the menu.
        xdotool(&self.display, &["mousemove", "400", "11"]);
        let still_open =
            |now: &image::RgbaImage| changed(&open, now, x, y) < changed(&closed, now, x, y);
        if still_open(&self.shot("menu.png", dir)) {
            xdotool(&self.display, &["key", "Escape"]);
            wait_for("closing", &|now| !still_open(now));
        }
    }

    /// Quits the app (as its timed exit would) once it has drawn what the test did last
    /// (a drop's key, a typed value), and reads the project saved then.
    fn finish(mut self, saved: &Path) -> Value {
        self.settled("before-quitting.png", saved.parent().unwrap());
        std::fs::write(&self.quit_file, b"").unwrap();
        let status = wait_with_timeout(&mut self.app, Duration::from_secs(90));
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        assert!(status.is_some_and(|s| s.success()), "{status:?}\n{log}");
        serde_json::from_slice(&std::fs::read(saved).expect("saved at exit")).unwrap()
    }
}

#[test]
fn orbit_pan_zoom_follow_the_real_mouse_and_fast_key_taps_all_count() {
    let Some((dir, model)) = prepare("window-mouse") else {
        return;
    };
    let saved = dir.join("saved.json");
    let s = start(&dir, &model, &saved);

    let before = s.shot("before.png", &dir);
    let (count0, centre0) = silhouette(&before);
    assert!(
        count0 > 2000,
        "the mannequin is on screen ({count0} bright pixels)"
    );

    // Right drag orbits: the figure turns (its outline changes a lot).
    s.drag("3", (700, 300), (220, 0), false);
    let orbited = s.shot("orbited.png", &dir);
    let moved = changed(&before, &orbited, (280, 1050), (40, 600));
    assert!(
        moved > 0.02,
        "a right drag turned the view ({moved:.4} of it changed)"
    );

    // Middle drag pans: the figure follows the pointer to the right.
    let (_, centre1) = silhouette(&orbited);
    s.drag("2", (760, 450), (160, 0), false);
    let panned = s.shot("panned.png", &dir);
    let (_, centre2) = silhouette(&panned);
    assert!(
        centre2 > centre1 + 40.0,
        "a middle drag panned right: centre {centre1:.0} → {centre2:.0}"
    );
    // Shift + right drag pans too (back to the left).
    s.drag("3", (900, 450), (-160, 0), true);
    let (_, centre3) = silhouette(&s.shot("shift-panned.png", &dir));
    assert!(
        centre3 < centre2 - 40.0,
        "Shift + right drag panned left: centre {centre2:.0} → {centre3:.0}"
    );

    // The wheel zooms in: the figure grows.
    let (count3, _) = silhouette(&s.shot("before-zoom.png", &dir));
    for _ in 0..4 {
        xdotool(&s.display, &["click", "4"]);
        pause(0.3);
    }
    pause(1.0);
    let (count4, _) = silhouette(&s.shot("zoomed.png", &dir));
    assert!(
        count4 as f64 > count3 as f64 * 1.2,
        "the wheel zoomed in: {count3} → {count4} bright pixels"
    );

    // Keypad 3 looks from the right (the view changes); Home frames the avatar as it
    // opened, undoing the orbit, pans and zoom.
    let zoomed = s.shot("zoomed-again.png", &dir);
    xdotool(&s.display, &["key", "KP_3"]);
    pause(1.5);
    let side = s.shot("side.png", &dir);
    let turned = changed(&zoomed, &side, (280, 1050), (40, 600));
    assert!(turned > 0.02, "keypad 3 changed the view ({turned:.4})");
    xdotool(
        &s.display,
        &["mousemove", "--window", &s.window, "360", "560"],
    );
    xdotool(&s.display, &["key", "Home"]);
    pause(1.5);
    let home = s.shot("home.png", &dir);
    let off = changed(&before, &home, (280, 1050), (40, 600));
    assert!(
        off < 0.01,
        "Home framed the avatar as at the start ({off:.4} differs)"
    );

    // F1 opens the help over the left of the window.
    let no_help = s.shot("no-help.png", &dir);
    xdotool(&s.display, &["key", "F1"]);
    pause(1.5);
    let help = s.shot("help.png", &dir);
    let shown = changed(&no_help, &help, (20, 680), (30, 600));
    assert!(
        shown > 0.05,
        "F1 showed the help ({shown:.3} of its area changed)"
    );
    xdotool(&s.display, &["key", "F1"]);
    pause(1.0);

    // Fifteen → taps 0.1 s apart, then fifteen 5 ms apart (several in one frame): each
    // one counts, whatever the frame rate.
    for delay in ["100", "5"] {
        let mut args = vec!["key", "--delay", delay];
        args.extend(["Right"; 15]);
        xdotool(&s.display, &args);
        pause(2.0);
    }
    let title = String::from_utf8_lossy(&xdotool(&s.display, &["getwindowname", &s.window]).stdout)
        .to_string();
    let project = s.finish(&saved);
    let playhead = project["playhead"].as_f64().unwrap();
    assert!(
        (playhead - 30.0 / 30.0).abs() < 1e-4,
        "30 taps moved 30 frames: playhead {playhead} s ({centre0:.0})"
    );
    // The camera and the playhead are not edits: the pose, the keys and the unsaved
    // mark are as they were.
    assert!(
        project["keys"].as_array().is_none_or(|k| k.is_empty()),
        "{project}"
    );
    let bones = &project["pose"]["bones"];
    assert!(
        bones.is_null() || bones.as_object().is_some_and(|b| b.is_empty()),
        "{project}"
    );
    assert!(
        !title.contains('*'),
        "nothing to save after looking around: {title}"
    );
}

#[test]
fn space_plays_and_stops() {
    let Some((dir, model)) = prepare("window-space") else {
        return;
    };
    let saved = dir.join("saved.json");
    let s = start(&dir, &model, &saved);
    // The Play button at the timeline's left reads "Stop" while playing.
    let button = ((5, 75), (648, 676));
    let stopped = s.shot("stopped.png", &dir);
    xdotool(&s.display, &["key", "space"]);
    pause(2.0);
    let playing = s.shot("playing.png", &dir);
    assert!(
        changed(&stopped, &playing, button.0, button.1) > 0.02,
        "the Play button turned into Stop"
    );
    xdotool(&s.display, &["key", "space"]);
    pause(1.5);
    let after = s.shot("stopped-again.png", &dir);
    assert!(
        changed(&stopped, &after, button.0, button.1) < 0.01,
        "Space stopped it again"
    );
    let project = s.finish(&saved);
    let playhead = project["playhead"].as_f64().unwrap();
    assert!(playhead > 0.3, "playing moved the playhead ({playhead} s)");
    let frames = playhead * 30.0;
    assert!(
        (frames - frames.round()).abs() < 1e-3,
        "stopped on a frame: {playhead}"
    );
}

/// CPU seconds a process has used so far (user + system, from /proc).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command name (which may hold spaces) start after ')'.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    let per_second = std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .trim()
                .parse::<f64>()
                .ok()
        })
        .unwrap_or(100.0);
    ticks / per_second
}

#[test]
fn an_idle_window_costs_almost_nothing_and_playback_still_shows_at_once() {
    let Some((dir, model)) = prepare("window-idle") else {
        return;
    };
    // Two keys that turn the spine, so playing visibly moves the figure.
    let project = dir.join("turn.json");
    std::fs::write(
        &project,
        serde_json::json!({"v": 1, "fps": 30, "model": {"path": model}, "playhead": 0,
            "keys": [
                {"id": 1, "t": 0, "ease": "LINEAR", "pose": {"v": 1, "bones": {"spine": [0, 0.5, 0, 0.866]}}},
                {"id": 2, "t": 2, "ease": "LINEAR", "pose": {"v": 1, "bones": {"spine": [0, -0.5, 0, 0.866]}}}]})
        .to_string(),
    )
    .unwrap();
    let saved = dir.join("saved.json");
    let frames_logged = [(
        "RUST_LOG",
        std::ffi::OsStr::new("info,wgpu=error,naga=warn,bevy_render=warn,vrma_maker::frames=debug"),
    )];
    let s = start_with_env(&dir, &project, &saved, 75, &[], &frames_logged);
    let frames = || {
        std::fs::read_to_string(&s.log)
            .unwrap_or_default()
            .matches("vrma_maker::frames")
            .count()
    };
    // Start-up work (key thumbnails, springs settling) ends when the frames stop; a
    // loaded machine takes longer, so wait for that rather than a fixed time.
    let quiet_since = Instant::now();
    let mut last = (frames(), Instant::now());
    while last.1.elapsed() < Duration::from_secs(3) {
        assert!(
            quiet_since.elapsed() < Duration::from_secs(60),
            "the window never stopped drawing ({} frames)",
            last.0
        );
        pause(0.25);
        let now = frames();
        if now != last.0 {
            last = (now, Instant::now());
        }
    }
    let pid = s.app.id();
    let idle = s.shot("idle.png", &dir);
    let (cpu_before, frames_before) = (cpu_seconds(pid), frames());
    pause(20.0);
    let used = cpu_seconds(pid) - cpu_before;
    let drawn = frames() - frames_before;
    // Only the safety-net wakes draw: one per IDLE_WAKE, plus one for where the window
    // starts in that cycle. Each costs a frame's rendering, which on the software
    // renderer is a few tenths of a second of CPU (more under load); a window that kept
    // drawing would draw hundreds and use most of 20 s.
    let wakes = 20 / vrma_maker::app::session::IDLE_WAKE.as_secs() as usize + 1;
    assert!(
        drawn <= wakes,
        "20 idle seconds drew {drawn} frames (at most {wakes}: the idle wakes)"
    );
    assert!(
        used <= 0.2 + 0.6 * drawn as f64,
        "20 idle seconds used {used:.2} s of CPU for {drawn} frames"
    );
    // Space plays at once: within a second the figure has turned.
    xdotool(&s.display, &["key", "space"]);
    pause(1.0);
    let playing = s.shot("playing.png", &dir);
    let moved = changed(&idle, &playing, (280, 1050), (40, 600));
    assert!(
        moved > 0.005,
        "playback showed at once ({moved:.4} of the view changed)"
    );
    eprintln!("idle: {used:.2} s of CPU and {drawn} frames in 20 s");
    let project = s.finish(&saved);
    assert!(project["playhead"].as_f64().unwrap() > 0.0, "{project}");
}

/// Where markers of the mannequin sit in the window as it opens (front view): its left
/// hand is on the right of the screen.
const LEFT_HAND_MARKER: (i32, i32) = (881, 195);
const RIGHT_ELBOW_MARKER: (i32, i32) = (572, 195);
/// The left panel's "Selected: <bone>" line.
const SELECTED_BONE_LINE: Region = ((0, 260), (188, 206));

/// What an edit changes in a saved project: the keys, and the pose shown, which follows
/// the playhead (undo leaves the playhead where it is, so a pose shown at another time
/// is not compared).
fn content(project: &Value, other: &Value) -> Value {
    let pose = if project["playhead"] == other["playhead"] {
        project["pose"].clone()
    } else {
        Value::Null
    };
    serde_json::json!({"keys": project["keys"], "pose": pose})
}

/// Pixels in a box drawn in the gizmo's hover colour (a bright yellow).
fn hover_coloured(img: &image::RgbaImage, x: (u32, u32), y: (u32, u32)) -> u32 {
    let mut n = 0;
    for py in y.0..y.1 {
        for px in x.0..x.1 {
            let p = img.get_pixel(px, py);
            n += (p[0] > 200 && p[1] > 180 && p[2] < 150) as u32;
        }
    }
    n
}

/// The key diamonds on the ruler (their fill colour), as x positions left to right.
fn key_diamonds(img: &image::RgbaImage) -> Vec<i32> {
    let columns = (0..img.width() as i32).filter(|&x| {
        (748..762).any(|y| {
            let p = img.get_pixel(x as u32, y);
            p[0].abs_diff(120) < 20 && p[1].abs_diff(190) < 20 && p[2].abs_diff(250) < 20
        })
    });
    // Runs of neighbouring columns are one diamond (the playhead may split one).
    let mut runs: Vec<(i32, i32)> = Vec::new();
    for x in columns {
        match runs.last_mut() {
            Some(run) if x - run.1 <= 4 => run.1 = x,
            _ => runs.push((x, x)),
        }
    }
    runs.into_iter().map(|(a, b)| (a + b) / 2).collect()
}

const RIGHT_HAND_MARKER: (i32, i32) = (501, 195);
/// The left hand's Z ring (drawn in the screen plane, about 65 px round) at 45°.
const LEFT_HAND_Z_RING: (i32, i32) = (927, 149);

#[test]
fn gizmo_drags_timeline_and_inspector_controls_each_make_one_undo_step() {
    let Some((dir, model)) = prepare("window-controls") else {
        return;
    };
    // Two keys; the head is turned so that resetting the pose has something to do (the
    // hands, and so their markers, stay where they open).
    let project = dir.join("start.json");
    let head = |yaw: f64| serde_json::json!({"v": 1, "bones": {"head": [0, yaw, 0, (1.0 - yaw * yaw).sqrt()]}});
    std::fs::write(
        &project,
        serde_json::json!({"v": 1, "fps": 30, "model": {"path": model}, "playhead": 0,
            "keys": [{"id": 1, "t": 0, "ease": "LINEAR", "pose": head(0.2)},
                     {"id": 2, "t": 1, "ease": "LINEAR", "pose": head(-0.2)}]})
        .to_string(),
    )
    .unwrap();
    let saved = dir.join("saved.json");
    let s = start_for(&dir, &project, &saved, 150);
    let world = |p: &Value| world_of(&model, &p["pose"], &dir);
    let start = s.save(&project);

    // The right hand's X arrow lights up under the pointer; dragging it moves the hand
    // along world X only (toward the body, in reach).
    s.click(RIGHT_HAND_MARKER);
    s.point((360, 560));
    let plain = hover_coloured(&s.settled("arrow-plain.png", &dir), (520, 560), (188, 203));
    let on_arrow = (545, 195);
    s.point(on_arrow);
    let lit = hover_coloured(&s.settled("arrow-hover.png", &dir), (520, 560), (188, 203));
    assert!(
        lit > plain + 40,
        "the arrow under the pointer is highlighted ({plain} → {lit} hover pixels)"
    );
    let path: Vec<(i32, i32)> = (0..=8)
        .map(|i| (on_arrow.0 + 8 * i, on_arrow.1 + 3 * i))
        .collect();
    s.left_drag(&path);
    let moved = s.save(&project);
    let (w0, w1) = (world(&start), world(&moved));
    let hand = |w: &Value, i: usize| w["rightHand"][i].as_f64().unwrap();
    assert!(
        hand(&w1, 0) > hand(&w0, 0) + 0.1,
        "the hand moved along +X: {} → {}",
        hand(&w0, 0),
        hand(&w1, 0)
    );
    for i in [1, 2] {
        assert!(
            (hand(&w1, i) - hand(&w0, i)).abs() < 1e-3,
            "the pointer's drift off the arrow moved nothing else (axis {i}): {} → {}",
            hand(&w0, i),
            hand(&w1, i)
        );
    }
    s.one_undo_step(&project, "the arrow drag", &start, &moved);

    // The left hand's Z ring lights up too; dragging along it turns the hand about
    // world Z only (the arm is straight at rest, so its local rotation is the world one).
    s.click(LEFT_HAND_MARKER);
    s.point((360, 560));
    let ring_box = ((900, 950), (125, 175));
    let plain = hover_coloured(&s.settled("ring-plain.png", &dir), ring_box.0, ring_box.1);
    s.point(LEFT_HAND_Z_RING);
    let lit = hover_coloured(&s.settled("ring-hover.png", &dir), ring_box.0, ring_box.1);
    assert!(
        lit > plain + 30,
        "the ring under the pointer is highlighted ({plain} → {lit} hover pixels)"
    );
    let (cx, cy) = (LEFT_HAND_MARKER.0 as f32, LEFT_HAND_MARKER.1 as f32);
    let path: Vec<(i32, i32)> = (0..=8)
        .map(|i| {
            let angle = (45.0 - 5.0 * i as f32).to_radians();
            (
                (cx + 65.0 * angle.cos()).round() as i32,
                (cy - 65.0 * angle.sin()).round() as i32,
            )
        })
        .collect();
    s.left_drag(&path);
    let turned = s.save(&project);
    let q = &turned["pose"]["bones"]["leftHand"];
    let c = |i: usize| q[i].as_f64().unwrap();
    assert!(c(2).abs() > 0.1, "the ring turned the hand: {q}");
    // 0.01° about another axis is 8.7e-5 in a quaternion component.
    assert!(
        c(0).abs() < 9e-5 && c(1).abs() < 9e-5,
        "about world Z only: {q}"
    );
    s.one_undo_step(&project, "the ring drag", &moved, &turned);

    // Reset bone (the inspector's button, under the selected bone's angles) puts the
    // hand back to rest and nothing else.
    s.click((44, 280));
    let reset_bone = s.save(&project);
    assert!(
        reset_bone["pose"]["bones"]["leftHand"].is_null(),
        "{}",
        reset_bone["pose"]
    );
    assert_eq!(
        reset_bone["pose"]["bones"]["rightHand"], turned["pose"]["bones"]["rightHand"],
        "Reset bone resets the selected bone only"
    );
    s.one_undo_step(&project, "Reset bone", &turned, &reset_bone);

    // The key at 1 s dragged on the ruler lands on a frame about 0.5 s later.
    let diamonds = key_diamonds(&s.settled("ruler.png", &dir));
    assert_eq!(diamonds.len(), 2, "two keys on the ruler: {diamonds:?}");
    let px_per_second = (diamonds[1] - diamonds[0]) as f32;
    let from = (diamonds[1], 755);
    let by = (px_per_second * 0.5) as i32 + 4; // a few pixels off a frame
    let path: Vec<(i32, i32)> = (0..=8).map(|i| (from.0 + by * i / 8, from.1)).collect();
    s.left_drag(&path);
    let dragged = s.save(&project);
    let t1 = dragged["keys"][1]["t"].as_f64().unwrap();
    assert!(
        (t1 - 1.5).abs() < 0.05,
        "the key moved to about 1.5 s: {t1}"
    );
    assert!(
        ((t1 * 30.0).round() - t1 * 30.0).abs() < 1e-3,
        "on a frame: {t1}"
    );
    assert_eq!(dragged["keys"][1]["pose"], reset_bone["keys"][1]["pose"]);
    s.one_undo_step(&project, "the key drag", &reset_bone, &dragged);

    // The playhead followed the key, so the key fields show it. Ease: pick IN-OUT.
    s.click((590, 661));
    s.click((575, 707));
    let eased = s.save(&project);
    assert_eq!(eased["keys"][1]["ease"], "IN-OUT", "{}", eased["keys"]);
    s.one_undo_step(&project, "the ease change", &dragged, &eased);

    // Key time: click the field, type 2.5 in place of its value, Enter.
    s.click((729, 661));
    retype_field(&s.display, "2.5");
    pause(0.3);
    xdotool(&s.display, &["key", "Return"]);
    pause(0.8);
    let retimed = s.save(&project);
    let t1 = retimed["keys"][1]["t"].as_f64().unwrap();
    assert!((t1 - 2.5).abs() < 1e-4, "the typed time: {t1}");
    s.one_undo_step(&project, "typing a key time", &eased, &retimed);

    // Reset pose (the inspector's first button) clears the key at the playhead.
    s.click((43, 85));
    let reset_pose = s.save(&project);
    let bones = &reset_pose["keys"][1]["pose"]["bones"];
    assert!(
        bones.is_null() || bones.as_object().is_some_and(|b| b.is_empty()),
        "{bones}"
    );
    assert_eq!(
        reset_pose["keys"][0], retimed["keys"][0],
        "the other key keeps its pose"
    );
    s.one_undo_step(&project, "Reset pose", &retimed, &reset_pose);

    // Saved, so Ctrl+Q quits at once (and the window writes `saved` on its way out).
    ctrl_chord(&s.display, "q");
    let last = s.finish(&saved);
    assert_eq!(content(&last, &reset_pose), content(&reset_pose, &last));
}

#[test]
fn window_size_panels_and_library_place_are_remembered_and_open_recent_reopens() {
    let Some((dir, model)) = prepare("window-settings") else {
        return;
    };
    let model0 = dir.join("mannequin0.vrm");
    let saved = dir.join("saved.json");
    let settings_file = dir.join("data/settings.json");
    let read_settings = || -> Value {
        serde_json::from_slice(&std::fs::read(&settings_file).expect("settings written")).unwrap()
    };

    // First run, on the VRM 0.x mannequin: drag the pose library beside the avatar and
    // the inspector's edge 50 px right, make the window smaller, quit.
    let s = start_for(&dir, &model0, &saved, 60);
    let title_bar = (400, 506); // the library's, where it opens
    let path: Vec<(i32, i32)> = (0..=10)
        .map(|i| (title_bar.0 + 48 * i, title_bar.1 - 25 * i))
        .collect();
    let remembered_place = || {
        (0..15).any(|_| {
            pause(0.2);
            std::fs::read(&settings_file)
                .ok()
                .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
                .is_some_and(|v| v["library"]["at"].is_array())
        })
    };
    s.left_drag(&path);
    // In one run of several the first drag on the title bar did not take (cause not
    // found; the window had drawn): a person would drag again.
    if !remembered_place() {
        eprintln!("the first drag of the library did not move it; dragging again");
        s.left_drag(&path);
    }
    let path: Vec<(i32, i32)> = (0..=5).map(|i| (269 + 10 * i, 300)).collect();
    s.left_drag(&path);
    // The pointer rests first: the resize alone must bring the redrawn window (the
    // camera refitted, the library kept inside the smaller view).
    s.point((1000, 650));
    xdotool(&s.display, &["windowsize", &s.window, "1100", "700"]);
    pause(1.5);
    let first = s.settled("first-run.png", &dir);
    ctrl_chord(&s.display, "q");
    let project = s.finish(&saved);
    assert!(
        project["model"]["path"]
            .as_str()
            .is_some_and(|p| p.ends_with("mannequin0.vrm")),
        "{}",
        project["model"]
    );
    let settings = read_settings();
    let at = &settings["library"]["at"];
    let (x, y) = (at[0].as_f64().unwrap(), at[1].as_f64().unwrap());
    // Dropped 480 px right of where it opened (x 278) and well above it.
    assert!(
        (x - 758.0).abs() < 12.0 && y < 350.0,
        "where the library was dropped: {at}"
    );

    // Second run, on the 1.0 mannequin (it looks the same): the window opens at that
    // size, with the panel and the library as they were left.
    let s = start_for(&dir, &model, &saved, 60);
    let geometry =
        String::from_utf8_lossy(&xdotool(&s.display, &["getwindowgeometry", &s.window]).stdout)
            .to_string();
    assert!(geometry.contains("1100x700"), "{geometry}");
    s.point((1000, 650));
    let second = s.settled("second-run.png", &dir);
    let same = changed(&first, &second, (0, 1100), (24, 545));
    assert!(
        same < 0.01,
        "panels and library as they were left ({same:.4} of the window differs)"
    );
    // ...and not as a first start shows them: no library at its first place, and the
    // view begins 50 px further right.
    let window_fill = (430..530)
        .flat_map(|y| (330..520).map(move |x| (x, y)))
        .filter(|&(x, y)| second.get_pixel(x, y).0[..3].iter().all(|&c| c < 33))
        .count();
    assert!(
        window_fill < 500,
        "no library at its first place ({window_fill} pixels of window fill)"
    );
    let panel = second.get_pixel(300, 450).0;
    let view = second.get_pixel(340, 450).0;
    assert!(
        (0..3).any(|c| panel[c].abs_diff(view[c]) > 8),
        "the inspector ends past x = 300: {panel:?} vs {view:?}"
    );

    // File ▸ Open recent lists the models newest first: the second is the 0.x
    // mannequin of the first run, and clicking it opens it.
    s.click((19, 11));
    s.point((60, 57));
    pause(0.5);
    s.settled("open-recent.png", &dir);
    s.click((400, 78));
    pause(3.0);
    ctrl_chord(&s.display, "q");
    let project = s.finish(&saved);
    assert!(
        project["model"]["path"]
            .as_str()
            .is_some_and(|p| p.ends_with("mannequin0.vrm")),
        "Open recent opened the first run's model: {}",
        project["model"]
    );
    let settings = read_settings();
    let recent: Vec<&str> = settings["recent"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["path"].as_str())
        .collect();
    assert_eq!(recent.len(), 2, "{recent:?}");
    assert!(recent[0].ends_with("mannequin0.vrm"), "{recent:?}");
}

#[test]
fn a_clicked_marker_moves_by_g_and_turns_by_r_about_a_locked_axis() {
    let Some((dir, model)) = prepare("window-markers") else {
        return;
    };
    let saved = dir.join("saved.json");
    let s = start(&dir, &model, &saved);
    let d = &s.display;
    let at = |(x, y): (i32, i32)| {
        xdotool(
            d,
            &[
                "mousemove",
                "--window",
                &s.window,
                &x.to_string(),
                &y.to_string(),
            ],
        );
        pause(0.5);
    };
    let title =
        || String::from_utf8_lossy(&xdotool(d, &["getwindowname", &s.window]).stdout).to_string();

    // Click the left-hand marker, G, move down, click: the hand moves by IK.
    at(LEFT_HAND_MARKER);
    xdotool(d, &["click", "1"]);
    pause(0.8);
    xdotool(d, &["key", "g"]);
    pause(0.5);
    for step in 1..=6 {
        at((
            LEFT_HAND_MARKER.0 - 5 * step,
            LEFT_HAND_MARKER.1 + 20 * step,
        ));
    }
    xdotool(d, &["click", "1"]);
    pause(1.0);
    assert!(title().contains('*'), "the move is an edit: {}", title());

    // R, Z lock, then the pointer circles down from the right elbow.
    let turn_forearm_about_z = || {
        xdotool(d, &["key", "r"]);
        xdotool(d, &["key", "z"]);
        pause(0.3);
        for step in 1..=5 {
            at((
                RIGHT_ELBOW_MARKER.0 - 10 * step,
                RIGHT_ELBOW_MARKER.1 + 25 * step,
            ));
        }
    };

    // Click the right elbow's marker (once the panel says it is selected); R, Z, move,
    // Esc: nothing changes...
    at(RIGHT_ELBOW_MARKER);
    s.click_until_changed(RIGHT_ELBOW_MARKER, SELECTED_BONE_LINE, &dir);
    let before_cancel = s.settled("before-cancel.png", &dir);
    turn_forearm_about_z();
    xdotool(d, &["key", "Escape"]);
    pause(1.0);
    at(RIGHT_ELBOW_MARKER);
    let after_cancel = s.shot("after-cancel.png", &dir);
    let off = changed(&before_cancel, &after_cancel, (280, 1050), (40, 600));
    assert!(
        off < 0.002,
        "Esc put everything back ({off:.4} of the view differs)"
    );
    // ...then R, Z, move, click: the forearm turns about world Z only.
    turn_forearm_about_z();
    xdotool(d, &["click", "1"]);
    pause(1.0);

    // F frames the selection: the selected (magenta) elbow marker comes to the middle of
    // the 3D view, drawn larger.
    let selected_marker = |img: &image::RgbaImage| {
        let (mut n, mut sx, mut sy) = (0u32, 0f64, 0f64);
        for y in 24..645 {
            for x in 270..1115 {
                let p = img.get_pixel(x, y);
                if p[0] > 200 && p[1] < 140 && p[2] > 150 {
                    n += 1;
                    sx += x as f64;
                    sy += y as f64;
                }
            }
        }
        (n, sx / n.max(1) as f64, sy / n.max(1) as f64)
    };
    at((360, 600));
    let (n0, x0, _) = selected_marker(&s.settled("before-frame.png", &dir));
    assert!(n0 > 10, "the selected marker is magenta ({n0} pixels)");
    xdotool(d, &["key", "f"]);
    pause(1.5);
    let (n1, x1, y1) = selected_marker(&s.settled("framed.png", &dir));
    let centre = ((270.0 + 1115.0) / 2.0, (24.0 + 645.0) / 2.0);
    assert!(
        (x1 - centre.0).abs() < 40.0 && (y1 - centre.1).abs() < 40.0,
        "F brought the elbow from x {x0:.0} to the view's middle: ({x1:.0}, {y1:.0})"
    );
    assert!(n1 > n0 * 2, "and closer: {n0} → {n1} marker pixels");

    let project = s.finish(&saved);
    let rest = world_of(&model, &serde_json::json!({"v": 1}), &dir);
    let posed = world_of(&model, &project["pose"], &dir);
    let y = |w: &Value, bone: &str| w[bone][1].as_f64().unwrap();
    assert!(
        y(&posed, "leftHand") < y(&rest, "leftHand") - 0.05,
        "G lowered the left hand: {} → {}",
        y(&rest, "leftHand"),
        y(&posed, "leftHand")
    );
    for axis in 0..3 {
        let (a, b) = (
            rest["leftUpperArm"][axis].as_f64().unwrap(),
            posed["leftUpperArm"][axis].as_f64().unwrap(),
        );
        assert!(
            (a - b).abs() < 1e-4,
            "the shoulder stays where it is: {a} vs {b}"
        );
    }
    let q = &project["pose"]["bones"]["rightLowerArm"];
    let (qx, qy, qz) = (
        q[0].as_f64().unwrap(),
        q[1].as_f64().unwrap(),
        q[2].as_f64().unwrap(),
    );
    assert!(qz.abs() > 0.05, "R turned the forearm: {q}");
    // 0.01° about another axis is 8.7e-5 in a quaternion component.
    assert!(
        qx.abs() < 9e-5 && qy.abs() < 9e-5,
        "about world Z only: {q}"
    );
}

/// Where the unsaved-changes question's buttons are for "a.json" / "b.json" (the window
/// is centred in the 1280×800 window, its width set by the question's text).
const QUESTION_SAVE: (i32, i32) = (494, 425);
const QUESTION_DONT_SAVE: (i32, i32) = (553, 425);
const QUESTION_CANCEL: (i32, i32) = (598, 425);

fn key_times(project: &Value) -> Vec<f64> {
    project["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["t"].as_f64().unwrap() * 30.0).round() / 30.0)
        .collect()
}

#[test]
fn opening_a_project_over_unsaved_work_asks_and_each_answer_does_what_it_says() {
    let Some((dir, _)) = prepare("window-open-asks") else {
        return;
    };
    let a = dir.join("a.json");
    let b = dir.join("b.json");
    let project = |times: &[f64]| {
        let keys: Vec<Value> = times
            .iter()
            .enumerate()
            .map(|(i, t)| json!({"id": i + 1, "t": t, "pose": {"bones": {}}}))
            .collect();
        json!({"v": 1, "model": null, "fps": 30, "keys": keys}).to_string()
    };
    std::fs::write(&a, project(&[1.5])).unwrap();
    std::fs::write(&b, project(&[0.5, 1.0, 2.0])).unwrap();
    let b_as_written = std::fs::read(&b).unwrap();
    let saved = dir.join("at-exit.json");
    let s = start_for(&dir, &a, &saved, 95);
    let key_at_frame = |frames: usize| {
        for _ in 0..frames {
            xdotool(&s.display, &["key", "--delay", "150", "Right"]);
            pause(0.3);
        }
        xdotool(&s.display, &["key", "--delay", "150", "k"]);
        pause(0.8);
    };
    key_at_frame(3); // unsaved work: a key at 0.1 s
    open_typed_path(&s.display, &s.window, &b);
    pause(1.0);
    s.click(QUESTION_CANCEL);
    // Still unsaved, so it asks again; Save writes a.json, then b opens.
    open_typed_path(&s.display, &s.window, &b);
    pause(1.0);
    s.click(QUESTION_SAVE);
    pause(3.0);
    let a_now: Value = serde_json::from_slice(&std::fs::read(&a).unwrap()).unwrap();
    assert_eq!(
        key_times(&a_now),
        vec![0.1, 1.5],
        "Save wrote the work: {a_now}"
    );
    // b's work is changed and dropped: Don't save opens a without writing b.
    key_at_frame(2);
    open_typed_path(&s.display, &s.window, &a);
    pause(1.0);
    s.click(QUESTION_DONT_SAVE);
    pause(3.0);
    // The same edits again in the newly opened project are autosaved: the autosave's
    // count of revisions starts afresh with each project (it used to skip them).
    key_at_frame(2);
    let recovered = || -> Option<Vec<f64>> {
        let files = std::fs::read_dir(dir.join("data/recovery")).ok()?;
        files.flatten().find_map(|f| {
            let v: Value = serde_json::from_slice(&std::fs::read(f.path()).ok()?).ok()?;
            Some(key_times(&v["project"]))
        })
    };
    let mut autosaved = None;
    for _ in 0..60 {
        autosaved = recovered();
        if autosaved.as_ref().is_some_and(|k| k.len() == 3) {
            break;
        }
        pause(0.25);
    }
    let at_exit = s.finish(&saved);
    assert_eq!(
        autosaved.as_ref().map(Vec::len),
        Some(3),
        "autosaved: {autosaved:?}"
    );
    let times = key_times(&at_exit);
    assert!(
        times.len() == 3 && times.contains(&0.1) && times.contains(&1.5),
        "a is open, with the new key: {at_exit}"
    );
    assert_eq!(
        std::fs::read(&b).unwrap(),
        b_as_written,
        "b.json was not written"
    );
}

const FILE_MENU: (i32, i32) = (19, 11);
const FILE_EXPORT_VRMA: (i32, i32) = (62, 129);
const QUESTION_QUIT_WHEN_DONE: (i32, i32) = (527, 434);

/// A take an hour long with 400 keys of 15 eased bones: it opens at once, and its
/// export samples over 100,000 frames (seconds of work, on a worker thread).
fn hour_long_take(model: &Path) -> Value {
    let bones = [
        "hips",
        "spine",
        "chest",
        "neck",
        "head",
        "leftUpperArm",
        "rightUpperArm",
        "leftLowerArm",
        "rightLowerArm",
        "leftUpperLeg",
        "rightUpperLeg",
        "leftLowerLeg",
        "rightLowerLeg",
        "leftHand",
        "rightHand",
    ];
    let keys: Vec<Value> = (0..400)
        .map(|i| {
            let pose: serde_json::Map<String, Value> = bones
                .iter()
                .enumerate()
                .map(|(j, bone)| {
                    let (x, y) = (
                        0.3 * (i as f64 * 1.7 + j as f64).sin(),
                        0.3 * (i as f64 * 0.9 + j as f64).cos(),
                    );
                    let n = (x * x + y * y + 1.0).sqrt();
                    (bone.to_string(), json!([x / n, y / n, 0.0, 1.0 / n]))
                })
                .collect();
            json!({"id": i + 1, "t": i * 9, "ease": "IN-OUT", "pose": {"bones": pose}})
        })
        .collect();
    json!({"v": 1, "model": {"path": model}, "fps": 30, "keys": keys})
}

#[test]
fn quitting_during_an_export_asks_then_waits_for_it_and_leaves_no_temporary_file() {
    let Some((dir, model)) = prepare("window-quit-export") else {
        return;
    };
    let project = dir.join("hour.json");
    std::fs::write(&project, hour_long_take(&model).to_string()).unwrap();
    let out = dir.join("exports").join("hour.vrma");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    // --exit-after is far off: the exit below is the question's.
    let mut s = start_for(&dir, &project, &dir.join("at-exit.json"), 300);
    s.click(FILE_MENU);
    s.click(FILE_EXPORT_VRMA);
    s.answer_path_dialog(&out);
    pause(0.4);
    ctrl_chord(&s.display, "q");
    pause(1.0);
    assert!(
        s.app.try_wait().unwrap().is_none(),
        "Ctrl+Q during the export asks instead of quitting"
    );
    assert!(!out.exists(), "the export was still being written");
    let asked_at = Instant::now();
    s.click(QUESTION_QUIT_WHEN_DONE);
    let status = wait_with_timeout(&mut s.app, Duration::from_secs(120));
    let log = std::fs::read_to_string(&s.log).unwrap_or_default();
    assert!(status.is_some_and(|s| s.success()), "{status:?}\n{log}");
    assert!(
        asked_at.elapsed() < Duration::from_secs(150),
        "quit by the answer, not by --exit-after"
    );
    assert!(log.contains("Exported") || out.exists(), "{log}");
    let bytes = std::fs::read(&out).expect("the export was written whole before quitting");
    let glb = vrma_maker::core::files::glb::split(&bytes).expect("a whole GLB");
    let gltf: Value = serde_json::from_slice(glb.json).unwrap();
    let end = gltf["accessors"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["max"].as_array().filter(|_| a["type"] == "SCALAR"))
        .filter_map(|m| m[0].as_f64())
        .fold(0.0, f64::max);
    assert!(
        (end - 399.0 * 9.0).abs() < 0.05,
        "the whole hour was exported (to {end} s)"
    );
    let left: Vec<_> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|name| name != "hour.vrma")
        .collect();
    assert!(left.is_empty(), "nothing else was left beside it: {left:?}");
}

const FILE_EXPORT_PNG: (i32, i32) = (56, 192);
/// In the Export PNG window: "Every key, one camera" and Export….
const PNG_EVERY_KEY: (i32, i32) = (558, 147);
const PNG_EXPORT: (i32, i32) = (580, 168);

#[test]
fn export_png_every_key_writes_a_numbered_still_of_each_key_from_one_camera() {
    let Some((dir, model)) = prepare("window-png-sequence") else {
        return;
    };
    // Three keys: the left arm raised, the right arm raised, a turned spine.
    let project = dir.join("keys.json");
    three_key_project(&model, &project);
    let out = dir.join("stills").join("walk.png");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let at_exit = dir.join("at-exit.json");
    let s = start_for(&dir, &project, &at_exit, 150);
    s.click(FILE_MENU);
    s.click(FILE_EXPORT_PNG);
    pause(1.0);
    s.click(PNG_EVERY_KEY);
    s.click(PNG_EXPORT);
    s.answer_path_dialog(&out);
    let expected: Vec<_> = ["walk_001.png", "walk_002.png", "walk_003.png"]
        .iter()
        .map(|name| out.with_file_name(name))
        .collect();
    let started = Instant::now();
    while !expected.iter().all(|p| p.exists()) && started.elapsed() < Duration::from_secs(120) {
        pause(1.0);
    }
    pause(2.0); // the playhead goes back once the last still is written
    ctrl_chord(&s.display, "q");
    let stills: Vec<image::RgbaImage> = expected
        .iter()
        .map(|p| {
            image::open(p)
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
                .to_rgba8()
        })
        .collect();
    let others = std::fs::read_dir(out.parent().unwrap()).unwrap().count();
    assert_eq!(others, 3, "three stills and nothing else");
    // One camera: the feet, which no key moves, stand on the same rows and columns.
    let feet = |img: &image::RgbaImage| {
        let lowest = (0..img.height())
            .rev()
            .find(|&y| (0..img.width()).any(|x| img.get_pixel(x, y)[3] > 127))
            .unwrap();
        let row: Vec<u32> = (0..img.width())
            .filter(|&x| img.get_pixel(x, lowest - 5)[3] > 127)
            .collect();
        (lowest, row.first().copied(), row.last().copied())
    };
    assert_eq!(stills[0].dimensions(), (1024, 1365));
    assert_eq!(feet(&stills[0]), feet(&stills[1]));
    assert_eq!(feet(&stills[0]), feet(&stills[2]));
    // Each still is its key's pose: the raised left arm is on the picture's right (the
    // avatar faces the camera), the raised right arm on its left, neither in the third.
    let (w, h) = stills[0].dimensions();
    let above_shoulders = |img: &image::RgbaImage, x0: u32, x1: u32| {
        let covered = (h / 20..h / 5)
            .flat_map(|y| (x0..x1).map(move |x| (x, y)))
            .filter(|&(x, y)| img.get_pixel(x, y)[3] > 127)
            .count();
        covered as f64 / ((x1 - x0) * (h / 5 - h / 20)) as f64
    };
    let right_side = |img: &image::RgbaImage| above_shoulders(img, w * 3 / 5, w);
    let left_side = |img: &image::RgbaImage| above_shoulders(img, 0, w * 2 / 5);
    assert!(right_side(&stills[0]) > 0.002 && left_side(&stills[0]) < 0.0005);
    assert!(left_side(&stills[1]) > 0.002 && right_side(&stills[1]) < 0.0005);
    assert!(left_side(&stills[2]) < 0.0005 && right_side(&stills[2]) < 0.0005);
    // The view and the playhead are where they were.
    let last = s.finish(&at_exit);
    assert_eq!(last["playhead"].as_f64(), Some(0.5), "{last}");
}

const VIEW_MENU: (i32, i32) = (131, 11);
const VIEW_SPRING_BONES: (i32, i32) = (180, 96);
/// Where the open View menu is drawn (over the left panel only).
const VIEW_MENU_ITEMS: Region = ((118, 250), (28, 150));

#[test]
fn the_view_menus_spring_toggle_lets_the_hair_hang_or_holds_it_as_modelled() {
    let Some((dir, _)) = prepare("window-spring-toggle") else {
        return;
    };
    // Soft, heavy hair on a tilted head: it hangs well away from its modelled shape.
    let plain = test_avatar(&dir, "plain.vrm", false, &["--texture-size", "64"]);
    let model = edited_glb(&plain, dir.join("soft.vrm"), |root| {
        for spring in root["extensions"]["VRMC_springBone"]["springs"]
            .as_array_mut()
            .unwrap()
        {
            for joint in spring["joints"].as_array_mut().unwrap() {
                joint["stiffness"] = serde_json::json!(0.3);
                joint["gravityPower"] = serde_json::json!(0.6);
            }
        }
    });
    let half = 25f32.to_radians() / 2.0;
    let project = dir.join("tilted.json");
    std::fs::write(
        &project,
        serde_json::json!({"v": 1, "fps": 30, "model": {"path": model}, "keys": [
            {"id": 1, "t": 0, "pose": {"bones": {"head": [0.0, 0.0, half.sin(), half.cos()]}}}]})
        .to_string(),
    )
    .unwrap();
    let saved = dir.join("at-exit.json");
    let s = start_for(&dir, &project, &saved, 180);
    let view = ((280, 1100), (30, 480));
    let toggle = || s.choose(VIEW_MENU, VIEW_SPRING_BONES, VIEW_MENU_ITEMS, &dir);
    // Live, the default: the hair has hung and come to rest.
    let hanging = s.settled("hanging.png", &dir);
    toggle();
    let modelled = s.settled("modelled.png", &dir);
    toggle();
    let again = s.settled("again.png", &dir);
    let off = changed(&hanging, &modelled, view.0, view.1);
    let back = changed(&hanging, &again, view.0, view.1);
    eprintln!("switched off: {off:.4} of the view changed; on again: {back:.4} from the first");
    assert!(
        off > 0.002,
        "switched off, the hair takes its modelled shape ({off:.4})"
    );
    assert!(
        back < off / 4.0,
        "switched on again, it hangs as before ({back:.4} against {off:.4})"
    );
    ctrl_chord(&s.display, "q");
    let _ = s.finish(&saved);
}

const VIEW_ONION_SKIN: (i32, i32) = (170, 117);
/// The timeline's speed and fps menus and the In marker, with two keys selected (the
/// Scale field shown); a menu's rows are about 21 px apart below it.
const SPEED_MENU: (i32, i32) = (897, 661);
const LOOP_IN: (i32, i32) = (943, 661);
const FPS_MENU: (i32, i32) = (1030, 661);
const MENU_ROW: i32 = 21;
/// The key row and the left foot's plant bar on the ruler (window rows).
const KEY_ROW_Y: i32 = 752;
const LEFT_FOOT_BAR_Y: i32 = 762;
/// A row of the ruler above the thumbnails, where a click only moves the playhead.
const RULER_TICKS_Y: i32 = 690;

/// Pixels of a region that `after` tints orange and bluish against `before`: the onion
/// skin's two ghosts (the future orange, the past blue) laid over the view.
fn ghost_tints(
    before: &image::RgbaImage,
    after: &image::RgbaImage,
    x: (u32, u32),
    y: (u32, u32),
) -> (usize, usize) {
    let warmth = |p: &image::Rgba<u8>| p[0] as i32 - p[2] as i32;
    let mut tints = (0, 0);
    for y in y.0..y.1 {
        for x in x.0..x.1 {
            let change = warmth(after.get_pixel(x, y)) - warmth(before.get_pixel(x, y));
            if change > 25 {
                tints.0 += 1;
            } else if change < -25 {
                tints.1 += 1;
            }
        }
    }
    tints
}

/// File ▸ Export PNG of the pose, written to `path`.
fn export_still(s: &Session, path: &Path) -> image::RgbaImage {
    s.click(FILE_MENU);
    s.click(FILE_EXPORT_PNG);
    pause(1.0);
    s.click(PNG_EXPORT);
    s.answer_path_dialog(path);
    let started = Instant::now();
    while !path.exists() && started.elapsed() < Duration::from_secs(60) {
        pause(0.5);
    }
    pause(0.5);
    image::open(path).expect("the still").to_rgba8()
}

#[test]
fn keys_are_box_selected_dragged_copied_pasted_and_planted_and_onion_skin_shows_in_the_view_only() {
    let Some((dir, model)) = prepare("window-key-selection") else {
        return;
    };
    let project = dir.join("keys.json");
    three_key_project(&model, &project);
    let at_exit = dir.join("at-exit.json");
    let s = start_for(&dir, &project, &at_exit, 180);
    let d = key_diamonds(&s.settled("start.png", &dir));
    assert_eq!(d.len(), 3, "three keys on the ruler: {d:?}");
    let px = (d[1] - d[0]) as f32; // per second
    let at = |t: f32| d[0] + (px * t).round() as i32;

    // A box over the first two keys selects them; dragging one drags both.
    s.left_drag(&[
        (at(-0.03), KEY_ROW_Y),
        (at(0.5), KEY_ROW_Y),
        (at(1.4), KEY_ROW_Y),
    ]);
    let before = s.save(&project);
    let by = (px * 0.5) as i32 + 3; // a few pixels off a frame
    let path: Vec<(i32, i32)> = (0..=8).map(|i| (d[1] + by * i / 8, KEY_ROW_Y)).collect();
    s.left_drag(&path);
    let moved = s.save(&project);
    assert_eq!(
        key_times(&moved),
        [0.5, 1.5, 2.0],
        "both selected keys moved"
    );
    assert_eq!(moved["keys"][0]["pose"], before["keys"][0]["pose"]);
    s.one_undo_step(&project, "the selection drag", &before, &moved);

    // Ctrl+C, the playhead to 2.5 s, Ctrl+V: the two keys again, their spacing kept.
    ctrl_chord(&s.display, "c");
    s.click((at(2.5), RULER_TICKS_Y));
    ctrl_chord(&s.display, "v");
    let pasted = s.save(&project);
    assert_eq!(key_times(&pasted), [0.5, 1.5, 2.0, 2.5, 3.5]);
    assert_eq!(pasted["keys"][3]["pose"], moved["keys"][0]["pose"]);
    assert_eq!(pasted["keys"][4]["pose"], moved["keys"][1]["pose"]);
    s.one_undo_step(&project, "the paste", &moved, &pasted);

    // A click on the left foot's bar between the pasted keys plants it over that span.
    s.click((at(3.0), LEFT_FOOT_BAR_Y));
    let planted = s.save(&project);
    assert_eq!(
        planted["plants"],
        json!([{"foot": "leftFoot", "from": 2.5, "to": 3.5}]),
        "{}",
        planted["plants"]
    );

    // Ctrl+D: copies of the selection come after the last key and follow the pointer
    // until a click puts them down; Ctrl+Z takes back only the placing.
    ctrl_chord(&s.display, "d");
    let path: Vec<(i32, i32)> = (0..=6)
        .map(|i| (at(3.0) + (px * 0.4) as i32 * i / 6, LEFT_FOOT_BAR_Y))
        .collect();
    for &p in &path {
        s.point(p);
    }
    xdotool(&s.display, &["click", "1"]);
    pause(0.8);
    let placed = s.save(&project);
    let times = key_times(&placed);
    assert_eq!(times.len(), 7, "two copies: {times:?}");
    assert_eq!(times[..5], key_times(&planted)[..], "the originals stay");
    assert!(times[5] > 3.6, "the copies followed the pointer: {times:?}");
    assert!(
        (times[6] - times[5] - 1.0).abs() < 1e-4,
        "spacing kept: {times:?}"
    );
    assert_eq!(placed["keys"][5]["pose"], planted["keys"][3]["pose"]);
    ctrl_chord(&s.display, "z");
    let unplaced = s.save(&project);
    let back = key_times(&unplaced);
    assert!(
        (back[5] - (3.5 + 1.0 / 30.0)).abs() < 1e-4,
        "undo leaves the copies where Ctrl+D put them: {back:?}"
    );
    ctrl_chord(&s.display, "y");

    // Playback at half speed, a loop from the playhead (In), export at 24 fps.
    s.click(SPEED_MENU);
    s.click((SPEED_MENU.0, SPEED_MENU.1 + 2 * MENU_ROW)); // 0.25×, 0.5×
    s.click(FPS_MENU);
    s.click((FPS_MENU.0, FPS_MENU.1 + MENU_ROW + 4)); // 24 fps
    s.click(LOOP_IN);
    let set = s.save(&project);
    assert_eq!(
        set["settings"]["speed"].as_f64(),
        Some(0.5),
        "{}",
        set["settings"]
    );
    assert_eq!(set["fps"].as_f64(), Some(24.0));
    assert_eq!(
        set["settings"]["loop_range"],
        json!([2.5, set["settings"]["length"]]),
        "from the playhead to the end"
    );
    assert_eq!(
        key_times(&set),
        key_times(&placed),
        "the redo put them back"
    );

    // View ▸ Onion skin: the keys either side of the playhead (2.0 and 3.5 s) appear as
    // ghosts in the 3D view, and a still taken with them on is the still without them.
    let still_before = export_still(&s, &dir.join("before.png"));
    let plain = s.settled("no-onion.png", &dir);
    s.choose(VIEW_MENU, VIEW_ONION_SKIN, VIEW_MENU_ITEMS, &dir);
    let onion = s.settled("onion.png", &dir);
    let (orange, blue) = ghost_tints(&plain, &onion, (270, 1110), (30, 640));
    assert!(
        orange > 500 && blue > 500,
        "ghosts in the view: {orange} pixels turned orange, {blue} bluish"
    );
    let still_after = export_still(&s, &dir.join("after.png"));
    assert_eq!(still_after.dimensions(), still_before.dimensions());
    let covered = still_after.pixels().filter(|p| p[3] > 127).count();
    assert!(
        covered > 10_000,
        "the avatar is in the still ({covered} px)"
    );
    let differing = still_after
        .pixels()
        .zip(still_before.pixels())
        .filter(|(a, b)| (0..4).any(|c| a[c].abs_diff(b[c]) > 8))
        .count();
    assert!(
        differing < 20,
        "{differing} pixels of the still changed with the onion skin on"
    );
    ctrl_chord(&s.display, "q");
    let last = s.finish(&at_exit);
    assert_eq!(key_times(&last), key_times(&placed));
}

/// The right panel's controls (1280 × 800 window): Hands ▸ Fist (both hands by
/// default), Gaze ▸ Camera and ▸ Point.
const FIST_BUTTON: (i32, i32) = (1155, 97);
const GAZE_CAMERA: (i32, i32) = (1167, 265);
const GAZE_POINT: (i32, i32) = (1221, 265);

/// The centre of the eye-target handle's colour (its ring and dot) in the view.
fn gaze_handle_at(img: &image::RgbaImage) -> Option<(i32, i32)> {
    let (mut n, mut sx, mut sy) = (0u32, 0u64, 0u64);
    for y in 30..640 {
        for x in 275..1025 {
            let p = img.get_pixel(x, y);
            // Its exact colour: the markers' cyan differs, even at their blended edges.
            if (p[0] as i32 - 89).abs() < 10 && (p[1] as i32 - 217).abs() < 10 && p[2] > 245 {
                n += 1;
                sx += x as u64;
                sy += y as u64;
            }
        }
    }
    (n > 20).then(|| ((sx / n as u64) as i32, (sy / n as u64) as i32))
}

#[test]
fn a_hand_preset_is_one_click_and_the_eye_target_handle_drags_where_the_eyes_look() {
    use vrma_maker::core::animation::edit::{Editor, GripSide, PoseEdit};
    use vrma_maker::core::model::humanoid::{Side, finger_bones};
    let Some((dir, model)) = prepare("window-hands-gaze") else {
        return;
    };
    let project = dir.join("start.json");
    std::fs::write(
        &project,
        json!({"v": 1, "fps": 30, "model": {"path": model}, "playhead": 0,
            "keys": [{"id": 1, "t": 0, "ease": "LINEAR", "pose": {"v": 1, "bones": {}}}]})
        .to_string(),
    )
    .unwrap();
    let saved = dir.join("saved.json");
    let s = start_for(&dir, &project, &saved, 100);
    let start = s.save(&project);

    // One click makes both fists, written to the key, one undo step.
    s.click(FIST_BUTTON);
    let fist = s.save(&project);
    let rig = vrma_maker::core::body::rig::Rig::new(
        vrma_maker::core::model::vrm::Model::from_bytes(&std::fs::read(&model).unwrap()).unwrap(),
    )
    .unwrap();
    let mut editor = Editor::new(rig);
    editor
        .apply(
            PoseEdit::Hand {
                side: GripSide::Both,
                shape: Box::new(vrma_maker::core::body::hand::preset("fist").unwrap().shape),
                amount: 1.0,
            }
            .into(),
        )
        .unwrap();
    let key_pose = |p: &Value| {
        vrma_maker::core::body::pose::Pose::from_json(&p["keys"][0]["pose"], &mut Vec::new())
            .unwrap()
    };
    let clicked = key_pose(&fist);
    for side in Side::BOTH {
        for &bone in finger_bones(side) {
            assert!(
                clicked
                    .rotation(bone)
                    .angle_between(editor.pose.rotation(bone))
                    < 1e-3,
                "{bone} is the fist's"
            );
        }
    }
    s.one_undo_step(&project, "the fist", &start, &fist);

    // The eyes on the camera, then on a point whose handle is dragged to the side.
    s.click(GAZE_CAMERA);
    let on_camera = s.save(&project);
    assert_eq!(on_camera["keys"][0]["pose"]["look"], json!("camera"));
    s.click(GAZE_POINT);
    let pointed = s.save(&project);
    let look = |p: &Value| -> Vec<f64> {
        p["keys"][0]["pose"]["look"]
            .as_array()
            .unwrap_or_else(|| panic!("a point: {}", p["keys"][0]["pose"]))
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    };
    let before = look(&pointed);
    let handle = gaze_handle_at(&s.settled("gaze-handle.png", &dir)).expect("the handle shows");
    let path: Vec<(i32, i32)> = (0..=10).map(|i| (handle.0 + 14 * i, handle.1)).collect();
    s.left_drag(&path);
    let dragged = s.save(&project);
    let after = look(&dragged);
    assert!(
        after[0] > before[0] + 0.1,
        "dragged toward the model's left (screen right): {before:?} → {after:?}"
    );
    assert!(
        (after[1] - before[1]).abs() < 0.05,
        "{before:?} → {after:?}"
    );
    let moved = gaze_handle_at(&s.settled("gaze-dragged.png", &dir)).expect("still shown");
    assert!(
        moved.0 > handle.0 + 80,
        "the handle followed: {handle:?} → {moved:?}"
    );
    s.one_undo_step(&project, "the handle drag", &pointed, &dragged);
    // The drag selected no bone and moved no other part of the pose.
    assert_eq!(
        key_pose(&dragged).bones,
        key_pose(&pointed).bones,
        "only the gaze changed"
    );
    s.finish(&saved);
}

const FILE_POSE_FROM_IMAGE: (i32, i32) = (72, 378);
const FILE_IMPORT_ANIMATION: (i32, i32) = (90, 255);

/// A project of `model` with no keys yet (so that Ctrl+S saves it in place).
fn empty_project(dir: &Path, model: &Path) -> std::path::PathBuf {
    let project = dir.join("start.json");
    let empty = json!({"v": 1, "fps": 30, "model": {"path": model}, "playhead": 0, "keys": []});
    std::fs::write(&project, empty.to_string()).unwrap();
    project
}

/// File ▸ Pose from image… clicked and answered with a real photograph: the model takes
/// the pose the CLI finds in the same photo, as one undo step, and the landmark window
/// shows the photo beside the model.
#[test]
fn pose_from_image_poses_the_model_in_one_undo_step_and_shows_the_photo() {
    let Some((dir, model)) = prepare("window-photo") else {
        return;
    };
    let (Some(models), Some(photo)) = (crate::pose_photo::models(), crate::pose_photo::photo())
    else {
        return;
    };
    let project = empty_project(&dir, &model);
    let saved = dir.join("saved.json");
    let s = start_for(&dir, &project, &saved, 120);
    let before = s.save(&project);
    // The pose the photo starts from, for the CLI to start from too.
    let start_project = dir.join("before.json");
    std::fs::copy(&project, &start_project).unwrap();
    s.click(FILE_MENU);
    s.click(FILE_POSE_FROM_IMAGE);
    s.answer_path_dialog(&photo);
    let mut after = before.clone();
    for _ in 0..40 {
        pause(0.5);
        after = s.save(&project);
        if after["pose"] != before["pose"] {
            break;
        }
    }
    assert_ne!(after["pose"], before["pose"], "the photo posed the model");
    // The landmark window shows the photo: the orange of her suit, right of the view's
    // centre (where the window opens, beside the model).
    let shot = s.settled("photo-window.png", &dir);
    let orange = (700..1110)
        .flat_map(|x| (40..480).map(move |y| (x, y)))
        .filter(|&(x, y)| {
            let p = shot.get_pixel(x, y);
            p[0] > 170 && (50..150).contains(&p[1]) && p[2] < 90
        })
        .count();
    assert!(
        orange > 5000,
        "{orange} orange pixels in the landmark window"
    );
    // The same pose as the CLI finds in the same photo, from the same start.
    let cli_pose = dir.join("cli-pose.json");
    let result = crate::pose_photo::pose_from_image(
        &model,
        &photo,
        &cli_pose,
        &models,
        &["--hands", "--project", start_project.to_str().unwrap()],
    );
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let cli: Value = serde_json::from_slice(&std::fs::read(&cli_pose).unwrap()).unwrap();
    let bones = cli["bones"].as_object().unwrap();
    assert!(!bones.is_empty());
    for (bone, q) in bones {
        let got = &after["pose"]["bones"][bone];
        for k in 0..4 {
            let (a, b) = (q[k].as_f64().unwrap(), got[k].as_f64().unwrap_or(f64::NAN));
            assert!((a - b).abs() < 1e-4, "{bone}: window {got}, CLI {q}");
        }
    }
    s.one_undo_step(&project, "pose from image", &before, &after);
    ctrl_chord(&s.display, "q");
    s.finish(&saved);
}

const VIEW_FOLLOW_CAMERA: (i32, i32) = (175, 168);

/// View ▸ Follow camera over a folder of frames standing in for a camera: the avatar
/// follows the person (mirrored, as a selfie view), and each Space keeps the pose as a
/// key and steps the playhead on; stopping leaves the captured keys.
#[test]
fn following_a_camera_and_pressing_space_captures_the_followed_pose_as_keys() {
    let Some((dir, model)) = prepare("window-follow") else {
        return;
    };
    let (Some(_), Some(photo)) = (crate::pose_photo::models(), crate::pose_photo::photo()) else {
        return;
    };
    let frames = dir.join("frames");
    std::fs::create_dir_all(&frames).unwrap();
    let picture = image::open(&photo).unwrap().to_rgb8();
    // Four seconds of a steady camera, shaking a little.
    for i in 0..120 {
        crate::pose_photo::shaken_a_little(&picture, i)
            .save(frames.join(format!("frame-{i:03}.png")))
            .unwrap();
    }
    let project = empty_project(&dir, &model);
    let saved = dir.join("saved.json");
    let s = start_with(
        &dir,
        &project,
        &saved,
        120,
        &["--camera-frames", frames.to_str().unwrap()],
    );
    capture_two_keys_while_following(&s, &project, &model);
    ctrl_chord(&s.display, "q");
    s.finish(&saved);
}

/// Mirrored: the avatar's left arm is the person's right, out from the body as in the
/// photo. The head faces the camera upright, as in the photo (mirroring keeps the face's
/// sides with the body's); the legs, out of the picture, and the hips stay as they were.
fn assert_followed_pose(model: &Path, key: &Value) {
    use vrma_maker::core::model::humanoid::Bone;
    let rig = vrma_maker::core::body::rig::load_rig(model).unwrap();
    let pose =
        vrma_maker::core::body::pose::Pose::from_json(&key["pose"], &mut Vec::new()).unwrap();
    let world = rig.world_pose(&pose);
    let at = |b: Bone| world[b.index()].unwrap().0;
    let left = (at(Bone::LeftLowerArm) - at(Bone::LeftUpperArm)).normalize();
    let from_down = left.angle_between(bevy::math::Vec3::NEG_Y).to_degrees();
    assert!(
        from_down < 40.0 && left.x > 0.05,
        "key at {}: left upper arm {left}",
        key["t"]
    );
    crate::pose_photo::assert_half_length_pose(&rig, &pose, &format!("key at {}", key["t"]));
}

/// Follows the camera from the View menu, keeps two keys with Space, stops, and undoes
/// the second: each step read back from the saved project.
fn capture_two_keys_while_following(s: &Session, project: &Path, model: &Path) {
    s.click(VIEW_MENU);
    s.click(VIEW_FOLLOW_CAMERA);
    // The menu closes on a click in the view; the keys go to the window.
    s.click((700, 600));
    pause(1.0);
    xdotool(&s.display, &["key", "space"]);
    pause(0.8);
    xdotool(&s.display, &["key", "space"]);
    pause(0.8);
    let captured = s.save(project);
    let keys = captured["keys"].as_array().unwrap();
    let times: Vec<f64> = keys.iter().map(|k| k["t"].as_f64().unwrap()).collect();
    assert_eq!(
        times,
        vec![0.0, 0.5],
        "two keys, half a second apart: {captured}"
    );
    // Both keys hold the followed pose.
    for key in keys {
        assert_followed_pose(model, key);
    }
    assert!(
        (captured["playhead"].as_f64().unwrap() - 1.0).abs() < 1e-6,
        "{captured}"
    );
    // Stopped, the captured keys stay; one Ctrl+Z takes back exactly the last capture.
    s.click(VIEW_MENU);
    s.click(VIEW_FOLLOW_CAMERA);
    s.click((700, 600));
    ctrl_chord(&s.display, "z");
    let undone = s.save(project);
    let undone_keys = undone["keys"].as_array().unwrap();
    assert_eq!(undone_keys.len(), 1, "{undone}");
    assert_eq!(undone_keys[0], keys[0], "the first capture is untouched");
}

/// The same with a webcam: a fake Video4Linux camera (`tests/it/fake_v4l2.c`, loaded
/// into the app) streams the photograph at 640×480 YUYV, shaking a little, through the
/// app's own device search, format choice, buffers and conversion.
#[test]
fn following_a_webcam_and_pressing_space_captures_the_followed_pose_as_keys() {
    let Some(webcam) = FakeWebcamWindow::start("window-webcam", &[]) else {
        return;
    };
    capture_two_keys_while_following(&webcam.session, &webcam.project, &webcam.model);
    webcam.quit();
}

/// A webcam that stops sending: Follow camera turns itself off and the View menu says
/// why; turning it on again opens the camera again, and Space keeps the followed pose.
/// (Were it still on, that click would turn it off and Space would keep nothing.)
#[test]
fn a_stalled_webcam_turns_follow_camera_off_with_a_message_and_on_again_it_follows() {
    // Each opening of the camera sends 15 frames, then nothing.
    let Some(webcam) =
        FakeWebcamWindow::start("window-webcam-stall", &[("FAKE_V4L2_STALL_AFTER", "15")])
    else {
        return;
    };
    let (s, dir) = (&webcam.session, &webcam.dir);
    s.click(VIEW_MENU);
    s.click(VIEW_FOLLOW_CAMERA);
    pause(1.0);
    let following = s.shot("menu-following.png", dir);
    let warning_before = warning_coloured(&following);
    s.click((700, 600));
    // 15 frames, then the 2 s wait for the next: the View menu shows the problem.
    let mut warned = None;
    for _ in 0..20 {
        pause(1.5);
        s.click(VIEW_MENU);
        pause(1.0);
        let warning = warning_coloured(&s.shot("menu-stalled.png", dir));
        if warning > warning_before + 60 {
            warned = Some(warning);
            break;
        }
        xdotool(&s.display, &["key", "Escape"]);
    }
    let Some(warning) = warned else {
        panic!("the View menu never showed the camera's problem ({warning_before} warning pixels)");
    };
    println!(
        "warning-coloured pixels in the View menu: {warning_before} following, {warning} stalled"
    );
    // The menu is open: Follow camera on again, then one capture.
    s.click(VIEW_FOLLOW_CAMERA);
    s.click((700, 600));
    pause(1.0);
    xdotool(&s.display, &["key", "space"]);
    pause(0.8);
    let captured = s.save(&webcam.project);
    let keys = captured["keys"].as_array().unwrap();
    assert_eq!(
        keys.len(),
        1,
        "one key, kept while following again: {captured}"
    );
    assert_followed_pose(&webcam.model, &keys[0]);
    webcam.quit();
}

/// Pixels in the warning colour of the View menu's problem line (orange text), over
/// where the open View menu and its problem line are drawn.
fn warning_coloured(shot: &image::RgbaImage) -> usize {
    let mut count = 0;
    for y in 150..320.min(shot.height()) {
        for x in 118..480.min(shot.width()) {
            let [r, g, b, _] = shot.get_pixel(x, y).0;
            let (r, g, b) = (r as i32, g as i32, b as i32);
            if r > 170 && (r - g) > 60 && (g - b) > 10 && g > 70 {
                count += 1;
            }
        }
    }
    count
}

/// The app under Xvfb with a fake webcam (`tests/it/fake_v4l2.c`) streaming the
/// photograph framed as a webcam sees it: 640×480 YUYV, shaking a little.
struct FakeWebcamWindow {
    session: Session,
    dir: PathBuf,
    model: PathBuf,
    project: PathBuf,
    saved: PathBuf,
}

impl FakeWebcamWindow {
    /// None where the pose models, the photo or a C compiler are missing (each says so).
    fn start(name: &str, camera_env: &[(&str, &str)]) -> Option<Self> {
        let (dir, model) = prepare(name)?;
        let (Some(_), Some(photo)) = (crate::pose_photo::models(), crate::pose_photo::photo())
        else {
            return None;
        };
        let library = crate::webcam::fake_camera_library(&dir)?;
        let framed = crate::pose_photo::in_webcam_frame(&image::open(&photo).unwrap().to_rgb8());
        // A second of frames, round and round.
        let mut frames = Vec::new();
        for i in 0..30 {
            frames.extend(crate::webcam::to_yuyv(&crate::pose_photo::shaken_a_little(
                &framed, i,
            )));
        }
        let recorded = dir.join("frames.yuyv");
        std::fs::write(&recorded, frames).unwrap();
        let devices = dir.join("dev");
        std::fs::create_dir_all(&devices).unwrap();
        let camera = devices.join("video0");
        std::fs::write(&camera, b"").unwrap();
        let project = empty_project(&dir, &model);
        let saved = dir.join("saved.json");
        let mut env: Vec<(&str, &std::ffi::OsStr)> = vec![
            ("LD_PRELOAD", library.as_os_str()),
            ("FAKE_V4L2_DEVICE", camera.as_os_str()),
            ("FAKE_V4L2_FRAMES", recorded.as_os_str()),
            ("VRMA_MAKER_VIDEO_DEVICES", devices.as_os_str()),
        ];
        env.extend(
            camera_env
                .iter()
                .map(|(k, v)| (*k, std::ffi::OsStr::new(*v))),
        );
        let session = start_with_env(&dir, &project, &saved, 120, &[], &env);
        Some(Self {
            session,
            dir,
            model,
            project,
            saved,
        })
    }

    fn quit(self) {
        ctrl_chord(&self.session.display, "q");
        self.session.finish(&self.saved);
    }
}

/// File ▸ Import animation… of a Blender-made BVH by the mouse (the file named in the
/// built-in file dialog): the import dialog reports the bone mapping, "Insert at the playhead" puts the keys the CLI makes of the same file at
/// the playhead (the keys before and after stay), and one Ctrl+Z takes them all out.
#[test]
fn a_bvh_import_shows_its_mapping_and_inserts_keys_at_the_playhead_as_one_undo_step() {
    let Some((dir, model)) = prepare("window-import-bvh") else {
        return;
    };
    let Some(bvh) = crate::motion_capture::blender_bvh("mixamo_t_m") else {
        return;
    };
    let has_ocr = std::process::Command::new("tesseract")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !required_or_skip("tesseract (Debian's tesseract-ocr)", has_ocr) {
        return;
    }
    let cli = import_anim(&model, &bvh, &dir.join("cli.json"));
    let cli_project: Value =
        serde_json::from_slice(&std::fs::read(dir.join("cli.json")).unwrap()).unwrap();
    let imported = key_times(&cli_project);
    assert_eq!(imported.len() as u64, cli["keys"].as_u64().unwrap());
    let project = dir.join("start.json");
    let keys = json!([{"id": 1, "t": 0.0, "pose": {"bones": {}}}, {"id": 2, "t": 3.0, "pose": {"bones": {}}}]);
    let start = json!({"v": 1, "fps": 30, "model": {"path": model}, "playhead": 0, "keys": keys});
    std::fs::write(&project, start.to_string()).unwrap();
    let saved = dir.join("saved.json");
    let s = start_for(&dir, &project, &saved, 240);
    xdotool(
        &s.display,
        &["key", "--delay", "150", "--repeat", "15", "Right"],
    );
    pause(1.0);
    let before = s.save(&project);
    assert_eq!(before["playhead"].as_f64(), Some(0.5), "{before}");

    // File ▸ Import animation…, answered in the built-in file dialog.
    s.click(FILE_MENU);
    s.click(FILE_IMPORT_ANIMATION);
    s.answer_path_dialog(&bvh);
    let dialog = (820, 30, 460, 360);
    crate::window_language::wait_for_text(&s.display, dialog, "eng", "Bone mapping", &dir);
    let insert = crate::window_language::wait_for_text(
        &s.display,
        dialog,
        "eng",
        "Insert at the playhead",
        &dir,
    );
    s.click(insert); // the radio's label selects it
    let cancel = crate::window_language::wait_for_text(&s.display, dialog, "eng", "Cancel", &dir);
    s.click((cancel.0 - 55, cancel.1)); // Import, left of Cancel
    pause(1.5);
    let after = s.save(&project);
    let mut expected = vec![0.0];
    expected.extend(imported.iter().map(|t| ((t + 0.5) * 30.0).round() / 30.0));
    expected.push(3.0);
    assert_eq!(key_times(&after), expected, "the keys went in at 0.5 s");
    s.one_undo_step(&project, "the import", &before, &after);
    ctrl_chord(&s.display, "q");
    let at_exit = s.finish(&saved);
    assert_eq!(key_times(&at_exit), expected);
}

const FILE_EXPORT_FILM: (i32, i32) = (90, 234);
/// In the Export PNG window: Export animation….
const FILM_EXPORT: (i32, i32) = (680, 168);
/// The Cancel button beside the status line's progress bar.
const STATUS_CANCEL: (i32, i32) = (30, 771);

/// A project of keys at 0 s, 1 s and `last` s on `model` at `fps`: the left arm up, the
/// right arm up, the spine turned (something moves on every frame).
fn film_project(dir: &Path, model: &Path, name: &str, last: f32, fps: u32) -> PathBuf {
    let path = dir.join(name);
    let keys = json!([
        {"id": 1, "t": 0, "ease": "LINEAR", "pose": {"bones": {"leftUpperArm": [0, 0, 0.5, 0.866]}}},
        {"id": 2, "t": 1, "ease": "LINEAR", "pose": {"bones": {"rightUpperArm": [0, 0, -0.5, 0.866]}}},
        {"id": 3, "t": last, "ease": "LINEAR", "pose": {"bones": {"spine": [0, 0.3, 0, 0.95]}}}]);
    let project =
        json!({"v": 1, "fps": fps, "model": {"path": model}, "playhead": 0, "keys": keys});
    std::fs::write(&path, project.to_string()).unwrap();
    path
}

/// File ▸ Export animation as video… clicked, then Export animation… in the options
/// window and a name typed in the dialog: a looping WebP of every frame (Pillow counts
/// them) at the remembered size. A long film's Cancel, clicked on the status bar while
/// it renders, leaves no file, and the editor goes on.
#[test]
fn export_animation_with_real_clicks_writes_every_frame_and_cancel_leaves_nothing() {
    let Some((dir, model)) = prepare("window-film") else {
        return;
    };
    let Some(python) = crate::render_anim::pillow() else {
        required_or_skip("Pillow (scripts/setup-pillow)", false);
        return;
    };
    // The remembered Export PNG size, as a user's settings file has it.
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::write(
        dir.join("data/settings.json"),
        json!({"png": {"size": [256, 341]}}).to_string(),
    )
    .unwrap();
    let films = dir.join("films");
    std::fs::create_dir_all(&films).unwrap();
    let short = film_project(&dir, &model, "short.json", 2.0, 10);
    let out = films.join("wave.webp");
    let at_exit = dir.join("at-exit.json");
    let s = start_for(&dir, &short, &at_exit, 150);
    s.click(FILE_MENU);
    s.click(FILE_EXPORT_FILM);
    pause(1.0);
    s.click(FILM_EXPORT);
    s.answer_path_dialog(&out);
    let started = Instant::now();
    while !out.exists() && started.elapsed() < Duration::from_secs(120) {
        pause(0.5);
    }
    ctrl_chord(&s.display, "q");
    s.finish(&at_exit);
    let read = std::process::Command::new(&python)
        .arg(repo().join("tests/python/film_frames.py"))
        .arg(&out)
        .arg("0")
        .arg(dir.join("first.png"))
        .output()
        .unwrap();
    assert!(
        read.status.success(),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
    let info: Value = serde_json::from_slice(&read.stdout).unwrap();
    assert_eq!(info["frames"], 21, "2 s at 10 fps: {info}");
    assert_eq!(info["size"], json!([256, 341]), "the remembered size");
    assert_eq!(
        (info["loop"].clone(), info["alpha"].clone()),
        (json!(0), json!(true))
    );

    // Thirty seconds at 30 fps: still rendering when Cancel is clicked.
    let long = film_project(&dir, &model, "long.json", 30.0, 30);
    let cancelled = films.join("long.webp");
    let s = start_for(&dir, &long, &at_exit, 150);
    s.click(FILE_MENU);
    s.click(FILE_EXPORT_FILM);
    pause(1.0);
    s.click(FILM_EXPORT);
    s.answer_path_dialog(&cancelled);
    wait_for_log(&s.log, "film started", Duration::from_secs(60));
    pause(2.0);
    s.click(STATUS_CANCEL);
    wait_for_log(&s.log, "film ended", Duration::from_secs(60));
    pause(1.0);
    let left: Vec<_> = std::fs::read_dir(&films)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left,
        vec![std::ffi::OsString::from("wave.webp")],
        "nothing else: {left:?}"
    );
    let log = std::fs::read_to_string(&s.log).unwrap();
    assert!(log.contains("film ended: cancelled"), "{log}");
    ctrl_chord(&s.display, "q");
    s.finish(&at_exit);
}

/// A corner of the picture in the landmark window, clear of every limb's line.
const PHOTO_CORNER: (i32, i32) = (700, 95);

/// In the landmark window after File ▸ Pose from image: a click on the picture, Tab
/// (the first limb: the left upper arm) and F flip that limb's depth, as one more undo
/// step, to exactly the pose `pose-from-image --flip leftUpperArm` writes.
#[test]
fn tab_and_f_in_the_photo_window_flip_a_limbs_depth_as_one_undo_step() {
    let Some((dir, model)) = prepare("window-photo-flip") else {
        return;
    };
    let (Some(models), Some(photo)) = (crate::pose_photo::models(), crate::pose_photo::photo())
    else {
        return;
    };
    let project = empty_project(&dir, &model);
    let saved = dir.join("saved.json");
    let start_project = dir.join("before.json");
    std::fs::copy(&project, &start_project).unwrap();
    let s = start_for(&dir, &project, &saved, 150);
    let before = s.save(&project);
    s.click(FILE_MENU);
    s.click(FILE_POSE_FROM_IMAGE);
    s.answer_path_dialog(&photo);
    let mut posed = before.clone();
    for _ in 0..40 {
        pause(0.5);
        posed = s.save(&project);
        if posed["pose"] != before["pose"] {
            break;
        }
    }
    assert_ne!(posed["pose"], before["pose"], "the photo posed the model");
    s.click(PHOTO_CORNER);
    xdotool(&s.display, &["key", "Tab"]);
    pause(0.6);
    xdotool(&s.display, &["key", "f"]);
    pause(0.6);
    // Esc gives the keys back to the editor (Ctrl+S below).
    xdotool(&s.display, &["key", "Escape"]);
    let mut flipped = posed.clone();
    for _ in 0..20 {
        pause(0.5);
        flipped = s.save(&project);
        if flipped["pose"] != posed["pose"] {
            break;
        }
    }
    assert_ne!(flipped["pose"], posed["pose"], "Tab and F flipped a limb");
    let cli_pose = dir.join("cli-flipped.json");
    let result = crate::pose_photo::pose_from_image(
        &model,
        &photo,
        &cli_pose,
        &models,
        &[
            "--hands",
            "--project",
            start_project.to_str().unwrap(),
            "--flip",
            "leftUpperArm",
        ],
    );
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let cli: Value = serde_json::from_slice(&std::fs::read(&cli_pose).unwrap()).unwrap();
    for (bone, q) in cli["bones"].as_object().unwrap() {
        let got = &flipped["pose"]["bones"][bone];
        for k in 0..4 {
            let (a, b) = (q[k].as_f64().unwrap(), got[k].as_f64().unwrap_or(f64::NAN));
            assert!((a - b).abs() < 1e-4, "{bone}: window {got}, CLI {q}");
        }
    }
    s.one_undo_step(&project, "the flip", &posed, &flipped);
    ctrl_chord(&s.display, "q");
    s.finish(&saved);
}

const FILE_IMPORT_VIDEO: (i32, i32) = (66, 399);

/// A video made by Debian's ffmpeg from the test photograph, the camera drifting across
/// it (the person is found in every frame).
fn video_of_photo(photo: &Path, seconds: f32, out: &Path) {
    let made = std::process::Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-loop", "1", "-framerate", "30", "-i"])
        .arg(photo)
        .args([
            "-vf",
            "scale=480:480,crop=440:440:20+15*sin(n/9):20+10*cos(n/7)",
            "-t",
            &seconds.to_string(),
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
        ])
        .arg(out)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
}

/// File ▸ Import video… with real clicks (and a video's path typed, as a drop opens it):
/// the window shows the frames being read with their landmarks; Cancel leaves the
/// project as it was; Import puts the keys and planted spans `pose-from-video` finds in
/// the same video at the playhead, as one undo step.
#[test]
fn import_video_with_real_clicks_inserts_the_clis_keys_at_the_playhead_and_cancel_changes_nothing()
{
    let Some((dir, model)) = prepare("window-import-video") else {
        return;
    };
    let (Some(models), Some(photo)) = (crate::pose_photo::models(), crate::pose_photo::photo())
    else {
        return;
    };
    let tools = [("ffmpeg", "-version"), ("tesseract", "--version")]
        .iter()
        .all(|(tool, asked)| {
            std::process::Command::new(tool)
                .arg(asked)
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if !required_or_skip("ffmpeg and tesseract (Debian)", tools) {
        return;
    }
    let short = dir.join("short clip.mp4");
    video_of_photo(&photo, 1.5, &short);
    let long = dir.join("long clip.mp4");
    video_of_photo(&photo, 30.0, &long);
    let cli_path = dir.join("cli.json");
    let cli = bin()
        .args(["pose-from-video", "--model", model.to_str().unwrap()])
        .arg(&short)
        .args(["-o", cli_path.to_str().unwrap(), "--models"])
        .arg(&models)
        .output()
        .unwrap();
    assert!(
        cli.status.success(),
        "{}",
        String::from_utf8_lossy(&cli.stderr)
    );
    let cli_project: Value = serde_json::from_slice(&std::fs::read(&cli_path).unwrap()).unwrap();
    let project = dir.join("start.json");
    let keys = json!([{"id": 1, "t": 0.0, "pose": {"bones": {}}}, {"id": 2, "t": 3.0, "pose": {"bones": {}}}]);
    let start = json!({"v": 1, "fps": 30, "model": {"path": model}, "playhead": 0.5, "keys": keys});
    std::fs::write(&project, start.to_string()).unwrap();
    let saved = dir.join("saved.json");
    let s = start_for(&dir, &project, &saved, 300);
    let before = s.save(&project);
    assert_eq!(before["playhead"].as_f64(), Some(0.5), "{before}");
    let window = (680, 40, 345, 580); // the video window, beside the model

    // The long clip: reading, it shows its frames with landmarks; Cancel changes nothing.
    s.click(FILE_MENU);
    s.click(FILE_IMPORT_VIDEO);
    s.answer_path_dialog(&long);
    let import = crate::window_language::wait_for_text(&s.display, window, "eng", "at 0.50", &dir);
    s.click(import);
    let cancel = crate::window_language::wait_for_text(&s.display, window, "eng", "Cancel", &dir);
    let shot = s.shot("reading.png", &dir);
    let landmarks = (window.0..window.0 + window.2)
        .flat_map(|x| (window.1..window.1 + window.3).map(move |y| (x, y)))
        .filter(|&(x, y)| {
            let p = shot.get_pixel(x, y);
            (40..90).contains(&p[0]) && p[1] > 200 && (70..120).contains(&p[2])
        })
        .count();
    assert!(
        landmarks > 100,
        "{landmarks} landmark-green pixels while reading"
    );
    // Under them, the frame being read: the orange of her suit.
    let orange = (window.0..window.0 + window.2)
        .flat_map(|x| (window.1..window.1 + window.3).map(move |y| (x, y)))
        .filter(|&(x, y)| {
            let p = shot.get_pixel(x, y);
            p[0] > 170 && (50..150).contains(&p[1]) && p[2] < 90
        })
        .count();
    assert!(
        orange > 3000,
        "{orange} orange pixels of the frame while reading"
    );
    s.click(cancel);
    crate::window_language::wait_for_text(&s.display, window, "eng", "at 0.50", &dir);
    pause(1.0);
    let cancelled = s.save(&project);
    assert_eq!(
        content(&cancelled, &before),
        content(&before, &cancelled),
        "Cancel changed nothing"
    );

    // The short clip, typed into File's path field (what a drop does: the name says it
    // is a video), replacing the long one in the window, then imported: the CLI's keys
    // and planted spans, from the playhead.
    open_typed_path(&s.display, &s.window, &short);
    // The window names the short clip before its Import is pressed (the long clip's
    // window, still open, has an Import button too).
    crate::window_language::wait_for_text(&s.display, window, "eng", "short clip", &dir);
    let import = crate::window_language::wait_for_text(&s.display, window, "eng", "at 0.50", &dir);
    s.click(import);
    let mut after = before.clone();
    for _ in 0..120 {
        pause(0.5);
        after = s.save(&project);
        if key_times(&after) != key_times(&before) {
            break;
        }
    }
    let clip_times = key_times(&cli_project);
    let clip_end = clip_times.last().copied().unwrap();
    let mut expected = vec![0.0];
    expected.extend(clip_times.iter().map(|t| ((t + 0.5) * 30.0).round() / 30.0));
    if 3.0 > clip_end + 0.5 {
        expected.push(3.0);
    }
    assert_eq!(
        key_times(&after),
        expected,
        "the video's keys went in at 0.5 s"
    );
    let plants = |project: &Value, shift: f64| -> Vec<(String, i64, i64)> {
        project["plants"]
            .as_array()
            .map(|list| {
                list.iter()
                    .map(|p| {
                        let frame =
                            |v: &Value| ((v.as_f64().unwrap() + shift) * 30.0).round() as i64;
                        (
                            p["foot"].as_str().unwrap().to_string(),
                            frame(&p["from"]),
                            frame(&p["to"]),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(
        plants(&after, 0.0),
        plants(&cli_project, 0.5),
        "the planted spans came too"
    );
    s.one_undo_step(&project, "the video import", &before, &after);
    ctrl_chord(&s.display, "q");
    let at_exit = s.finish(&saved);
    assert_eq!(key_times(&at_exit), expected);
}
