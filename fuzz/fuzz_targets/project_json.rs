//! The project reader (projects and recovery files): refused with a message, or a
//! project the editor opens, samples and exports, and that saves and reads back equal.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vrma_core::animation::edit::Editor;
use vrma_core::animation::project::Project;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let Ok(project) = Project::from_json(&value, &mut Vec::new()) else {
        return;
    };
    let saved = project.to_json();
    let back = Project::from_json(&saved, &mut Vec::new()).expect("a saved project reads back");
    assert_eq!(back.to_json(), saved, "a saved project reads back the same");

    let rig = vrma_core_fuzz::mannequin_rig();
    let mut editor = Editor::with_project(rig.clone(), project, &mut Vec::new());
    vrma_core_fuzz::assert_pose_is_usable(rig, &editor.pose);
    let end = editor.timeline.end();
    for t in [0.0, end * 0.5, end] {
        if let Some(pose) = editor.sample(t) {
            vrma_core_fuzz::assert_pose_is_usable(rig, &pose);
        }
    }
    editor.advance(1.0 / 30.0);
    // Export is bounded by the one-hour limit; keep the fuzzer fast on long timelines.
    if end <= 10.0 {
        let (bytes, _) = vrma_core::formats::vrma::export::export_vrma(
            rig,
            &editor.timeline,
            &editor.pose,
            editor.settings.fps,
            &mut |_| {},
        );
        assert!(!bytes.is_empty());
    }
});
