//! `vrma-maker sample --model M --project P --times 0,0.5,1 [--world]`: the pose at each
//! time (SPEC §4: keys interpolated, planted feet held), as `[{t, pose}]`; with `--world`
//! each bone's model-space position and rotation too.

use std::path::Path;

use serde_json::{Value, json};

use crate::core::{Refusal, round7};

pub fn run(model: &Path, project: &Path, times: &str, world: bool) -> Result<Value, Refusal> {
    let times = parse_times(times)?;
    let editor = super::open_editor(model, Some(project))?;
    let title = &editor.rig.model.title;
    let samples: Vec<Value> = times
        .into_iter()
        .map(|t| {
            // Without keys the project's pose holds at every time.
            let pose = editor.sample(t).unwrap_or_else(|| editor.pose.clone());
            let mut sample = json!({"t": round7(t), "pose": pose.to_json(title)});
            if world {
                sample["world"] = world_json(&editor.rig, &pose);
            }
            sample
        })
        .collect();
    Ok(Value::Array(samples))
}

/// Parses `0,0.5,1`: finite, non-negative seconds.
pub fn parse_times(text: &str) -> Result<Vec<f32>, Refusal> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<f32>()
                .ok()
                .filter(|t| t.is_finite() && *t >= 0.0)
                .ok_or_else(|| {
                    Refusal::new(format!(
                        "--times: '{s}' is not a non-negative number of seconds"
                    ))
                })
        })
        .collect::<Result<Vec<_>, _>>()
        .and_then(|v| {
            if v.is_empty() {
                Err(Refusal::new("--times: no times given"))
            } else {
                Ok(v)
            }
        })
}

/// `{bone: {"position": [x,y,z], "rotation": [x,y,z,w]}}` in model space (VRM 1.0 frame).
fn world_json(rig: &crate::core::body::rig::Rig, pose: &crate::core::body::pose::Pose) -> Value {
    let world = rig.world_pose(pose);
    let bones: serde_json::Map<String, Value> = crate::core::model::humanoid::ALL_BONES
        .iter()
        .filter_map(|b| {
            world[b.index()].map(|(p, r)| {
                (
                    b.name().to_string(),
                    json!({"position": [round7(p.x), round7(p.y), round7(p.z)],
                           "rotation": [round7(r.x), round7(r.y), round7(r.z), round7(r.w)]}),
                )
            })
        })
        .collect();
    Value::Object(bones)
}
