//! VMD files: any bytes are either refused with a one-line message or read into keys
//! whose numbers are finite and whose rotations are unit; what reads is played on the
//! standard MMD skeleton (leg IK solved) and retargeted onto the mannequin as keys whose
//! poses and expression weights are usable, or refused in one line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vrma_core::animation::timeline::MAX_TIME;
use vrma_core::formats::motion::{KeyPolicy, MotionOptions};
use vrma_core::formats::vmd::import::import_vmd;
use vrma_core::formats::vmd::read::parse;

/// Longer motions import the same way, only slower: the fuzzer keeps to short ones.
const MOST_FRAMES: u32 = 2000;

fuzz_target!(|data: &[u8]| {
    match parse(data) {
        Err(refusal) => assert!(!refusal.to_string().contains('\n'), "{refusal}"),
        Ok(vmd) => {
            for key in &vmd.bones {
                assert!(key.position.is_finite());
                assert!((key.rotation.length() - 1.0).abs() < 1e-3);
            }
            assert!(vmd.morphs.iter().all(|m| m.weight.is_finite()));
            let last = vmd
                .bones
                .iter()
                .map(|k| k.frame)
                .chain(vmd.morphs.iter().map(|m| m.frame))
                .max()
                .unwrap_or(0);
            if last > MOST_FRAMES {
                return;
            }
            let rig = vrma_core_fuzz::mannequin_rig();
            for keys in [KeyPolicy::default(), KeyPolicy::EveryFrame] {
                let options = MotionOptions {
                    keys,
                    ..Default::default()
                };
                match import_vmd(data, rig, &options) {
                    Err(refusal) => assert!(!refusal.to_string().contains('\n'), "{refusal}"),
                    Ok(imported) => {
                        assert!(imported.duration.is_finite() && imported.duration <= MAX_TIME);
                        for key in imported.timeline.keys() {
                            vrma_core_fuzz::assert_pose_is_usable(rig, &key.pose);
                            for weight in key.pose.expressions.values() {
                                assert!((0.0..=1.0).contains(weight), "{weight}");
                            }
                        }
                    }
                }
            }
        }
    }
});
