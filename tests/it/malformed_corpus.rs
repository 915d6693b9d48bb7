//! A corpus of malformed inputs made by our own generator (issue 8): models, poses,
//! projects and animations broken in every way we know. Each must be refused with a
//! message — through the CLI (exit 1, one line, no panic, no hang) and through the
//! library API.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::*;
use serde_json::{Value, json};
use vrma_maker::core::glb;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Model,
    Pose,
    Project,
    Animation,
}

struct Case {
    name: String,
    kind: Kind,
    bytes: Vec<u8>,
}

fn json_of(bytes: &[u8]) -> Value {
    serde_json::from_slice(glb::split(bytes).unwrap().json).unwrap()
}

fn with_json(bytes: &[u8], edit: impl Fn(&mut Value)) -> Vec<u8> {
    let mut j = json_of(bytes);
    edit(&mut j);
    glb::replace_json(bytes, j.to_string().as_bytes()).unwrap()
}

/// Overwrites the first value of the first `path` channel's output accessor (in the BIN
/// chunk) with `value`.
fn with_first_value(bytes: &[u8], path: &str, value: [f32; 4]) -> Vec<u8> {
    let split = glb::split(bytes).unwrap();
    let j: Value = serde_json::from_slice(split.json).unwrap();
    let mut bin = split.bin.unwrap().to_vec();
    let anim = &j["animations"][0];
    let channel = anim["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["target"]["path"] == path)
        .unwrap();
    let sampler = &anim["samplers"][channel["sampler"].as_u64().unwrap() as usize];
    let accessor = &j["accessors"][sampler["output"].as_u64().unwrap() as usize];
    let view = &j["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
    let at = view["byteOffset"].as_u64().unwrap_or(0) as usize
        + accessor["byteOffset"].as_u64().unwrap_or(0) as usize;
    let width = if path == "rotation" { 4 } else { 3 };
    for (i, v) in value.iter().take(width).enumerate() {
        bin[at + 4 * i..at + 4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
    glb::build(split.json, &bin)
}

fn generate(model: &[u8], model0: &[u8], anim: &[u8]) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut add = |name: &str, kind: Kind, bytes: Vec<u8>| {
        cases.push(Case {
            name: name.into(),
            kind,
            bytes,
        })
    };
    // Models: containers.
    for (i, cut) in [
        0usize,
        4,
        11,
        12,
        19,
        20,
        100,
        model.len() / 3,
        model.len() / 2,
        model.len() - 1,
    ]
    .into_iter()
    .enumerate()
    {
        add(
            &format!("truncated-{i}.vrm"),
            Kind::Model,
            model[..cut].to_vec(),
        );
    }
    let mut bad_magic = model.to_vec();
    bad_magic[..4].copy_from_slice(b"GLTF");
    add("wrong-magic.vrm", Kind::Model, bad_magic);
    let mut v1 = model.to_vec();
    v1[4] = 1;
    add("glb-version-1.vrm", Kind::Model, v1);
    let mut chunk = model.to_vec();
    chunk[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    add("json-chunk-too-long.vrm", Kind::Model, chunk);
    let mut total = model.to_vec();
    total[8..12].copy_from_slice(&(model.len() as u32 * 2).to_le_bytes());
    add("length-past-end.vrm", Kind::Model, total);
    add(
        "random-bytes.vrm",
        Kind::Model,
        (0..3000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
            .collect(),
    );
    add("empty.vrm", Kind::Model, Vec::new());
    add(
        "invalid-json.vrm",
        Kind::Model,
        glb::replace_json(model, b"{\"asset\": ").unwrap(),
    );
    add(
        "json-array.vrm",
        Kind::Model,
        glb::replace_json(model, b"[1,2,3]").unwrap(),
    );
    add(
        "plain-gltf.gltf",
        Kind::Model,
        br#"{"asset":{"version":"2.0"},"nodes":[{}]}"#.to_vec(),
    );
    // Models: VRM content.
    add(
        "no-vrm-extension.vrm",
        Kind::Model,
        with_json(model, |j| j["extensions"] = json!({})),
    );
    add(
        "no-hips.vrm",
        Kind::Model,
        with_json(model, |j| {
            j["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]
                .as_object_mut()
                .unwrap()
                .remove("hips");
        }),
    );
    add(
        "no-left-hand.vrm",
        Kind::Model,
        with_json(model, |j| {
            j["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]
                .as_object_mut()
                .unwrap()
                .remove("leftHand");
        }),
    );
    add(
        "bone-node-out-of-range.vrm",
        Kind::Model,
        with_json(model, |j| {
            j["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["spine"]["node"] = json!(9999)
        }),
    );
    add(
        "bone-node-negative.vrm",
        Kind::Model,
        with_json(model, |j| {
            j["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["spine"]["node"] = json!(-1)
        }),
    );
    add(
        "duplicate-bone-mapping.vrm",
        Kind::Model,
        with_json(model, |j| {
            j["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["chest"] =
                j["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["spine"].clone()
        }),
    );
    add(
        "vrm0-duplicate-bone.vrm",
        Kind::Model,
        with_json(model0, |j| {
            let first = j["extensions"]["VRM"]["humanoid"]["humanBones"][0].clone();
            j["extensions"]["VRM"]["humanoid"]["humanBones"]
                .as_array_mut()
                .unwrap()
                .push(first);
        }),
    );
    add(
        "child-cycle.vrm",
        Kind::Model,
        with_json(model, |j| j["nodes"][2]["children"] = json!([0])),
    );
    add(
        "child-self.vrm",
        Kind::Model,
        with_json(model, |j| j["nodes"][3]["children"] = json!([3])),
    );
    add(
        "child-out-of-range.vrm",
        Kind::Model,
        with_json(model, |j| j["nodes"][1]["children"] = json!([100000])),
    );
    add(
        "huge-translation.vrm",
        Kind::Model,
        with_json(model, |j| {
            j["nodes"][3]["translation"] = json!([1e39, 0, 0])
        }),
    );
    add(
        "translation-wrong-type.vrm",
        Kind::Model,
        with_json(model, |j| j["nodes"][3]["translation"] = json!("up")),
    );
    add(
        "translation-short.vrm",
        Kind::Model,
        with_json(model, |j| j["nodes"][3]["translation"] = json!([1, 2])),
    );
    add(
        "zero-rotation.vrm",
        Kind::Model,
        with_json(model, |j| j["nodes"][3]["rotation"] = json!([0, 0, 0, 0])),
    );
    add(
        "huge-rotation.vrm",
        Kind::Model,
        with_json(model, |j| {
            j["nodes"][3]["rotation"] = json!([1e39, 0, 0, 1])
        }),
    );
    add(
        "huge-matrix.vrm",
        Kind::Model,
        with_json(model, |j| {
            j["nodes"][3]["matrix"] = json!([1e39, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])
        }),
    );
    add(
        "mesh-out-of-range.vrm",
        Kind::Model,
        with_json(model, |j| j["nodes"][3]["mesh"] = json!(77)),
    );
    add(
        "huge-accessor-count.vrm",
        Kind::Model,
        with_json(model, |j| {
            j["accessors"][0]["count"] = json!(4_000_000_000u64)
        }),
    );
    add(
        "view-past-buffer.vrm",
        Kind::Model,
        with_json(model, |j| {
            j["bufferViews"][0]["byteLength"] = json!(1u64 << 40)
        }),
    );
    add(
        "buffer-larger-than-file.vrm",
        Kind::Model,
        with_json(model, |j| j["buffers"][0]["byteLength"] = json!(1u64 << 33)),
    );
    add(
        "accessor-view-out-of-range.vrm",
        Kind::Model,
        with_json(model, |j| j["accessors"][1]["bufferView"] = json!(5000)),
    );
    add(
        "external-buffer.vrm",
        Kind::Model,
        with_json(model, |j| {
            j["buffers"][0]["uri"] = json!("../../etc/passwd")
        }),
    );
    add(
        "expression-bind-node-out-of-range.vrm",
        Kind::Model,
        with_json(model, |j| {
            j["extensions"]["VRMC_vrm"]["expressions"]["preset"]["happy"]["morphTargetBinds"][0]["node"] =
                json!(4000)
        }),
    );
    // Poses.
    for (name, pose) in [
        ("pose-array.json", json!([1, 2])),
        ("pose-bad-version.json", json!({"v": 9})),
        (
            "pose-zero-quat.json",
            json!({"bones": {"spine": [0, 0, 0, 0]}}),
        ),
        (
            "pose-null-quat.json",
            json!({"bones": {"spine": [null, 0, 0, 1]}}),
        ),
        (
            "pose-string-quat.json",
            json!({"bones": {"spine": "turned"}}),
        ),
        (
            "pose-short-quat.json",
            json!({"bones": {"spine": [0, 0, 1]}}),
        ),
        (
            "pose-huge-quat.json",
            json!({"bones": {"spine": [1e39, 0, 0, 1]}}),
        ),
        ("pose-bad-hips.json", json!({"hips": [0, "high", 0]})),
        ("pose-far-hips.json", json!({"hips": [0, 1e9, 0]})),
        ("pose-bad-expr.json", json!({"expr": {"happy": "very"}})),
        ("pose-bones-array.json", json!({"bones": [1, 2]})),
    ] {
        add(name, Kind::Pose, pose.to_string().into_bytes());
    }
    add("pose-not-json.json", Kind::Pose, b"{ \"bones\": ".to_vec());
    // Projects.
    for (name, project) in [
        (
            "project-negative-time.json",
            json!({"keys": [{"t": -0.5, "pose": {}}]}),
        ),
        (
            "project-null-time.json",
            json!({"keys": [{"t": null, "pose": {}}]}),
        ),
        (
            "project-string-time.json",
            json!({"keys": [{"t": "1s", "pose": {}}]}),
        ),
        (
            "project-huge-time.json",
            json!({"keys": [{"t": 1e300, "pose": {}}]}),
        ),
        (
            "project-unknown-ease.json",
            json!({"keys": [{"t": 1, "ease": "ELASTIC", "pose": {}}]}),
        ),
        (
            "project-ease-number.json",
            json!({"keys": [{"t": 1, "ease": 3, "pose": {}}]}),
        ),
        (
            "project-duplicate-times.json",
            json!({"keys": [{"t": 1, "pose": {}}, {"t": 1.01, "pose": {}}]}),
        ),
        ("project-keys-object.json", json!({"keys": {"t": 1}})),
        ("project-key-not-object.json", json!({"keys": [7]})),
        (
            "project-bad-pose.json",
            json!({"keys": [{"t": 1, "pose": {"bones": {"neck": [0, 0, 0, 0]}}}]}),
        ),
        ("project-fps-60.json", json!({"fps": 60})),
        ("project-bad-version.json", json!({"v": 3})),
        (
            "project-bad-settings.json",
            json!({"settings": {"loop": "yes"}}),
        ),
        (
            "project-bad-length.json",
            json!({"settings": {"length": -4}}),
        ),
        ("project-bad-playhead.json", json!({"playhead": -1})),
        (
            "project-key-past-an-hour.json",
            json!({"keys": [{"t": 4000, "pose": {}}]}),
        ),
        ("project-model-number.json", json!({"model": 5})),
    ] {
        add(name, Kind::Project, project.to_string().into_bytes());
    }
    // Animations.
    add(
        "anim-truncated.vrma",
        Kind::Animation,
        anim[..anim.len() / 2].to_vec(),
    );
    add(
        "anim-scale-channel.vrma",
        Kind::Animation,
        with_json(anim, |j| {
            j["animations"][0]["channels"][0]["target"]["path"] = json!("scale")
        }),
    );
    add(
        "anim-no-target.vrma",
        Kind::Animation,
        with_json(anim, |j| {
            j["animations"][0]["channels"][0]
                .as_object_mut()
                .unwrap()
                .remove("target");
        }),
    );
    add(
        "anim-no-target-node.vrma",
        Kind::Animation,
        with_json(anim, |j| {
            j["animations"][0]["channels"][0]["target"]
                .as_object_mut()
                .unwrap()
                .remove("node");
        }),
    );
    add(
        "anim-target-out-of-range.vrma",
        Kind::Animation,
        with_json(anim, |j| {
            j["animations"][0]["channels"][0]["target"]["node"] = json!(999)
        }),
    );
    add(
        "anim-no-extension.vrma",
        Kind::Animation,
        with_json(anim, |j| j["extensions"] = json!({})),
    );
    add(
        "anim-sampler-out-of-range.vrma",
        Kind::Animation,
        with_json(anim, |j| {
            j["animations"][0]["channels"][0]["sampler"] = json!(999)
        }),
    );
    add(
        "anim-bad-interpolation.vrma",
        Kind::Animation,
        with_json(anim, |j| {
            j["animations"][0]["samplers"][0]["interpolation"] = json!("SMOOTH")
        }),
    );
    add(
        "anim-huge-count.vrma",
        Kind::Animation,
        with_json(anim, |j| {
            j["accessors"][0]["count"] = json!(4_000_000_000u64)
        }),
    );
    add(
        "anim-no-animations.vrma",
        Kind::Animation,
        with_json(anim, |j| {
            j.as_object_mut().unwrap().remove("animations");
        }),
    );
    add(
        "anim-nan-rotation.vrma",
        Kind::Animation,
        with_first_value(anim, "rotation", [f32::NAN, 0.0, 0.0, 1.0]),
    );
    add(
        "anim-zero-rotation.vrma",
        Kind::Animation,
        with_first_value(anim, "rotation", [0.0; 4]),
    );
    add(
        "anim-infinite-hips.vrma",
        Kind::Animation,
        with_first_value(anim, "translation", [f32::INFINITY, 0.0, 0.0, 0.0]),
    );
    add(
        "anim-random.vrma",
        Kind::Animation,
        (0..5000u32)
            .map(|i| (i.wrapping_mul(40503) >> 7) as u8)
            .collect(),
    );
    cases
}

fn cli_args<'a>(case: &Case, path: &'a str, model: &'a str, out: &'a str) -> Vec<&'a str> {
    match case.kind {
        Kind::Model => vec!["inspect", path],
        Kind::Pose => vec!["apply", "--model", model, "--script", path],
        Kind::Project => vec![
            "sample",
            "--model",
            model,
            "--project",
            path,
            "--times",
            "0,1",
        ],
        Kind::Animation => vec!["import-anim", "--model", model, "--anim", path, "-o", out],
    }
}

fn refused_by_the_library_api(case: &Case, dir: &Path) -> bool {
    match case.kind {
        Kind::Model => vrma_maker::core::rig_from_bytes(&case.bytes).is_err(),
        Kind::Pose => serde_json::from_slice::<Value>(&case.bytes).map_or(true, |v| {
            vrma_maker::core::pose::Pose::from_json(&v, &mut Vec::new()).is_err()
        }),
        Kind::Project => {
            let path: PathBuf = dir.join(&case.name);
            vrma_maker::core::project::Project::load(&path, &mut Vec::new()).is_err()
        }
        Kind::Animation => vrma_maker::core::vrma::import::import_animation(
            &case.bytes,
            &[],
            vrma_maker::core::vrma::import::AnimationKind::Vrma,
            bevy::math::Vec3::Y,
            None,
        )
        .is_err(),
    }
}

#[test]
fn every_malformed_input_is_refused_with_a_message_and_no_panic() {
    let dir = scratch("corpus");
    let (v1, v0) = mannequins(&dir);
    let model = std::fs::read(&v1).unwrap();
    let model0 = std::fs::read(&v0).unwrap();
    let project = dir.join("p.json");
    std::fs::write(&project, rich_project(&v1).to_string()).unwrap();
    let anim_path = dir.join("good.vrma");
    json_stdout(&run(&[
        "export-vrma",
        "--model",
        v1.to_str().unwrap(),
        "--project",
        project.to_str().unwrap(),
        "-o",
        anim_path.to_str().unwrap(),
    ]));
    let anim = std::fs::read(&anim_path).unwrap();
    let cases = generate(&model, &model0, &anim);
    assert!(cases.len() >= 50, "{} cases", cases.len());
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    for case in &cases {
        // Poses go through `apply` as the pose op of a script.
        let bytes = if case.kind == Kind::Pose {
            match serde_json::from_slice::<Value>(&case.bytes) {
                Ok(pose) => json!([{"op": "pose", "pose": pose}])
                    .to_string()
                    .into_bytes(),
                Err(_) => case.bytes.clone(),
            }
        } else {
            case.bytes.clone()
        };
        std::fs::write(corpus.join(&case.name), &bytes).unwrap();
    }
    for case in &cases {
        let path = corpus.join(&case.name);
        let out = dir.join(format!("{}.out.json", case.name));
        let args = cli_args(
            case,
            path.to_str().unwrap(),
            v1.to_str().unwrap(),
            out.to_str().unwrap(),
        );
        let started = Instant::now();
        let mut child = bin()
            .args(&args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let status = wait_with_timeout(&mut child, Duration::from_secs(30));
        assert!(
            status.is_some(),
            "{}: hung for {:?}",
            case.name,
            started.elapsed()
        );
        let stderr = std::io::read_to_string(child.stderr.take().unwrap()).unwrap();
        assert_eq!(status.unwrap().code(), Some(1), "{}: {stderr}", case.name);
        assert_eq!(
            stderr.trim_end().lines().count(),
            1,
            "{}: one line: {stderr}",
            case.name
        );
        assert!(
            stderr.starts_with("error: ")
                && !stderr.contains("panicked")
                && !stderr.contains("internal error"),
            "{}: {stderr}",
            case.name
        );
        assert!(!out.exists(), "{}: nothing written", case.name);
        assert!(
            refused_by_the_library_api(case, &corpus),
            "{}: the library API accepted it",
            case.name
        );
    }
}
