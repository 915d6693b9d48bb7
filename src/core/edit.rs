//! The one edit path. Every user action — a slider in the window, a key press, a line
//! of an edit script — becomes an [`Edit`] applied by [`Editor::apply`], so that later
//! write-back to keys, undo and pinning behave the same everywhere.

use bevy::math::Quat;
use serde_json::{Map, Value, json};

use super::LoadError;
use super::humanoid::{ALL_BONES, Bone, Side};
use super::pose::{Pose, PoseDirections, read_floats, read_quat};
use super::rig::Rig;
use super::round7;

/// Which hand(s) a grip acts on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GripSide {
    One(Side),
    Both,
}

/// One user edit.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
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
    /// Replace the whole pose (applying a library pose, loading a pose file).
    SetPose(Box<Pose>),
}

/// The editing session: the model's rig and the current pose.
pub struct Editor {
    pub rig: Rig,
    pub directions: PoseDirections,
    pub pose: Pose,
    expression_names: Vec<String>,
}

impl Editor {
    pub fn new(rig: Rig) -> Editor {
        let directions = PoseDirections::measure(&rig);
        let (mut names, custom) = rig.model.expression_names();
        names.extend(custom);
        Editor {
            rig,
            directions,
            pose: Pose::default(),
            expression_names: names,
        }
    }

    /// Preset and custom expression names of the model.
    pub fn expression_names(&self) -> &[String] {
        &self.expression_names
    }

    /// Applies one edit. A refused edit changes nothing.
    pub fn apply(&mut self, edit: Edit) -> Result<(), LoadError> {
        match edit {
            Edit::Rotate { bone, rotation } => {
                self.check_poseable(bone)?;
                let len = rotation.length();
                if !len.is_finite() || len < 1e-6 {
                    return Err(LoadError::new(format!(
                        "{bone}: quaternion has zero length"
                    )));
                }
                self.pose.set_rotation(bone, rotation / len);
            }
            Edit::ResetBone(bone) => {
                self.check_poseable(bone)?;
                self.pose.set_rotation(bone, Quat::IDENTITY);
                if bone == Bone::Hips {
                    self.pose.hips = None;
                }
            }
            Edit::ResetPose => self.pose = Pose::default(),
            Edit::Mirror => self.pose = self.pose.mirrored(),
            Edit::ArmsDown => self.directions.arms_down(&mut self.pose),
            Edit::Grip { side, amount } => {
                if !amount.is_finite() {
                    return Err(LoadError::new("grip: amount must be a finite number"));
                }
                let sides: &[Side] = match side {
                    GripSide::One(Side::Left) => &[Side::Left],
                    GripSide::One(Side::Right) => &[Side::Right],
                    GripSide::Both => &Side::BOTH,
                };
                for &s in sides {
                    self.directions.grip(&mut self.pose, s, amount);
                }
            }
            Edit::Expression { name, value } => {
                if !self.expression_names.contains(&name) {
                    return Err(LoadError::new(format!(
                        "the model has no expression '{name}'"
                    )));
                }
                if !value.is_finite() {
                    return Err(LoadError::new(format!(
                        "expression '{name}': value must be a finite number"
                    )));
                }
                self.pose.expressions.insert(name, value.clamp(0.0, 1.0));
            }
            Edit::SetPose(pose) => {
                if pose.bones.iter().any(|q| !q.is_finite())
                    || pose.hips.is_some_and(|h| !h.is_finite())
                {
                    return Err(LoadError::new("pose contains a non-finite value"));
                }
                self.pose = *pose;
            }
        }
        Ok(())
    }

    fn check_poseable(&self, bone: Bone) -> Result<(), LoadError> {
        if bone.is_eye() {
            return Err(LoadError::new(format!(
                "{bone}: eye bones follow the gaze (look-at) and are not posed"
            )));
        }
        if !self.rig.has(bone) {
            return Err(LoadError::new(format!("the model has no '{bone}' bone")));
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

fn op_str<'a>(step: &'a Map<String, Value>, key: &str) -> Result<&'a str, LoadError> {
    step.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| LoadError::new(format!("'{key}' must be a string")))
}

fn op_f32(step: &Map<String, Value>, key: &str) -> Result<f32, LoadError> {
    step.get(key)
        .and_then(Value::as_f64)
        .filter(|x| x.is_finite())
        .map(|x| x as f32)
        .ok_or_else(|| LoadError::new(format!("'{key}' must be a finite number")))
}

fn op_bone(step: &Map<String, Value>) -> Result<Bone, LoadError> {
    let name = op_str(step, "bone")?;
    Bone::from_name(name).ok_or_else(|| LoadError::new(format!("unknown bone '{name}'")))
}

/// Ops that the SPEC names but later parts of the editor bring.
const LATER_OPS: [&str; 10] = [
    "ik",
    "pole",
    "move_hips",
    "seek",
    "key",
    "delete_key",
    "ease",
    "move_key",
    "undo",
    "redo",
];

