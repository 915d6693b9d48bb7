//! Where the eyes look (VRM 1.0 `VRMC_vrm.lookAt`, VRM 0.x `firstPerson`), as three-vrm
//! 3.5.5 aims them: the target's yaw and pitch from the head (taken in the head's rest
//! frame, so a turned head still looks at the target), mapped through the model's range
//! maps onto the eye bones (bone type) or the `look*` expressions (expression type).
//! The gaze is a change of the pose (eye rotations or expression weights), so everything
//! after the pose (raw bones, constraints, springs, morphs) follows it unchanged.

use crate::model::look_at::{LOOK_EXPRESSIONS, RangeMap};
use glam::{EulerRot, Quat, Vec3};

use crate::body::look::{Gaze, Look, LookTarget};
use crate::body::pose::Pose;
use crate::body::rig::Rig;
use crate::model::humanoid::Bone;
use crate::model::look_at::{LookAt, LookAtKind};

/// Where [`LookTarget::Camera`] is in an exported file: a viewer 2 m in front of the
/// rest pose's eyes, at their height.
pub fn export_viewer(rig: &Rig) -> Vec3 {
    let look = rig.model.look_at.clone().unwrap_or_else(LookAt::standard);
    look.eyes(rig, &Pose::default()).0 + Vec3::Z * 2.0
}

/// A still's (or a film frame's) pose with its eyes aimed from `camera`: an authored
/// gaze wins; without one, `StillEyes::Camera` looks at the camera, as a player's
/// default target does. A model without a gaze set-up is drawn as posed.
pub fn still_gaze(
    rig: &Rig,
    pose: &Pose,
    eyes: crate::body::look::StillEyes,
    camera: Vec3,
) -> Pose {
    use crate::body::look::StillEyes;
    match (&rig.model.look_at, eyes, &pose.look) {
        (Some(look_at), _, Some(_)) => look_at.with_gaze(rig, pose, camera),
        (Some(look_at), StillEyes::Camera, None) => look_at.looking_at(rig, pose, camera),
        _ => pose.clone(),
    }
}

impl LookAt {
    /// Between the eyes (model space) and the head's normalized world rotation.
    pub fn eyes(&self, rig: &Rig, pose: &Pose) -> (Vec3, Quat) {
        let world = rig.world_pose(pose);
        let (Some((head_position, head_rotation)), Some(head_node)) = (
            world[Bone::Head.index()],
            rig.model.humanoid[Bone::Head.index()],
        ) else {
            return (rig.hips_rest(), Quat::IDENTITY);
        };
        // The raw head's rest frame, in the VRM 1.0 frame (it carries the offset).
        let rest = rig.node_world_rest(head_node);
        let offset = rig.to_model_frame_vec(rest.transform_vector3(self.offset_from_head));
        (head_position + head_rotation * offset, head_rotation)
    }

    /// The yaw and pitch from between the eyes to `target` (model space, VRM 1.0 frame)
    /// for a pose, in the head's rest frame.
    pub fn gaze_toward(&self, rig: &Rig, pose: &Pose, target: Vec3) -> Gaze {
        if rig.model.humanoid[Bone::Head.index()].is_none() {
            return Gaze::default();
        }
        let (eyes, head_rotation) = self.eyes(rig, pose);
        let direction = (head_rotation.inverse() * (target - eyes)).normalize_or_zero();
        if direction == Vec3::ZERO || !direction.is_finite() {
            return Gaze::default();
        }
        // three-vrm's azimuth and altitude, from a face looking along +Z.
        let azimuth = |v: Vec3| (-v.z).atan2(v.x);
        let altitude = |v: Vec3| v.y.atan2((v.x * v.x + v.z * v.z).sqrt());
        let yaw = sanitize_angle(azimuth(direction) - azimuth(Vec3::Z));
        let pitch = sanitize_angle(altitude(Vec3::Z) - altitude(direction));
        Gaze {
            yaw: yaw.to_degrees(),
            pitch: pitch.to_degrees(),
        }
    }

