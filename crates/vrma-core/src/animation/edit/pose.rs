//! Pose edits: a [`PoseEdit`] and how it changes the pose (bones, hips, hands and
//! fingers, expressions, gaze, a masked pose laid over it).

use glam::{Quat, Vec3};
use serde_json::{Map, Value, json};

use super::Editor;
use crate::Refusal;
use crate::body::aim;
use crate::body::follow;
use crate::body::hand::{Finger, HandShape, copy_hand_to_other_side};
use crate::body::ik::{self, Limb};
use crate::body::limits;
use crate::body::look::{Look, LookTarget};
use crate::body::pose::{BodyMask, Pose};
use crate::model::humanoid::{ALL_BONES, Bone, Side};
use crate::round7;

/// Which hand(s) a grip acts on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GripSide {
    One(Side),
    Both,
}

impl GripSide {
    /// The hands it names.
    pub fn sides(self) -> &'static [Side] {
        match self {
            GripSide::One(Side::Left) => &[Side::Left],
            GripSide::One(Side::Right) => &[Side::Right],
            GripSide::Both => &Side::BOTH,
        }
    }
}

/// An edit of the pose. With keys (and stopped) it is written back to the key at the
/// playhead.
#[derive(Clone, Debug, PartialEq)]
pub enum PoseEdit {
    /// Set a bone's normalized local rotation (VRM 1.0 convention).
    Rotate { bone: Bone, rotation: Quat },
    /// Reset one bone to identity.
    ResetBone(Bone),
    /// Reset bones, hips and expressions to rest.
    ResetPose,
    /// Left↔right swap of the whole pose.
    Mirror,
    /// Lower both arms from the T-pose.
    ArmsDown,
    /// Curl the fingers of one or both hands; 0 = open, 1 = full grip.
    Grip { side: GripSide, amount: f32 },
    /// Set an expression weight in [0, 1].
    Expression { name: String, value: f32 },
    /// Replace the whole pose (a library pose, a pose file, a script's `pose` step);
    /// expressions the model lacks are dropped.
    SetPose(Box<Pose>),
    /// Move a hand or foot to a model-space target with two-bone IK; with `body` the
    /// spine leans and the hips move after it when the limb falls short (the head can
    /// be moved so too).
    Ik {
        end: Bone,
        target: Vec3,
        keep_angle: bool,
        body: bool,
    },
    /// Swing an elbow or knee towards a point, hand or foot fixed.
    Pole { limb: Limb, point: Vec3 },
    /// Set the hips position and/or normalized rotation (absolute); with `hold_pins`
    /// the pinned ends (the feet, with Pin feet) stay where they were when the edit (or
    /// drag) began.
    MoveHips {
        to: Option<Vec3>,
        rotate: Option<Quat>,
        hold_pins: bool,
    },
    /// Lay the part of `pose` that `mask` covers over the current pose (mirrored first
    /// when asked): a library pose onto one arm, a pasted pose onto the upper body.
    ApplyPose {
        pose: Box<Pose>,
        mask: BodyMask,
        mirror: bool,
    },
    /// Shape one or both hands (a preset's shape, `amount` of the way from straight).
    Hand {
        side: GripSide,
        shape: Box<HandShape>,
        amount: f32,
    },
    /// Set one digit's curl and spread (the thumb's spread is −opposition); `bone` is
    /// any of its bones.
    Finger { bone: Bone, curl: f32, spread: f32 },
    /// Copy one hand's fingers onto the other hand, mirrored.
    CopyHand { from: Side },
    /// Where the eyes look (`None`: as posed, no gaze).
    LookAt(Option<LookTarget>),
    /// Turn the chest a little, the neck and the head to face a model-space point, and
    /// the eyes to look at it.
    Look { target: Vec3 },
}

