//! Importing a humanoid glTF clip that is nothing like our rig (seed 000): Mixamo
//! names, centimetres under a 0.01-scaled armature, non-identity rest rotations on every
//! bone, another hips height. The clip is built so that it shows known normalized
//! rotations; the import must recover exactly those, and the hips path in metres scaled
//! by the hips-height ratio.

use crate::common::*;
use bevy::math::{EulerRot, Quat, Vec3};
use serde_json::{Value, json};
use vrma_maker::core::files::gltf_buffer::BufferBuilder;

/// (Mixamo name, VRM bone name, parent index, rest world position in metres at a 1.0 m hips height).
const SKELETON: &[(&str, &str, Option<usize>, [f32; 3])] = &[
    ("mixamorig:Hips", "hips", None, [0.0, 1.0, 0.0]),
    ("mixamorig:Spine", "spine", Some(0), [0.0, 1.1, 0.0]),
    ("mixamorig:Spine1", "chest", Some(1), [0.0, 1.25, 0.0]),
    ("mixamorig:Neck", "neck", Some(2), [0.0, 1.45, 0.0]),
    ("mixamorig:Head", "head", Some(3), [0.0, 1.55, 0.0]),
    (
        "mixamorig:LeftUpLeg",
        "leftUpperLeg",
        Some(0),
        [0.1, 0.95, 0.0],
    ),
    (
        "mixamorig:LeftLeg",
        "leftLowerLeg",
        Some(5),
        [0.1, 0.5, 0.0],
    ),
    ("mixamorig:LeftFoot", "leftFoot", Some(6), [0.1, 0.08, 0.0]),
    (
        "mixamorig:RightUpLeg",
        "rightUpperLeg",
        Some(0),
        [-0.1, 0.95, 0.0],
    ),
    (
        "mixamorig:RightLeg",
        "rightLowerLeg",
        Some(8),
        [-0.1, 0.5, 0.0],
    ),
    (
        "mixamorig:RightFoot",
        "rightFoot",
        Some(9),
        [-0.1, 0.08, 0.0],
    ),
    (
        "mixamorig:LeftArm",
        "leftUpperArm",
        Some(2),
        [0.2, 1.4, 0.0],
    ),
    (
        "mixamorig:LeftForeArm",
        "leftLowerArm",
        Some(11),
        [0.45, 1.4, 0.0],
    ),
    ("mixamorig:LeftHand", "leftHand", Some(12), [0.7, 1.4, 0.0]),
    (
        "mixamorig:RightArm",
        "rightUpperArm",
        Some(2),
        [-0.2, 1.4, 0.0],
    ),
    (
        "mixamorig:RightForeArm",
        "rightLowerArm",
        Some(14),
        [-0.45, 1.4, 0.0],
    ),
    (
        "mixamorig:RightHand",
        "rightHand",
        Some(15),
        [-0.7, 1.4, 0.0],
    ),
];

/// The normalized rotation the clip should show for bone `i` at key `k`.
fn wanted(i: usize, k: usize) -> Quat {
    let a = i as f32 * 0.37 + k as f32 * 0.9;
    Quat::from_euler(
        EulerRot::YXZ,
        a.sin() * 0.6,
        (a * 1.3).cos() * 0.4,
        (a * 0.7).sin() * 0.5,
    )
}

/// A rest rotation unlike T-pose identity, different per bone.
fn rest_local(i: usize) -> Quat {
    Quat::from_euler(
        EulerRot::XYZ,
        0.3 + i as f32 * 0.2,
        -0.5 + i as f32 * 0.11,
        0.7 - i as f32 * 0.05,
    )
}

const KEY_TIMES: [f32; 3] = [0.0, 0.5, 1.0];

fn hips_path(k: usize) -> Vec3 {
    Vec3::new(0.05 * k as f32, 1.0 - 0.1 * k as f32, 0.02)
}

