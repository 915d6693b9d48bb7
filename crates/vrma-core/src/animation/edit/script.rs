//! Edit scripts: a JSON array of steps (`{"op": ...}`), each read into one [`Edit`]
//! by [`parse_step`] for [`Editor::apply`](super::Editor::apply).

use serde_json::{Map, Value};

use super::{Edit, GripSide, KeyEdit, Pins, PoseEdit, SelectMode};
use crate::Refusal;
use crate::animation::timeline::{Ease, KeyPick, Plant};
use crate::body::hand;
use crate::body::ik::Limb;
use crate::body::look::LookTarget;
use crate::body::pose::{BodyMask, Pose};
use crate::model::humanoid::{Bone, Side};
use crate::{read_floats, read_quat};

fn op_str<'a>(step: &'a Map<String, Value>, key: &str) -> Result<&'a str, Refusal> {
    step.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| Refusal::new(format!("'{key}' must be a string")))
}

fn op_f32(step: &Map<String, Value>, key: &str) -> Result<f32, Refusal> {
    step.get(key)
        .and_then(Value::as_f64)
        .filter(|x| x.is_finite())
        .map(|x| x as f32)
        .ok_or_else(|| Refusal::new(format!("'{key}' must be a finite number")))
}

/// `side`: left, right or both (the default).
fn op_side(step: &Map<String, Value>) -> Result<GripSide, Refusal> {
    Ok(
        match step.get("side").and_then(Value::as_str).unwrap_or("both") {
            "left" => GripSide::One(Side::Left),
            "right" => GripSide::One(Side::Right),
            "both" => GripSide::Both,
            other => {
                return Err(Refusal::new(format!(
                    "'side' must be left, right or both, not '{other}'"
                )));
            }
        },
    )
}

fn op_bone(step: &Map<String, Value>) -> Result<Bone, Refusal> {
    let name = op_str(step, "bone")?;
    Bone::from_name(name).ok_or_else(|| Refusal::new(format!("unknown bone '{name}'")))
}