impl Editor {
    /// Applies a pose edit to the pose only, keeping the bones it turned within their
    /// joint limits when they are on; a whole pose laid down (a library pose, a file, a
    /// picture's) is kept as it was made. A refused edit changes nothing.
    pub(super) fn change_pose(&mut self, edit: PoseEdit) -> Result<(), Refusal> {
        let lays_down_a_pose = matches!(edit, PoseEdit::SetPose(_) | PoseEdit::ApplyPose { .. });
        let before = (self.settings.limits && !lays_down_a_pose).then_some(self.pose.bones);
        let unchanged = self.pose.clone();
        let pins = self
            .gesture_pins
            .clone()
            .unwrap_or_else(|| self.capture_pins());
        let held = edit.held_pins(pins);
        if let Err(refusal) = self
            .change_pose_freely(edit)
            .and_then(|()| follow::keep(&self.rig, &mut self.pose, &held))
        {
            self.pose = unchanged;
            return Err(refusal);
        }
        if let Some(before) = before {
            let moved: Vec<Bone> = ALL_BONES
                .into_iter()
                .filter(|b| before[b.index()] != self.pose.bones[b.index()])
                .collect();
            limits::clamp_pose_bones(&mut self.pose, &moved);
        }
        Ok(())
    }

    fn change_pose_freely(&mut self, edit: PoseEdit) -> Result<(), Refusal> {
        match edit {
            PoseEdit::Rotate { bone, rotation } => {
                self.check_poseable(bone)?;
                let len = rotation.length();
                if !len.is_finite() || len < 1e-6 {
                    return Err(Refusal::new(format!("{bone}: quaternion has zero length")));
                }
                self.pose.set_rotation(bone, rotation / len);
            }
            PoseEdit::ResetBone(bone) => {
                self.check_poseable(bone)?;
                self.pose.set_rotation(bone, Quat::IDENTITY);
                if bone == Bone::Hips {
                    self.pose.hips = None;
                }
            }
            PoseEdit::ResetPose => self.pose = Pose::default(),
            PoseEdit::Mirror => self.pose = self.pose.mirrored(),
            PoseEdit::ArmsDown => self.directions.arms_down(&mut self.pose),
            PoseEdit::Grip { side, amount } => {
                if !amount.is_finite() {
                    return Err(Refusal::new("grip: amount must be a finite number"));
                }
                let sides = side.sides();
                for &s in sides {
                    self.directions.grip(&mut self.pose, s, amount);
                }
            }
            PoseEdit::Hand {
                side,
                shape,
                amount,
            } => {
                if !amount.is_finite() {
                    return Err(Refusal::new("hand: amount must be a finite number"));
                }
                self.check_has_fingers()?;
                let sides = side.sides();
                for &s in sides {
                    self.hands.shape_hand(&mut self.pose, s, &shape, amount);
                }
            }
            PoseEdit::Finger { bone, curl, spread } => {
                let Some((finger, side)) = Finger::of_bone(bone) else {
                    return Err(Refusal::new(format!("{bone} is not a finger bone")));
                };
                if !curl.is_finite() || !spread.is_finite() {
                    return Err(Refusal::new(
                        "finger: curl and spread must be finite numbers",
                    ));
                }
                if !finger.bones(side).iter().any(|b| self.rig.has(*b)) {
                    return Err(Refusal::new(format!(
                        "the model has no {} finger bones",
                        finger.name()
                    )));
                }
                let mut shape = self.hands.read_finger(&self.pose, side, finger);
                shape.curl = curl;
                shape.spread = spread;
                self.hands.shape_finger(&mut self.pose, side, finger, shape);
            }
            PoseEdit::CopyHand { from } => {
                self.check_has_fingers()?;
                copy_hand_to_other_side(&mut self.pose, from);
            }
            PoseEdit::LookAt(target) => {
                let usable = match target {
                    Some(LookTarget::Point(p)) => p.is_finite() && p.abs().max_element() <= 1e4,
                    Some(LookTarget::Angles(g)) => {
                        g.yaw.is_finite()
                            && g.pitch.is_finite()
                            && g.yaw.abs().max(g.pitch.abs()) <= 180.0
                    }
                    _ => true,
                };
                if !usable {
                    return Err(Refusal::new(
                        "look_at: the target must be a finite point within 10 km, or angles within ±180°",
                    ));
                }
                self.pose.look = target.map(Look::at);
            }
            PoseEdit::Look { target } => {
                aim::look_at_point(&self.rig, &mut self.pose, target)?;
                self.pose.look = Some(Look::at(LookTarget::Point(target)));
            }
            PoseEdit::Expression { name, value } => {
                if !self.expression_names.contains(&name) {
                    return Err(Refusal::new(format!(
                        "the model has no expression '{name}'"
                    )));
                }
                if !value.is_finite() {
                    return Err(Refusal::new(format!(
                        "expression '{name}': value must be a finite number"
                    )));
                }
                self.pose.expressions.insert(name, value.clamp(0.0, 1.0));
            }
            PoseEdit::SetPose(pose) => self.pose = self.checked_pose(*pose)?,
            PoseEdit::Ik {
                end,
                target,
                keep_angle,
                body,
            } => {
                let mut pose = self.pose.clone();
                if body {
                    let follow = self.follow(end);
                    follow::reach_with_body(
                        &self.rig, &mut pose, end, target, keep_angle, &follow,
                    )?;
                } else {
                    ik::reach(&self.rig, &mut pose, end, target, keep_angle)?;
                }
                self.pose = pose;
            }
            PoseEdit::Pole { limb, point } => {
                let mut pose = self.pose.clone();
                ik::drag_pole(&self.rig, &mut pose, limb, point)?;
                self.pose = pose;
            }
            // The pinned ends are held after (see `change_pose`).
            PoseEdit::MoveHips { to, rotate, .. } => {
                ik::move_hips(&self.rig, &mut self.pose, to, rotate, None)?;
            }
            PoseEdit::ApplyPose { pose, mask, mirror } => {
                let pose = if mirror { pose.mirrored() } else { *pose };
                let pose = self.checked_pose(pose)?;
                self.pose = self.pose.overlaid(&pose, mask);
            }
        }
        Ok(())
    }