    /// The pose with its eyes (or `look*` expressions) set to a gaze, as three-vrm's
    /// appliers set them (the eye bones' rotations replaced, the four expressions set).
    pub fn apply(&self, gaze: Gaze, pose: &Pose) -> Pose {
        let mut out = pose.clone();
        let Gaze { yaw, pitch } = gaze;
        match self.kind {
            LookAtKind::Bone => {
                // three-vrm maps looking up through the down range and down through the
                // up range; players match it, so the eyes do too.
                let x = if pitch < 0.0 {
                    -self.vertical_down.map(-pitch)
                } else {
                    self.vertical_up.map(pitch)
                };
                let eye = |toward_nose: &RangeMap, away: &RangeMap| {
                    let y = if yaw < 0.0 {
                        -toward_nose.map(-yaw)
                    } else {
                        away.map(yaw)
                    };
                    Quat::from_euler(EulerRot::YXZ, y.to_radians(), x.to_radians(), 0.0)
                };
                let left = eye(&self.horizontal_inner, &self.horizontal_outer);
                let right = eye(&self.horizontal_outer, &self.horizontal_inner);
                out.bones[Bone::LeftEye.index()] = left;
                out.bones[Bone::RightEye.index()] = right;
            }
            LookAtKind::Expression => {
                let (up, down) = if pitch < 0.0 {
                    (self.vertical_up.map(-pitch), 0.0)
                } else {
                    (0.0, self.vertical_down.map(pitch))
                };
                let (left, right) = if yaw < 0.0 {
                    (0.0, self.horizontal_outer.map(-yaw))
                } else {
                    (self.horizontal_outer.map(yaw), 0.0)
                };
                for (name, value) in LOOK_EXPRESSIONS.iter().zip([up, down, left, right]) {
                    out.expressions
                        .insert(name.to_string(), value.clamp(0.0, 1.0));
                }
            }
        }
        out
    }

    /// The pose looking at `target` (model space, VRM 1.0 frame).
    pub fn looking_at(&self, rig: &Rig, pose: &Pose, target: Vec3) -> Pose {
        self.apply(self.gaze_toward(rig, pose, target), pose)
    }

    /// The yaw and pitch of one target for a pose (`camera`: where the viewer is).
    pub fn gaze_of(&self, rig: &Rig, pose: &Pose, target: LookTarget, camera: Vec3) -> Gaze {
        match target {
            LookTarget::Camera => self.gaze_toward(rig, pose, camera),
            LookTarget::Point(p) => self.gaze_toward(rig, pose, p),
            LookTarget::Angles(g) => g,
        }
    }

    /// The yaw and pitch of a pose's gaze (a blend: its two ends' angles blended).
    pub fn gaze_of_look(&self, rig: &Rig, pose: &Pose, look: &Look, camera: Vec3) -> Gaze {
        let a = self.gaze_of(rig, pose, look.from, camera);
        if look.from == look.to {
            return a;
        }
        let b = self.gaze_of(rig, pose, look.to, camera);
        Gaze {
            yaw: a.yaw + (b.yaw - a.yaw) * look.w,
            pitch: a.pitch + (b.pitch - a.pitch) * look.w,
        }
    }

    /// The pose with its authored gaze applied (eyes or `look*` weights); a pose without
    /// one is returned as it is.
    pub fn with_gaze(&self, rig: &Rig, pose: &Pose, camera: Vec3) -> Pose {
        match &pose.look {
            Some(look) => self.apply(self.gaze_of_look(rig, pose, look, camera), pose),
            None => pose.clone(),
        }
    }

    /// The model-space point a gaze reaches at `distance` from the eyes.
    pub fn point_of(&self, rig: &Rig, pose: &Pose, gaze: Gaze, distance: f32) -> Vec3 {
        let (eyes, head_rotation) = self.eyes(rig, pose);
        eyes + head_rotation * gaze.direction() * distance
    }
}

