//! Holding the pins (`animation::pins`): hands, feet and the head stay where they are
//! while the rest of the body moves. Pins are editing state, in each undo step. An edit
//! that moves the body (the hips, a spine or neck turn, a full-body reach, a look)
//! re-solves every pinned end it does not move itself to where it was when the edit (or
//! its drag) began.

use super::{Editor, PoseEdit};
use crate::body::follow::{Follow, Held};
use crate::body::ik::Limb;
use crate::model::humanoid::Bone;

impl PoseEdit {
    /// Of the pinned ends as they were (`pins`), those this edit must leave where they
    /// were: all but the ones it moves on purpose (a dragged hand, the arm turned), and
    /// none for an edit that lays down a whole pose (a library pose, a mirror, a reset).
    pub(super) fn held_pins(&self, pins: Vec<Held>) -> Vec<Held> {
        let moved: Vec<Bone> = match self {
            PoseEdit::Rotate { bone, .. } | PoseEdit::ResetBone(bone) => limb_ends_moved_by(*bone),
            PoseEdit::Ik { end, .. } => vec![*end],
            PoseEdit::Pole { limb, .. } => vec![limb.bones()[2]],
            PoseEdit::MoveHips {
                hold_pins: true, ..
            } => Vec::new(),
            PoseEdit::Look { .. } => vec![Bone::Head],
            PoseEdit::Grip { .. }
            | PoseEdit::Hand { .. }
            | PoseEdit::Finger { .. }
            | PoseEdit::CopyHand { .. }
            | PoseEdit::Expression { .. }
            | PoseEdit::LookAt(_) => Vec::new(),
            PoseEdit::MoveHips {
                hold_pins: false, ..
            }
            | PoseEdit::ResetPose
            | PoseEdit::Mirror
            | PoseEdit::ArmsDown
            | PoseEdit::SetPose(_)
            | PoseEdit::ApplyPose { .. } => return Vec::new(),
        };
        pins.into_iter()
            .filter(|h| !moved.contains(&h.end))
            .collect()
    }
}

/// The ends whose own chain `bone` belongs to: turning an upper arm moves its hand on
/// purpose, turning the neck the head; turning the chest does not (a pinned hand stays).
fn limb_ends_moved_by(bone: Bone) -> Vec<Bone> {
    if bone == Bone::Head || bone == Bone::Neck {
        return vec![Bone::Head];
    }
    Limb::ALL
        .into_iter()
        .filter(|l| l.bones().contains(&bone))
        .map(|l| l.bones()[2])
        .collect()
}

impl Editor {
    /// The pinned ends where they are now.
    pub(super) fn capture_pins(&self) -> Vec<Held> {
        self.pins
            .ends()
            .filter_map(|end| Held::capture(&self.rig, &self.pose, end))
            .collect()
    }

    /// What a body-following reach of `moving` holds: the other pins as the drag found
    /// them.
    pub(super) fn follow(&self, moving: Bone) -> Follow {
        let held = self
            .gesture_pins
            .clone()
            .unwrap_or_else(|| self.capture_pins());
        Follow {
            held: held.into_iter().filter(|h| h.end != moving).collect(),
            limits: self.settings.limits,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::animation::pins::Pins;
    use serde_json::json;

    fn at(ed: &Editor, bone: Bone) -> glam::Vec3 {
        ed.rig.world_position(&ed.pose, bone).unwrap()
    }

    #[test]
    fn a_pinned_hand_stays_while_the_hips_drop_and_undo_brings_back_pose_and_pins() {
        use crate::animation::edit::tests::limits_on;
        use crate::animation::edit::{Edit, PoseEdit};
        use crate::model::mannequin::MannequinVariant;
        use glam::Vec3;
        for variant in [MannequinVariant::Vrm1, MannequinVariant::Vrm0] {
            let mut ed = limits_on(variant);
            let shoulder = at(&ed, Bone::LeftUpperArm);
            ed.apply(Edit::Pose(PoseEdit::Ik {
                end: Bone::LeftHand,
                target: shoulder + Vec3::new(0.2, -0.25, 0.3),
                keep_angle: false,
                body: false,
            }))
            .unwrap();
            let before = ed.snapshot();
            let pin = super::super::parse_step(&json!({"op": "pin", "end": "leftHand"})).unwrap();
            ed.apply(pin).unwrap();
            assert_eq!(
                ed.pins,
                Pins::FEET.with(Pins::of(Bone::LeftHand).unwrap(), true)
            );
            let held = [Bone::LeftHand, Bone::LeftFoot, Bone::RightFoot].map(|b| (b, at(&ed, b)));
            let hips = ed.rig.hips_rest();
            ed.apply(Edit::Pose(PoseEdit::MoveHips {
                to: Some(hips - Vec3::Y * 0.15),
                rotate: None,
                hold_pins: true,
            }))
            .unwrap();
            for (bone, was) in held {
                let moved = at(&ed, bone).distance(was);
                assert!(moved < 1e-3, "{variant:?} {bone}: moved {moved:.5} m");
            }
            // A spine turn leaves the pinned hand too; the right hand goes with the chest.
            let right = at(&ed, Bone::RightHand);
            ed.apply(Edit::Pose(PoseEdit::Rotate {
                bone: Bone::Chest,
                rotation: glam::Quat::from_rotation_y(0.3),
            }))
            .unwrap();
            assert!(at(&ed, Bone::LeftHand).distance(held[0].1) < 1e-3);
            assert!(at(&ed, Bone::RightHand).distance(right) > 0.05);
            for _ in 0..3 {
                ed.apply(Edit::Undo).unwrap();
            }
            assert_eq!(
                ed.snapshot(),
                before,
                "{variant:?}: pose and pins back exactly"
            );
            assert_eq!(ed.pins, Pins::FEET);
        }
    }

    #[test]
    fn pins_are_saved_with_the_project_and_old_projects_read_pin_feet() {
        use crate::animation::project::Project;
        let mut project = Project::default();
        assert_eq!(project.pins, Pins::FEET, "Pin feet is on by default");
        project.pins = Pins::of(Bone::Head).unwrap();
        let back = Project::from_json(&project.to_json(), &mut Vec::new()).unwrap();
        assert_eq!(back.pins, project.pins);
        let old = json!({"v": 1, "settings": {"pin_feet": false}});
        assert_eq!(
            Project::from_json(&old, &mut Vec::new()).unwrap().pins,
            Pins::NONE
        );
        let old = json!({"v": 1, "settings": {"pin_feet": true}});
        assert_eq!(
            Project::from_json(&old, &mut Vec::new()).unwrap().pins,
            Pins::FEET
        );
    }
}
