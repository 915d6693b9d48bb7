//! Helpers shared by the integration tests: the CLI binary, temp dirs, fixtures and
//! the Node reference harness (three-vrm, glTF validator).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The binary, with its user data (library, recovery file) in a folder of its own so
/// that tests never see each other's autosaves or the developer's library.
pub fn bin() -> Command {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let data =
        std::env::temp_dir().join(format!("vrma-maker-tests-{}-data-{n}", std::process::id()));
    let mut command = Command::new(env!("CARGO_BIN_EXE_vrma-maker"));
    command.env("VRMA_MAKER_DATA_DIR", data);
    // The window speaks the system's language: English here, whatever the machine's
    // (tests that click by position expect English words; a test may set another).
    command
        .env("LANG", "C.UTF-8")
        .env_remove("LANGUAGE")
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES");
    command
}

pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("the binary runs")
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vrma-maker-tests-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// In CI a missing dependency of a test is a failure; on a developer machine the
/// test says what is missing and passes without checking.
pub fn required_or_skip(what: &str, present: bool) -> bool {
    if present {
        return true;
    }
    if std::env::var_os("CI").is_some() {
        panic!("{what} is missing in CI (.ci/run should provide it)");
    }
    eprintln!("SKIPPED: {what} is missing; this test checked nothing");
    false
}

/// The shared fixtures folder (`../shared/fixtures`), when present.
pub fn fixtures() -> Option<PathBuf> {
    let dir = repo().join("../shared/fixtures");
    dir.is_dir().then_some(dir)
}

/// Every fixture model (VRM 0.x and 1.0).
pub fn fixture_models() -> Vec<PathBuf> {
    let Some(dir) = fixtures() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for sub in ["vrm0", "vrm1"] {
        if let Ok(entries) = std::fs::read_dir(dir.join(sub)) {
            out.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "vrm")),
            );
        }
    }
    out.sort();
    out
}

/// Whether the Node harness (tests/node with node_modules) can run.
pub fn node_ready() -> bool {
    repo()
        .join("tests/node/node_modules/@pixiv/three-vrm")
        .is_dir()
        && Command::new("node")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
}

pub fn node(script: &str, args: &[&Path]) -> Output {
    Command::new("node")
        .arg(repo().join("tests/node").join(script))
        .args(args)
        .output()
        .expect("node runs")
}

