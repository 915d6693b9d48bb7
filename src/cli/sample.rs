//! `vrma-maker sample --model M --project P --times 0,0.5,1`: the interpolated pose at
//! each time (SPEC §4), as `[{t, pose}]`.

use std::path::Path;

use serde_json::{Value, json};

use crate::core::{Refusal, round7};

pub fn run(model: &Path, project: &Path, times: &str) -> Result<Value, Refusal> {
    let times = parse_times(times)?;
    let editor = super::open_editor(model, Some(project))?;
    let title = &editor.rig.model.title;
    let samples: Vec<Value> = times
        .into_iter()
        .map(|t| {
            // Without keys the project's pose holds at every time.
            let pose = editor.sample(t).unwrap_or_else(|| editor.pose.clone());
            json!({"t": round7(t), "pose": pose.to_json(title)})
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
