//! The animation importer (VRMA files and glTF clips): refused with a message, or keys
//! whose poses are finite and within the one-hour timeline.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vrma_core::animation::timeline::MAX_TIME;
use vrma_core::formats::vrma::import::{AnimationKind, import_animation};

fuzz_target!(|data: &[u8]| {
    let rig = vrma_core_fuzz::mannequin_rig();
    for (kind, rate) in [
        (AnimationKind::Vrma, None),
        (AnimationKind::Clip, Some(10.0)),
    ] {
        let Ok(imported) = import_animation(data, &[], kind, rig.hips_rest(), rate) else {
            continue;
        };
        assert!(imported.duration.is_finite() && imported.duration <= MAX_TIME);
        for key in imported.timeline.keys() {
            vrma_core_fuzz::assert_pose_is_usable(rig, &key.pose);
        }
    }
});