/// Parses one script step.
pub fn parse_step(value: &Value) -> Result<Edit, LoadError> {
    let step = value
        .as_object()
        .ok_or_else(|| LoadError::new("a step must be a JSON object"))?;
    let op = op_str(step, "op")?;
    Ok(match op {
        "rotate" => Edit::Rotate {
            bone: op_bone(step)?,
            rotation: read_quat(step.get("quat").unwrap_or(&Value::Null), "'quat'")?,
        },
        "reset_bone" => Edit::ResetBone(op_bone(step)?),
        "reset_pose" => Edit::ResetPose,
        "mirror" => Edit::Mirror,
        "arms_down" => Edit::ArmsDown,
        "grip" => {
            let side = match step.get("side").and_then(Value::as_str).unwrap_or("both") {
                "left" => GripSide::One(Side::Left),
                "right" => GripSide::One(Side::Right),
                "both" => GripSide::Both,
                other => {
                    return Err(LoadError::new(format!(
                        "'side' must be left, right or both, not '{other}'"
                    )));
                }
            };
            let amount = if step.contains_key("amount") {
                op_f32(step, "amount")?
            } else {
                1.0
            };
            Edit::Grip { side, amount }
        }
        "expr" => Edit::Expression {
            name: op_str(step, "name")?.to_string(),
            value: op_f32(step, "value")?,
        },
        "pose" => {
            let mut warnings = Vec::new();
            Edit::SetPose(Box::new(Pose::from_json(
                step.get("pose").unwrap_or(&Value::Null),
                &mut warnings,
            )?))
        }
        later if LATER_OPS.contains(&later) => {
            return Err(LoadError::new(format!(
                "op '{later}' is not available in this version"
            )));
        }
        other => return Err(LoadError::new(format!("unknown op '{other}'"))),
    })
}

/// Parses an edit script: a JSON array of steps. Errors name the step (1-based).
pub fn parse_script(value: &Value) -> Result<Vec<Edit>, LoadError> {
    let steps = value
        .as_array()
        .ok_or_else(|| LoadError::new("an edit script must be a JSON array of steps"))?;
    steps
        .iter()
        .enumerate()
        .map(|(i, s)| parse_step(s).map_err(|e| e.context(format!("step {}", i + 1))))
        .collect()
}

/// Reads `[x,y,z]` from a step (used by the positional ops).
pub fn step_vec3(step: &Map<String, Value>, key: &str) -> Result<bevy::math::Vec3, LoadError> {
    let v = step
        .get(key)
        .ok_or_else(|| LoadError::new(format!("'{key}' is missing")))?;
    Ok(bevy::math::Vec3::from_array(read_floats::<3>(
        v,
        &format!("'{key}'"),
    )?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::mannequin::{self, MannequinVariant};

    fn editor(variant: MannequinVariant) -> Editor {
        Editor::new(crate::core::rig_from_bytes(&mannequin::build(variant)).unwrap())
    }

    #[test]
    fn arms_down_lowers_both_hands_on_both_variants() {
        for variant in [MannequinVariant::Vrm1, MannequinVariant::Vrm0] {
            let mut ed = editor(variant);
            let before = ed.rig.world_pose(&ed.pose);
            ed.apply(Edit::ArmsDown).unwrap();
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
            ed.apply(Edit::Grip {
                side: GripSide::One(Side::Left),
                amount: 1.0,
            })
            .unwrap();
            assert!(tip(&ed, Bone::LeftIndexDistal).y < before.y - 0.01);
            assert_eq!(tip(&ed, Bone::RightIndexDistal), right_before);
        }
    }

    #[test]
    fn refused_edits_change_nothing() {
        let mut ed = editor(MannequinVariant::Vrm1);
        ed.apply(Edit::Rotate {
            bone: Bone::Spine,
            rotation: Quat::from_rotation_x(0.2),
        })
        .unwrap();
        let before = ed.pose.clone();
        assert!(
            ed.apply(Edit::Rotate {
                bone: Bone::Neck,
                rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)
            })
            .is_err()
        );
        assert!(
            ed.apply(Edit::Rotate {
                bone: Bone::Neck,
                rotation: Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0)
            })
            .is_err()
        );
        assert!(
            ed.apply(Edit::Rotate {
                bone: Bone::LeftEye,
                rotation: Quat::IDENTITY
            })
            .is_err()
        );
        assert!(
            ed.apply(Edit::Expression {
                name: "nope".into(),
                value: 1.0
            })
            .is_err()
        );
        assert!(
            ed.apply(Edit::Expression {
                name: "happy".into(),
                value: f32::NAN
            })
            .is_err()
        );
        assert_eq!(ed.pose, before);
    }

    #[test]
    fn scripts_name_the_failing_step() {
        let script = json!([{"op": "mirror"}, {"op": "fly"}]);
        assert_eq!(
            parse_script(&script).unwrap_err().to_string(),
            "step 2: unknown op 'fly'"
        );
        let script = json!([{"op": "rotate", "bone": "spine", "quat": [0, 0, 0, 0]}]);
        assert!(
            parse_script(&script)
                .unwrap_err()
                .to_string()
                .contains("zero length")
        );
        let ok = json!([{"op": "rotate", "bone": "spine", "quat": [0, 0, 0.2, 1]},
                        {"op": "grip", "side": "left", "amount": 0.5}, {"op": "expr", "name": "happy", "value": 1}]);
        assert_eq!(parse_script(&ok).unwrap().len(), 3);
    }
}
