//! The pose library in the real window (Xvfb, lavapipe): saving a pose writes its JSON
//! and a 96×128 thumbnail rendered off-screen with a fixed background; different poses
//! give different thumbnails; the library reads back across restarts.

use std::time::Duration;

use crate::common::*;
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

    let library =
        vrma_maker::core::animation::library::Library::open(&data.join("library")).unwrap();
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
            .rotation(vrma_maker::core::model::humanoid::Bone::LeftUpperArm)
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

/// The mannequin open in the window over a library holding `entries`, the window
/// saving to `out` when it quits after `seconds`; the first thumbnail is ready.
struct LibraryWindow {
    _xvfb: Xvfb,
    display: String,
    window: String,
    child: std::process::Child,
    out: std::path::PathBuf,
    /// Written when the test is done: the app quits then (`--quit-when`).
    quit_file: std::path::PathBuf,
    library: vrma_maker::core::animation::library::Library,
}

fn open_with_library(
    name: &str,
    entries: &[(
        &str,
        vrma_maker::core::body::pose::Pose,
        vrma_maker::core::body::pose::BodyMask,
    )],
    seconds: u32,
) -> Option<LibraryWindow> {
    if !required_or_skip(
        "Xvfb, a Vulkan driver and xdotool",
        have_display_stack() && have_xdotool(),
    ) {
        return None;
    }
    let dir = scratch(name);
    let data = dir.join("data");
    let (model, _) = mannequins(&dir);
    let mut library =
        vrma_maker::core::animation::library::Library::open(&data.join("library")).unwrap();
    for (name, pose, mask) in entries {
        library.add_part(name, pose, *mask).unwrap();
    }
    let out = dir.join("saved.json");
    let quit_file = dir.join("quit");
    let _ = std::fs::remove_file(&quit_file);
    let (xvfb, display) = start_xvfb().expect("Xvfb starts");
    let child = bin()
        .arg(&model)
        .args(["--exit-after", &seconds.to_string(), "--save-on-exit"])
        .arg(&out)
        .arg("--quit-when")
        .arg(&quit_file)
        .env("DISPLAY", &display)
        .env("VRMA_MAKER_DATA_DIR", &data)
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(dir.join("log.txt")).unwrap())
        .spawn()
        .unwrap();
    let window = wait_for_window(&display);
    wait_for_log(
        &dir.join("log.txt"),
        "model ready to pose",
        Duration::from_secs(120),
    );
    // The library settles beside the view and renders the missing thumbnail.
    let thumbnail = library.thumbnail_path(&library.entries[0].id);
    let waited = std::time::Instant::now();
    while !thumbnail.exists() && waited.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(250));
    }
    std::thread::sleep(Duration::from_secs(2));
    Some(LibraryWindow {
        _xvfb: xvfb,
        display,
        window,
        child,
        out,
        quit_file,
        library,
    })
}

impl LibraryWindow {
    fn xdo(&self, args: &[&str]) {
        xdotool(&self.display, args);
    }

    fn move_to(&self, (x, y): (i32, i32)) {
        let (x, y) = (x.to_string(), y.to_string());
        self.xdo(&["mousemove", "--window", &self.window, &x, &y]);
        std::thread::sleep(Duration::from_millis(350));
    }

    /// Quits the app (as its timed exit would) and reads the project saved then.
    fn finish(
        mut self,
    ) -> (
        serde_json::Value,
        vrma_maker::core::animation::library::Library,
    ) {
        // Once the window shows what the test did last (a dropped pose's key).
        wait_until_settled(
            &self.display,
            &self.out.with_file_name("before-quitting.png"),
        );
        std::fs::write(&self.quit_file, b"").unwrap();
        let status = wait_with_timeout(&mut self.child, Duration::from_secs(90));
        assert!(status.is_some_and(|s| s.success()));
        let saved = serde_json::from_slice(&std::fs::read(&self.out).unwrap()).unwrap();
        (saved, self.library)
    }
}

