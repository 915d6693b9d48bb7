//! Keyframes through the CLI: `sample` against an independent implementation of the
//! SPEC §4 rules on random projects, the key ops of `apply`, and refusal of malformed
//! projects.

use crate::common::*;
use bevy::math::{Quat, Vec3};
use proptest::prelude::*;
use serde_json::{Value, json};

/// A key as the test writes it: time, ease, bone rotations, hips, "happy" weight.
type RefKey<'a> = (f32, &'a str, Vec<(String, [f32; 4])>, Option<[f32; 3]>, f32);

/// SPEC §4, written again from the text for the test (not the core's code).
fn reference_sample(
    keys: &[RefKey<'_>],
    t: f32,
    rest_hips: Vec3,
) -> (Vec<(String, Quat)>, Vec3, f32) {
    let mut keys: Vec<_> = keys.iter().collect();
    keys.sort_by(|a, b| a.0.total_cmp(&b.0));
    let rot = |k: &RefKey<'_>, bone: &str| {
        k.2.iter()
            .find(|(b, _)| b == bone)
            .map_or(Quat::IDENTITY, |(_, q)| Quat::from_array(*q).normalize())
    };
    let hips = |k: &RefKey<'_>| k.3.map_or(rest_hips, Vec3::from_array);
    let bones: Vec<String> = keys
        .iter()
        .flat_map(|k| k.2.iter().map(|(b, _)| b.clone()))
        .collect();
    let (a, b, w) = if t <= keys[0].0 {
        (keys[0], keys[0], 0.0)
    } else if t >= keys[keys.len() - 1].0 {
        (keys[keys.len() - 1], keys[keys.len() - 1], 0.0)
    } else {
        let i = keys.iter().position(|k| k.0 > t).unwrap();
        let (a, b) = (keys[i - 1], keys[i]);
        let x = (t - a.0) / (b.0 - a.0);
        let w = match a.1 {
            "LINEAR" => x,
            "IN-OUT" => x * x * (3.0 - 2.0 * x),
            "IN" => x * x,
            "OUT" => 1.0 - (1.0 - x) * (1.0 - x),
            _ => 0.0,
        };
        (a, b, w)
    };
    let rotations = bones
        .iter()
        .map(|bone| {
            let (qa, mut qb) = (rot(a, bone), rot(b, bone));
            if qa.dot(qb) < 0.0 {
                qb = -qb;
            }
            (bone.clone(), qa.slerp(qb, w))
        })
        .collect();
    (rotations, hips(a).lerp(hips(b), w), a.4 + (b.4 - a.4) * w)
}

const BONES: [&str; 5] = [
    "spine",
    "neck",
    "leftUpperArm",
    "rightLowerLeg",
    "leftIndexProximal",
];
const EASES: [&str; 5] = ["LINEAR", "IN-OUT", "IN", "OUT", "HOLD"];

/// A random key: frame, ease index, (bone index, quaternion)s, hips, "happy" weight.
type RawKey = (u32, usize, Vec<(usize, [f32; 4])>, Option<[f32; 3]>, f32);

