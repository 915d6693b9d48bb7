//! BVH files: any bytes are either refused with a one-line message or read into a
//! skeleton whose parents come first and whose frames hold exactly the values its
//! channels announce, all finite; and what reads is retargeted onto the mannequin as
//! keys whose poses are usable, or refused in one line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vrma_core::animation::timeline::MAX_TIME;
use vrma_core::formats::bvh::import::import_bvh;
use vrma_core::formats::bvh::read::parse;
use vrma_core::formats::motion::{KeyPolicy, MotionOptions};

fuzz_target!(|data: &[u8]| {
    match parse(data) {
        Err(refusal) => assert!(!refusal.to_string().contains('\n'), "{refusal}"),
        Ok(bvh) => {
            for (i, joint) in bvh.joints.iter().enumerate() {
                assert!(joint.parent.is_none_or(|p| p < i), "parents come first");
                assert!(joint.channels.len() <= 6);
                assert!(joint.offset.is_finite());
            }
            let channels: usize = bvh.joints.iter().map(|j| j.channels.len()).sum();
            assert_eq!(channels, bvh.values_per_frame);
            assert_eq!(bvh.values.len(), bvh.frames * bvh.values_per_frame);
            assert!(bvh.values.iter().all(|v| v.is_finite()));
            assert!(bvh.frame_time > 0.0);
            let rig = vrma_core_fuzz::mannequin_rig();
            for keys in [KeyPolicy::default(), KeyPolicy::EveryFrame] {
                let options = MotionOptions {
                    keys,
                    ..Default::default()
                };
                match import_bvh(data, rig, &options) {
                    Err(refusal) => assert!(!refusal.to_string().contains('\n'), "{refusal}"),
                    Ok(imported) => {
                        assert!(imported.duration.is_finite() && imported.duration <= MAX_TIME);
                        for key in imported.timeline.keys() {
                            vrma_core_fuzz::assert_pose_is_usable(rig, &key.pose);
                        }
                    }
                }
            }
        }
    }
});