    fn check_has_fingers(&self) -> Result<(), Refusal> {
        if crate::model::humanoid::ALL_BONES
            .iter()
            .any(|b| Finger::of_bone(*b).is_some() && self.rig.has(*b))
        {
            Ok(())
        } else {
            Err(Refusal::new("the model has no finger bones"))
        }
    }

    fn check_poseable(&self, bone: Bone) -> Result<(), Refusal> {
        if bone.is_eye() {
            return Err(Refusal::new(format!(
                "{bone}: eye bones follow the gaze (look-at) and are not posed"
            )));
        }
        if !self.rig.has(bone) {
            return Err(Refusal::new(format!("the model has no '{bone}' bone")));
        }
        Ok(())
    }

    /// Model-space position of every present bone, VRM 1.0 frame (for `apply`'s `world`).
    pub fn world_json(&self) -> Value {
        let world = self.rig.world_pose(&self.pose);
        let map: Map<String, Value> = ALL_BONES
            .iter()
            .filter_map(|b| {
                world[b.index()].map(|(p, _)| {
                    (
                        b.name().to_string(),
                        json!([round7(p.x), round7(p.y), round7(p.z)]),
                    )
                })
            })
            .collect();
        Value::Object(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::animation::edit::Edit;
    use crate::animation::edit::tests::{editor, keyed, limits_on};
    use crate::model::mannequin::MannequinVariant;

    #[test]
    fn arms_down_lowers_both_hands_on_both_variants() {
        for variant in [MannequinVariant::Vrm1, MannequinVariant::Vrm0] {
            let mut ed = editor(variant);
            let before = ed.rig.world_pose(&ed.pose);
            ed.apply(Edit::Pose(PoseEdit::ArmsDown)).unwrap();
            let after = ed.rig.world_pose(&ed.pose);
            for hand in [Bone::LeftHand, Bone::RightHand] {
                let (b, a) = (
                    before[hand.index()].unwrap().0,
                    after[hand.index()].unwrap().0,
                );
                assert!(a.y < b.y - 0.3, "{variant:?} {hand}: {b} -> {a}");
            }
        }
    }

    #[test]
    fn grip_curls_finger_tips_down() {
        for variant in [MannequinVariant::Vrm1, MannequinVariant::Vrm0] {
            let mut ed = editor(variant);
            let tip = |ed: &Editor, b| ed.rig.world_position(&ed.pose, b).unwrap();
            let before = tip(&ed, Bone::LeftIndexDistal);
            let right_before = tip(&ed, Bone::RightIndexDistal);
            ed.apply(Edit::Pose(PoseEdit::Grip {
                side: GripSide::One(Side::Left),
                amount: 1.0,
            }))
            .unwrap();
            assert!(tip(&ed, Bone::LeftIndexDistal).y < before.y - 0.01);
            assert_eq!(tip(&ed, Bone::RightIndexDistal), right_before);
        }
    }

    #[test]
    fn refused_edits_change_nothing() {
        let mut ed = editor(MannequinVariant::Vrm1);
        ed.apply(Edit::Pose(PoseEdit::Rotate {
            bone: Bone::Spine,
            rotation: Quat::from_rotation_x(0.2),
        }))
        .unwrap();
        let before = ed.pose.clone();
        assert!(
            ed.apply(Edit::Pose(PoseEdit::Rotate {
                bone: Bone::Neck,
                rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)
            }))
            .is_err()
        );
        assert!(
            ed.apply(Edit::Pose(PoseEdit::Rotate {
                bone: Bone::Neck,
                rotation: Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0)
            }))
            .is_err()
        );
        assert!(
            ed.apply(Edit::Pose(PoseEdit::Rotate {
                bone: Bone::LeftEye,
                rotation: Quat::IDENTITY
            }))
            .is_err()
        );
        assert!(
            ed.apply(Edit::Pose(PoseEdit::Expression {
                name: "nope".into(),
                value: 1.0
            }))
            .is_err()
        );
        assert!(
            ed.apply(Edit::Pose(PoseEdit::Expression {
                name: "happy".into(),
                value: f32::NAN
            }))
            .is_err()
        );
        assert_eq!(ed.pose, before);
    }

