//! BVH files: any bytes are either refused with a one-line message or read into a
//! skeleton whose parents come first and whose frames hold exactly the values its
//! channels announce, all finite.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vrma_core::formats::bvh::read::parse;

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
        }
    }
});
