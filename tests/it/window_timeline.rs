//! The real window driven with xdotool under Xvfb: the timeline shortcuts (frame steps,
//! K, Delete, Ctrl+Z) and modal posing (G with the mouse, R cancelled with Esc); the
//! project saved at exit shows what was done.

use std::process::Stdio;
use std::time::Duration;

use crate::common::*;
use serde_json::{Value, json};

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
        .arg("--quit-when")
        .arg(dir.join("quit"))
        .env("DISPLAY", &display)
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();

    // Wait for the window and the model, then give it the keyboard.
    let window = wait_for_window(&display);
    wait_for_log(
        &dir.join("log.txt"),
        "model ready to pose",
        Duration::from_secs(120),
    );
    std::thread::sleep(Duration::from_secs(2));
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
    ctrl_chord(&display, "z");
    // One frame back.
    press(&["Left"]);

    // Done: quit once the window has drawn the last key press, not at --exit-after.
    wait_until_settled(&display, &dir.join("before-quitting.png"));
    std::fs::write(dir.join("quit"), b"").unwrap();
    let status = wait_with_timeout(&mut app, Duration::from_secs(90));
    let log = std::fs::read_to_string(dir.join("log.txt")).unwrap_or_default();
    assert!(
        status.is_some_and(|s| s.success()),
        "the app did not exit cleanly: {status:?}\n{log}"
    );
    let saved: Value =
        serde_json::from_slice(&std::fs::read(&out).expect("project saved at exit")).unwrap();
    let times = written_key_times(&saved);
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

#[test]
fn g_moves_the_hand_by_ik_and_a_cancelled_r_changes_nothing() {
    if !required_or_skip(
        "Xvfb, a Vulkan driver and xdotool",
        have_display_stack() && have_xdotool(),
    ) {
        return;
    }
    let dir = scratch("window-posing");
    let (model, _) = mannequins(&dir);
    let out = dir.join("saved.json");
    let (_xvfb, display) = start_xvfb().expect("Xvfb starts");
    let log = std::fs::File::create(dir.join("log.txt")).unwrap();
    let mut app = bin()
        .arg(&model)
        .args([
            "--select",
            "leftHand",
            "--exit-after",
            "30",
            "--save-on-exit",
        ])
        .arg(&out)
        .arg("--quit-when")
        .arg(dir.join("quit"))
        .env("DISPLAY", &display)
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let window = wait_for_window(&display);
    wait_for_log(
        &dir.join("log.txt"),
        "model ready to pose",
        Duration::from_secs(120),
    );
    std::thread::sleep(Duration::from_secs(2));
    xdotool(&display, &["windowfocus", "--sync", &window]);
    let pause = || std::thread::sleep(Duration::from_millis(400));
    // Put the pointer in the empty view above the left arm, then G and drag down-right.
    xdotool(&display, &["mousemove", "--window", &window, "820", "120"]);
    pause();
    xdotool(&display, &["key", "g"]);
    pause();
    for step in 1..=6 {
        xdotool(
            &display,
            &[
                "mousemove",
                "--window",
                &window,
                &(820 + step * 6).to_string(),
                &(120 + step * 15).to_string(),
            ],
        );
        pause();
    }
    xdotool(&display, &["click", "1"]);
    pause();
    // R, swing the mouse around, lock Z, then Esc: nothing may change.
    xdotool(&display, &["key", "r"]);
    pause();
    xdotool(&display, &["mousemove", "--window", &window, "700", "300"]);
    pause();
    xdotool(&display, &["key", "z"]);
    pause();
    xdotool(&display, &["mousemove", "--window", &window, "600", "200"]);
    pause();
    xdotool(&display, &["key", "Escape"]);
    pause();

    // Done: quit once the window has drawn the last key press, not at --exit-after.
    wait_until_settled(&display, &dir.join("before-quitting.png"));
    std::fs::write(dir.join("quit"), b"").unwrap();
    let status = wait_with_timeout(&mut app, Duration::from_secs(90));
    let log = std::fs::read_to_string(dir.join("log.txt")).unwrap_or_default();
    assert!(
        status.is_some_and(|s| s.success()),
        "the app did not exit cleanly: {status:?}\n{log}"
    );
    let saved: Value =
        serde_json::from_slice(&std::fs::read(&out).expect("project saved at exit")).unwrap();
    let rest = world_of(&model, &json!({"v": 1}), &dir);
    let posed = world_of(&model, &saved["pose"], &dir);
    let (y0, y1) = (
        rest["leftHand"][1].as_f64().unwrap(),
        posed["leftHand"][1].as_f64().unwrap(),
    );
    assert!(
        y1 < y0 - 0.05,
        "dragging down lowered the hand by IK: {y0} -> {y1}\n{}",
        saved["pose"]
    );
    for bone in ["leftUpperArm", "leftLowerArm"] {
        assert!(
            saved["pose"]["bones"].get(bone).is_some(),
            "{bone} turned to follow the hand"
        );
    }
    // The shoulder (chain root) stays; the cancelled rotation left the hand's rotation alone.
    let d: f64 = (0..3)
        .map(|i| {
            (rest["leftUpperArm"][i].as_f64().unwrap() - posed["leftUpperArm"][i].as_f64().unwrap())
                .abs()
        })
        .sum();
    assert!(d < 1e-5);
    assert!(saved["pose"]["bones"].get("rightHand").is_none());
    // Keep-angle IK left the hand's world rotation at rest, and the cancelled R did not
    // change it: upper arm · forearm · hand is still the identity.
    let q = |b: &str| {
        saved["pose"]["bones"]
            .get(b)
            .map_or(bevy::math::Quat::IDENTITY, |v| {
                bevy::math::Quat::from_array([0, 1, 2, 3].map(|i| v[i].as_f64().unwrap() as f32))
            })
    };
    let hand_world = q("leftShoulder") * q("leftUpperArm") * q("leftLowerArm") * q("leftHand");
    let angle = vrma_maker::core::body::math::angle_between(hand_world, bevy::math::Quat::IDENTITY)
        .to_degrees();
    assert!(angle < 0.01, "the hand turned by {angle}°");
}
