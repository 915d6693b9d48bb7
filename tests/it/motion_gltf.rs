//! The avatar as an animated glTF, for tools without a VRM plug-in: the Khronos
//! validator finds nothing wrong, three.js (GLTFLoader + AnimationMixer, no three-vrm)
//! and Blender's glTF importer play it as we sample it, on VRM 1.0 and 0.x avatars; the
//! skeleton alone too.

use std::collections::BTreeMap;
use std::path::Path;

use bevy::math::DVec3;
use serde_json::{Value, json};

use crate::common::*;
use crate::motion_capture::{angle, blender, run_blender, vec, world_at as ours};

/// The model's humanoid bone → its node's name (from the model file itself).
fn bone_nodes(model: &Path) -> BTreeMap<String, String> {
    let root = glb_json(model);
    let nodes = root["nodes"].as_array().unwrap();
    let name_of = |i: &Value| {
        nodes[i.as_u64().unwrap() as usize]["name"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let mut out = BTreeMap::new();
    if let Some(bones) = root["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"].as_object() {
        for (bone, entry) in bones {
            out.insert(bone.clone(), name_of(&entry["node"]));
        }
    } else {
        for entry in root["extensions"]["VRM"]["humanoid"]["humanBones"]
            .as_array()
            .unwrap()
        {
            out.insert(
                entry["bone"].as_str().unwrap().to_string(),
                name_of(&entry["node"]),
            );
        }
    }
    out
}

/// A project with arms, legs, torso and head moving, eased, and a smile.
fn moving_project(dir: &Path) -> std::path::PathBuf {
    let pose = |t: f64| {
        json!({"bones": {
            "leftUpperArm": [0.0, 0.0, (0.4 * t).sin(), (0.4 * t).cos()],
            "rightLowerArm": [0.0, (0.5 * t).sin(), 0.0, (0.5 * t).cos()],
            "leftUpperLeg": [(0.3 * t).sin(), 0.0, 0.0, (0.3 * t).cos()],
            "spine": [0.0, (0.2 * t).sin(), 0.0, (0.2 * t).cos()],
            "head": [(0.15 * t).sin(), 0.0, 0.0, (0.15 * t).cos()]},
            "hips": [0.1 * t, 0.9, 0.05 * t],
            "expr": {"happy": (t / 2.0).min(1.0)}})
    };
    let keys: Vec<Value> = [0.0, 1.0, 2.0]
        .iter()
        .enumerate()
        .map(|(i, &t)| json!({"id": i + 1, "t": t, "ease": "IN-OUT", "pose": pose(t + 1.0)}))
        .collect();
    let project = dir.join("moving.json");
    std::fs::write(
        &project,
        json!({"v": 1, "fps": 30, "keys": keys}).to_string(),
    )
    .unwrap();
    project
}

#[test]
fn our_animated_gltf_validates_and_plays_in_three_js_as_we_sample_it() {
    if !node_ready() {
        required_or_skip("the Node harness (tests/node)", false);
        return;
    }
    let dir = scratch("motion-gltf-three");
    let (vrm1, vrm0) = mannequins(&dir);
    let project = moving_project(&dir);
    for model in [&vrm1, &vrm0] {
        let what = model.file_name().unwrap().to_string_lossy().into_owned();
        let out = dir.join(format!("{what}.glb"));
        let facts = json_stdout(&run(&[
            "export-anim",
            "--model",
            model.to_str().unwrap(),
            "--project",
            project.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]));
        assert!(facts["channels"].as_u64().unwrap() > 20, "{facts}");
        let report = node_json("validate.mjs", &[out.as_os_str()]);
        assert_eq!(report["errors"], 0, "{what}: {report}");
        let times: Vec<f64> = (0..=20).map(|i| i as f64 * 0.1).collect();
        let played = node_json(
            "play_gltf.mjs",
            &[out.as_os_str(), json!(times).to_string().as_ref()],
        );
        let ours = ours(model, &project, &times);
        let names = bone_nodes(model);
        // VRM 0.x faces −Z: its model space is ours turned half round Y.
        let flip = |v: DVec3| {
            if what.contains('0') {
                DVec3::new(-v.x, v.y, -v.z)
            } else {
                v
            }
        };
        let pairs = [
            ("leftUpperArm", "leftLowerArm"),
            ("rightLowerArm", "rightHand"),
            ("leftUpperLeg", "leftLowerLeg"),
            ("spine", "chest"),
            ("neck", "head"),
            ("hips", "spine"),
            ("rightUpperLeg", "rightLowerLeg"),
        ];
        let mut worst: f64 = 0.0;
        for (i, sample) in played["samples"].as_array().unwrap().iter().enumerate() {
            let at = |bone: &str| flip(vec(&sample["nodes"][&names[bone]]));
            for (a, b) in pairs {
                worst = worst.max(angle(at(b) - at(a), ours[i][b] - ours[i][a]));
            }
            assert!(
                (at("hips") - ours[i]["hips"]).length() < 1e-3,
                "{what} at {}: the hips",
                times[i]
            );
        }
        assert!(
            worst <= 1.0,
            "{what}: three.js is {worst:.3}° from our sample"
        );
        // The smile: some morph target of the face moves as the expression does.
        let morphs = |i: usize| -> f64 {
            played["samples"][i]["morphs"]
                .as_object()
                .unwrap()
                .values()
                .flat_map(|w| w.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()))
                .sum()
        };
        assert!(
            morphs(20) > morphs(0) + 0.2,
            "{what}: the smile reaches the face's morph targets"
        );
    }
}

#[test]
fn blender_imports_our_animated_gltf_and_the_skeleton_alone_and_plays_them_as_we_sample_them() {
    let Some(python) = blender() else { return };
    let dir = scratch("motion-gltf-blender");
    let (vrm1, _) = mannequins(&dir);
    let project = moving_project(&dir);
    let names = bone_nodes(&vrm1);
    for skeleton_only in [false, true] {
        let out = dir.join(if skeleton_only {
            "skeleton.glb"
        } else {
            "avatar.glb"
        });
        let mut args = vec![
            "export-anim",
            "--model",
            vrm1.to_str().unwrap(),
            "--project",
            project.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        if skeleton_only {
            args.push("--skeleton-only");
        }
        json_stdout(&run(&args));
        if node_ready() {
            let report = node_json("validate.mjs", &[out.as_os_str()]);
            assert_eq!(report["errors"], 0, "{report}");
        }
        let read = dir.join("blender.json");
        run_blender(
            &python,
            &[
                "read-gltf",
                out.to_str().unwrap(),
                read.to_str().unwrap(),
                "40",
            ],
        );
        let blender: Value = serde_json::from_slice(&std::fs::read(&read).unwrap()).unwrap();
        let fps = blender["fps"].as_f64().unwrap();
        let frames = blender["frames"].as_array().unwrap();
        let times: Vec<f64> = (0..frames.len()).map(|f| f as f64 / fps).collect();
        let ours = ours(&vrm1, &project, &times);
        // Blender's own axes (Z-up): one fixed turn, Y-up to Z-up, found from the rest.
        let turn = |v: DVec3| DVec3::new(v.x, -v.z, v.y);
        let name = |bone: &str| {
            if skeleton_only {
                bone.to_string()
            } else {
                names[bone].clone()
            }
        };
        let pairs = [
            ("leftUpperArm", "leftLowerArm"),
            ("rightLowerArm", "rightHand"),
            ("leftUpperLeg", "leftLowerLeg"),
            ("spine", "chest"),
        ];
        let mut worst: f64 = 0.0;
        for (f, frame) in frames.iter().enumerate() {
            for (a, b) in pairs {
                let theirs = vec(&frame[name(b)]) - vec(&frame[name(a)]);
                worst = worst.max(angle(theirs, turn(ours[f][b] - ours[f][a])));
            }
        }
        assert!(
            worst <= 1.0,
            "skeleton only {skeleton_only}: Blender is {worst:.3}° from our sample"
        );
    }
}