/// An angle brought into [-π, π] (three-vrm's `sanitizeAngle`).
fn sanitize_angle(angle: f32) -> f32 {
    let turns = (angle / std::f32::consts::TAU).round();
    angle - std::f32::consts::TAU * turns
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::gltf::VrmVersion;
    use crate::model::look_at::{INPUT_MAX_VALUE_MINIMUM, MAX_OUTPUT_SCALE};
    use crate::model::mannequin::MannequinVariant;
    use crate::model::test_avatar::{self, TestAvatarSpec};
    use serde_json::json;

    /// The generated VRoid-scale avatar of both versions (small textures): bone gazes.
    fn rigs() -> Vec<Rig> {
        [MannequinVariant::Vrm1, MannequinVariant::Vrm0]
            .into_iter()
            .map(|variant| {
                let spec = TestAvatarSpec {
                    texture_size: 16,
                    ..TestAvatarSpec::vroid(variant)
                };
                let bytes = test_avatar::build(&spec);
                Rig::new(crate::model::vrm::Model::from_bytes(&bytes).unwrap()).unwrap()
            })
            .collect()
    }

    #[test]
    fn a_target_straight_ahead_leaves_the_eyes_at_rest() {
        for rig in rigs() {
            let look = rig.model.look_at.clone().expect("the avatar has a gaze");
            let pose = Pose::default();
            let head = rig.model.humanoid[Bone::Head.index()].unwrap();
            let offset = rig
                .node_world_rest(head)
                .transform_vector3(look.offset_from_head);
            let eyes =
                rig.world_position(&pose, Bone::Head).unwrap() + rig.to_model_frame_vec(offset);
            let gaze = look.gaze_toward(&rig, &pose, eyes + Vec3::Z * 2.0);
            assert!(gaze.yaw.abs() < 1e-3 && gaze.pitch.abs() < 1e-3, "{gaze:?}");
            let posed = look.apply(gaze, &pose);
            assert!(posed.bones[Bone::LeftEye.index()].angle_between(Quat::IDENTITY) < 1e-4);
        }
    }

    #[test]
    fn a_target_up_and_to_the_left_turns_both_eyes_that_way_within_their_range() {
        for rig in rigs() {
            let look = rig.model.look_at.clone().unwrap();
            let pose = Pose::default();
            let head = rig.world_position(&pose, Bone::Head).unwrap();
            // The model's left is +X in the VRM 1.0 frame; far up and left.
            let gaze = look.gaze_toward(&rig, &pose, head + Vec3::new(3.0, 3.0, 1.0));
            assert!(gaze.yaw > 45.0 && gaze.pitch < -30.0, "{gaze:?}");
            let posed = look.apply(gaze, &pose);
            for eye in [Bone::LeftEye, Bone::RightEye] {
                let forward = posed.bones[eye.index()] * Vec3::Z;
                assert!(forward.x > 0.0 && forward.y > 0.0, "{eye}: {forward}");
                let turned = posed.bones[eye.index()]
                    .angle_between(Quat::IDENTITY)
                    .to_degrees();
                assert!(turned <= 2f32.sqrt() * 10.0 + 1e-3, "{eye}: {turned}°");
            }
        }
    }

    #[test]
    fn a_turned_head_still_looks_at_the_target() {
        let rig = &rigs()[0];
        let look = rig.model.look_at.clone().unwrap();
        let mut pose = Pose::default();
        let head = rig.world_position(&pose, Bone::Head).unwrap();
        let target = head + Vec3::new(0.0, 0.0, 2.0);
        pose.bones[Bone::Neck.index()] = Quat::from_rotation_y(30f32.to_radians());
        let gaze = look.gaze_toward(rig, &pose, target);
        assert!(
            (gaze.yaw + 30.0).abs() < 3.0,
            "the eyes turn back: {gaze:?}"
        );
    }

    #[test]
    fn an_expression_gaze_sets_the_look_expressions_and_bad_maps_fall_back() {
        let root = json!({"extensions": {"VRMC_vrm": {"lookAt": {"type": "expression",
            "rangeMapHorizontalOuter": {"inputMaxValue": 0.0, "outputScale": 1.0},
            "rangeMapVerticalUp": {"inputMaxValue": "x", "outputScale": 1e30},
            "offsetFromHeadBone": [0.0, "y"]}}}});
        let look = LookAt::read(&root, VrmVersion::V1).unwrap();
        assert_eq!(look.kind, LookAtKind::Expression);
        assert_eq!(look.offset_from_head, Vec3::new(0.0, 0.06, 0.0));
        assert_eq!(look.horizontal_outer.input_max, INPUT_MAX_VALUE_MINIMUM);
        assert_eq!(look.vertical_up.input_max, 90.0);
        assert_eq!(look.vertical_up.output_scale, MAX_OUTPUT_SCALE);
        let posed = look.apply(
            Gaze {
                yaw: -20.0,
                pitch: 45.0,
            },
            &Pose::default(),
        );
        assert_eq!(posed.expressions["lookRight"], 1.0);
        assert_eq!(posed.expressions["lookLeft"], 0.0);
        assert_eq!(posed.expressions["lookUp"], 0.0);
        assert_eq!(posed.expressions["lookDown"], 0.5);
        assert!(LookAt::read(&json!({"extensions": {"VRMC_vrm": {}}}), VrmVersion::V1).is_none());
    }

    #[test]
    fn a_gaze_survives_its_track_rotation_and_its_direction() {
        for (yaw, pitch) in [(0.0, 0.0), (30.0, -10.0), (-75.0, 40.0), (90.0, 0.0)] {
            let gaze = Gaze { yaw, pitch };
            let back = Gaze::from_track_rotation(gaze.to_track_rotation());
            assert!(
                (back.yaw - yaw).abs() < 1e-3 && (back.pitch - pitch).abs() < 1e-3,
                "{back:?}"
            );
        }
        // A point looked at from the eyes gives back the angles it was made from.
        let rig = &rigs()[0];
        let look = rig.model.look_at.clone().unwrap();
        let mut pose = Pose::default();
        pose.bones[Bone::Neck.index()] = Quat::from_rotation_y(0.4);
        let gaze = Gaze {
            yaw: 25.0,
            pitch: -15.0,
        };
        let point = look.point_of(rig, &pose, gaze, 1.5);
        let again = look.gaze_toward(rig, &pose, point);
        assert!(
            (again.yaw - 25.0).abs() < 1e-2 && (again.pitch + 15.0).abs() < 1e-2,
            "{again:?}"
        );
    }

    #[test]
    fn looks_interpolate_by_kind_and_blend_across_kinds() {
        let p = |x: f32| Look::at(LookTarget::Point(Vec3::new(x, 1.5, 1.0)));
        assert_eq!(
            Look::between(Some(&p(0.0)), Some(&p(1.0)), 0.25),
            Some(p(0.25))
        );
        let a = Look::at(LookTarget::Angles(Gaze {
            yaw: 10.0,
            pitch: 0.0,
        }));
        let b = Look::at(LookTarget::Angles(Gaze {
            yaw: 30.0,
            pitch: -10.0,
        }));
        let mid = Look::between(Some(&a), Some(&b), 0.5).unwrap();
        assert_eq!(
            mid.target(),
            LookTarget::Angles(Gaze {
                yaw: 20.0,
                pitch: -5.0
            })
        );
        let cam = Look::at(LookTarget::Camera);
        let mixed = Look::between(Some(&cam), Some(&p(1.0)), 0.3).unwrap();
        assert_eq!(
            (mixed.from, mixed.to, mixed.w),
            (LookTarget::Camera, p(1.0).from, 0.3)
        );
        // No gaze on either side: none; on one side: the other reads as ahead.
        assert_eq!(Look::between(None, None, 0.5), None);
        let half = Look::between(None, Some(&b), 0.5).unwrap();
        assert_eq!(
            half.target(),
            LookTarget::Angles(Gaze {
                yaw: 15.0,
                pitch: -5.0
            })
        );
    }

    #[test]
    fn targets_read_and_write_their_json_and_bad_ones_are_refused() {
        for target in [
            LookTarget::Camera,
            LookTarget::AHEAD,
            LookTarget::Point(Vec3::new(0.5, 1.25, 2.0)),
            LookTarget::Angles(Gaze {
                yaw: -20.0,
                pitch: 5.5,
            }),
        ] {
            assert_eq!(
                LookTarget::from_json(&target.to_json(), "t").unwrap(),
                target
            );
        }
        for bad in [
            json!("moon"),
            json!([1, 2]),
            json!([0, 0, 1e9]),
            json!({"yaw": 400, "pitch": 0}),
            json!(3),
        ] {
            assert!(LookTarget::from_json(&bad, "t").is_err(), "{bad}");
        }
        let pose = Pose {
            look: Some(Look::at(LookTarget::Point(Vec3::new(1.0, 1.0, 1.0)))),
            ..Pose::default()
        };
        let back = Pose::from_json(&pose.to_json(""), &mut Vec::new()).unwrap();
        assert_eq!(back.look, pose.look);
        assert_eq!(
            pose.mirrored().look.unwrap().target(),
            LookTarget::Point(Vec3::new(-1.0, 1.0, 1.0))
        );
    }
}
