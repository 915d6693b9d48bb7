//! An animator's walk through the CLI, as SPEC §11 (issue 17) promises it: keys blocked
//! out with the edit-script ops, a foot planted over a span while the hips move and turn,
//! the keys retimed as a group, half of the walk pasted mirrored, exported, played by
//! three-vrm (the planted foot stays put there too), and imported back as the same keys.

use std::path::Path;

use crate::common::*;
use bevy::math::{Quat, Vec3};
use serde_json::{Value, json};

fn vec3(v: &Value) -> Vec3 {
    Vec3::from_array([0, 1, 2].map(|i| v[i].as_f64().unwrap() as f32))
}

fn quat(v: &Value) -> Quat {
    Quat::from_array([0, 1, 2, 3].map(|i| v[i].as_f64().unwrap() as f32)).normalize()
}

fn degrees(a: Quat, b: Quat) -> f32 {
    vrma_maker::core::body::math::angle_between(a, b).to_degrees()
}

fn q(axis: Vec3, angle: f32) -> Value {
    let q = Quat::from_axis_angle(axis, angle);
    json!([q.x, q.y, q.z, q.w])
}

/// Blocks out the walk on `model` and saves it as `project`; returns `apply`'s output.
fn block_out_walk(model: &Path, project: &Path, dir: &Path) -> Value {
    let rest = vec3(&json_stdout(&run(&["inspect", model.to_str().unwrap()]))["hips_rest"]);
    let hips = |dx: f32, dy: f32, dz: f32| json!([rest.x + dx, rest.y + dy, rest.z + dz]);
    let script = json!([
        {"op": "pose", "pose": {"bones": {
            "leftUpperLeg": q(Vec3::X, -0.35), "rightUpperLeg": q(Vec3::X, 0.3),
            "leftLowerLeg": q(Vec3::X, 0.2), "rightLowerLeg": q(Vec3::X, 0.4),
            "leftUpperArm": q(Vec3::Z, -1.1), "rightUpperArm": q(Vec3::Z, 1.1)},
            "hips": hips(0.0, -0.02, 0.0)}},
        {"op": "key"},
        {"op": "seek", "t": 0.5},
        {"op": "move_hips", "to": hips(0.04, -0.05, 0.16), "rotate": q(Vec3::Y, 0.3), "pin_feet": false},
        {"op": "rotate", "bone": "rightUpperLeg", "quat": q(Vec3::X, -0.5)},
        {"op": "key"},
        {"op": "seek", "t": 1.0},
        {"op": "move_hips", "to": hips(0.0, -0.03, 0.3), "rotate": q(Vec3::Y, -0.2), "pin_feet": false},
        {"op": "key"},
        {"op": "plant_foot", "foot": "leftFoot", "from": 0, "to": 0.5},
        // Retime the whole block as a group: twice as slow.
        {"op": "select_keys", "from": 0, "to": 1},
        {"op": "scale_keys", "factor": 2, "pivot": 0},
        // The second half is the first, mirrored, with the other foot planted.
        {"op": "select_keys", "times": [0, 1]},
        {"op": "copy_keys"},
        {"op": "paste_keys", "t": 3, "mirror": true},
        {"op": "plant_foot", "foot": "rightFoot", "from": 3, "to": 4},
        {"op": "ease_keys", "value": "IN-OUT"},
    ]);
    let path = dir.join("walk-script.json");
    std::fs::write(&path, script.to_string()).unwrap();
    json_stdout(&run(&[
        "apply",
        "--model",
        model.to_str().unwrap(),
        "--script",
        path.to_str().unwrap(),
        "-o",
        project.to_str().unwrap(),
    ]))
}

fn sample_world(model: &Path, project: &Path, times: &[f32]) -> Vec<Value> {
    let times: Vec<f64> = times.iter().map(|&t| t as f64).collect();
    sample_project(model, project, &times, &["--world"])
        .as_array()
        .unwrap()
        .clone()
}

