//! The one table of pose handles: what each humanoid bone offers a user to grab, for the
//! desktop markers, the transform gizmo, modal G / R and the VR spheres alike. Adding a
//! handle (or changing what one does, its size or colour) is a change here only.

use glam::{Quat, Vec3};

use crate::animation::edit::PoseEdit;
use crate::animation::project::Settings;
use crate::body::hand::Finger;
use crate::body::ik::Limb;
use crate::model::humanoid::{Bone, Side};

/// What dragging a bone's handle does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoseHandle {
    /// A hand or foot: two-bone IK to the grab point.
    Reach(Bone),
    /// An elbow or knee: swing the limb's bend towards the grab point, hand/foot fixed.
    Pole(Limb),
    /// The hips: move them, legs re-solved to pinned feet when PIN FEET is on.
    Hips,
    /// Any other bone: it rotates, it does not move.
    Turn(Bone),
    /// A finger in VR (on its first bone): twisting the controller curls it.
    Curl(Bone),
}

/// The handles that move (hands, feet, elbows, knees, hips): the VR spheres, the gizmo's
/// arrows and modal G. In a fixed order.
pub const MOVABLE_HANDLES: [PoseHandle; 9] = [
    PoseHandle::Reach(Bone::LeftHand),
    PoseHandle::Reach(Bone::RightHand),
    PoseHandle::Reach(Bone::LeftFoot),
    PoseHandle::Reach(Bone::RightFoot),
    PoseHandle::Pole(Limb::LeftArm),
    PoseHandle::Pole(Limb::RightArm),
    PoseHandle::Pole(Limb::LeftLeg),
    PoseHandle::Pole(Limb::RightLeg),
    PoseHandle::Hips,
];

/// The handles that turn in VR (grab and twist: the bone follows the controller's
/// rotation change): the torso, neck, head and shoulders. In a fixed order. The
/// fingers' curl handles follow them ([`curl_handles`]).
pub const TURN_HANDLES: [PoseHandle; 7] = [
    PoseHandle::Turn(Bone::Spine),
    PoseHandle::Turn(Bone::Chest),
    PoseHandle::Turn(Bone::UpperChest),
    PoseHandle::Turn(Bone::Neck),
    PoseHandle::Turn(Bone::Head),
    PoseHandle::Turn(Bone::LeftShoulder),
    PoseHandle::Turn(Bone::RightShoulder),
];

/// One curl handle per digit of each hand (on the digit's first bone), left hand first.
pub fn curl_handles() -> impl Iterator<Item = PoseHandle> {
    Side::BOTH.into_iter().flat_map(|side| {
        Finger::ALL
            .into_iter()
            .map(move |finger| PoseHandle::Curl(finger.bones(side)[0]))
    })
}

impl PoseHandle {
    /// The handle of a bone.
    pub fn of(bone: Bone) -> PoseHandle {
        MOVABLE_HANDLES
            .into_iter()
            .find(|h| h.bone() == bone)
            .unwrap_or(PoseHandle::Turn(bone))
    }

    /// The bone the handle sits on.
    pub fn bone(self) -> Bone {
        match self {
            PoseHandle::Reach(bone) | PoseHandle::Turn(bone) | PoseHandle::Curl(bone) => bone,
            PoseHandle::Pole(limb) => limb.bones()[1],
            PoseHandle::Hips => Bone::Hips,
        }
    }

    /// Whether dragging it moves the bone (G, gizmo arrows, VR grabs).
    pub fn moves(self) -> bool {
        !matches!(self, PoseHandle::Turn(_) | PoseHandle::Curl(_))
    }

    /// VR sphere radius in metres (SPEC §10).
    pub fn sphere_radius(self) -> f32 {
        match self {
            PoseHandle::Reach(_) => 0.05,
            PoseHandle::Pole(_) => 0.04,
            PoseHandle::Hips => 0.07,
            PoseHandle::Turn(_) => 0.03,
            PoseHandle::Curl(_) => 0.01,
        }
    }

