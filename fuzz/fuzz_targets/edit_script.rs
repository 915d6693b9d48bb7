//! Edit scripts (`vrma-maker apply`): any script either is refused with a message or
//! runs through the one edit path leaving a finite pose, and undo/redo keep their
//! invariant (undo then redo = the same state).
#![no_main]

use libfuzzer_sys::fuzz_target;
use vrma_core::animation::edit::{Edit, Editor, parse_script};

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let Ok(edits) = parse_script(&value) else {
        return;
    };
    let rig = vrma_core_fuzz::mannequin_rig();
    let mut editor = Editor::new(rig.clone());
    for edit in edits.into_iter().take(64) {
        let _ = editor.apply(edit);
        vrma_core_fuzz::assert_pose_is_usable(rig, &editor.pose);
    }
    // Undo then redo is the identity (when there is something to undo: otherwise the
    // redo would replay an older undo).
    if editor.history.can_undo() {
        let here = editor.snapshot();
        let _ = editor.apply(Edit::Undo);
        let _ = editor.apply(Edit::Redo);
        assert_eq!(editor.snapshot(), here, "undo then redo changed the state");
    }
});