/// The largest distance (m) and angle (°) of `foot` from where it is in the first sample.
fn drift(samples: &[&Value], foot: &str) -> (f32, f32) {
    let start = &samples[0][foot];
    let (p0, r0) = (vec3(&start["position"]), quat(&start["rotation"]));
    samples.iter().fold((0.0, 0.0), |(d, a), s| {
        let (p, r) = (vec3(&s[foot]["position"]), quat(&s[foot]["rotation"]));
        (d.max(p.distance(p0)), a.max(degrees(r, r0)))
    })
}

fn frames(from: f32, to: f32, fps: f32) -> Vec<f32> {
    let n = ((to - from) * fps).round() as usize;
    (0..=n).map(|i| from + i as f32 / fps).collect()
}

#[test]
fn a_walk_with_planted_feet_retimed_and_mirrored_exports_plays_and_comes_back() {
    let dir = scratch("timeline-walk");
    let (v1, v0) = mannequins(&dir);
    for (model, fps) in [(v1, 30.0f32), (v0, 24.0)] {
        let name = model.file_stem().unwrap().to_string_lossy().to_string();
        let project = dir.join(format!("{name}-walk.json"));
        let out = block_out_walk(&model, &project, &dir);
        let times = written_key_times(&out);
        assert_eq!(
            times,
            [0.0, 1.0, 2.0, 3.0, 4.0],
            "{name}: scaled ×2, pasted at 3"
        );
        assert_eq!(
            out["selection"],
            json!([3.0, 4.0]),
            "{name}: the pasted keys"
        );
        assert_eq!(
            out["plants"],
            json!([{"foot": "leftFoot", "from": 0, "to": 1},
                   {"foot": "rightFoot", "from": 3, "to": 4}]),
            "{name}: the plant was retimed with its keys"
        );
        let keys = out["keys"].as_array().unwrap();
        assert_eq!(keys[3]["ease"], "IN-OUT");
        assert_eq!(keys[0]["ease"], "LINEAR");
        // The pasted key is the first key mirrored: its left leg is the right leg's turn.
        let mirrored = quat(&keys[0]["pose"]["bones"]["rightUpperLeg"]);
        let mirrored = Quat::from_xyzw(mirrored.x, -mirrored.y, -mirrored.z, mirrored.w);
        assert!(degrees(quat(&keys[3]["pose"]["bones"]["leftUpperLeg"]), mirrored) < 1e-3);

        // The project keeps its own frame rate.
        let mut saved: Value = serde_json::from_slice(&std::fs::read(&project).unwrap()).unwrap();
        saved["fps"] = json!(fps);
        std::fs::write(&project, saved.to_string()).unwrap();

        // Through the core's FK: the planted foot holds while the hips move and turn.
        let span = frames(0.0, 1.0, 30.0);
        let sampled = sample_world(&model, &project, &span);
        let worlds: Vec<&Value> = sampled.iter().map(|s| &s["world"]).collect();
        let (moved, turned) = drift(&worlds, "leftFoot");
        assert!(
            moved < 1e-3 && turned < 0.1,
            "{name}: left foot drifts {moved} m, {turned}°"
        );
        let (hips_moved, hips_turned) = drift(&worlds, "hips");
        assert!(
            hips_moved > 0.1 && hips_turned > 10.0,
            "{name}: the hips really move"
        );
        let second = sample_world(&model, &project, &frames(3.0, 4.0, 30.0));
        let worlds: Vec<&Value> = second.iter().map(|s| &s["world"]).collect();
        let (moved, turned) = drift(&worlds, "rightFoot");
        assert!(
            moved < 1e-3 && turned < 0.1,
            "{name}: right foot drifts {moved} m, {turned}°"
        );

        // Outside the spans the pose is the keys' interpolation; inside, the legs differ.
        let mut unplanted = saved.clone();
        unplanted["plants"] = json!([]);
        let unplanted_path = dir.join(format!("{name}-unplanted.json"));
        std::fs::write(&unplanted_path, unplanted.to_string()).unwrap();
        let probe = [0.5, 1.5, 2.5];
        let with = sample_world(&model, &project, &probe);
        let without = sample_world(&model, &unplanted_path, &probe);
        assert_ne!(
            with[0]["pose"], without[0]["pose"],
            "{name}: planted inside"
        );
        assert_eq!(with[1]["pose"], without[1]["pose"], "{name}: keyed outside");
        assert_eq!(with[2]["pose"], without[2]["pose"], "{name}: keyed outside");

        // Exported and played by three-vrm: the foot stays there too.
        let anim = dir.join(format!("{name}-walk.vrma"));
        let stats = json_stdout(&run(&[
            "export-vrma",
            "--model",
            model.to_str().unwrap(),
            "--project",
            project.to_str().unwrap(),
            "-o",
            anim.to_str().unwrap(),
        ]));
        assert_eq!(
            stats["frames"].as_u64().unwrap() as usize,
            frames(0.0, 4.0, fps).len(),
            "{name}: sampled at {fps} fps"
        );
        if required_or_skip("Node harness (tests/node/node_modules)", node_ready()) {
            let validated = node("validate.mjs", &[&anim]);
            assert!(
                validated.status.success(),
                "{}",
                String::from_utf8_lossy(&validated.stdout)
            );
            for (foot, from) in [("leftFoot", 0.0), ("rightFoot", 3.0)] {
                let times: Vec<f32> = frames(from, from + 1.0, fps);
                let played = play_vrma(&model, &anim, &serde_json::to_string(&times).unwrap());
                let worlds: Vec<&Value> = played["samples"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| &s["world"])
                    .collect();
                let (moved, turned) = drift(&worlds, foot);
                eprintln!("{name}: three-vrm's {foot} drifts {moved:.1e} m, {turned:.1e}°");
                assert!(
                    moved < 1e-3 && turned < 0.1,
                    "{name}: three-vrm's {foot} drifts {moved} m, {turned}°"
                );
                let (hips_moved, _) = drift(&worlds, "hips");
                assert!(hips_moved > 0.1, "{name}: three-vrm moves the hips");
            }
        }

        // Imported back: the same keys, eases and plants, not 120 baked ones.
        let back = dir.join(format!("{name}-back.json"));
        let imported = import_anim(&model, &anim, &back);
        assert_eq!(imported["restored"], true, "{name}");
        let back: Value = serde_json::from_slice(&std::fs::read(&back).unwrap()).unwrap();
        assert_eq!(back["plants"], saved["plants"], "{name}");
        assert_eq!(back["fps"].as_f64(), Some(fps as f64), "{name}");
        let (ours, theirs) = (
            saved["keys"].as_array().unwrap(),
            back["keys"].as_array().unwrap(),
        );
        assert_eq!(ours.len(), theirs.len(), "{name}");
        for (a, b) in ours.iter().zip(theirs) {
            assert_eq!((&a["t"], &a["ease"]), (&b["t"], &b["ease"]), "{name}");
            for (bone, qa) in a["pose"]["bones"].as_object().unwrap() {
                let d = degrees(quat(qa), quat(&b["pose"]["bones"][bone]));
                assert!(d <= 0.01, "{name}: {bone} at {} s is {d}° off", a["t"]);
            }
            assert_eq!(
                a["pose"]["bones"].as_object().unwrap().len(),
                b["pose"]["bones"].as_object().unwrap().len()
            );
            assert_eq!(a["pose"]["hips"], b["pose"]["hips"], "{name}");
        }
    }
}

#[test]
fn another_tools_vrma_still_imports_by_baking_its_tracks() {
    let Some(fixtures) = fixtures() else {
        required_or_skip("shared fixtures", false);
        return;
    };
    let dir = scratch("foreign-vrma");
    let (v1, _) = mannequins(&dir);
    let vrma = fixtures.join("vrma/idle_loop.vrma");
    let out = dir.join("foreign.json");
    let imported = import_anim(&v1, &vrma, &out);
    assert_eq!(imported["restored"], false);
    assert!(imported["keys"].as_u64().unwrap() >= 2);
    assert_eq!(
        imported["keys"], imported["source_keyframe_times"],
        "a key at every source time, as before"
    );
}