/// Runs a script of the Node harness that prints one JSON value, and reads it.
pub fn node_json(script: &str, args: &[&std::ffi::OsStr]) -> serde_json::Value {
    let out = Command::new("node")
        .arg(repo().join("tests/node").join(script))
        .args(args)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "{script} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Writes both mannequin variants into `dir`; returns (vrm1, vrm0) paths.
pub fn mannequins(dir: &Path) -> (PathBuf, PathBuf) {
    let v1 = dir.join("mannequin.vrm");
    let v0 = dir.join("mannequin0.vrm");
    assert!(
        run(&["mannequin", "-o", v1.to_str().unwrap()])
            .status
            .success()
    );
    assert!(
        run(&["mannequin", "-o", v0.to_str().unwrap(), "--vrm0"])
            .status
            .success()
    );
    (v1, v0)
}

pub fn json_stdout(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// An Xvfb server for one test, stopped when dropped, and the test's turn at the
/// renderer (see [`RenderTurn`]).
pub struct Xvfb(Child, RenderTurn);

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One window test or heavy render at a time. Window tests drive a real app with timed
/// input; a second app, or a VRoid-scale still, drawing on lavapipe at once on CI's two
/// cores slowed frames past a second (a VRoid window stalled for 20 s beside three
/// VRoid stills), so clicks landed after the screenshots meant to show them. Held with
/// each Xvfb, and by the heaviest render tests. Re-entrant within a test's thread.
pub struct RenderTurn(Option<std::sync::MutexGuard<'static, ()>>);

thread_local! {
    static HOLDS_RENDER_TURN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl RenderTurn {
    pub fn take() -> RenderTurn {
        static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
        if HOLDS_RENDER_TURN.get() {
            return RenderTurn(None);
        }
        // A test that failed while holding it leaves it poisoned, not taken.
        let guard = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        HOLDS_RENDER_TURN.set(true);
        RenderTurn(Some(guard))
    }
}

impl Drop for RenderTurn {
    fn drop(&mut self) {
        if self.0.is_some() {
            HOLDS_RENDER_TURN.set(false);
        }
    }
}

pub fn start_xvfb() -> Option<(Xvfb, String)> {
    let turn = RenderTurn::take();
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let display = format!(":{}", 100 + (std::process::id() % 300) * 8 + n);
    let child = Command::new("Xvfb")
        .args([
            display.as_str(),
            "-screen",
            "0",
            "1280x800x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    // Under load Xvfb can take longer than a fixed pause to accept connections, and an
    // app started too early fails to open its window.
    wait_for_display(&display);
    Some((Xvfb(child, turn), display))
}

pub fn wait_with_timeout(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let _ = child.kill();
    None
}

/// Xvfb and a Vulkan driver (lavapipe) are installed.
pub fn have_display_stack() -> bool {
    let xvfb = Command::new("sh")
        .args(["-c", "command -v Xvfb"])
        .output()
        .is_ok_and(|o| o.status.success());
    let vulkan = std::path::Path::new("/usr/share/vulkan/icd.d").is_dir();
    xvfb && vulkan
}

/// A project exercising every ease, expressions, hips motion and a quaternion sign flip
/// between keys (the same rotation written with opposite signs). It ends on a LINEAR
/// segment: players are sampled just before the end, where a HOLD would be mid-jump.
/// Writes [`rich_project`] for `model` to `project` and exports it with `export-vrma` to
/// `out`; returns the export's statistics.
pub fn export_rich_animation(model: &Path, project: &Path, out: &Path) -> serde_json::Value {
    std::fs::write(project, rich_project(model).to_string()).unwrap();
    export_vrma(model, project, out)
}

/// `vrma-maker export-vrma` of a project on `model` to `out`: its JSON output.
pub fn export_vrma(model: &Path, project: &Path, out: &Path) -> serde_json::Value {
    json_stdout(&run(&[
        "export-vrma",
        "--model",
        model.to_str().unwrap(),
        "--project",
        project.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]))
}

/// three-vrm's playback of a VRMA on a model at `times` (a JSON array, or `keys`):
/// `tests/node/play_vrma.mjs`.
pub fn play_vrma(model: &Path, anim: &Path, times: &str) -> serde_json::Value {
    node_json(
        "play_vrma.mjs",
        &[model.as_os_str(), anim.as_os_str(), times.as_ref()],
    )
}

/// The key times of a project (or of `apply`'s output), as written.
pub fn written_key_times(project: &serde_json::Value) -> Vec<f64> {
    project["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["t"].as_f64().unwrap())
        .collect()
}

/// `vrma-maker import-anim` of `anim` onto `model`, saved as `project`: its JSON output.
pub fn import_anim(model: &Path, anim: &Path, project: &Path) -> serde_json::Value {
    json_stdout(&run(&[
        "import-anim",
        "--model",
        model.to_str().unwrap(),
        "--anim",
        anim.to_str().unwrap(),
        "-o",
        project.to_str().unwrap(),
    ]))
}

/// `vrma-maker sample` of a project at `times`, with `extra` flags (`--world`).
pub fn sample_project(
    model: &Path,
    project: &Path,
    times: &[f64],
    extra: &[&str],
) -> serde_json::Value {
    let list: Vec<String> = times.iter().map(|t| format!("{t}")).collect();
    let list = list.join(",");
    let mut args = vec![
        "sample",
        "--model",
        model.to_str().unwrap(),
        "--project",
        project.to_str().unwrap(),
        "--times",
        &list,
    ];
    args.extend(extra);
    json_stdout(&run(&args))
}

pub fn rich_project(model: &Path) -> serde_json::Value {
    use serde_json::json;
    let q = |x: f32, y: f32, z: f32, w: f32| {
        let q = bevy::math::Quat::from_xyzw(x, y, z, w).normalize();
        json!([q.x, q.y, q.z, q.w])
    };
    json!({"v": 1, "fps": 30, "model": {"path": model},
    "keys": [
        {"id": 1, "t": 0.0, "ease": "LINEAR", "pose": {"bones": {"spine": q(0.0, 0.3, 0.0, 0.95), "leftUpperArm": q(0.0, 0.0, -0.5, 0.86)}, "hips": [0.0, 0.95, 0.0], "expr": {"happy": 0.0}}},
        {"id": 2, "t": 0.5, "ease": "IN-OUT", "pose": {"bones": {"spine": q(0.0, -0.3, 0.0, -0.95), "leftUpperArm": q(0.2, 0.1, -0.4, 0.88), "rightLowerLeg": q(0.6, 0.0, 0.0, 0.8)}, "hips": [0.05, 0.85, 0.1], "expr": {"happy": 1.0, "blink": 0.3}}},
        {"id": 3, "t": 1.2, "ease": "IN", "pose": {"bones": {"neck": q(0.3, 0.0, 0.1, 0.95), "leftUpperArm": q(0.0, 0.0, 0.6, 0.8), "leftShoulder": q(0.0002, 0.0, 0.0, 1.0)}, "hips": [-0.1, 0.9, 0.0], "expr": {"aa": 0.8}}},
        {"id": 4, "t": 2.0, "ease": "OUT", "pose": {"bones": {"head": q(0.0, 0.7, 0.0, 0.7), "leftLowerArm": q(0.0, 0.9, 0.0, 0.4)}, "hips": [0.0, 0.7, 0.2]}},
        {"id": 5, "t": 2.5, "ease": "HOLD", "pose": {"bones": {"chest": q(0.2, 0.0, 0.0, 0.98)}, "expr": {"surprised": 1.0}}},
        {"id": 6, "t": 3.0, "ease": "LINEAR", "pose": {"bones": {"chest": q(-0.2, 0.0, 0.0, 0.98)}, "hips": [0.0, 1.0, 0.0]}},
        {"id": 7, "t": 3.5, "ease": "LINEAR", "pose": {"bones": {"spine": q(0.1, 0.0, 0.0, 0.99), "rightUpperArm": q(0.0, 0.0, 0.5, 0.86)}, "hips": [0.02, 0.93, 0.0], "expr": {"happy": 0.5}}}
    ]})
}

/// Waits (up to a minute) for the editor window on an X display; returns its id.
/// The editor window's id on an X display, if it is there now.
pub fn window_id(display: &str) -> Option<String> {
    let found = Command::new("xdotool")
        .args(["search", "--name", "VRMA Maker"])
        .env("DISPLAY", display)
        .output()
        .ok()?;
    String::from_utf8_lossy(&found.stdout)
        .lines()
        .next()
        .map(str::to_string)
}

pub fn wait_for_window(display: &str) -> String {
    let start = Instant::now();
    loop {
        if let Some(id) = window_id(display) {
            return id;
        }
        // Generous: a loaded 2-core CI machine has taken over a minute to map a window.
        if start.elapsed() >= Duration::from_secs(180) {
            let tree = Command::new("xwininfo")
                .args(["-root", "-tree"])
                .env("DISPLAY", display)
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .unwrap_or_default();
            panic!("no window appeared on {display}; windows:\n{tree}");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Waits (up to `limit`) until the app's log holds `needle` (its own readiness signal,
/// e.g. "model ready to pose"), instead of a fixed sleep that a loaded machine outlasts.
pub fn wait_for_log(log: &Path, needle: &str, limit: Duration) {
    let start = Instant::now();
    while start.elapsed() < limit {
        if std::fs::read_to_string(log).is_ok_and(|l| l.contains(needle)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let said = std::fs::read_to_string(log).unwrap_or_default();
    panic!("the app never logged '{needle}' within {limit:?}:\n{said}");
}

/// Waits (up to 20 s) until the X server accepts connections, then a second more.
pub fn wait_for_display(display: &str) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(20) {
        let answered = Command::new("xdotool")
            .arg("getmouselocation")
            .env("DISPLAY", display)
            .output();
        match answered {
            Ok(o) if o.status.success() => break,
            Ok(_) => {}
            // No xdotool to ask with: the old fixed pause.
            Err(_) => break,
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_secs(1));
}

/// Runs xdotool against an X display.
pub fn xdotool(display: &str, args: &[&str]) -> Output {
    Command::new("xdotool")
        .args(args)
        .env("DISPLAY", display)
        .output()
        .expect("xdotool runs")
}

/// Whether xdotool is installed.
pub fn have_xdotool() -> bool {
    Command::new("sh")
        .args(["-c", "command -v xdotool"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Holds Ctrl while tapping `key`, with pauses long enough for a slow frame to see
/// the modifier down.
pub fn ctrl_chord(display: &str, key: &str) {
    let pause = || std::thread::sleep(Duration::from_millis(300));
    xdotool(display, &["keydown", "ctrl"]);
    pause();
    xdotool(display, &["key", "--delay", "150", key]);
    pause();
    xdotool(display, &["keyup", "ctrl"]);
    pause();
}

/// Ctrl+S in the window on `display`, then the project as written to `path` (waiting
/// for the new file: each save replaces it in one rename, so its modification time
/// moves on and what is there is whole).
pub fn save_by_ctrl_s(display: &str, path: &Path) -> serde_json::Value {
    let written = || std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let before = written();
    ctrl_chord(display, "s");
    for _ in 0..50 {
        if written() != before {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_ne!(written(), before, "Ctrl+S wrote {}", path.display());
    serde_json::from_slice(&std::fs::read(path).expect("saved")).unwrap()
}

/// Fraction of pixels in a box that are not the clear colour (the view's background).
pub fn covered_fraction(img: &image::RgbaImage, x0: u32, x1: u32, y0: u32, y1: u32) -> f64 {
    let background = img.get_pixel(img.width() / 2, 45); // top of the 3D view, above the head
    let mut hit = 0;
    let mut total = 0;
    for y in y0..y1 {
        for x in x0..x1 {
            let p = img.get_pixel(x, y);
            let d = (0..3)
                .map(|c| (p[c] as i32 - background[c] as i32).abs())
                .max()
                .unwrap();
            hit += (d > 40) as u32;
            total += 1;
        }
    }
    hit as f64 / total as f64
}

/// How much of the 3D view's centre (where the mannequin stands in a window screenshot)
/// is covered by something other than the background.
pub fn view_centre_covered(img: &image::RgbaImage) -> f64 {
    let (w, h) = (img.width(), img.height());
    covered_fraction(img, w * 45 / 100, w * 55 / 100, h * 30 / 100, h * 60 / 100)
}

/// A generated VRoid-scale test avatar (`vrma-maker test-avatar`), VRM 1.0 or 0.x, with
/// any extra generator flags (crafted variants).
pub fn test_avatar(dir: &Path, name: &str, vrm0: bool, extra: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let mut args = vec!["test-avatar", "-o", path.to_str().unwrap()];
    if vrm0 {
        args.push("--vrm0");
    }
    args.extend_from_slice(extra);
    let out = run(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

/// The same command run under `/usr/bin/time -v` (which reports its peak memory).
pub fn under_time(command: &Command) -> Command {
    let mut timed = Command::new("/usr/bin/time");
    timed
        .arg("-v")
        .arg(command.get_program())
        .args(command.get_args());
    for (key, value) in command.get_envs() {
        match value {
            Some(v) => timed.env(key, v),
            None => timed.env_remove(key),
        };
    }
    timed
}

/// Peak resident memory in bytes from `/usr/bin/time -v`'s report.
pub fn peak_memory(time_report: &str) -> u64 {
    time_report
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Maximum resident set size (kbytes): ")
        })
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no memory figure from /usr/bin/time:\n{time_report}"))
        * 1024
}

/// Runs a command under `/usr/bin/time -v`; returns its output and its peak resident
/// memory in bytes.
pub fn with_peak_memory(command: &mut Command) -> (Output, u64) {
    let out = under_time(command).output().expect("/usr/bin/time runs");
    let peak = peak_memory(&String::from_utf8_lossy(&out.stderr));
    (out, peak)
}

/// Whether `/usr/bin/time` (GNU time) and ImageMagick's `import` are installed.
pub fn have_time_and_import() -> bool {
    Path::new("/usr/bin/time").exists()
        && Command::new("sh")
            .args(["-c", "command -v import"])
            .output()
            .is_ok_and(|o| o.status.success())
}

/// A screenshot of the whole X display (ImageMagick's `import`), while the app runs.
pub fn grab_display(display: &str, path: &Path) -> image::RgbaImage {
    let out = Command::new("import")
        .args(["-window", "root", path.to_str().unwrap()])
        .env("DISPLAY", display)
        .output()
        .expect("import runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    image::open(path).expect("a screenshot").to_rgba8()
}

/// Waits (at most about half a minute) until the display shows the same picture three
/// looks in a row: the app has drawn what the test did last (it draws on demand, and a
/// frame on a loaded machine can take a second). `scratch` is where screenshots go.
pub fn wait_until_settled(display: &str, scratch: &Path) {
    let mut last = grab_display(display, scratch);
    let mut unchanged = 0;
    for _ in 0..40 {
        std::thread::sleep(Duration::from_millis(400));
        let now = grab_display(display, scratch);
        unchanged = if now == last { unchanged + 1 } else { 0 };
        last = now;
        if unchanged == 3 {
            return;
        }
    }
}

/// Waits until the display's `region` (x, y, width, height) differs from `before`,
/// e.g. a menu drawn after the click that opens it: a frame of a heavy avatar on a
/// loaded machine can take seconds. False when `limit` passed with no change.
pub fn wait_for_change(
    display: &str,
    scratch: &Path,
    before: &image::RgbaImage,
    (x, y, width, height): (u32, u32, u32, u32),
    limit: Duration,
) -> bool {
    let start = std::time::Instant::now();
    let region = |img: &image::RgbaImage| {
        image::imageops::crop_imm(img, x, y, width, height)
            .to_image()
            .into_raw()
    };
    let was = region(before);
    while start.elapsed() < limit {
        if region(&grab_display(display, scratch)) != was {
            return true;
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    false
}

/// Types a path into File ▸ "Or type a path" and presses Open, with the real mouse
/// and keyboard (the window is 1280×800 at the display's top-left).
/// Replaces the text of the one-line field that has the keyboard. It is emptied key by
/// key: a Ctrl+A (its modifier sent apart from the key) was once typed as a plain "a"
/// on a loaded machine.
pub fn retype_field(display: &str, text: &str) {
    xdotool(display, &["key", "End"]);
    xdotool(
        display,
        &["key", "--delay", "5", "--repeat", "300", "BackSpace"],
    );
    xdotool(display, &["type", "--delay", "40", text]);
}

pub fn open_typed_path(display: &str, window: &str, path: &Path) {
    let pause = |ms| std::thread::sleep(Duration::from_millis(ms));
    let click = |x: &str, y: &str| {
        xdotool(display, &["mousemove", "--window", window, x, y]);
        pause(500);
        xdotool(display, &["click", "1"]);
        pause(1200);
    };
    xdotool(display, &["windowfocus", "--sync", window]); // the keys go to the field
    click("19", "11"); // File
    click("150", "447"); // the path field (under File ▸ Open recent and the rest)
    retype_field(display, path.to_str().unwrap()); // it keeps the last path typed
    pause(800);
    click("321", "447"); // Open
}

/// Model-space bone positions of a pose on a model (`apply`'s `world`).
pub fn world_of(
    model: &std::path::Path,
    pose: &serde_json::Value,
    dir: &std::path::Path,
) -> serde_json::Value {
    apply_script(
        model,
        &serde_json::json!([{"op": "pose", "pose": pose}]),
        dir,
    )["world"]
        .clone()
}

/// An edit script run on a model by `apply` (written into `dir`): its report (`pose`,
/// `world`, `keys` …).
pub fn apply_script(model: &Path, script: &serde_json::Value, dir: &Path) -> serde_json::Value {
    let path = dir.join("apply-script.json");
    std::fs::write(&path, script.to_string()).unwrap();
    json_stdout(&run(&[
        "apply",
        "--model",
        model.to_str().unwrap(),
        "--script",
        path.to_str().unwrap(),
    ]))
}

/// A copy of a GLB model with its JSON changed.
/// The glTF JSON of a GLB file (a model or an animation).
pub fn glb_json(path: &Path) -> serde_json::Value {
    let bytes = std::fs::read(path).unwrap();
    serde_json::from_slice(vrma_maker::core::files::glb::split(&bytes).unwrap().json).unwrap()
}

pub fn edited_glb(
    model: &Path,
    out: PathBuf,
    change: impl FnOnce(&mut serde_json::Value),
) -> PathBuf {
    let bytes = std::fs::read(model).unwrap();
    let glb = vrma_maker::core::files::glb::split(&bytes).unwrap();
    let mut root: serde_json::Value = serde_json::from_slice(glb.json).unwrap();
    change(&mut root);
    let json = serde_json::to_vec(&root).unwrap();
    std::fs::write(
        &out,
        vrma_maker::core::files::glb::build(&json, glb.bin.unwrap_or(&[])),
    )
    .unwrap();
    out
}

/// Whether a Vulkan driver is installed (lavapipe renders the stills).
pub fn have_vulkan() -> bool {
    Path::new("/usr/share/vulkan/icd.d").is_dir()
}

/// `render-png` of a model in a pose file, with extra arguments; the still it wrote.
pub fn render_png(model: &Path, pose: &Path, out: &Path, extra: &[&str]) -> image::RgbaImage {
    let result = bin()
        .args(["render-png", "--model", model.to_str().unwrap()])
        .args([
            "--pose",
            pose.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .args(extra)
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    assert!(
        result.status.success(),
        "render-png failed: {}",
        String::from_utf8_lossy(&result.stderr)
    );
    image::open(out).unwrap().to_rgba8()
}

/// A project of three keys on `model`, playhead at 0.5 s: the left arm raised at 0 s,
/// the right arm raised at 1 s, the spine turned at 2 s.
pub fn three_key_project(model: &Path, path: &Path) {
    std::fs::write(
        path,
        serde_json::json!({"v": 1, "fps": 30, "model": {"path": model}, "playhead": 0.5, "keys": [
            {"id": 1, "t": 0, "pose": {"bones": {"leftUpperArm": [0, 0, 0.5, 0.866]}}},
            {"id": 2, "t": 1, "pose": {"bones": {"rightUpperArm": [0, 0, -0.5, 0.866]}}},
            {"id": 3, "t": 2, "pose": {"bones": {"spine": [0, 0.3, 0, 0.95]}}}]})
        .to_string(),
    )
    .unwrap();
}
