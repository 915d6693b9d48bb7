//! The timeline through the real window: keyboard shortcuts typed with xdotool under
//! Xvfb (frame steps, K, Delete, Ctrl+Z), and the project saved at exit shows them.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use serde_json::{Value, json};

fn xdotool(display: &str, args: &[&str]) -> std::process::Output {
    Command::new("xdotool")
        .args(args)
        .env("DISPLAY", display)
        .output()
        .expect("xdotool runs")
}

fn have_xdotool() -> bool {
    Command::new("sh")
        .args(["-c", "command -v xdotool"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn keyboard_shortcuts_edit_keys_and_the_project_saves_at_exit() {
    if !required_or_skip(
        "Xvfb, a Vulkan driver and xdotool",
        have_display_stack() && have_xdotool(),
    ) {
        return;
    }
    let dir = scratch("window-timeline");
    let (model, _) = mannequins(&dir);
    let project = dir.join("start.json");
    let pose_a = json!({"v": 1, "bones": {"spine": [0, 0.2, 0, 0.98]}});
    let pose_b = json!({"v": 1, "bones": {"spine": [0, -0.2, 0, 0.98]}});
    std::fs::write(
        &project,
        json!({"v": 1, "fps": 30, "model": {"path": model}, "playhead": 0,
               "keys": [{"id": 1, "t": 0, "ease": "LINEAR", "pose": pose_a},
                        {"id": 2, "t": 1, "ease": "LINEAR", "pose": pose_b}]})
        .to_string(),
    )
    .unwrap();
    let out = dir.join("saved.json");
    let (_xvfb, display) = start_xvfb().expect("Xvfb starts");
    let log = std::fs::File::create(dir.join("log.txt")).unwrap();
    let mut app = bin()
        .arg(&project)
        .args(["--exit-after", "40", "--save-on-exit"])
        .arg(&out)
        .env("DISPLAY", &display)
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();

    // Wait for the window and the model, then give it the keyboard.
    let start = Instant::now();
    let window = loop {
        let found = xdotool(&display, &["search", "--name", "VRMA Maker"]);
        let id = String::from_utf8_lossy(&found.stdout)
            .lines()
            .next()
            .map(str::to_string);
        if let Some(id) = id {
            break id;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no window appeared"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    std::thread::sleep(Duration::from_secs(5));
    xdotool(&display, &["windowfocus", "--sync", &window]);
    let press = |keys: &[&str]| {
        for key in keys {
            xdotool(&display, &["key", "--delay", "150", key]);
            std::thread::sleep(Duration::from_millis(250));
        }
    };
    // 15 frames right → 0.5 s; K adds a key there.
    press(&["Right"; 15]);
    press(&["k"]);
    std::thread::sleep(Duration::from_millis(500));
    let title =
        String::from_utf8_lossy(&xdotool(&display, &["getwindowname", &window]).stdout).to_string();
    assert!(
        title.contains("start.json*"),
        "the title shows the project and the unsaved mark: {title}"
    );
    // 15 more → 1.0 s; Delete removes the key there; Ctrl+Z brings it back.
    press(&["Right"; 15]);
    press(&["Delete"]);
    xdotool(&display, &["keydown", "ctrl"]);
    std::thread::sleep(Duration::from_millis(300));
    press(&["z"]);
    xdotool(&display, &["keyup", "ctrl"]);
    std::thread::sleep(Duration::from_millis(300));
    // One frame back.
    press(&["Left"]);

    let status = wait_with_timeout(&mut app, Duration::from_secs(90));
    let log = std::fs::read_to_string(dir.join("log.txt")).unwrap_or_default();
    assert!(
        status.is_some_and(|s| s.success()),
        "the app did not exit cleanly: {status:?}\n{log}"
    );
    let saved: Value =
        serde_json::from_slice(&std::fs::read(&out).expect("project saved at exit")).unwrap();
    let times: Vec<f64> = saved["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["t"].as_f64().unwrap())
        .collect();
    assert_eq!(
        times.len(),
        3,
        "keys at 0, 0.5 and 1 (the delete was undone): {times:?}\n{log}"
    );
    assert!((times[1] - 0.5).abs() < 1e-4, "{times:?}");
    assert!((times[2] - 1.0).abs() < 1e-4, "{times:?}");
    let playhead = saved["playhead"].as_f64().unwrap();
    assert!((playhead - 29.0 / 30.0).abs() < 1e-4, "playhead {playhead}");
    // The key added at 0.5 s holds the pose shown there: halfway between the keys.
    // (identity, which is not written out).
    let spine = &saved["keys"][1]["pose"]["bones"]["spine"];
    assert!(
        spine.is_null() || spine[1].as_f64().unwrap().abs() < 0.02,
        "halfway pose: {spine}"
    );
    assert!(
        saved["keys"][2]["pose"]["bones"]["spine"][1]
            .as_f64()
            .unwrap()
            < -0.15,
        "the restored key keeps its pose"
    );
}
