//! The pose library in the real window (Xvfb, lavapipe): saving a pose writes its JSON
//! and a 96×128 thumbnail rendered off-screen with a fixed background; different poses
//! give different thumbnails; the library reads back across restarts.

mod common;

use std::time::Duration;

use common::*;
use serde_json::json;

fn save_in_window(
    model: &std::path::Path,
    pose: serde_json::Value,
    name: &str,
    data: &std::path::Path,
    dir: &std::path::Path,
) {
    let project = dir.join(format!("{name}.json"));
    std::fs::write(
        &project,
        json!({"v": 1, "fps": 30, "model": {"path": model}, "keys": [], "pose": pose}).to_string(),
    )
    .unwrap();
    let (_xvfb, display) = start_xvfb().expect("Xvfb starts");
    let mut child = bin()
        .arg(&project)
        .args(["--library-save", name, "--exit-after", "12"])
        .env("DISPLAY", &display)
        .env("VRMA_MAKER_DATA_DIR", data)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let status = wait_with_timeout(&mut child, Duration::from_secs(120));
    assert!(
        status.is_some_and(|s| s.success()),
        "the app did not exit cleanly"
    );
}

#[test]
fn saved_poses_get_rendered_thumbnails_and_survive_a_restart() {
    if !required_or_skip(
        "Xvfb and a Vulkan driver (mesa-vulkan-drivers)",
        have_display_stack(),
    ) {
        return;
    }
    let dir = scratch("library-window");
    let data = dir.join("data");
    let (model, _) = mannequins(&dir);
    save_in_window(&model, json!({"v": 1}), "T pose", &data, &dir);
    save_in_window(
        &model,
        json!({"v": 1, "bones": {"leftUpperArm": [0, 0, 0.5, 0.866], "rightUpperArm": [0, 0, -0.5, 0.866]}}),
        "Hooray",
        &data,
        &dir,
    );

    let library = vrma_maker::core::library::Library::open(&data.join("library")).unwrap();
    let names: Vec<&str> = library.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        vec!["Hooray", "T pose"],
        "both entries read back after the restart"
    );
    assert!(library.warnings.is_empty());
    let hooray = &library.entries[0];
    assert!(
        hooray
            .pose
            .rotation(vrma_maker::core::humanoid::Bone::LeftUpperArm)
            .z
            > 0.4
    );

    let thumb = |id: &str| {
        image::open(library.thumbnail_path(id))
            .expect("thumbnail written")
            .to_rgba8()
    };
    let (a, b) = (thumb(&library.entries[1].id), thumb(&hooray.id));
    for img in [&a, &b] {
        assert_eq!(img.dimensions(), (96, 128));
        let corner = img.get_pixel(0, 0);
        assert_eq!(corner[3], 255, "a fixed, opaque background");
        assert_eq!(img.get_pixel(95, 127), corner);
        let figure = img
            .pixels()
            .filter(|p| (p[0] as i32 - corner[0] as i32).abs() > 30)
            .count();
        assert!(
            figure > 400,
            "the avatar is in the thumbnail ({figure} pixels)"
        );
    }
    let differing = a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count();
    assert!(
        differing > 200,
        "different poses, different thumbnails ({differing} pixels differ)"
    );
}
