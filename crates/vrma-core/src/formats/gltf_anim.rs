//! The avatar itself as a glTF with the timeline on it, for tools without a VRM plug-in
//! (Blender, three.js, Unity): the model's own file, its nodes, meshes and materials as
//! they are, plus one animation that turns its raw bones (the normalized pose brought to
//! each node through the rig, so VRM 0.x and 1.0 play alike), moves the hips, and sets
//! the meshes' morph weights from the expressions (as three-vrm binds them). Sampled at
//! the project's rate and at every key, eases and planted feet baked.

use serde_json::{Value, json};

use crate::Refusal;
use crate::animation::timeline::Timeline;
use crate::body::pose::Pose;
use crate::body::rig::Rig;
use crate::files::glb;
use crate::files::gltf_buffer::BufferBuilder;
use crate::formats::vrma::export::{frame_times, sample_frames};
use crate::model::expressions::morph_weights;
use crate::model::humanoid::Bone;

/// What an animated glTF export wrote.
pub struct GltfExport {
    pub bytes: Vec<u8>,
    pub frames: usize,
    pub channels: usize,
    pub duration: f32,
}

/// The animation's name in the file.
pub const ANIMATION_NAME: &str = "VRMA Maker";

/// Adds the timeline to the model's GLB bytes (`model` must be the file `rig` was read
/// from) as its first animation.
pub fn export_animated_glb(
    model: &[u8],
    rig: &Rig,
    timeline: &Timeline,
    still: &Pose,
    fps: f32,
    progress: &mut dyn FnMut(f32),
) -> Result<GltfExport, Refusal> {
    let split = glb::split(model)?;
    let mut root: Value = serde_json::from_slice(split.json)
        .map_err(|e| Refusal::new(format!("the model's glTF JSON is invalid: {e}")))?;
    let existing_bin = split.bin.unwrap_or(&[]);
    // Our data goes after the model's own binary chunk, in buffer 0 (a GLB's own).
    if root["buffers"]
        .as_array()
        .is_some_and(|b| b.first().is_some_and(|b0| b0.get("uri").is_some()))
    {
        return Err(Refusal::new(
            "the model keeps its data in an outside file; open a .vrm or .glb",
        ));
    }
    let times = frame_times(timeline, fps);
    let poses = sample_frames(rig, timeline, still, &times, &mut |p| progress(p * 0.5));
    let mut buffer = BufferBuilder {
        bin: existing_bin.to_vec(),
        ..Default::default()
    };
    let input = buffer.scalars(&times);
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    let mut add = |output: usize, node: usize, path: &str| {
        samplers.push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
        channels
            .push(json!({"sampler": samplers.len() - 1, "target": {"node": node, "path": path}}));
    };
    // Raw bones: rotations of every humanoid bone, the hips' translation.
    let raw: Vec<_> = poses.iter().map(|p| rig.raw_locals(p)).collect();
    let bones = raw.first().map_or(0, Vec::len);
    for b in 0..bones {
        let node = raw[0][b].node;
        let rotations: Vec<_> = raw.iter().map(|frame| frame[b].rotation).collect();
        let output = buffer.quats(&rotations);
        add(output, node, "rotation");
        if rig.bone(Bone::Hips).is_some_and(|h| h.node == node) {
            let translations: Vec<_> = raw.iter().map(|frame| frame[b].translation).collect();
            let output = buffer.vec3(&translations, None);
            add(output, node, "translation");
        }
    }
    progress(0.75);
    // Morph weights of every mesh node an expression moves, when any key has one.
    if poses.iter().any(|p| !p.expressions.is_empty()) {
        let per_frame: Vec<_> = poses
            .iter()
            .map(|p| morph_weights(&rig.model, &p.expressions))
            .collect();
        let moved: Vec<usize> = rig
            .model
            .expressions
            .iter()
            .flat_map(|e| e.binds.iter().map(|b| b.node))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        for node in moved {
            let Some(first) = per_frame[0].get(&node) else {
                continue;
            };
            let width = first.len();
            let weights: Vec<f32> = per_frame
                .iter()
                .flat_map(|frame| frame.get(&node).cloned().unwrap_or(vec![0.0; width]))
                .collect();
            let output = buffer.scalars(&weights);
            add(output, node, "weights");
        }
    }
    let channel_count = channels.len();
    let (bin, views, accessors, _) = buffer.finish();
    // Append our views and accessors after the model's, renumbering the references.
    let view_base = root["bufferViews"].as_array().map_or(0, Vec::len);
    let accessor_base = root["accessors"].as_array().map_or(0, Vec::len);
    let accessors: Vec<Value> = accessors
        .into_iter()
        .map(|mut a| {
            a["bufferView"] = json!(a["bufferView"].as_u64().unwrap_or(0) as usize + view_base);
            a
        })
        .collect();
    for sampler in &mut samplers {
        for field in ["input", "output"] {
            sampler[field] = json!(sampler[field].as_u64().unwrap_or(0) as usize + accessor_base);
        }
    }
    let push_all = |root: &mut Value, key: &str, items: Vec<Value>| {
        if !root[key].is_array() {
            root[key] = json!([]);
        }
        root[key]
            .as_array_mut()
            .expect("just made an array")
            .extend(items);
    };
    push_all(&mut root, "bufferViews", views);
    push_all(&mut root, "accessors", accessors);
    if !root["buffers"].is_array() || root["buffers"].as_array().is_some_and(Vec::is_empty) {
        root["buffers"] = json!([{}]);
    }
    root["buffers"][0]["byteLength"] = json!(bin.len());
    let animation = json!({"name": ANIMATION_NAME, "samplers": samplers, "channels": channels});
    let mut animations = vec![animation];
    if let Some(own) = root["animations"].as_array() {
        animations.extend(own.iter().cloned());
    }
    root["animations"] = Value::Array(animations);
    let json_bytes = serde_json::to_vec(&root)
        .map_err(|e| Refusal::new(format!("cannot write the glTF JSON: {e}")))?;
    progress(1.0);
    Ok(GltfExport {
        bytes: glb::build(&json_bytes, &bin),
        frames: times.len(),
        channels: channel_count,
        duration: timeline.end(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::animation::timeline::{Ease, Key};
    use crate::body::rig::rig_from_bytes;
    use crate::files::accessors::GltfData;
    use crate::model::mannequin::{MannequinVariant, build};
    use glam::Quat;

    #[test]
    fn the_model_keeps_its_data_and_gains_an_animation_on_its_raw_bones() {
        for variant in [MannequinVariant::Vrm1, MannequinVariant::Vrm0] {
            let model = build(variant);
            let rig = rig_from_bytes(&model).unwrap();
            let mut raised = Pose::default();
            raised.set_rotation(Bone::LeftUpperArm, Quat::from_rotation_z(0.8));
            raised.expressions.insert("happy".into(), 1.0);
            let keys = vec![
                Key {
                    id: 1,
                    file_id: None,
                    t: 0.0,
                    ease: Ease::Linear,
                    pose: Pose::default(),
                },
                Key {
                    id: 2,
                    file_id: None,
                    t: 1.0,
                    ease: Ease::Linear,
                    pose: raised.clone(),
                },
            ];
            let timeline = Timeline::from_keys(keys).unwrap();
            let out =
                export_animated_glb(&model, &rig, &timeline, &Pose::default(), 30.0, &mut |_| {})
                    .unwrap();
            let before = glb::split(&model).unwrap();
            let after = glb::split(&out.bytes).unwrap();
            assert_eq!(
                &after.bin.unwrap()[..before.bin.unwrap().len()],
                before.bin.unwrap()
            );
            let root: Value = serde_json::from_slice(after.json).unwrap();
            let animation = &root["animations"][0];
            assert_eq!(out.frames, 31);
            // The left upper arm's node turns to what the rig asks of it at 1 s.
            let arm = rig.bone(Bone::LeftUpperArm).unwrap().node;
            let channel = animation["channels"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["target"]["node"] == arm && c["target"]["path"] == "rotation")
                .unwrap();
            let sampler = &animation["samplers"][channel["sampler"].as_u64().unwrap() as usize];
            let data = GltfData {
                root: &root,
                buffers: vec![after.bin.unwrap()],
            };
            let (values, width) = data
                .read_floats(sampler["output"].as_u64().unwrap() as usize)
                .unwrap();
            assert_eq!(width, 4);
            let last = Quat::from_slice(&values[values.len() - 4..]);
            let wanted = rig
                .raw_local_rotation(Bone::LeftUpperArm, raised.rotation(Bone::LeftUpperArm))
                .unwrap();
            assert!(
                crate::body::math::angle_between(last, wanted) < 1e-5,
                "{variant:?}"
            );
            assert!(
                animation["channels"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|c| c["target"]["path"] == "weights"),
                "{variant:?}: happy moves the face's morph targets"
            );
        }
    }
}