/// The library window opens at the bottom left of the 3D view (clear of the avatar);
/// its first thumbnail sits at about (333, 560).
const FIRST_THUMBNAIL: (i32, i32) = (333, 560);

#[test]
fn dragging_a_library_pose_onto_the_timeline_makes_a_key_there() {
    use vrma_maker::core::body::pose::{BodyMask, Pose};
    let mut pose = Pose::default();
    pose.set_rotation(
        vrma_maker::core::model::humanoid::Bone::Neck,
        bevy::math::Quat::from_rotation_x(0.4),
    );
    let Some(w) = open_with_library("library-drag", &[("Nod", pose, BodyMask::WholeBody)], 30)
    else {
        return;
    };
    // The ruler spans the window's width for 0–4 s at y ≈ 740.
    w.move_to(FIRST_THUMBNAIL);
    w.xdo(&["mousedown", "1"]);
    std::thread::sleep(Duration::from_millis(350));
    for at in [(340, 600), (340, 650), (335, 700), (330, 740)] {
        w.move_to(at);
    }
    w.xdo(&["mouseup", "1"]);
    let (saved, library) = w.finish();
    let keys = saved["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 1, "one key made by the drop: {saved}");
    let t = keys[0]["t"].as_f64().unwrap();
    // x = 330 on a 1280 px ruler of 4 s is about 1.0 s.
    assert!(
        (t - 1.0).abs() < 0.2,
        "the key is where it was dropped: {t}"
    );
    assert!(
        keys[0]["pose"]["bones"]["neck"][0].as_f64().unwrap() > 0.15,
        "with the library pose"
    );
    // The entry came without a thumbnail; one was rendered from its own pose.
    let thumb = image::open(library.thumbnail_path(&library.entries[0].id))
        .expect("thumbnail rendered")
        .to_rgba8();
    assert_eq!(thumb.dimensions(), (96, 128));
}

/// A click on a thumbnail applies it (here a hand saved with its part: only that hand
/// changes). egui's drag source once swallowed this click: dragging worked, clicks did
/// nothing.
#[test]
fn a_click_on_a_library_hand_applies_it_to_that_hand_only() {
    use vrma_maker::core::animation::edit::{Editor, GripSide, PoseEdit};
    use vrma_maker::core::body::pose::{BodyMask, Pose};
    use vrma_maker::core::model::humanoid::{Side, finger_bones};
    let dir = scratch("library-hand-rig");
    let (model, _) = mannequins(&dir);
    let rig = vrma_maker::core::body::rig::Rig::new(
        vrma_maker::core::model::vrm::Model::from_bytes(&std::fs::read(&model).unwrap()).unwrap(),
    )
    .unwrap();
    let mut editor = Editor::new(rig);
    let fist = vrma_maker::core::body::hand::preset("fist").unwrap().shape;
    editor
        .apply(
            PoseEdit::Hand {
                side: GripSide::Both,
                shape: Box::new(fist),
                amount: 1.0,
            }
            .into(),
        )
        .unwrap();
    let fists: Pose = editor.pose.clone();
    let Some(w) = open_with_library(
        "library-hand-click",
        &[("Left fist", fists.clone(), BodyMask::LeftHand)],
        25,
    ) else {
        return;
    };
    w.move_to(FIRST_THUMBNAIL);
    w.xdo(&["click", "1"]);
    std::thread::sleep(Duration::from_secs(1));
    let (saved, _) = w.finish();
    let pose = Pose::from_json(&saved["pose"], &mut Vec::new()).unwrap();
    for &bone in finger_bones(Side::Left) {
        assert!(
            pose.rotation(bone).angle_between(fists.rotation(bone)) < 1e-4,
            "{bone} is the saved fist's: {saved}"
        );
    }
    for &bone in finger_bones(Side::Right) {
        assert!(
            pose.rotation(bone)
                .angle_between(Pose::default().rotation(bone))
                < 1e-6,
            "{bone} stays open"
        );
    }
}