/// Parses one script step.
pub fn parse_step(value: &Value) -> Result<Edit, Refusal> {
    let step = value
        .as_object()
        .ok_or_else(|| Refusal::new("a step must be a JSON object"))?;
    let op = op_str(step, "op")?;
    Ok(match op {
        "rotate" => Edit::Pose(PoseEdit::Rotate {
            bone: op_bone(step)?,
            rotation: read_quat(step.get("quat").unwrap_or(&Value::Null), "'quat'")?,
        }),
        "reset_bone" => Edit::Pose(PoseEdit::ResetBone(op_bone(step)?)),
        "reset_pose" => Edit::Pose(PoseEdit::ResetPose),
        "mirror" => Edit::Pose(PoseEdit::Mirror),
        "arms_down" => Edit::Pose(PoseEdit::ArmsDown),
        "grip" => {
            let side = op_side(step)?;
            let amount = if step.contains_key("amount") {
                op_f32(step, "amount")?
            } else {
                1.0
            };
            Edit::Pose(PoseEdit::Grip { side, amount })
        }
        "hand" => {
            let side = op_side(step)?;
            let name = op_str(step, "preset")?;
            let preset = hand::preset(name).ok_or_else(|| {
                let names: Vec<&str> = hand::presets().iter().map(|p| p.name.as_str()).collect();
                Refusal::new(format!(
                    "unknown hand preset '{name}' (one of {})",
                    names.join(", ")
                ))
            })?;
            let amount = if step.contains_key("amount") {
                op_f32(step, "amount")?
            } else {
                1.0
            };
            Edit::Pose(PoseEdit::Hand {
                side,
                shape: Box::new(preset.shape),
                amount,
            })
        }
        "finger" => {
            let bone = op_bone(step)?;
            Edit::Pose(PoseEdit::Finger {
                bone,
                curl: op_f32(step, "curl")?,
                spread: if step.contains_key("spread") {
                    op_f32(step, "spread")?
                } else {
                    0.0
                },
            })
        }
        "copy_hand" => Edit::Pose(PoseEdit::CopyHand {
            from: match op_str(step, "from")? {
                "left" => Side::Left,
                "right" => Side::Right,
                other => {
                    return Err(Refusal::new(format!(
                        "'from' must be left or right, not '{other}'"
                    )));
                }
            },
        }),
        "look_at" => {
            if step.get("off").and_then(Value::as_bool) == Some(true) {
                Edit::Pose(PoseEdit::LookAt(None))
            } else {
                let target = step
                    .get("target")
                    .ok_or_else(|| Refusal::new("look_at: give a 'target' or \"off\": true"))?;
                Edit::Pose(PoseEdit::LookAt(Some(LookTarget::from_json(
                    target, "'target'",
                )?)))
            }
        }
        "expr" => Edit::Pose(PoseEdit::Expression {
            name: op_str(step, "name")?.to_string(),
            value: op_f32(step, "value")?,
        }),
        "pose" => {
            let mut warnings = Vec::new();
            Edit::Pose(PoseEdit::SetPose(Box::new(Pose::from_json(
                step.get("pose").unwrap_or(&Value::Null),
                &mut warnings,
            )?)))
        }
        "seek" => Edit::Seek(op_f32(step, "t")?),
        "key" => Edit::Keys(KeyEdit::Add),
        "delete_key" => Edit::Keys(KeyEdit::Delete),
        "ease" => Edit::Keys(KeyEdit::SetEase(op_ease(step)?)),
        "move_key" => Edit::Keys(KeyEdit::Move {
            from: op_f32(step, "from")?,
            to: op_f32(step, "to")?,
        }),
        "undo" => Edit::Undo,
        "redo" => Edit::Redo,
        "ik" => {
            let name = op_str(step, "end")?;
            let end = Bone::from_name(name)
                .ok_or_else(|| Refusal::new(format!("unknown bone '{name}'")))?;
            let keep_angle = match step.get("keep_angle") {
                None => true,
                Some(v) => v
                    .as_bool()
                    .ok_or_else(|| Refusal::new("'keep_angle' must be true or false"))?,
            };
            let body = match step.get("body") {
                None => false,
                Some(v) => v
                    .as_bool()
                    .ok_or_else(|| Refusal::new("'body' must be true or false"))?,
            };
            Edit::Pose(PoseEdit::Ik {
                end,
                target: step_vec3(step, "target")?,
                keep_angle,
                body,
            })
        }
        "look" => Edit::Pose(PoseEdit::Look {
            target: step_vec3(step, "target")?,
        }),
        "pin" | "unpin" => {
            let name = op_str(step, "end")?;
            let end = Bone::from_name(name)
                .ok_or_else(|| Refusal::new(format!("unknown bone '{name}'")))?;
            Edit::Pin {
                ends: Pins::of(end)?,
                on: op == "pin",
            }
        }
        "limits" => match step.get("on").and_then(Value::as_bool) {
            Some(on) => Edit::SetLimits(on),
            None => return Err(Refusal::new("limits: 'on' must be true or false")),
        },
        "pole" => {
            let name = op_str(step, "chain")?;
            let limb = Limb::from_name(name).ok_or_else(|| {
                Refusal::new(format!(
                    "unknown chain '{name}' (leftArm, rightArm, leftLeg or rightLeg)"
                ))
            })?;
            Edit::Pose(PoseEdit::Pole {
                limb,
                point: step_vec3(step, "point")?,
            })
        }
        "move_hips" => {
            let to = if step.contains_key("to") {
                Some(step_vec3(step, "to")?)
            } else {
                None
            };
            let rotate = match step.get("rotate") {
                None => None,
                Some(q) => Some(read_quat(q, "'rotate'")?),
            };
            // "pin_feet": false lets the pinned ends (the feet, with Pin feet) go.
            let hold_pins = match step.get("pin_feet") {
                None => true,
                Some(v) => v
                    .as_bool()
                    .ok_or_else(|| Refusal::new("'pin_feet' must be true or false"))?,
            };
            if to.is_none() && rotate.is_none() {
                return Err(Refusal::new("move_hips needs 'to' and/or 'rotate'"));
            }
            Edit::Pose(PoseEdit::MoveHips {
                to,
                rotate,
                hold_pins,
            })
        }
        "select_keys" => {
            let pick = if let Some(times) = step.get("times") {
                let times = times
                    .as_array()
                    .filter(|t| t.len() <= MAX_SCRIPT_TIMES)
                    .ok_or_else(|| {
                        Refusal::new(format!(
                            "'times' must be an array of at most {MAX_SCRIPT_TIMES} seconds"
                        ))
                    })?;
                KeyPick::Times(
                    times
                        .iter()
                        .map(|t| {
                            t.as_f64()
                                .filter(|t| t.is_finite())
                                .map(|t| t as f32)
                                .ok_or_else(|| Refusal::new("'times' must hold finite numbers"))
                        })
                        .collect::<Result<_, _>>()?,
                )
            } else if step.contains_key("from") || step.contains_key("to") {
                KeyPick::Range {
                    from: op_f32(step, "from")?,
                    to: op_f32(step, "to")?,
                }
            } else if step.get("all") == Some(&Value::Bool(true)) {
                KeyPick::All
            } else if step.get("none") == Some(&Value::Bool(true)) {
                KeyPick::None
            } else {
                return Err(Refusal::new(
                    "select_keys needs 'times', 'from' and 'to', \"all\": true or \"none\": true",
                ));
            };
            let mode = match step
                .get("mode")
                .and_then(Value::as_str)
                .unwrap_or("replace")
            {
                "replace" => SelectMode::Replace,
                "add" => SelectMode::Add,
                "toggle" => SelectMode::Toggle,
                other => {
                    return Err(Refusal::new(format!(
                        "'mode' must be replace, add or toggle, not '{other}'"
                    )));
                }
            };
            Edit::Keys(KeyEdit::Select { pick, mode })
        }
        "move_keys" => Edit::Keys(KeyEdit::MoveSelected {
            by: op_f32(step, "by")?,
        }),
        "scale_keys" => Edit::Keys(KeyEdit::ScaleSelected {
            factor: op_f32(step, "factor")?,
            pivot: op_f32(step, "pivot")?,
        }),
        "delete_keys" => Edit::Keys(KeyEdit::DeleteSelected),
        "ease_keys" => Edit::Keys(KeyEdit::EaseSelected(op_ease(step)?)),
        "copy_keys" => Edit::CopyKeys,
        "paste_keys" => Edit::Keys(KeyEdit::Paste {
            t: op_f32(step, "t")?,
            mirror: op_bool(step, "mirror", false)?,
        }),
        "duplicate_keys" => Edit::Keys(KeyEdit::Duplicate {
            t: op_f32(step, "t")?,
        }),
        "copy_pose" => Edit::CopyPose,
        "paste_pose" => Edit::PastePose {
            mirror: op_bool(step, "mirror", false)?,
            mask: op_mask(step)?,
        },
        "apply_pose" => {
            let mut warnings = Vec::new();
            Edit::Pose(PoseEdit::ApplyPose {
                pose: Box::new(Pose::from_json(
                    step.get("pose").unwrap_or(&Value::Null),
                    &mut warnings,
                )?),
                mask: op_mask(step)?,
                mirror: op_bool(step, "mirror", false)?,
            })
        }
        "plant_foot" => {
            let name = op_str(step, "foot")?;
            let foot = Plant::foot_from_name(name).ok_or_else(|| {
                Refusal::new(format!(
                    "'foot' must be leftFoot or rightFoot, not '{name}'"
                ))
            })?;
            Edit::Keys(KeyEdit::Plant {
                foot,
                from: op_f32(step, "from")?,
                to: op_f32(step, "to")?,
                on: !op_bool(step, "off", false)?,
            })
        }
        other => return Err(Refusal::new(format!("unknown op '{other}'"))),
    })
}