fn arb_key() -> impl Strategy<Value = RawKey> {
    (
        0u32..150,
        0usize..5,
        proptest::collection::vec(
            (
                0usize..5,
                [-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, 0.2f32..1.0],
            ),
            0..4,
        ),
        proptest::option::of([-0.3f32..0.3, 0.6f32..1.1, -0.3f32..0.3]),
        0.0f32..1.0,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn sample_follows_the_spec_on_random_projects(
        raw in proptest::collection::vec(arb_key(), 1..6),
        times in proptest::collection::vec(0.0f32..6.0, 1..8),
    ) {
        let dir = scratch("sample-prop");
        let model = dir.join("m.vrm");
        run(&["mannequin", "-o", model.to_str().unwrap()]);
        // One key per frame: later duplicates are dropped.
        let mut frames = std::collections::BTreeSet::new();
        let mut keys = Vec::new();
        for (frame, ease, bones, hips, happy) in raw {
            if !frames.insert(frame) { continue; }
            let mut seen = std::collections::BTreeSet::new();
            let bones: Vec<(String, [f32; 4])> = bones.into_iter().filter(|(b, _)| seen.insert(*b)).map(|(b, q)| (BONES[b].to_string(), q)).collect();
            keys.push((frame as f32 / 30.0, EASES[ease], bones, hips, happy));
        }
        let json_keys: Vec<Value> = keys.iter().enumerate().map(|(i, (t, ease, bones, hips, happy))| {
            let bones: serde_json::Map<String, Value> = bones.iter().map(|(b, q)| (b.clone(), json!(q))).collect();
            let mut pose = json!({"v": 1, "bones": bones, "expr": {"happy": happy}});
            if let Some(h) = hips { pose["hips"] = json!(h); }
            json!({"id": i + 1, "t": t, "ease": ease, "pose": pose})
        }).collect();
        let project = dir.join("p.json");
        std::fs::write(&project, json!({"v": 1, "fps": 30, "keys": json_keys}).to_string()).unwrap();
        let times_arg: Vec<String> = times.iter().map(|t| t.to_string()).collect();
        let out = json_stdout(&run(&["sample", "--model", model.to_str().unwrap(), "--project", project.to_str().unwrap(), "--times", &times_arg.join(",")]));
        let inspect = json_stdout(&run(&["inspect", model.to_str().unwrap()]));
        let rest = Vec3::from_array([0, 1, 2].map(|i| inspect["hips_rest"][i].as_f64().unwrap() as f32));
        let samples = out.as_array().unwrap();
        prop_assert_eq!(samples.len(), times.len());
        for (sample, t) in samples.iter().zip(&times) {
            let t: f32 = t.to_string().parse().unwrap();
            let (rotations, hips, happy) = reference_sample(&keys, t, rest);
            for (bone, expected) in rotations {
                let got = sample["pose"]["bones"].get(&bone).map_or(Quat::IDENTITY, |q| {
                    Quat::from_array([0, 1, 2, 3].map(|i| q[i].as_f64().unwrap() as f32))
                });
                let angle = 2.0 * got.dot(expected).abs().min(1.0).acos();
                prop_assert!(angle < 2e-3, "t={} {}: {:?} vs {:?}", t, bone, got, expected);
            }
            let h = &sample["pose"]["hips"];
            let got_hips = Vec3::from_array([0, 1, 2].map(|i| h[i].as_f64().unwrap() as f32));
            prop_assert!(got_hips.distance(hips) < 1e-5, "t={} hips {} vs {}", t, got_hips, hips);
            let got_happy = sample["pose"]["expr"]["happy"].as_f64().unwrap_or(0.0) as f32;
            prop_assert!((got_happy - happy).abs() < 1e-5, "t={} happy {} vs {}", t, got_happy, happy);
        }
    }
}

fn apply(
    model: &str,
    project: Option<&str>,
    script: Value,
    dir: &std::path::Path,
) -> std::process::Output {
    let path = dir.join("script.json");
    std::fs::write(&path, script.to_string()).unwrap();
    let mut args = vec![
        "apply",
        "--model",
        model,
        "--script",
        path.to_str().unwrap(),
    ];
    if let Some(p) = project {
        args.extend(["--project", p]);
    }
    run(&args)
}

#[test]
fn key_ops_write_back_and_undo_like_the_editor() {
    let dir = scratch("key-ops");
    let (v1, _) = mannequins(&dir);
    let model = v1.to_str().unwrap();
    let out = json_stdout(&apply(
        model,
        None,
        json!([
            {"op": "rotate", "bone": "spine", "quat": [0, 0.2, 0, 0.98]},
            {"op": "key"},
            {"op": "seek", "t": 1.0},
            {"op": "rotate", "bone": "spine", "quat": [0, -0.2, 0, 0.98]},
            {"op": "ease", "value": "IN-OUT"},
            {"op": "seek", "t": 0.5},
            {"op": "rotate", "bone": "neck", "quat": [0.2, 0, 0, 0.98]},
            {"op": "move_key", "from": 1.0, "to": 1.5},
            {"op": "undo"}, {"op": "undo"}, {"op": "redo"}
        ]),
        &dir,
    ));
    let keys = out["keys"].as_array().unwrap();
    let times: Vec<f64> = keys.iter().map(|k| k["t"].as_f64().unwrap()).collect();
    assert_eq!(
        times,
        vec![0.0, 0.5, 1.0],
        "rotate between keys inserted one; the move was undone: {times:?}"
    );
    assert_eq!(keys[2]["ease"], "IN-OUT");
    assert!(keys[1]["pose"]["bones"]["neck"].is_array());

    // Keys and the playhead carry over through a project file; -o saves the result.
    let project = dir.join("p.json");
    let saved_project = dir.join("saved.json");
    let p = project.to_str().unwrap();
    std::fs::write(
        &project,
        json!({"v": 1, "fps": 30, "keys": out["keys"], "playhead": 0.5}).to_string(),
    )
    .unwrap();
    let script = dir.join("s.json");
    std::fs::write(&script, json!([{"op": "key"}]).to_string()).unwrap();
    let saved = run(&[
        "apply",
        "--model",
        model,
        "--project",
        p,
        "--script",
        script.to_str().unwrap(),
        "-o",
        saved_project.to_str().unwrap(),
    ]);
    assert!(
        saved.status.success(),
        "{}",
        String::from_utf8_lossy(&saved.stderr)
    );
    let saved: Value = serde_json::from_slice(&std::fs::read(&saved_project).unwrap()).unwrap();
    assert_eq!(saved["keys"].as_array().unwrap().len(), 3);
    assert_eq!(saved["playhead"], 0.5);
    let out2 = json_stdout(&apply(
        model,
        Some(p),
        json!([{"op": "delete_key"}, {"op": "seek", "t": 0.25}]),
        &dir,
    ));
    assert_eq!(out2["keys"].as_array().unwrap().len(), 2);
    // Between 0 and 1 with the middle key gone, the neck is back to identity.
    assert!(out2["pose"]["bones"].get("neck").is_none());
}

#[test]
fn malformed_projects_are_refused_by_the_cli() {
    let dir = scratch("bad-projects");
    let (v1, _) = mannequins(&dir);
    for (project, needle) in [
        (json!({"keys": [{"t": -1, "pose": {}}]}), "keys[0].t"),
        (json!({"keys": [{"t": "soon", "pose": {}}]}), "keys[0].t"),
        (
            json!({"keys": [{"t": 1, "ease": "WOBBLE", "pose": {}}]}),
            "unknown ease 'WOBBLE'",
        ),
        (
            json!({"keys": [{"t": 1, "pose": {}}, {"t": 1.001, "pose": {}}]}),
            "same frame",
        ),
        (
            json!({"keys": [{"t": 1, "pose": {"bones": {"neck": [0, 0, 0, 0]}}}]}),
            "neck: quaternion has zero length",
        ),
        (json!({"keys": "many"}), "expected an array"),
    ] {
        let path = dir.join("p.json");
        std::fs::write(&path, project.to_string()).unwrap();
        let out = run(&[
            "sample",
            "--model",
            v1.to_str().unwrap(),
            "--project",
            path.to_str().unwrap(),
            "--times",
            "0",
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{project}: {stderr}");
        assert!(stderr.contains(needle), "{project}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1);
    }
    let out = run(&[
        "sample",
        "--model",
        v1.to_str().unwrap(),
        "--project",
        "x.json",
        "--times",
        "a,b",
    ]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_100000_key_project_loads_and_samples() {
    let dir = scratch("big-project");
    let (v1, _) = mannequins(&dir);
    let keys: Vec<Value> = (0..100_000)
        .map(|i| {
            let a = (i % 360) as f32 * 0.0174533 / 2.0;
            json!({"id": i + 1, "t": i as f64 / 30.0, "ease": "LINEAR",
                   "pose": {"bones": {"spine": [0.0, a.sin(), 0.0, a.cos()]}}})
        })
        .collect();
    let project = dir.join("big.json");
    std::fs::write(
        &project,
        json!({"v": 1, "fps": 30, "keys": keys}).to_string(),
    )
    .unwrap();
    // Key 50,001 sits at 50000/30 s with a spine turn of (50000 % 360)° = 320°, i.e. -40°.
    let out = json_stdout(&run(&[
        "sample",
        "--model",
        v1.to_str().unwrap(),
        "--project",
        project.to_str().unwrap(),
        "--times",
        &format!("{}", 50_000.0f64 / 30.0),
    ]));
    let q = &out[0]["pose"]["bones"]["spine"];
    let angle = 2.0 * q[1].as_f64().unwrap().atan2(q[3].as_f64().unwrap());
    let expected = (50_000 % 360) as f64;
    let got = angle.to_degrees().rem_euclid(360.0);
    assert!(
        (got - expected).abs() < 0.05,
        "spine turned {got}°, expected {expected}°"
    );
}