    /// Where a VR sphere sits in its bone's frame (the bone's rest frame is the
    /// world's). Turn handles stand out in front of the body (the avatar faces +Z) so
    /// that they stay clear of the hips sphere and of each other; the head's is in front
    /// of the face, the shoulders' above and outside them. (A curl handle sits past its
    /// fingertip: `vr::spheres` places it.)
    pub fn sphere_offset(self) -> Vec3 {
        match self {
            PoseHandle::Turn(Bone::Head) => Vec3::new(0.0, 0.07, 0.16),
            PoseHandle::Turn(Bone::LeftShoulder) => Vec3::new(0.06, 0.08, 0.0),
            PoseHandle::Turn(Bone::RightShoulder) => Vec3::new(-0.06, 0.08, 0.0),
            PoseHandle::Turn(_) => Vec3::new(0.0, 0.0, 0.16),
            _ => Vec3::ZERO,
        }
    }

    /// Desktop marker radius in metres (drawn over the model, picked on screen).
    pub fn marker_radius(self) -> f32 {
        if self.bone().is_finger() {
            0.006
        } else {
            0.014
        }
    }

    /// sRGB colour: cyan IK ends, yellow poles, green hips, grey for bones that rotate.
    pub fn colour(self) -> [f32; 3] {
        match self {
            PoseHandle::Reach(_) => [0.1, 0.9, 0.95],
            PoseHandle::Pole(_) => [0.95, 0.85, 0.15],
            PoseHandle::Hips => [0.25, 0.95, 0.35],
            PoseHandle::Turn(_) => [0.85, 0.85, 0.9],
            PoseHandle::Curl(_) => [0.95, 0.5, 0.8],
        }
    }

    /// The edit that puts the handle's bone at `point` (model space); `None` for bones
    /// that only rotate.
    pub fn move_to(self, point: Vec3, settings: &Settings) -> Option<PoseEdit> {
        Some(match self {
            PoseHandle::Reach(end) => PoseEdit::Ik {
                end,
                target: point,
                keep_angle: settings.keep_angle,
                body: settings.body_follows,
            },
            PoseHandle::Pole(limb) => PoseEdit::Pole { limb, point },
            PoseHandle::Hips => PoseEdit::MoveHips {
                to: Some(point),
                rotate: None,
                hold_pins: true,
            },
            PoseHandle::Turn(_) | PoseHandle::Curl(_) => return None,
        })
    }

    /// The edit that gives the handle's bone this normalized local rotation (the hips
    /// keep the pinned ends where they are).
    pub fn turn_to(self, rotation: Quat) -> PoseEdit {
        match self {
            PoseHandle::Hips => PoseEdit::MoveHips {
                to: None,
                rotate: Some(rotation),
                hold_pins: true,
            },
            other => PoseEdit::Rotate {
                bone: other.bone(),
                rotation,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::humanoid::ALL_BONES;

    #[test]
    fn every_bone_has_one_handle_and_the_movable_ones_are_the_ik_chain_ends_poles_and_hips() {
        for bone in ALL_BONES {
            let handle = PoseHandle::of(bone);
            assert_eq!(handle.bone(), bone);
            let expected = bone == Bone::Hips
                || Limb::ending_at(bone).is_some()
                || Limb::bending_at(bone).is_some();
            assert_eq!(handle.moves(), expected, "{bone}");
            let settings = Settings::default();
            assert_eq!(handle.move_to(Vec3::ONE, &settings).is_some(), expected);
        }
        assert_eq!(MOVABLE_HANDLES.iter().filter(|h| h.moves()).count(), 9);
    }

    #[test]
    fn turning_the_hips_holds_the_pins() {
        let edit = PoseHandle::Hips.turn_to(Quat::from_rotation_y(0.3));
        assert!(matches!(
            edit,
            PoseEdit::MoveHips {
                to: None,
                hold_pins: true,
                ..
            }
        ));
        let edit = PoseHandle::of(Bone::Spine).turn_to(Quat::IDENTITY);
        assert!(matches!(
            edit,
            PoseEdit::Rotate {
                bone: Bone::Spine,
                ..
            }
        ));
    }
}
