//! What the fuzz targets share: the generated mannequin's rig (a valid model for the
//! readers that need one), and the checks that every accepted input must pass.

use std::sync::OnceLock;

use vrma_core::body::pose::Pose;
use vrma_core::body::rig::Rig;
use vrma_core::model::mannequin::{self, MannequinVariant};

/// The VRM 1.0 mannequin's rig, built once per process.
pub fn mannequin_rig() -> &'static Rig {
    static RIG: OnceLock<Rig> = OnceLock::new();
    RIG.get_or_init(|| {
        vrma_core::body::rig::rig_from_bytes(&mannequin::build(MannequinVariant::Vrm1))
            .expect("the mannequin is a valid VRM")
    })
}

/// Everything the window does with an accepted pose must stay finite: FK, the raw
/// transforms it writes to the skeleton, and the pose's own numbers.
pub fn assert_pose_is_usable(rig: &Rig, pose: &Pose) {
    for q in pose.bones.iter() {
        assert!(
            q.is_finite(),
            "accepted pose has a non-finite rotation {q:?}"
        );
    }
    if let Some(h) = pose.hips {
        assert!(h.is_finite(), "accepted pose has non-finite hips {h:?}");
    }
    for (name, w) in &pose.expressions {
        assert!(
            w.is_finite(),
            "accepted pose has a non-finite weight for {name}"
        );
    }
    for raw in rig.raw_locals(pose) {
        assert!(
            raw.rotation.is_finite() && raw.translation.is_finite(),
            "raw transform of node {} is not finite",
            raw.node
        );
    }
}