    #[test]
    fn a_mask_takes_only_its_part() {
        let mut ed = keyed(&[0], &[Quat::from_rotation_x(0.3)]);
        let mut source = Pose::default();
        for bone in [
            Bone::LeftUpperArm,
            Bone::RightUpperArm,
            Bone::LeftIndexProximal,
            Bone::Head,
            Bone::LeftUpperLeg,
        ] {
            source.set_rotation(bone, Quat::from_rotation_z(0.7));
        }
        source.hips = Some(Vec3::new(0.2, 0.5, 0.1));
        let before = ed.pose.clone();
        ed.apply(Edit::Pose(PoseEdit::ApplyPose {
            pose: Box::new(source.clone()),
            mask: BodyMask::LeftArm,
            mirror: false,
        }))
        .unwrap();
        for bone in ALL_BONES {
            let expected = if BodyMask::LeftArm.covers(bone) {
                source.rotation(bone)
            } else {
                before.rotation(bone)
            };
            assert_eq!(ed.pose.rotation(bone), expected, "{bone}");
        }
        assert_eq!(ed.pose.hips, before.hips, "an arm does not move the hips");
        assert!(BodyMask::LeftArm.covers(Bone::LeftIndexProximal));
        assert!(!BodyMask::LeftHand.covers(Bone::LeftUpperArm));
        assert!(BodyMask::LowerBody.covers(Bone::Hips) && !BodyMask::UpperBody.covers(Bone::Hips));
        assert!(BodyMask::UpperBody.covers(Bone::Head) && !BodyMask::LowerBody.covers(Bone::Head));
        assert_eq!(
            ed.timeline.keys()[0].pose,
            ed.pose,
            "written back to the key at the playhead"
        );
    }

