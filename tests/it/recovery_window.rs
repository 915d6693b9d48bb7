//! Crash recovery in the real window: edits are autosaved 2 s after the last change, each
//! instance to its own file; two windows never touch each other's; a SIGKILL loses
//! nothing; a recovery whose model has moved keeps the file; the next start restores the
//! work; saving removes the recovery file.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use crate::common::*;
use serde_json::{Value, json};

/// The recovery files in the data folder (one per instance with unsaved work).
fn recovery_files(data: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(data.join("recovery"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

fn keys_in(recovery: &Path) -> usize {
    let value: Value = serde_json::from_slice(&std::fs::read(recovery).unwrap()).unwrap();
    value["project"]["keys"].as_array().unwrap().len()
}

/// Waits (up to 20 s) until `done` holds.
fn wait_until(what: &str, done: impl Fn() -> bool) {
    for _ in 0..100 {
        if done() {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("timed out waiting until {what}");
}

fn add_key_at_frame(display: &str, window: &str, frame: usize) {
    xdotool(display, &["windowfocus", "--sync", window]);
    for _ in 0..frame {
        xdotool(display, &["key", "--delay", "150", "Right"]);
        std::thread::sleep(Duration::from_millis(300));
    }
    xdotool(display, &["key", "--delay", "150", "k"]);
    std::thread::sleep(Duration::from_millis(300));
}

#[test]
fn killed_work_is_recovered_at_the_next_start_and_saving_clears_it() {
    let have = have_display_stack() && have_xdotool();
    if !required_or_skip("Xvfb, a Vulkan driver and xdotool", have) {
        return;
    }
    let dir = scratch("recovery-window");
    let data = dir.join("data");
    let (model, _) = mannequins(&dir);
    let project = dir.join("walk.json");
    std::fs::write(&project, json!({"v": 1, "fps": 30, "model": {"path": model}, "keys": [
        {"id": 1, "t": 0, "pose": {}}, {"id": 2, "t": 1, "pose": {"bones": {"neck": [0.2, 0, 0, 0.98]}}}]}).to_string()).unwrap();
    let other = dir.join("other.json");
    std::fs::write(
        &other,
        json!({"v": 1, "fps": 30, "model": null, "keys": []}).to_string(),
    )
    .unwrap();
    let (_xvfb, display) = start_xvfb().expect("Xvfb starts");
    let (_xvfb2, display2) = start_xvfb().expect("a second Xvfb starts");
    let runs = std::cell::Cell::new(0);
    let start = |display: &str, args: &[&Path]| {
        runs.set(runs.get() + 1);
        let log = dir.join(format!("log-{}.txt", runs.get()));
        let app = bin()
            .args(args)
            .env("DISPLAY", display)
            .env("VRMA_MAKER_DATA_DIR", &data)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let window = wait_for_window(display);
        wait_for_log(&log, "model ready to pose", Duration::from_secs(120));
        std::thread::sleep(Duration::from_secs(2));
        (app, window)
    };

    // Two windows with unsaved work: each autosaves to a file of its own.
    let (mut first, window) = start(&display, &[&project]);
    let (mut second, window2) = start(&display2, &[&other]);
    add_key_at_frame(&display, &window, 5);
    add_key_at_frame(&display2, &window2, 2);
    wait_until("both windows have autosaved", || {
        recovery_files(&data).len() == 2
    });
    let mut by_keys: Vec<(usize, PathBuf)> = recovery_files(&data)
        .into_iter()
        .map(|f| (keys_in(&f), f))
        .collect();
    by_keys.sort();
    assert_eq!(
        by_keys.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
        vec![1, 3]
    );
    let first_file = by_keys[1].1.clone();
    // The second saves its project: its recovery file goes, the first's stays.
    xdotool(&display2, &["windowfocus", "--sync", &window2]);
    ctrl_chord(&display2, "s");
    wait_until("the save removed only its own file", || {
        recovery_files(&data) == vec![first_file.clone()]
    });
    second.kill().unwrap();
    second.wait().unwrap();

    // The first is killed: its autosave holds the work, the project file is untouched.
    first.kill().unwrap(); // SIGKILL
    first.wait().unwrap();
    // Xvfb can refuse a connection for a moment while it cleans up after a killed
    // client; the next start must not race it.
    wait_for_display(&display);
    assert_eq!(keys_in(&first_file), 3);
    let original: Value = serde_json::from_slice(&std::fs::read(&project).unwrap()).unwrap();
    assert_eq!(
        original["keys"].as_array().unwrap().len(),
        2,
        "the project file itself is untouched"
    );

    // Recovering while the model has moved fails and keeps the file for later.
    let moved = dir.join("moved.vrm");
    std::fs::rename(&model, &moved).unwrap();
    let mut app = bin()
        .args(["--recover", "--exit-after", "12"])
        .env("DISPLAY", &display)
        .env("VRMA_MAKER_DATA_DIR", &data)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let status = wait_with_timeout(&mut app, Duration::from_secs(60));
    assert!(status.is_some_and(|s| s.success()));
    assert_eq!(recovery_files(&data), vec![first_file.clone()], "kept");
    assert_eq!(keys_in(&first_file), 3, "and not overwritten");
    std::fs::rename(&moved, &model).unwrap();
    wait_for_display(&display);

    // The next start restores it; Ctrl+S saves to the project and clears the recovery file.
    let saved = dir.join("at-exit.json");
    let log = dir.join("log-recover.txt");
    let mut app = bin()
        .args(["--recover", "--exit-after", "30", "--save-on-exit"])
        .arg(&saved)
        .env("DISPLAY", &display)
        .env("VRMA_MAKER_DATA_DIR", &data)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let window = wait_for_window(&display);
    wait_for_log(&log, "model ready to pose", Duration::from_secs(120));
    // The recovered work may follow the first model shown by a moment.
    std::thread::sleep(Duration::from_secs(4));
    xdotool(&display, &["windowfocus", "--sync", &window]);
    ctrl_chord(&display, "s");
    let status = wait_with_timeout(&mut app, Duration::from_secs(60));
    assert!(status.is_some_and(|s| s.success()));
    let at_exit: Value = serde_json::from_slice(&std::fs::read(&saved).unwrap()).unwrap();
    assert_eq!(
        at_exit["keys"].as_array().unwrap().len(),
        3,
        "the recovered work is back"
    );
    let resaved: Value = serde_json::from_slice(&std::fs::read(&project).unwrap()).unwrap();
    assert_eq!(
        resaved["keys"].as_array().unwrap().len(),
        3,
        "Ctrl+S saved it to the original project"
    );
    assert!(
        recovery_files(&data).is_empty(),
        "a successful save removes the recovery file: {:?}",
        recovery_files(&data)
    );
}
