//! FBX files, through the size check and `ufbx` (its memory capped) to retargeted keys:
//! any bytes are refused in one line or give keys whose poses are usable.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vrma_core::animation::timeline::MAX_TIME;
use vrma_core::formats::fbx::import::import_fbx;
use vrma_core::formats::motion::MotionOptions;

fuzz_target!(|data: &[u8]| {
    let rig = vrma_core_fuzz::mannequin_rig();
    match import_fbx(data, rig, &MotionOptions::default(), None) {
        Err(refusal) => assert!(!refusal.to_string().contains('\n'), "{refusal}"),
        Ok(imported) => {
            assert!(imported.duration.is_finite() && imported.duration <= MAX_TIME);
            for key in imported.timeline.keys() {
                vrma_core_fuzz::assert_pose_is_usable(rig, &key.pose);
            }
        }
    }
});
