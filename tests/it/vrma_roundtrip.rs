//! VRMA export and import without a player: our export validates, re-imports as the
//! same animation, and malformed animation files are refused with a clear message.

use crate::common::*;
use bevy::math::Quat;
use serde_json::{Value, json};

fn angle(a: &Value, b: &Value) -> f64 {
    let qa = Quat::from_array([0, 1, 2, 3].map(|i| a[i].as_f64().unwrap() as f32));
    let qb = Quat::from_array([0, 1, 2, 3].map(|i| b[i].as_f64().unwrap() as f32));
    vrma_maker::core::body::math::angle_between(qa, qb) as f64
}

fn bone_or_identity(pose: &Value, bone: &str) -> Value {
    pose["bones"]
        .get(bone)
        .cloned()
        .unwrap_or(json!([0.0, 0.0, 0.0, 1.0]))
}

#[test]
fn exporting_then_importing_gives_the_same_animation() {
    let dir = scratch("vrma-roundtrip");
    let (v1, v0) = mannequins(&dir);
    for model in [&v1, &v0] {
        let project = dir.join("p.json");
        let out = dir.join("out.vrma");
        let m = model.to_str().unwrap();
        let stats = export_rich_animation(model, &project, &out);
        assert!(
            stats["keyframes"].as_u64().unwrap() < stats["naive_keyframes"].as_u64().unwrap() / 3,
            "reduced: {stats}"
        );
        let back = dir.join("back.json");
        json_stdout(&run(&[
            "import-anim",
            "--model",
            m,
            "--anim",
            out.to_str().unwrap(),
            "-o",
            back.to_str().unwrap(),
        ]));
        let times: Vec<String> = (0..=105).map(|f| format!("{}", f as f64 / 30.0)).collect();
        let times = times.join(",");
        let a = json_stdout(&run(&[
            "sample",
            "--model",
            m,
            "--project",
            project.to_str().unwrap(),
            "--times",
            &times,
        ]));
        let b = json_stdout(&run(&[
            "sample",
            "--model",
            m,
            "--project",
            back.to_str().unwrap(),
            "--times",
            &times,
        ]));
        for (sa, sb) in a.as_array().unwrap().iter().zip(b.as_array().unwrap()) {
            let t = &sa["t"];
            for bone in vrma_maker::core::model::humanoid::ALL_BONES
                .iter()
                .filter(|b| !b.is_eye())
            {
                let d = angle(
                    &bone_or_identity(&sa["pose"], bone.name()),
                    &bone_or_identity(&sb["pose"], bone.name()),
                )
                .to_degrees();
                assert!(
                    d <= 0.1,
                    "{}: t={t} {bone} differs by {d}°",
                    model.display()
                );
            }
            for i in 0..3 {
                let d = (sa["pose"]["hips"][i].as_f64().unwrap()
                    - sb["pose"]["hips"][i].as_f64().unwrap())
                .abs();
                assert!(d <= 0.001, "t={t} hips[{i}] differs by {d}");
            }
            for name in ["happy", "blink", "aa", "surprised"] {
                let wa = sa["pose"]["expr"][name].as_f64().unwrap_or(0.0);
                let wb = sb["pose"]["expr"][name].as_f64().unwrap_or(0.0);
                assert!((wa - wb).abs() <= 0.002, "t={t} {name}: {wa} vs {wb}");
            }
        }
    }
}

#[test]
fn malformed_animations_are_refused_and_nothing_is_written() {
    let dir = scratch("vrma-bad");
    let (v1, _) = mannequins(&dir);
    let project = dir.join("p.json");
    let good_path = dir.join("good.vrma");
    export_rich_animation(&v1, &project, &good_path);
    let good = std::fs::read(&good_path).unwrap();
    let json_of = |bytes: &[u8]| -> Value {
        serde_json::from_slice(vrma_maker::core::files::glb::split(bytes).unwrap().json).unwrap()
    };
    let with = |edit: &dyn Fn(&mut Value)| {
        let mut j = json_of(&good);
        edit(&mut j);
        vrma_maker::core::files::glb::replace_json(&good, j.to_string().as_bytes()).unwrap()
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "truncated.vrma",
            good[..good.len() * 2 / 3].to_vec(),
            "truncated",
        ),
        (
            "scale.vrma",
            with(&|j| j["animations"][0]["channels"][0]["target"]["path"] = json!("scale")),
            "scale",
        ),
        (
            "notarget.vrma",
            with(&|j| {
                j["animations"][0]["channels"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("target");
            }),
            "has no target",
        ),
        (
            "nonode.vrma",
            with(&|j| {
                j["animations"][0]["channels"][0]["target"]
                    .as_object_mut()
                    .unwrap()
                    .remove("node");
            }),
            "no target node",
        ),
        (
            "noext.vrma",
            with(&|j| {
                j["extensions"].as_object_mut().unwrap().clear();
            }),
            "VRMC_vrm_animation extension is missing",
        ),
        (
            "huge.vrma",
            with(&|j| j["accessors"][0]["count"] = json!(4_000_000_000u64)),
            "do not fit",
        ),
        (
            "pastbuffer.vrma",
            with(&|j| j["bufferViews"][0]["byteLength"] = json!(1u64 << 40)),
            "past the end",
        ),
        (
            "noanim.vrma",
            with(&|j| {
                j.as_object_mut().unwrap().remove("animations");
            }),
            "no animation",
        ),
    ];
    for (name, bytes, needle) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = dir.join(format!("{name}.json"));
        let result = run(&[
            "import-anim",
            "--model",
            v1.to_str().unwrap(),
            "--anim",
            path.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert_eq!(result.status.code(), Some(1), "{name}: {stderr}");
        assert!(
            stderr.contains(needle),
            "{name}: expected '{needle}' in {stderr}"
        );
        assert!(!out.exists(), "{name}: nothing is written");
    }
}
