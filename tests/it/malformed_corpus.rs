//! A corpus of malformed inputs made by our own generator (issue 8): models, poses,
//! projects and animations broken in every way we know. Each must be refused with a
//! message — through the CLI (exit 1, one line, no panic, no hang) and through the
//! library API.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::*;
use serde_json::{Value, json};
use vrma_maker::core::files::glb;

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

/// Appends `data` to the BIN chunk as a new buffer view; `edit` gets the JSON and the
/// view's index.
fn with_bin(bytes: &[u8], data: &[u8], edit: impl Fn(&mut Value, usize)) -> Vec<u8> {
    let split = glb::split(bytes).unwrap();
    let mut j: Value = serde_json::from_slice(split.json).unwrap();
    let mut bin = split.bin.unwrap().to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let views = j["bufferViews"].as_array_mut().unwrap();
    views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": data.len()}));
    let view = views.len() - 1;
    bin.extend_from_slice(data);
    j["buffers"][0]["byteLength"] = json!(bin.len());
    edit(&mut j, view);
    glb::build(j.to_string().as_bytes(), &bin)
}

/// The header of a PNG that claims `w`×`h` (no pixel data follows).
fn png_header(w: u32, h: u32) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    b.extend(w.to_be_bytes());
    b.extend(h.to_be_bytes());
    b.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]);
    b
}

/// A KTX2 file of one zstd level made of `blocks` RLE blocks of 128 KiB each.
fn ktx2_zstd_bomb(blocks: usize) -> Vec<u8> {
    let mut level = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x58];
    for i in 0..blocks {
        let header = u32::from(i + 1 == blocks) | 1 << 1 | (128 << 10) << 3;
        level.extend(&header.to_le_bytes()[..3]);
        level.push(0xAB);
    }
    let mut b = b"\xABKTX 20\xBB\r\n\x1A\n".to_vec();
    for v in [37u32, 1, 1024, 1024, 0, 0, 1, 1, 2] {
        b.extend(v.to_le_bytes());
    }
    b.resize(80, 0);
    for v in [104u64, level.len() as u64, 4 << 20] {
        b.extend(v.to_le_bytes());
    }
    b.extend(level);
    b
}

