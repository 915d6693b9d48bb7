//! Timeline → `.vrma` (SPEC §7): one node per humanoid bone (identity rest rotations,
//! rest offsets), the timeline sampled at the project's rate (30 fps by default) and at every key, eases and planted feet baked in, reduced within
//! tolerance, key frames always kept; hips translation absolute; one node per
//! expression with its weight in `translation.x`.

use std::collections::BTreeSet;

use glam::{Quat, Vec3};
use serde_json::{Map, Value, json};

use super::EXTENSION;
use super::reduce::{make_sign_continuous, reduce_positions, reduce_rotations, reduce_scalars};
use crate::animation::plant;
use crate::animation::project::FPS_RANGE;
use crate::animation::timeline::{FPS, Timeline};
use crate::body::pose::Pose;
use crate::body::rig::Rig;
use crate::files::glb;
use crate::files::gltf_buffer::BufferBuilder;
use crate::model::humanoid::{Bone, Side};
use crate::model::vrm::PRESET_EXPRESSIONS;
use crate::{
    body::gaze::export_viewer, body::look::Look, body::look::LookTarget,
    model::look_at::LOOK_EXPRESSIONS, model::look_at::LookAt,
};

/// What an export wrote, for the user and for benchmarks.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportStats {
    /// Frames sampled (30 fps, first to last key).
    pub frames: usize,
    /// Keyframes written over all tracks after reduction.
    pub written_keys: usize,
    /// Keyframes naive sampling would write (every frame of every track).
    pub naive_keys: usize,
    pub tracks: usize,
    pub duration: f32,
}

/// The project's export rate, or 30 fps where it is out of range.
pub fn export_fps(fps: f32) -> f32 {
    if (FPS_RANGE.0..=FPS_RANGE.1).contains(&fps) {
        fps
    } else {
        FPS
    }
}

/// The times an export samples: every `1/fps` s from 0 to the last key, and every key's
/// own time (so keys play exactly at any rate), in order.
pub fn frame_times(timeline: &Timeline, fps: f32) -> Vec<f32> {
    let fps = export_fps(fps);
    let end = timeline.end();
    let grid = (end as f64 * fps as f64 + 1e-6).floor() as usize;
    let mut times: Vec<f32> = (0..=grid).map(|f| (f as f64 / fps as f64) as f32).collect();
    times.extend(timeline.keys().iter().map(|k| k.t));
    times.sort_by(f32::total_cmp);
    // Two times closer than a millisecond are one frame; a key's own time wins.
    let mut out: Vec<f32> = Vec::with_capacity(times.len());
    for t in times {
        match out.last_mut() {
            Some(last) if t - *last < 1e-3 => {
                if timeline.key_at(t).is_some_and(|k| k.t == t) {
                    *last = t;
                }
            }
            _ => out.push(t),
        }
    }
    if out.last().is_some_and(|&last| last < end) {
        out.push(end);
    }
    out
}

/// Samples the timeline (keys interpolated, planted feet held) at `times`. Without keys,
/// `still` is the one frame.
pub fn sample_frames(
    rig: &Rig,
    timeline: &Timeline,
    still: &Pose,
    times: &[f32],
    progress: &mut dyn FnMut(f32),
) -> Vec<Pose> {
    let rest = rig.hips_rest();
    let mut poses = Vec::with_capacity(times.len());
    for (f, &t) in times.iter().enumerate() {
        let mut pose = plant::sample(rig, timeline, t).unwrap_or_else(|| still.clone());
        pose.hips.get_or_insert(rest);
        poses.push(pose);
        if f % 256 == 0 {
            progress(f as f32 / times.len() as f32);
        }
    }
    progress(1.0);
    poses
}