    #[test]
    fn with_limits_on_a_backward_elbow_comes_straight_and_off_it_stays_as_turned() {
        // Bent the wrong way: about +Y for the left elbow, whose flexion is about -Y.
        let backwards = Quat::from_rotation_y(0.8);
        let mut ed = limits_on(MannequinVariant::Vrm1);
        let script = crate::animation::edit::script::parse_step(&json!(
            {"op": "rotate", "bone": "leftLowerArm", "quat": [0.0, backwards.y, 0.0, backwards.w]}
        ))
        .unwrap();
        ed.apply(script.clone()).unwrap();
        let straightened = ed.pose.rotation(Bone::LeftLowerArm);
        assert!(
            straightened.angle_between(Quat::IDENTITY) < 1e-4,
            "clamped straight: {straightened}"
        );
        // The limits stay on the rest of the arm's edits: a forward bend is kept.
        let forward = Quat::from_rotation_y(-0.8);
        ed.apply(Edit::Pose(PoseEdit::Rotate {
            bone: Bone::LeftLowerArm,
            rotation: forward,
        }))
        .unwrap();
        assert!(ed.pose.rotation(Bone::LeftLowerArm).angle_between(forward) < 1e-5);
        let off = crate::animation::edit::script::parse_step(&json!({"op": "limits", "on": false}))
            .unwrap();
        ed.apply(off).unwrap();
        assert!(!ed.settings.limits);
        ed.apply(script).unwrap();
        assert!(
            ed.pose
                .rotation(Bone::LeftLowerArm)
                .angle_between(backwards)
                < 1e-5,
            "limits off: as turned"
        );
    }

    #[test]
    fn with_limits_on_reaching_and_moving_the_hips_keep_the_pinned_feet_and_every_joint_inside() {
        for variant in [MannequinVariant::Vrm1, MannequinVariant::Vrm0] {
            let mut ed = limits_on(variant);
            let feet = |ed: &Editor| {
                [Bone::LeftFoot, Bone::RightFoot]
                    .map(|b| ed.rig.world_position(&ed.pose, b).unwrap())
            };
            let planted = feet(&ed);
            let rest = ed.rig.hips_rest();
            ed.apply(Edit::Pose(PoseEdit::MoveHips {
                to: Some(rest - Vec3::Y * 0.15),
                rotate: None,
                hold_pins: true,
            }))
            .unwrap();
            for (now, then) in feet(&ed).iter().zip(planted) {
                assert!(now.distance(then) < 1e-3, "{variant:?}: {now} vs {then}");
            }
            let shoulder = ed.rig.world_position(&ed.pose, Bone::LeftUpperArm).unwrap();
            ed.apply(Edit::Pose(PoseEdit::Ik {
                end: Bone::LeftHand,
                target: shoulder + Vec3::new(0.25, -0.1, 0.3),
                keep_angle: false,
                body: false,
            }))
            .unwrap();
            for bone in ALL_BONES {
                assert!(
                    limits::within_limits(bone, ed.pose.rotation(bone)),
                    "{variant:?}: {bone} {}",
                    ed.pose.rotation(bone)
                );
            }
        }
    }

    #[test]
    fn the_limits_setting_is_saved_with_the_project() {
        let mut ed = limits_on(MannequinVariant::Vrm1);
        assert!(ed.settings.limits, "on by default");
        ed.apply(Edit::SetLimits(false)).unwrap();
        let json = ed.project(None).to_json();
        assert_eq!(json["settings"]["limits"], json!(false));
        let back = crate::animation::project::Project::from_json(&json, &mut Vec::new()).unwrap();
        assert!(!back.settings.limits, "read back");
    }
}
