//! The VRM extension JSON: humanoid, meta, expressions bound to the face targets and
//! look-at (VRM 1.0 `VRMC_vrm` or 0.x `VRM`), and the hair's spring bones with the head
//! collider (`VRMC_springBone` or 0.x `secondaryAnimation`).

use serde_json::{Value, json};

use super::TITLE;
use super::face::FACE_TARGETS;
use crate::model::humanoid::Bone;
use crate::model::mannequin::{vrm0_extension_for, vrm0_preset_name, vrm1_extension_for};

/// VRM 1.0 preset expressions and the face target each binds (VRoid's mapping).
pub(super) const EXPRESSION_BINDS: [(&str, &str); 14] = [
    ("neutral", "Fcl_ALL_Neutral"),
    ("happy", "Fcl_ALL_Joy"),
    ("angry", "Fcl_ALL_Angry"),
    ("sad", "Fcl_ALL_Sorrow"),
    ("relaxed", "Fcl_ALL_Fun"),
    ("surprised", "Fcl_ALL_Surprised"),
    ("aa", "Fcl_MTH_A"),
    ("ih", "Fcl_MTH_I"),
    ("ou", "Fcl_MTH_U"),
    ("ee", "Fcl_MTH_E"),
    ("oh", "Fcl_MTH_O"),
    ("blink", "Fcl_EYE_Close"),
    ("blinkLeft", "Fcl_EYE_Close_L"),
    ("blinkRight", "Fcl_EYE_Close_R"),
];

fn target_index(name: &str) -> usize {
    FACE_TARGETS.iter().position(|t| *t == name).unwrap_or(0)
}

pub(super) fn vrm1_extension(bone_node: &dyn Fn(Bone) -> usize, face_node: usize) -> Value {
    let preset: serde_json::Map<String, Value> = EXPRESSION_BINDS
        .iter()
        .map(|(name, target)| {
            (name.to_string(), json!({
                "morphTargetBinds": [{"node": face_node, "index": target_index(target), "weight": 1.0}],
                "isBinary": name.starts_with("blink"), "overrideBlink": "none", "overrideLookAt": "none", "overrideMouth": "none"
            }))
        })
        .collect();
    let mut extension = vrm1_extension_for(TITLE, bone_node, preset);
    let range = json!({"inputMaxValue": 90.0, "outputScale": 10.0});
    extension["lookAt"] = json!({"type": "bone", "offsetFromHeadBone": [0.0, 0.06, 0.0],
        "rangeMapHorizontalInner": range, "rangeMapHorizontalOuter": range,
        "rangeMapVerticalDown": range, "rangeMapVerticalUp": range});
    extension
}

pub(super) fn spring_bone_1(bone_node: &dyn Fn(Bone) -> usize, chains: &[Vec<usize>]) -> Value {
    let springs: Vec<Value> = chains
        .iter()
        .enumerate()
        .map(|(k, chain)| {
            let joints: Vec<Value> = chain
                .iter()
                .map(|n| {
                    json!({"node": n, "hitRadius": 0.02, "stiffness": 1.0, "gravityPower": 0.0,
                    "gravityDir": [0.0, -1.0, 0.0], "dragForce": 0.4})
                })
                .collect();
            json!({"name": format!("Hair{:02}", k + 1), "joints": joints, "colliderGroups": [0]})
        })
        .collect();
    json!({
        "specVersion": "1.0",
        // Inside the hair's roots, as an exporter fits it: hair that starts inside a
        // collider is thrown out of it at the first step.
        "colliders": [{"node": bone_node(Bone::Head), "shape": {"sphere": {"offset": [0.0, 0.06, 0.0], "radius": 0.06}}}],
        "colliderGroups": [{"name": "Head", "colliders": [0]}],
        "springs": springs
    })
}

pub(super) fn vrm0_extension(bone_node: &dyn Fn(Bone) -> usize, chains: &[Vec<usize>]) -> Value {
    let groups: Vec<Value> = EXPRESSION_BINDS
        .iter()
        .map(|(name, target)| {
            let (preset, group_name) = match *name {
                "neutral" => ("neutral", "Neutral"),
                other => vrm0_preset_name(other),
            };
            json!({"name": group_name, "presetName": preset,
                   "binds": [{"mesh": 2, "index": target_index(target), "weight": 100}],
                   "materialValues": [], "isBinary": false})
        })
        .collect();
    let mut extension = vrm0_extension_for(TITLE, bone_node, groups, 0.06);
    extension["exporterVersion"] = json!("UniVRM-0.99.0");
    let first_joints: Vec<usize> = chains.iter().map(|c| c[0]).collect();
    extension["secondaryAnimation"] = json!({
        "boneGroups": [{"comment": "Hair", "stiffiness": 1.0, "gravityPower": 0.0,
            "gravityDir": {"x": 0.0, "y": -1.0, "z": 0.0}, "dragForce": 0.4, "center": -1,
            "hitRadius": 0.02, "bones": first_joints, "colliderGroups": [0]}],
        "colliderGroups": [{"node": bone_node(Bone::Head),
            "colliders": [{"offset": {"x": 0.0, "y": 0.06, "z": 0.0}, "radius": 0.06}]}]
    });
    extension
}
