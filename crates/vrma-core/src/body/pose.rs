//! A pose: normalized bone rotations (VRM 1.0 convention), the hips position and
//! expression weights; its JSON v1 form; mirror, arms down and grip (SPEC §3).

use crate::{read_floats, read_quat};
use std::collections::BTreeMap;

use glam::{Quat, Vec3};
use serde_json::{Map, Value, json};

use crate::Refusal;
use crate::body::look::{Look, LookTarget};
use crate::model::humanoid::{ALL_BONES, BONE_COUNT, Bone, Side, finger_bones};

/// Normalized pose. Bones default to identity, hips to the model's rest position.
#[derive(Clone, Debug, PartialEq)]
pub struct Pose {
    pub bones: [Quat; BONE_COUNT],
    /// Model-space hips position (VRM 1.0 frame); `None` = the model's rest hips.
    pub hips: Option<Vec3>,
    /// Expression weights in [0, 1], by VRM 1.0 name.
    pub expressions: BTreeMap<String, f32>,
    /// Where the eyes look; `None`: as the eye bones are (at rest, or a model's own).
    pub look: Option<Look>,
}

impl Default for Pose {
    fn default() -> Self {
        Pose {
            bones: [Quat::IDENTITY; BONE_COUNT],
            hips: None,
            expressions: BTreeMap::new(),
            look: None,
        }
    }
}

/// The vector part below which a unit rotation is the identity: 1e-7 is 1.1e-5°. `w`
/// alone cannot tell: it rounds to 1 in f32 for every rotation under about 0.03°.
pub const IDENTITY_VECTOR: f32 = 1e-7;

/// Whether a rotation is (numerically) the identity, up to sign.
pub fn is_identity(q: Quat) -> bool {
    q.xyz().length() < IDENTITY_VECTOR
}

/// A part of the body a pose can be pasted onto (SPEC §11 "paste onto"): which bones it
/// takes, and whether it takes the hips position and the expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum BodyMask {
    #[default]
    WholeBody,
    UpperBody,
    LowerBody,
    LeftArm,
    RightArm,
    LeftHand,
    RightHand,
    Head,
}

impl BodyMask {
    pub const ALL: [BodyMask; 8] = [
        BodyMask::WholeBody,
        BodyMask::UpperBody,
        BodyMask::LowerBody,
        BodyMask::LeftArm,
        BodyMask::RightArm,
        BodyMask::LeftHand,
        BodyMask::RightHand,
        BodyMask::Head,
    ];

    /// The edit-script name (`"leftArm"`).
    pub fn name(self) -> &'static str {
        match self {
            BodyMask::WholeBody => "wholeBody",
            BodyMask::UpperBody => "upperBody",
            BodyMask::LowerBody => "lowerBody",
            BodyMask::LeftArm => "leftArm",
            BodyMask::RightArm => "rightArm",
            BodyMask::LeftHand => "leftHand",
            BodyMask::RightHand => "rightHand",
            BodyMask::Head => "head",
        }
    }

    /// What the menus show.
    pub fn label(self) -> &'static str {
        match self {
            BodyMask::WholeBody => "Whole body",
            BodyMask::UpperBody => "Upper body",
            BodyMask::LowerBody => "Lower body",
            BodyMask::LeftArm => "Left arm",
            BodyMask::RightArm => "Right arm",
            BodyMask::LeftHand => "Left hand",
            BodyMask::RightHand => "Right hand",
            BodyMask::Head => "Head",
        }
    }

    pub fn from_name(name: &str) -> Option<BodyMask> {
        BodyMask::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Whether the mask takes this bone. An arm is shoulder to finger tips, a hand is
    /// the hand and its fingers, the head is the neck up; the upper body is everything
    /// above the hips, the lower body the hips and legs.
    pub fn covers(self, bone: Bone) -> bool {
        let name = bone.name();
        let side_part = |side: &str, hand_only: bool| {
            name.strip_prefix(side).is_some_and(|rest| {
                let finger = ["Thumb", "Index", "Middle", "Ring", "Little"]
                    .iter()
                    .any(|f| rest.starts_with(f));
                finger
                    || rest == "Hand"
                    || (!hand_only && matches!(rest, "Shoulder" | "UpperArm" | "LowerArm"))
            })
        };
        let leg = |rest: &str| matches!(rest, "UpperLeg" | "LowerLeg" | "Foot" | "Toes");
        let lower = bone == Bone::Hips
            || ["left", "right"]
                .iter()
                .any(|side| name.strip_prefix(side).is_some_and(leg));
        match self {
            BodyMask::WholeBody => true,
            BodyMask::LowerBody => lower,
            BodyMask::UpperBody => !lower,
            BodyMask::LeftArm => side_part("left", false),
            BodyMask::RightArm => side_part("right", false),
            BodyMask::LeftHand => side_part("left", true),
            BodyMask::RightHand => side_part("right", true),
            BodyMask::Head => matches!(
                bone,
                Bone::Neck | Bone::Head | Bone::Jaw | Bone::LeftEye | Bone::RightEye
            ),
        }
    }

    /// The same part on the other side (a hand ↔ the other hand).
    pub fn mirrored(self) -> BodyMask {
        match self {
            BodyMask::LeftArm => BodyMask::RightArm,
            BodyMask::RightArm => BodyMask::LeftArm,
            BodyMask::LeftHand => BodyMask::RightHand,
            BodyMask::RightHand => BodyMask::LeftHand,
            other => other,
        }
    }

    /// Whether the mask takes the hips position (the whole and the lower body).
    pub fn takes_hips(self) -> bool {
        matches!(self, BodyMask::WholeBody | BodyMask::LowerBody)
    }

    /// Whether the mask takes the expressions (the whole body and the head).
    pub fn takes_expressions(self) -> bool {
        matches!(self, BodyMask::WholeBody | BodyMask::Head)
    }
}

