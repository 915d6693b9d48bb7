//! The pose reader (pose files and library entries): refused with a message, or a pose
//! that is finite, poses the rig, and saves and reads back to the same JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vrma_core::body::pose::Pose;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let mut warnings = Vec::new();
    let Ok(pose) = Pose::from_json(&value, &mut warnings) else {
        return;
    };
    let rig = vrma_core_fuzz::mannequin_rig();
    vrma_core_fuzz::assert_pose_is_usable(rig, &pose);
    vrma_core_fuzz::assert_pose_is_usable(rig, &pose.mirrored());
    let saved = pose.to_json("fuzz");
    let back = Pose::from_json(&saved, &mut Vec::new()).expect("a saved pose reads back");
    assert_eq!(
        back.to_json("fuzz"),
        saved,
        "a saved pose reads back the same"
    );
});