fn build_clip() -> Vec<u8> {
    let n = SKELETON.len();
    // World rest rotations inside the armature.
    let mut world_rot = vec![Quat::IDENTITY; n];
    for (i, (_, _, parent, _)) in SKELETON.iter().enumerate() {
        world_rot[i] = parent.map_or(Quat::IDENTITY, |p| world_rot[p]) * rest_local(i);
    }
    let cm = |p: [f32; 3]| Vec3::from_array(p) * 100.0;
    let mut nodes = vec![json!({"name": "Armature", "scale": [0.01, 0.01, 0.01], "children": [1]})];
    for (i, (name, _, parent, pos)) in SKELETON.iter().enumerate() {
        let (parent_pos, parent_rot) = parent.map_or((Vec3::ZERO, Quat::IDENTITY), |p| {
            (cm(SKELETON[p].3), world_rot[p])
        });
        let local_t = parent_rot.inverse() * (cm(*pos) - parent_pos);
        let children: Vec<usize> = SKELETON
            .iter()
            .enumerate()
            .filter(|(_, s)| s.2 == Some(i))
            .map(|(c, _)| c + 1)
            .collect();
        let mut node = json!({"name": name, "translation": local_t.to_array(), "rotation": rest_local(i).to_array()});
        if !children.is_empty() {
            node["children"] = json!(children);
        }
        nodes.push(node);
    }
    let mut buffer = BufferBuilder::default();
    let input = buffer.scalars(&KEY_TIMES);
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    for (i, (_, _, parent, _)) in SKELETON.iter().enumerate() {
        let parent_rot = parent.map_or(Quat::IDENTITY, |p| world_rot[p]);
        // Invert the normalization: local = P⁻¹ · n · W.
        let values: Vec<Quat> = (0..3)
            .map(|k| (parent_rot.inverse() * wanted(i, k) * world_rot[i]).normalize())
            .collect();
        let output = buffer.quats(&values);
        samplers.push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
        channels.push(
            json!({"sampler": samplers.len() - 1, "target": {"node": i + 1, "path": "rotation"}}),
        );
    }
    let hips: Vec<Vec3> = (0..3).map(|k| hips_path(k) * 100.0).collect();
    let output = buffer.vec3(&hips, None);
    samplers.push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
    channels
        .push(json!({"sampler": samplers.len() - 1, "target": {"node": 1, "path": "translation"}}));
    // A scale track, as exporters often write: ignored with a warning for clips.
    let scales = buffer.vec3(&[Vec3::ONE; 3], None);
    samplers.push(json!({"input": input, "output": scales, "interpolation": "LINEAR"}));
    channels.push(json!({"sampler": samplers.len() - 1, "target": {"node": 2, "path": "scale"}}));
    let (bin, views, accessors, buffers) = buffer.finish();
    let root = json!({
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": nodes,
        "animations": [{"name": "mixamo.com", "samplers": samplers, "channels": channels}],
        "accessors": accessors, "bufferViews": views, "buffers": buffers,
    });
    vrma_maker::core::files::glb::build(root.to_string().as_bytes(), &bin)
}

#[test]
fn a_mixamo_clip_in_centimetres_with_odd_rest_rotations_retargets_exactly() {
    let dir = scratch("import-clip");
    let (model, _) = mannequins(&dir);
    let clip = dir.join("walk.glb");
    std::fs::write(&clip, build_clip()).unwrap();
    let project = dir.join("walk.json");
    let out = run(&[
        "import-anim",
        "--model",
        model.to_str().unwrap(),
        "--anim",
        clip.to_str().unwrap(),
        "-o",
        project.to_str().unwrap(),
    ]);
    let summary = json_stdout(&out);
    assert_eq!(
        summary["keys"], 3,
        "keys where the source has keys: {summary}"
    );
    assert!(
        summary["warnings"].to_string().contains("scale"),
        "{summary}"
    );

    let inspect = json_stdout(&run(&["inspect", model.to_str().unwrap()]));
    let target_hips_y = inspect["hips_rest"][1].as_f64().unwrap() as f32;
    let ratio = target_hips_y / 1.0;
    let sampled = json_stdout(&run(&[
        "sample",
        "--model",
        model.to_str().unwrap(),
        "--project",
        project.to_str().unwrap(),
        "--times",
        "0,0.25,0.5,1",
    ]));
    for sample in sampled.as_array().unwrap() {
        let t = sample["t"].as_f64().unwrap() as f32;
        // Between keys the import interpolates like the source: slerp / lerp.
        let (k, w) = if t >= 1.0 {
            (1, 1.0)
        } else if t >= 0.5 {
            (1, (t - 0.5) / 0.5)
        } else {
            (0, t / 0.5)
        };
        for (i, (_, bone, _, _)) in SKELETON.iter().enumerate() {
            let expected = vrma_maker::core::body::math::slerp_shortest(
                wanted(i, k),
                wanted(i, (k + 1).min(2)),
                w,
            );
            let got: &Value = &sample["pose"]["bones"][*bone];
            let got = Quat::from_array([0, 1, 2, 3].map(|c| got[c].as_f64().unwrap() as f32));
            let d = vrma_maker::core::body::math::angle_between(got, expected).to_degrees();
            assert!(d < 0.01, "t={t} {bone}: {d}° off");
        }
        let expected_hips = hips_path(k).lerp(hips_path((k + 1).min(2)), w) * ratio;
        let got =
            Vec3::from_array([0, 1, 2].map(|c| sample["pose"]["hips"][c].as_f64().unwrap() as f32));
        assert!(
            got.distance(expected_hips) < 1e-4,
            "t={t}: hips {got} vs {expected_hips}"
        );
    }
}

#[test]
fn a_clip_without_a_humanoid_skeleton_is_refused() {
    let dir = scratch("import-clip-bad");
    let (model, _) = mannequins(&dir);
    let clip = dir.join("cube.gltf");
    std::fs::write(
        &clip,
        json!({"asset": {"version": "2.0"}, "nodes": [{"name": "Cube"}], "animations": []})
            .to_string(),
    )
    .unwrap();
    let out = run(&[
        "import-anim",
        "--model",
        model.to_str().unwrap(),
        "--anim",
        clip.to_str().unwrap(),
        "-o",
        dir.join("x.json").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no humanoid skeleton"));
}