use crate::num;

impl Pose {
    pub fn rotation(&self, bone: Bone) -> Quat {
        self.bones[bone.index()]
    }

    pub fn set_rotation(&mut self, bone: Bone, q: Quat) {
        self.bones[bone.index()] = q.normalize();
    }

    /// Saved form (SPEC §3). Only non-identity bones are written.
    pub fn to_json(&self, model_title: &str) -> Value {
        let mut bones = Map::new();
        for bone in ALL_BONES {
            let q = self.rotation(bone);
            if !is_identity(q) {
                bones.insert(
                    bone.name().into(),
                    json!([num(q.x), num(q.y), num(q.z), num(q.w)]),
                );
            }
        }
        let mut out = Map::new();
        out.insert("v".into(), json!(1));
        out.insert("model".into(), json!(model_title));
        out.insert("bones".into(), Value::Object(bones));
        if let Some(h) = self.hips {
            out.insert("hips".into(), json!([num(h.x), num(h.y), num(h.z)]));
        }
        let expr: Map<String, Value> = self
            .expressions
            .iter()
            .map(|(k, v)| (k.clone(), json!(num(*v))))
            .collect();
        out.insert("expr".into(), Value::Object(expr));
        if let Some(look) = &self.look {
            out.insert("look".into(), look.target().to_json());
        }
        Value::Object(out)
    }

    /// Reads the saved form. Missing fields are tolerated; unknown bones are skipped and
    /// reported in `warnings`; malformed values are errors naming the field.
    pub fn from_json(value: &Value, warnings: &mut Vec<String>) -> Result<Pose, Refusal> {
        let obj = value
            .as_object()
            .ok_or_else(|| Refusal::new("pose: expected a JSON object"))?;
        if let Some(v) = obj.get("v")
            && v.as_u64() != Some(1)
        {
            return Err(Refusal::new(format!(
                "pose: unsupported version {v} (expected 1)"
            )));
        }
        let mut pose = Pose::default();
        if let Some(bones) = obj.get("bones").filter(|b| !b.is_null()) {
            let bones = bones
                .as_object()
                .ok_or_else(|| Refusal::new("pose.bones: expected an object"))?;
            for (name, q) in bones {
                let q = read_quat(q, &format!("pose.bones.{name}"))?;
                match Bone::from_name(name) {
                    Some(bone) => pose.bones[bone.index()] = q,
                    None => warnings.push(format!("pose: unknown bone '{name}' ignored")),
                }
            }
        }
        if let Some(h) = obj.get("hips").filter(|h| !h.is_null()) {
            let h = read_floats::<3>(h, "pose.hips")?;
            if h.iter().any(|x| x.abs() > 1e4) {
                return Err(Refusal::new(
                    "pose.hips: position is implausibly far (over 10 km)",
                ));
            }
            pose.hips = Some(Vec3::from_array(h));
        }
        if let Some(expr) = obj.get("expr").filter(|e| !e.is_null()) {
            let expr = expr
                .as_object()
                .ok_or_else(|| Refusal::new("pose.expr: expected an object"))?;
            for (name, v) in expr {
                let w = v.as_f64().filter(|w| w.is_finite()).ok_or_else(|| {
                    Refusal::new(format!("pose.expr.{name}: expected a finite number"))
                })?;
                pose.expressions
                    .insert(name.clone(), (w as f32).clamp(0.0, 1.0));
            }
        }
        if let Some(look) = obj.get("look").filter(|l| !l.is_null()) {
            pose.look = Some(Look::at(LookTarget::from_json(look, "pose.look")?));
        }
        Ok(pose)
    }