/// Files the core's own reading would accept but Bevy's glTF loader would turn into an
/// allocation of many gigabytes, a deep recursion or hours of work (issue 15), and files
/// three-vrm refuses.
fn loader_bombs(model: &[u8], model0: &[u8], add: &mut impl FnMut(&str, Kind, Vec<u8>)) {
    // One primitive whose only attribute is an accessor with no data and 2·10⁹ elements.
    let no_view = |sparse: Option<Value>| {
        with_json(model, move |j| {
            let mut accessor =
                json!({"count": 2_000_000_000u64, "type": "VEC3", "componentType": 5126});
            if let Some(s) = &sparse {
                accessor["sparse"] = s.clone();
            }
            let accessors = j["accessors"].as_array_mut().unwrap();
            accessors.push(accessor);
            let index = accessors.len() - 1;
            j["meshes"][0]["primitives"][0] = json!({"attributes": {"POSITION": index}});
        })
    };
    add("accessor-without-data-2e9.vrm", Kind::Model, no_view(None));
    let small_sparse = json!({"count": 1, "indices": {"bufferView": 0, "componentType": 5125},
                              "values": {"bufferView": 0}});
    add(
        "sparse-accessor-2e9.vrm",
        Kind::Model,
        no_view(Some(small_sparse)),
    );
    add(
        "sparse-past-its-view.vrm",
        Kind::Model,
        with_json(model, |j| {
            let count = j["accessors"][0]["count"].clone();
            j["accessors"][0]["sparse"] = json!({"count": count,
                "indices": {"bufferView": 0, "byteOffset": 1u64 << 40, "componentType": 5125},
                "values": {"bufferView": 0}});
        }),
    );
    let face = |j: &Value| -> usize {
        j["meshes"]
            .as_array()
            .unwrap()
            .iter()
            .position(|m| m["primitives"][0]["targets"].is_array())
            .unwrap()
    };
    add(
        "100k-morph-targets-one-accessor.vrm",
        Kind::Model,
        with_json(model, |j| {
            let m = face(j);
            let position = j["meshes"][m]["primitives"][0]["attributes"]["POSITION"].clone();
            j["meshes"][m]["primitives"][0]["targets"] =
                json!(vec![json!({"POSITION": position}); 100_000]);
        }),
    );
    add(
        "one-accessor-in-40000-primitives.vrm",
        Kind::Model,
        with_json(model, |j| {
            let body = j["meshes"][0]["primitives"][0].clone();
            j["meshes"][0]["primitives"] = json!(vec![body; 40_000]);
        }),
    );
    add(
        "attribute-counts-differ.vrm",
        Kind::Model,
        with_json(model, |j| {
            let normal = j["meshes"][1]["primitives"][0]["attributes"]["NORMAL"].clone();
            j["meshes"][0]["primitives"][0]["attributes"]["NORMAL"] = normal;
        }),
    );
    add(
        "40-pngs-that-claim-8192-squared.vrm",
        Kind::Model,
        with_bin(model, &png_header(8192, 8192), |j, view| {
            j["images"] = json!(vec![
                json!({"bufferView": view, "mimeType": "image/png"});
                40
            ]);
        }),
    );
    add(
        "ktx2-zstd-bomb.vrm",
        Kind::Model,
        with_bin(model, &ktx2_zstd_bomb(20_000), |j, view| {
            j["images"] = json!([{"bufferView": view, "mimeType": "image/ktx2"}]);
            j["textures"] = json!([{"source": 0}]);
        }),
    );
    add(
        "image-uri-dev-zero.vrm",
        Kind::Model,
        with_json(model, |j| j["images"] = json!([{"uri": "/dev/zero"}])),
    );
    add(
        "chain-200-nodes-deep.vrm",
        Kind::Model,
        with_json(model, |j| {
            let nodes = j["nodes"].as_array_mut().unwrap();
            let first = nodes.len();
            for i in 0..200 {
                let child = first + i + 1;
                nodes.push(if i + 1 < 200 {
                    json!({"children": [child]})
                } else {
                    json!({})
                });
            }
            j["scenes"][0]["nodes"]
                .as_array_mut()
                .unwrap()
                .push(json!(first));
        }),
    );
    add(
        "chain-400k-nodes.vrm",
        Kind::Model,
        with_json(model, |j| {
            let nodes = j["nodes"].as_array_mut().unwrap();
            let first = nodes.len();
            for i in 0..400_000 {
                nodes.push(json!({"children": [first + i + 1]}));
            }
            nodes.push(json!({}));
        }),
    );
    add(
        "vrm0-binds-times-nodes.vrm",
        Kind::Model,
        with_json(model0, |j| {
            let nodes = j["nodes"].as_array_mut().unwrap();
            for _ in 0..50_000 {
                nodes.push(json!({"mesh": 0}));
            }
            let groups = &mut j["extensions"]["VRM"]["blendShapeMaster"]["blendShapeGroups"];
            groups[0]["binds"] = json!(vec![json!({"mesh": 0, "index": 0, "weight": 100}); 10_000]);
        }),
    );
    add(
        "scene-out-of-range.vrm",
        Kind::Model,
        with_json(model, |j| j["scene"] = json!(9)),
    );
    add(
        "scene-node-out-of-range.vrm",
        Kind::Model,
        with_json(model, |j| j["scenes"][0]["nodes"] = json!([0, 123_456])),
    );
    add(
        "hips-scale-zero.vrm",
        Kind::Model,
        with_json(model, |j| {
            let hips = j["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["hips"]["node"]
                .as_u64()
                .unwrap() as usize;
            j["nodes"][hips]["scale"] = json!([0.0, 0.0, 0.0]);
        }),
    );
    add(
        "hips-scale-negative.vrm",
        Kind::Model,
        with_json(model, |j| {
            let hips = j["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["hips"]["node"]
                .as_u64()
                .unwrap() as usize;
            j["nodes"][hips]["scale"] = json!([1.0, -1.0, 1.0]);
        }),
    );
    add(
        "skin-joint-out-of-range.vrm",
        Kind::Model,
        with_json(model, |j| j["skins"][0]["joints"][0] = json!(9999)),
    );
    add(
        "skin-joint-outside-the-scene.vrm",
        Kind::Model,
        with_json(model, |j| {
            let nodes = j["nodes"].as_array_mut().unwrap();
            nodes.push(json!({"name": "orphan"}));
            let orphan = nodes.len() - 1;
            j["skins"][0]["joints"][0] = json!(orphan);
        }),
    );
    add(
        "draco.vrm",
        Kind::Model,
        with_json(model, |j| {
            j["extensionsUsed"] = json!(["KHR_draco_mesh_compression"]);
            j["extensionsRequired"] = json!(["KHR_draco_mesh_compression"]);
        }),
    );
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
    loader_bombs(model, model0, &mut add);
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
        (
            "project-bad-speed.json",
            json!({"settings": {"speed": 100}}),
        ),
        (
            "project-plant-backwards.json",
            json!({"keys": [{"t": 1, "pose": {}}], "plants": [{"foot": "leftFoot", "from": 2, "to": 1}]}),
        ),
        (
            "project-plant-unknown-foot.json",
            json!({"plants": [{"foot": "tail", "from": 0, "to": 1}]}),
        ),
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
    // A .gltf clip's external buffer must be a file inside the clip's folder.
    let clip_json = |uri: &str| {
        let split = glb::split(anim).unwrap();
        let mut j: Value = serde_json::from_slice(split.json).unwrap();
        j["buffers"][0]["uri"] = json!(uri);
        j["buffers"][0]["byteLength"] = json!(split.bin.unwrap().len());
        j.to_string().into_bytes()
    };
    for (name, uri) in [
        ("clip-buffer-dev-zero.gltf", "/dev/zero"),
        ("clip-buffer-outside.gltf", "../../../../etc/passwd"),
        ("clip-buffer-escaped-outside.gltf", "..%2F..%2Fsecret.bin"),
        ("clip-buffer-bad-escape.gltf", "clip%zz.bin"),
        ("clip-buffer-missing.gltf", "not-there.bin"),
    ] {
        add(name, Kind::Animation, clip_json(uri));
    }
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
        Kind::Model => vrma_maker::core::body::rig::rig_from_bytes(&case.bytes).is_err(),
        Kind::Pose => serde_json::from_slice::<Value>(&case.bytes).map_or(true, |v| {
            vrma_maker::core::body::pose::Pose::from_json(&v, &mut Vec::new()).is_err()
        }),
        Kind::Project => {
            let path: PathBuf = dir.join(&case.name);
            vrma_maker::core::animation::project::Project::load(&path, &mut Vec::new()).is_err()
        }
        Kind::Animation => vrma_maker::core::formats::vrma::import::import_animation(
            &case.bytes,
            &[],
            vrma_maker::core::formats::vrma::import::AnimationKind::Vrma,
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
    let anim_path = dir.join("good.vrma");
    export_rich_animation(&v1, &project, &anim_path);
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
    // Files that never end or never answer: a FIFO and a link to /dev/zero, given as a
    // model and as a clip, are refused at once instead of read for ever.
    let fifo = corpus.join("fifo.vrm");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let zero = corpus.join("zero.vrma");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let model = v1.to_str().unwrap();
    let out = dir.join("never.json");
    for args in [
        vec!["inspect", fifo.to_str().unwrap()],
        vec!["inspect", zero.to_str().unwrap()],
        vec![
            "import-anim",
            "--model",
            model,
            "--anim",
            fifo.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        vec![
            "import-anim",
            "--model",
            model,
            "--anim",
            zero.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
    ] {
        let mut child = bin()
            .args(&args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let status = wait_with_timeout(&mut child, Duration::from_secs(10));
        assert!(status.is_some(), "{args:?}: hung");
        let stderr = std::io::read_to_string(child.stderr.take().unwrap()).unwrap();
        assert_eq!(status.unwrap().code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("not a regular file"), "{args:?}: {stderr}");
    }
    // The same clip as a .gltf with its buffer beside it (a percent-escaped name) imports.
    let split = glb::split(&anim).unwrap();
    let mut j: Value = serde_json::from_slice(split.json).unwrap();
    j["buffers"][0]["uri"] = json!("my%20clip.bin");
    j["buffers"][0]["byteLength"] = json!(split.bin.unwrap().len());
    let clip = dir.join("gltf-clip");
    std::fs::create_dir_all(&clip).unwrap();
    std::fs::write(clip.join("my clip.bin"), split.bin.unwrap()).unwrap();
    std::fs::write(clip.join("walk.gltf"), j.to_string()).unwrap();
    let walk = clip.join("walk.gltf");
    let out = run(&[
        "import-anim",
        "--model",
        model,
        "--anim",
        walk.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A real PNG, `w`×`h`, of one colour.
fn solid_png(w: u32, h: u32) -> Vec<u8> {
    let image = image::RgbaImage::from_pixel(w, h, image::Rgba([200, 120, 90, 255]));
    let mut out = std::io::Cursor::new(Vec::new());
    image.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// Every model of [`loader_bombs`] through the real loader path: `render-png` refuses
/// each in one line, within 10 s and 1.5 GB, and draws nothing; a valid 40000×1 texture
/// is drawn (downscaled); the window opened on bombs says why and keeps the mannequin.
#[test]
fn loader_bombs_are_refused_by_render_png_and_the_window_keeps_working() {
    if !required_or_skip(
        "a Vulkan driver, Xvfb and /usr/bin/time",
        have_display_stack() && have_time_and_import(),
    ) {
        return;
    }
    let dir = scratch("corpus-loader");
    let (v1, v0) = mannequins(&dir);
    let model = std::fs::read(&v1).unwrap();
    let model0 = std::fs::read(&v0).unwrap();
    let mut cases = Vec::new();
    loader_bombs(
        &model,
        &model0,
        &mut |name: &str, _: Kind, bytes: Vec<u8>| cases.push((name.to_string(), bytes)),
    );
    let pose = dir.join("rest.json");
    std::fs::write(&pose, r#"{"v": 1, "bones": {}}"#).unwrap();
    let render = |path: &Path, out: &Path| {
        let mut command = bin();
        command
            .args(["render-png", "--model", path.to_str().unwrap()])
            .args([
                "--pose",
                pose.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ])
            .args(["--size", "128x160"])
            .env("XDG_RUNTIME_DIR", &dir);
        let started = Instant::now();
        let (output, peak) = with_peak_memory(&mut command);
        (output, peak, started.elapsed())
    };
    for (name, bytes) in &cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = dir.join(format!("{name}.png"));
        let (output, peak, took) = render(&path, &out);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let said: Vec<&str> = stderr
            .lines()
            .filter(|l| !l.starts_with('\t') && !l.starts_with("Command exited"))
            .collect();
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        assert!(
            said.len() == 1 && said[0].starts_with("error: ") && !stderr.contains("panicked"),
            "{name}: one line: {stderr}"
        );
        assert!(peak < 1_500_000_000, "{name}: peak {peak} bytes");
        assert!(took < Duration::from_secs(10), "{name}: {took:?}");
        assert!(!out.exists(), "{name}: nothing written");
    }

    // Valid, if odd: a 40000×1 texture on the body is downscaled and drawn.
    let wide = dir.join("texture-40000x1.vrm");
    let bytes = with_bin(&model, &solid_png(40_000, 1), |j, view| {
        j["images"] = json!([{"bufferView": view, "mimeType": "image/png"}]);
        j["textures"] = json!([{"source": 0}]);
        j["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"] = json!({"index": 0});
    });
    std::fs::write(&wide, bytes).unwrap();
    let out = dir.join("wide.png");
    let (output, peak, _) = render(&wide, &out);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let still = image::open(&out).unwrap().to_rgba8();
    let opaque = still.pixels().filter(|p| p[3] > 0).count();
    assert!(opaque > 500, "the avatar is drawn ({opaque} pixels)");
    assert!(peak < 1_500_000_000, "peak {peak} bytes");

    // The window, given two bombs in turn, refuses each with a banner and keeps the
    // mannequin on screen.
    let (_xvfb, display) = start_xvfb().expect("Xvfb starts");
    for name in ["sparse-accessor-2e9.vrm", "ktx2-zstd-bomb.vrm"] {
        let shot = dir.join(format!("{name}-window.png"));
        let log = dir.join(format!("{name}-window.txt"));
        let mut child = bin()
            .arg("--screenshot")
            .arg(&shot)
            .arg(dir.join(name))
            .env("DISPLAY", &display)
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let status = wait_with_timeout(&mut child, Duration::from_secs(120));
        let said = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(status.is_some_and(|s| s.success()), "{name}: {said}");
        assert!(
            said.contains("Cannot open") && said.contains(name),
            "{name}: {said}"
        );
        let img = image::open(&shot).unwrap().to_rgba8();
        let centre = view_centre_covered(&img);
        assert!(centre > 0.25, "{name}: the mannequin stays ({centre:.2})");
    }
}
