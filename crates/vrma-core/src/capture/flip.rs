//! A limb's depth flipped: a picture cannot tell whether a limb points towards the
//! camera or away from it (the two mirror-image depths draw the same), and a pose model
//! can guess wrong. The photo window, `pose-from-image --flip` and a video's depth
//! continuity (`offline`) use this.

use glam::Vec3;

use super::{Capture, LIMB_BONES};
use crate::Refusal;
use crate::model::humanoid::Bone;

/// The limb bones whose depth a user can flip, in the order of [`LIMB_BONES`] (the
/// person's left and right as the avatar's, after any mirroring).
pub const FLIPPABLE_LIMBS: [Bone; 8] = [
    Bone::LeftUpperArm,
    Bone::LeftLowerArm,
    Bone::RightUpperArm,
    Bone::RightLowerArm,
    Bone::LeftUpperLeg,
    Bone::LeftLowerLeg,
    Bone::RightUpperLeg,
    Bone::RightLowerLeg,
];

/// The body landmarks at a flippable limb bone's root and tip (its line in a picture).
pub fn limb_points(bone: Bone) -> Option<(usize, usize)> {
    let index = FLIPPABLE_LIMBS.iter().position(|&b| b == bone)?;
    let (root, tip, _) = LIMB_BONES[index];
    Some((root, tip))
}

impl Capture {
    /// The capture with one limb bone pointing the other way in depth: a picture cannot
    /// tell whether a limb points towards the camera or away (the mirror-image depths
    /// draw the same), and a pose model can guess wrong. The bone's tip is reflected
    /// through the plane facing the camera at its root; what lies beyond the tip (the
    /// rest of the limb, the hand or foot) moves with it unturned, so nothing else in the
    /// picture changes. A bone that cannot be flipped is refused by name.
    pub fn with_depth_flipped(&self, bone: Bone) -> Result<Capture, Refusal> {
        let index = FLIPPABLE_LIMBS
            .iter()
            .position(|&b| b == bone)
            .ok_or_else(|| {
                Refusal::new(format!(
                    "{} has no depth to flip: flip an upper or lower arm or leg",
                    bone.name()
                ))
            })?;
        let mut flipped = self.clone();
        let body = flipped
            .body
            .as_mut()
            .ok_or_else(|| Refusal::new("no person was found to flip a limb of"))?;
        let (root, tip, moving) = LIMB_BONES[index];
        let shift = Vec3::Z * -2.0 * (body.points[tip].z - body.points[root].z);
        for &i in moving {
            body.points[i] += shift;
        }
        Ok(flipped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::ik::Limb;
    use crate::body::pose::Pose;
    use crate::body::rig::Rig;
    use crate::capture::{landmarks_of_pose, limb_directions, pose_from_capture};
    use crate::model::mannequin::{self, MannequinVariant};
    use glam::Quat;

    /// A straight limb comes back just bent (see the capture tests): directions agree
    /// within this.
    const READ_BACK: f32 = 0.05;

    fn rig() -> Rig {
        crate::body::rig::rig_from_bytes(&mannequin::build(MannequinVariant::Vrm1)).unwrap()
    }

    fn known_poses() -> Vec<(&'static str, Pose)> {
        let mut arms_up = Pose::default();
        arms_up.set_rotation(Bone::LeftUpperArm, Quat::from_rotation_z(1.2));
        arms_up.set_rotation(Bone::LeftLowerArm, Quat::from_rotation_y(-0.5));
        let mut reach = Pose::default();
        reach.set_rotation(Bone::RightUpperArm, Quat::from_rotation_y(1.4));
        reach.set_rotation(Bone::RightLowerArm, Quat::from_rotation_y(0.6));
        let mut sitting = Pose::default();
        sitting.set_rotation(Bone::LeftUpperLeg, Quat::from_rotation_x(-1.5));
        sitting.set_rotation(Bone::RightUpperLeg, Quat::from_rotation_x(-1.4));
        sitting.set_rotation(Bone::LeftLowerLeg, Quat::from_rotation_x(1.5));
        sitting.set_rotation(Bone::RightLowerLeg, Quat::from_rotation_x(1.2));
        vec![("arms up", arms_up), ("reach", reach), ("sitting", sitting)]
    }

    #[test]
    fn a_flipped_limb_points_the_other_way_in_depth_within_human_limits_and_nothing_else_moves() {
        let rig = rig();
        for (name, known) in known_poses() {
            let capture = landmarks_of_pose(&rig, &known);
            let before = limb_directions(&rig, &known);
            for bone in FLIPPABLE_LIMBS {
                let flipped = capture.with_depth_flipped(bone).unwrap();
                let posed = pose_from_capture(&rig, &Pose::default(), &flipped).unwrap();
                // The flipped bone and the other bone of its limb may not keep exactly
                // to the flip: a read keeps to human limits, so a flip no elbow or knee
                // could make (bent backwards, or past 150°) is met as near as a person
                // can. The flipped bone still goes the other way in depth, and the other
                // limbs do not move.
                let chain = Limb::ALL
                    .into_iter()
                    .find(|l| l.bones().contains(&bone))
                    .unwrap();
                for ((limb, want), (_, got)) in
                    before.iter().zip(limb_directions(&rig, &posed.pose))
                {
                    if *limb == bone {
                        // The picture's depth is the model's z (a camera in front of it).
                        assert!(
                            want.z.abs() < 0.1 || want.z * got.z < 0.0,
                            "{name}, {bone:?} flipped: it points {got}, was {want}"
                        );
                    } else if !chain.bones().contains(limb) {
                        assert!(
                            want.angle_between(got) < READ_BACK,
                            "{name}, {bone:?} flipped: {limb:?} points {got}, {want} expected"
                        );
                    }
                }
                for b in crate::model::humanoid::ALL_BONES {
                    let q = posed.pose.rotation(b);
                    assert!(
                        crate::body::limits::within_limits(b, q),
                        "{name}, {bone:?} flipped: {b:?} {q}"
                    );
                }
                let twice = flipped.with_depth_flipped(bone).unwrap();
                let (a, b) = (
                    &capture.body.as_ref().unwrap().points,
                    &twice.body.unwrap().points,
                );
                assert!(
                    a.iter().zip(b).all(|(p, q)| p.distance(*q) < 1e-5),
                    "flipped back"
                );
            }
        }
        let refusal = landmarks_of_pose(&rig, &Pose::default())
            .with_depth_flipped(Bone::Head)
            .unwrap_err();
        assert!(refusal.0.contains("head"), "{refusal}");
        assert!(
            Capture::default()
                .with_depth_flipped(Bone::LeftUpperArm)
                .is_err()
        );
    }
}