    /// Drops expressions the model does not have, with a warning each.
    pub fn retain_known_expressions(&mut self, known: &[String], warnings: &mut Vec<String>) {
        self.expressions.retain(|name, _| {
            let ok = known.iter().any(|k| k == name);
            if !ok {
                warnings.push(format!("pose: unknown expression '{name}' ignored"));
            }
            ok
        });
    }

    /// This pose with the part of `source` that `mask` covers laid over it.
    pub fn overlaid(&self, source: &Pose, mask: BodyMask) -> Pose {
        let mut out = self.clone();
        for bone in ALL_BONES {
            if mask.covers(bone) {
                out.bones[bone.index()] = source.bones[bone.index()];
            }
        }
        if mask.takes_hips() {
            out.hips = source.hips;
        }
        if mask.takes_expressions() {
            out.expressions = source.expressions.clone();
        }
        if mask.covers(Bone::LeftEye) {
            out.look = source.look;
        }
        out
    }

    /// Left↔right: swap bones, rotations `(x,-y,-z,w)`, hips `(-x,y,z)`, left/right
    /// expressions swap (SPEC §3).
    pub fn mirrored(&self) -> Pose {
        let mut out = Pose::default();
        for bone in ALL_BONES {
            let q = self.rotation(bone);
            out.bones[bone.mirror().index()] = Quat::from_xyzw(q.x, -q.y, -q.z, q.w);
        }
        out.hips = self.hips.map(|h| Vec3::new(-h.x, h.y, h.z));
        out.expressions = self
            .expressions
            .iter()
            .map(|(name, w)| (mirror_expression_name(name), *w))
            .collect();
        out.look = self.look.map(|l| l.mirrored());
        out
    }
}

/// `blinkLeft` ↔ `blinkRight`, `lookLeft` ↔ `lookRight`; others unchanged.
pub fn mirror_expression_name(name: &str) -> String {
    if let Some(stem) = name.strip_suffix("Left") {
        format!("{stem}Right")
    } else if let Some(stem) = name.strip_suffix("Right") {
        format!("{stem}Left")
    } else {
        name.to_string()
    }
}

/// Grip angles (SPEC §3): proximal, intermediate, distal; thumbs use half.
const GRIP_ANGLES: [f32; 3] = [1.0, 1.2, 0.7];
/// How far "arms down" lowers the upper arms from the T-pose, about their local Z.
pub const ARMS_DOWN_ANGLE: f32 = 1.2;

/// The per-model directions of SPEC §3, measured by rotating and looking.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoseDirections {
    /// Sign of the local-Z angle that lowers each upper arm (left, right).
    pub arm_down: [f32; 2],
    /// Sign of the local-Z angle that curls each hand's fingers (left, right).
    pub finger_curl: [f32; 2],
}

impl PoseDirections {
    /// Lowers both upper arms from the T-pose (replacing their rotations).
    pub fn arms_down(&self, pose: &mut Pose) {
        for (side, bone) in [
            (Side::Left, Bone::LeftUpperArm),
            (Side::Right, Bone::RightUpperArm),
        ] {
            let angle = self.arm_down[side.index()] * ARMS_DOWN_ANGLE;
            pose.set_rotation(bone, Quat::from_rotation_z(angle));
        }
    }