/// The most times one `select_keys` step may list.
pub const MAX_SCRIPT_TIMES: usize = 1_000_000;

fn op_bool(step: &Map<String, Value>, key: &str, default: bool) -> Result<bool, Refusal> {
    match step.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(Refusal::new(format!("'{key}' must be true or false"))),
    }
}

fn op_ease(step: &Map<String, Value>) -> Result<Ease, Refusal> {
    let name = op_str(step, "value")?;
    Ease::from_name(name).ok_or_else(|| {
        Refusal::new(format!(
            "unknown ease '{name}' (LINEAR, IN-OUT, IN, OUT or HOLD)"
        ))
    })
}

fn op_mask(step: &Map<String, Value>) -> Result<BodyMask, Refusal> {
    match step.get("mask") {
        None | Some(Value::Null) => Ok(BodyMask::WholeBody),
        Some(Value::String(name)) => BodyMask::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = BodyMask::ALL.iter().map(|m| m.name()).collect();
            Refusal::new(format!("unknown mask '{name}' ({})", names.join(", ")))
        }),
        Some(_) => Err(Refusal::new("'mask' must be a string")),
    }
}

/// Parses an edit script: a JSON array of steps. Errors name the step (1-based).
pub fn parse_script(value: &Value) -> Result<Vec<Edit>, Refusal> {
    let steps = value
        .as_array()
        .ok_or_else(|| Refusal::new("an edit script must be a JSON array of steps"))?;
    steps
        .iter()
        .enumerate()
        .map(|(i, s)| parse_step(s).map_err(|e| e.context(format!("step {}", i + 1))))
        .collect()
}

/// Reads `[x,y,z]` from a step (used by the positional ops).
pub fn step_vec3(step: &Map<String, Value>, key: &str) -> Result<glam::Vec3, Refusal> {
    let v = step
        .get(key)
        .ok_or_else(|| Refusal::new(format!("'{key}' is missing")))?;
    Ok(glam::Vec3::from_array(read_floats::<3>(
        v,
        &format!("'{key}'"),
    )?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
