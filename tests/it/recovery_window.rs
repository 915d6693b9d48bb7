//! Crash recovery in the real window: edits are autosaved 2 s after the last change; a
//! SIGKILL loses nothing; the next start restores the work; saving removes the recovery
//! file.

use std::process::Stdio;
use std::time::Duration;

use crate::common::*;
use serde_json::{Value, json};

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
    let (_xvfb, display) = start_xvfb().expect("Xvfb starts");

    // Edit (a new key at frame 5), wait for the autosave, then kill -9.
    let mut app = bin()
        .arg(&project)
        .env("DISPLAY", &display)
        .env("VRMA_MAKER_DATA_DIR", &data)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let window = wait_for_window(&display);
    std::thread::sleep(Duration::from_secs(5));
    xdotool(&display, &["windowfocus", "--sync", &window]);
    for key in ["Right", "Right", "Right", "Right", "Right", "k"] {
        xdotool(&display, &["key", "--delay", "150", key]);
        std::thread::sleep(Duration::from_millis(300));
    }
    std::thread::sleep(Duration::from_secs(5));
    app.kill().unwrap(); // SIGKILL
    app.wait().unwrap();
    // Xvfb can refuse a connection for a moment while it cleans up after a killed
    // client; the next start must not race it.
    wait_for_display(&display);
    let recovery: Value = serde_json::from_slice(
        &std::fs::read(data.join("recovery.json")).expect("autosaved before the kill"),
    )
    .unwrap();
    assert_eq!(
        recovery["project"]["keys"].as_array().unwrap().len(),
        3,
        "{recovery}"
    );
    let original: Value = serde_json::from_slice(&std::fs::read(&project).unwrap()).unwrap();
    assert_eq!(
        original["keys"].as_array().unwrap().len(),
        2,
        "the project file itself is untouched"
    );

    // The next start restores it; Ctrl+S saves to the project and clears the recovery file.
    let saved = dir.join("at-exit.json");
    let mut app = bin()
        .args(["--recover", "--exit-after", "20", "--save-on-exit"])
        .arg(&saved)
        .env("DISPLAY", &display)
        .env("VRMA_MAKER_DATA_DIR", &data)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let window = wait_for_window(&display);
    std::thread::sleep(Duration::from_secs(6));
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
        !data.join("recovery.json").exists(),
        "a successful save removes the recovery file"
    );
}