    /// Curls one hand's fingers by `amount` (0 = open, 1 = full grip), replacing their
    /// rotations.
    pub fn grip(&self, pose: &mut Pose, side: Side, amount: f32) {
        let amount = if amount.is_finite() {
            amount.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let sign = self.finger_curl[side.index()];
        for (i, &bone) in finger_bones(side).iter().enumerate() {
            // Thumb: metacarpal, proximal, distal; fingers: proximal, intermediate, distal.
            let joint = if i < 3 { i } else { (i - 3) % 3 };
            let mut angle = GRIP_ANGLES[joint] * amount * sign;
            if bone.is_thumb() {
                angle *= 0.5;
            }
            pose.set_rotation(bone, Quat::from_rotation_z(angle));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arb_pose() -> impl Strategy<Value = Pose> {
        let quat = (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, 0.1f32..1.0)
            .prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w).normalize());
        (
            proptest::collection::vec(quat, BONE_COUNT),
            proptest::option::of((-1.0f32..1.0, 0.0f32..2.0, -1.0f32..1.0)),
            proptest::collection::btree_map(
                prop_oneof![
                    Just("blinkLeft".to_string()),
                    Just("happy".to_string()),
                    Just("lookRight".to_string())
                ],
                0.0f32..1.0,
                0..3,
            ),
        )
            .prop_map(|(qs, hips, expressions)| {
                let mut pose = Pose::default();
                pose.bones.copy_from_slice(&qs);
                pose.hips = hips.map(|(x, y, z)| Vec3::new(x, y, z));
                pose.expressions = expressions;
                pose
            })
    }

    /// The VRM 0.x frame flip of SPEC §2.
    fn flip(pose: &Pose) -> Pose {
        let mut out = pose.clone();
        for q in out.bones.iter_mut() {
            *q = Quat::from_xyzw(-q.x, q.y, -q.z, q.w);
        }
        out.hips = pose.hips.map(|h| Vec3::new(-h.x, h.y, -h.z));
        out
    }

    proptest! {
        #[test]
        fn mirror_commutes_with_the_vrm0_flip(pose in arb_pose()) {
            prop_assert_eq!(flip(&pose.mirrored()), flip(&pose).mirrored());
        }

        #[test]
        fn mirror_twice_is_identity(pose in arb_pose()) {
            prop_assert_eq!(pose.mirrored().mirrored(), pose);
        }

        #[test]
        fn json_round_trip_keeps_the_pose(pose in arb_pose()) {
            let mut warnings = Vec::new();
            let back = Pose::from_json(&pose.to_json("m"), &mut warnings).unwrap();
            prop_assert!(warnings.is_empty());
            for bone in ALL_BONES {
                prop_assert!(back.rotation(bone).dot(pose.rotation(bone)).abs() > 1.0 - 1e-6);
            }
            prop_assert_eq!(back.hips.is_some(), pose.hips.is_some());
        }
    }

    #[test]
    fn mirror_swaps_sides_and_expressions() {
        let mut pose = Pose::default();
        let q = Quat::from_rotation_z(0.7) * Quat::from_rotation_y(0.2);
        pose.set_rotation(Bone::LeftUpperArm, q);
        pose.hips = Some(Vec3::new(0.1, 0.9, 0.2));
        pose.expressions.insert("blinkLeft".into(), 0.5);
        let m = pose.mirrored();
        assert_eq!(m.rotation(Bone::LeftUpperArm), Quat::IDENTITY);
        let r = m.rotation(Bone::RightUpperArm);
        assert_eq!(r, Quat::from_xyzw(q.x, -q.y, -q.z, q.w));
        assert_eq!(m.hips, Some(Vec3::new(-0.1, 0.9, 0.2)));
        assert_eq!(m.expressions.get("blinkRight"), Some(&0.5));
        assert!(!m.expressions.contains_key("blinkLeft"));
    }

    #[test]
    fn reading_skips_unknown_bones_and_refuses_bad_values() {
        let mut w = Vec::new();
        let pose = Pose::from_json(
            &json!({"v": 1, "bones": {"tail": [0, 0, 0, 1], "spine": [0, 0, 0, 2]}}),
            &mut w,
        )
        .unwrap();
        assert_eq!(w.len(), 1);
        assert_eq!(pose.rotation(Bone::Spine), Quat::IDENTITY);
        for bad in [
            json!({"bones": {"spine": [0, 0, 0, 0]}}),
            json!({"bones": {"spine": [0, 0, 0]}}),
            json!({"bones": {"spine": "x"}}),
            json!({"hips": [0, "NaN", 0]}),
            json!({"expr": {"happy": "a"}}),
            json!({"v": 2}),
            json!([1, 2]),
        ] {
            assert!(Pose::from_json(&bad, &mut w).is_err(), "{bad}");
        }
        let err =
            Pose::from_json(&json!({"bones": {"leftHand": [0, 0, 0, 0]}}), &mut w).unwrap_err();
        assert!(
            err.to_string()
                .contains("leftHand: quaternion has zero length")
        );
    }

    #[test]
    fn identity_bones_are_not_saved() {
        let mut pose = Pose::default();
        pose.set_rotation(Bone::Neck, Quat::from_rotation_x(0.3));
        let json = pose.to_json("m");
        let bones = json["bones"].as_object().unwrap();
        assert_eq!(bones.len(), 1);
        assert!(bones.contains_key("neck"));
    }
}