/// Exports the timeline (or, without keys, the still pose) as VRMA bytes, sampled at
/// `fps`. The keys, eases and planted spans ride along in the animation's `extras`
/// (players ignore them), so importing the file gives back the same keys.
pub fn export_vrma(
    rig: &Rig,
    timeline: &Timeline,
    still: &Pose,
    fps: f32,
    progress: &mut dyn FnMut(f32),
) -> (Vec<u8>, ExportStats) {
    let times = frame_times(timeline, fps);
    let poses = sample_frames(rig, timeline, still, &times, progress);
    let frames = poses.len();
    let mut required = vec![false; frames];
    required[0] = true;
    required[frames - 1] = true;
    for (slot, &t) in required.iter_mut().zip(&times) {
        if timeline.key_at(t).is_some_and(|k| k.t == t) {
            *slot = true;
        }
    }
    // A planted foot is held by its whole chain: reducing the hips and that leg, each
    // within tolerance, would add up to over a millimetre at the foot. Every frame of a
    // planted span is kept on those tracks.
    let planted = |side: Side| -> Vec<bool> {
        required
            .iter()
            .zip(&times)
            .map(|(&r, &t)| r || timeline.plant_at(side, t).is_some())
            .collect()
    };
    let (left_planted, right_planted) = (planted(Side::Left), planted(Side::Right));
    let both_planted: Vec<bool> = left_planted
        .iter()
        .zip(&right_planted)
        .map(|(a, b)| *a || *b)
        .collect();
    let required_for = |bone: Bone| -> &[bool] {
        match bone {
            Bone::Hips => &both_planted,
            Bone::LeftUpperLeg | Bone::LeftLowerLeg | Bone::LeftFoot => &left_planted,
            Bone::RightUpperLeg | Bone::RightLowerLeg | Bone::RightFoot => &right_planted,
            _ => &required,
        }
    };

    // Eye bones are the gaze's, not the animation's (the VRMA spec forbids them).
    let bones: Vec<Bone> = rig
        .order()
        .iter()
        .copied()
        .filter(|b| !b.is_eye())
        .collect();
    let node_of = |bone: Bone| bones.iter().position(|b| *b == bone);
    let mut nodes: Vec<Value> = bones
        .iter()
        .map(|&bone| {
            let rb = rig.bone(bone).expect("ordered bones are present");
            let children: Vec<usize> = bones
                .iter()
                .enumerate()
                .filter(|(_, c)| rig.bone(**c).and_then(|b| b.parent) == Some(bone))
                .map(|(i, _)| i)
                .collect();
            let mut node = json!({"name": bone.name(), "translation": rb.rest_offset.to_array()});
            if !children.is_empty() {
                node["children"] = json!(children);
            }
            node
        })
        .collect();

    let mut buffer = BufferBuilder::default();
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    let mut written_keys = 0;
    let mut add_track =
        |buffer: &mut BufferBuilder, node: usize, path: &str, kept: &[usize], output: usize| {
            let input: Vec<f32> = kept.iter().map(|&i| times[i]).collect();
            let input = buffer.scalars(&input);
            samplers.push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
            channels.push(
                json!({"sampler": samplers.len() - 1, "target": {"node": node, "path": path}}),
            );
            written_keys += kept.len();
        };

    for (node, &bone) in bones.iter().enumerate() {
        let mut values: Vec<Quat> = poses.iter().map(|p| p.rotation(bone)).collect();
        make_sign_continuous(&mut values);
        let kept = reduce_rotations(&values, required_for(bone));
        let output = buffer.quats(
            &kept
                .iter()
                .map(|&i| values[i].normalize())
                .collect::<Vec<_>>(),
        );
        add_track(&mut buffer, node, "rotation", &kept, output);
    }
    let hips_node = node_of(Bone::Hips).expect("hips is required");
    let hips: Vec<Vec3> = poses
        .iter()
        .map(|p| p.hips.unwrap_or(rig.hips_rest()))
        .collect();
    let kept = reduce_positions(&hips, required_for(Bone::Hips));
    let output = buffer.vec3(&kept.iter().map(|&i| hips[i]).collect::<Vec<_>>(), None);
    add_track(&mut buffer, hips_node, "translation", &kept, output);

    // One node per expression that is non-zero somewhere; the look expressions are the
    // gaze's (the VRMA spec gives them to the lookAt track).
    let names: BTreeSet<&String> = poses
        .iter()
        .flat_map(|p| {
            p.expressions
                .iter()
                .filter(|(n, w)| **w != 0.0 && !LOOK_EXPRESSIONS.contains(&n.as_str()))
                .map(|(n, _)| n)
        })
        .collect();
    let mut preset = Map::new();
    let mut custom = Map::new();
    let mut expression_nodes = Vec::new();
    for name in names {
        let node = nodes.len();
        nodes.push(json!({"name": name, "translation": [0.0, 0.0, 0.0]}));
        expression_nodes.push(node);
        let weights: Vec<f32> = poses
            .iter()
            .map(|p| p.expressions.get(name).copied().unwrap_or(0.0))
            .collect();
        let kept = reduce_scalars(&weights, &required);
        let output = buffer.vec3(
            &kept
                .iter()
                .map(|&i| Vec3::new(weights[i], 0.0, 0.0))
                .collect::<Vec<_>>(),
            None,
        );
        add_track(&mut buffer, node, "translation", &kept, output);
        let group = if PRESET_EXPRESSIONS.contains(&name.as_str()) {
            &mut preset
        } else {
            &mut custom
        };
        group.insert(name.clone(), json!({"node": node}));
    }

    // The gaze: a lookAt node whose rotation holds the yaw and pitch (as
    // three-vrm-animation 3.5.5 reads it, YXZ Euler angles), under a target node whose
    // translation is the point looked at in model space (as the spec's text has it), so
    // a player reading either finds the authored gaze.
    let mut look_extension = None;
    if poses.iter().any(|p| p.look.is_some()) {
        let look_at = rig.model.look_at.clone().unwrap_or_else(LookAt::standard);
        let viewer = export_viewer(rig);
        let mut rotations = Vec::with_capacity(frames);
        let mut points = Vec::with_capacity(frames);
        for pose in &poses {
            let look = pose.look.unwrap_or(Look::at(LookTarget::AHEAD));
            let gaze = look_at.gaze_of_look(rig, pose, &look, viewer);
            let eyes = look_at.eyes(rig, pose).0;
            let distance = match look.target() {
                LookTarget::Point(p) => p.distance(eyes),
                LookTarget::Camera => viewer.distance(eyes),
                LookTarget::Angles(_) => 1.0,
            }
            .max(0.05);
            rotations.push(gaze.to_track_rotation());
            points.push(look_at.point_of(rig, pose, gaze, distance));
        }
        make_sign_continuous(&mut rotations);
        let target_node = nodes.len();
        let look_node = target_node + 1;
        nodes.push(json!({"name": "lookAtTarget", "translation": points[0].to_array(), "children": [look_node]}));
        nodes.push(json!({"name": "lookAt"}));
        let kept = reduce_positions(&points, &required);
        let output = buffer.vec3(&kept.iter().map(|&i| points[i]).collect::<Vec<_>>(), None);
        add_track(&mut buffer, target_node, "translation", &kept, output);
        let kept = reduce_rotations(&rotations, &required);
        let output = buffer.quats(
            &kept
                .iter()
                .map(|&i| rotations[i].normalize())
                .collect::<Vec<_>>(),
        );
        add_track(&mut buffer, look_node, "rotation", &kept, output);
        expression_nodes.push(target_node);
        look_extension = Some(json!({"node": look_node}));
    }

    let human_bones: Map<String, Value> = bones
        .iter()
        .enumerate()
        .map(|(i, b)| (b.name().to_string(), json!({"node": i})))
        .collect();
    let tracks = channels.len();
    let (bin, views, accessors, buffers) = buffer.finish();
    let mut scene_nodes = vec![hips_node];
    scene_nodes.extend(expression_nodes);
    let mut animation = json!({"name": "VRMA Maker", "samplers": samplers, "channels": channels});
    // A still pose has no keys to give back.
    if !timeline.is_empty() {
        animation["extras"] =
            json!({super::extras::KEY: super::extras::write(timeline, fps, rig.hips_rest())});
    }
    let mut extension = json!({
        "specVersion": "1.0",
        "humanoid": {"humanBones": human_bones},
        "expressions": {"preset": preset, "custom": custom},
    });
    if let Some(look) = look_extension {
        extension["lookAt"] = look;
    }
    let root = json!({
        "asset": {"version": "2.0", "generator": concat!("VRMA Maker ", env!("CARGO_PKG_VERSION"))},
        "extensionsUsed": [EXTENSION],
        "extensions": {EXTENSION: extension},
        "scene": 0,
        "scenes": [{"nodes": scene_nodes}],
        "nodes": nodes,
        "animations": [animation],
        "accessors": accessors,
        "bufferViews": views,
        "buffers": buffers,
    });
    let bytes = glb::build(&serde_json::to_vec(&root).expect("JSON serialises"), &bin);
    let stats = ExportStats {
        frames,
        written_keys,
        naive_keys: frames * tracks,
        tracks,
        duration: times[frames - 1],
    };
    (bytes, stats)
}
