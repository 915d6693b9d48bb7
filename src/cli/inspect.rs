//! `vrma-maker inspect MODEL`: model facts in the normalized rig's terms.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::core::body::rig::Rig;
use crate::core::model::humanoid::ALL_BONES;
use crate::core::{Refusal, body::rig::load_rig, round7};

pub fn run(path: &Path) -> Result<Value, Refusal> {
    Ok(facts(&load_rig(path)?))
}

fn vec3(v: bevy::math::Vec3) -> Value {
    json!([round7(v.x), round7(v.y), round7(v.z)])
}

/// `{vrm_version, title, bones: {name: {parent, rest}}, hips_rest, expressions}`.
pub fn facts(rig: &Rig) -> Value {
    let bones: Map<String, Value> = ALL_BONES
        .iter()
        .filter_map(|&b| {
            let rb = rig.bone(b)?;
            Some((
                b.name().to_string(),
                json!({"parent": rb.parent.map(|p| p.name()), "rest": vec3(rb.rest_offset)}),
            ))
        })
        .collect();
    let (preset, custom) = rig.model.expression_names();
    json!({
        "vrm_version": rig.version().label(),
        "title": rig.model.title,
        "bones": bones,
        "hips_rest": vec3(rig.hips_rest()),
        "expressions": {"preset": preset, "custom": custom},
    })
}
