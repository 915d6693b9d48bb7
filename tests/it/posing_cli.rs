//! Posing through the edit path (`apply` ops `ik`, `pole`, `move_hips`) on the mannequin
//! (1.0 and 0.x) and every fixture model.

use crate::common::*;
use serde_json::{Value, json};

fn v3(v: &Value) -> [f64; 3] {
    [0, 1, 2].map(|i| v[i].as_f64().unwrap())
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

fn apply(
    model: &std::path::Path,
    script: Value,
    project: Option<&std::path::Path>,
    dir: &std::path::Path,
) -> Value {
    let path = dir.join("script.json");
    std::fs::write(&path, script.to_string()).unwrap();
    let mut args = vec![
        "apply",
        "--model",
        model.to_str().unwrap(),
        "--script",
        path.to_str().unwrap(),
    ];
    if let Some(p) = project {
        args.extend(["--project", p.to_str().unwrap()]);
    }
    json_stdout(&run(&args))
}

fn models(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let (v1, v0) = mannequins(dir);
    let mut all = vec![v1, v0];
    all.extend(fixture_models());
    all
}

#[test]
fn ik_pole_and_pinned_hips_hold_on_every_model() {
    let dir = scratch("posing");
    for model in models(&dir) {
        let name = model.display().to_string();
        let rest = apply(&model, json!([]), None, &dir)["world"].clone();
        let shoulder = v3(&rest["leftUpperArm"]);
        let arm = dist(shoulder, v3(&rest["leftLowerArm"]))
            + dist(v3(&rest["leftLowerArm"]), v3(&rest["leftHand"]));
        // A reachable target off the T-pose plane, after the spine was turned.
        let target = [
            shoulder[0] + arm * 0.45,
            shoulder[1] - arm * 0.4,
            shoulder[2] + arm * 0.3,
        ];
        let out = apply(
            &model,
            json!([
                {"op": "rotate", "bone": "spine", "quat": [0.05, 0.2, 0.0, 0.98]},
                {"op": "ik", "end": "leftHand", "target": target, "keep_angle": true}
            ]),
            None,
            &dir,
        );
        let hand = v3(&out["world"]["leftHand"]);
        assert!(
            dist(hand, target) <= 1e-5,
            "{name}: IK error {}",
            dist(hand, target)
        );

        // Pole drag: the hand stays.
        let point = [
            shoulder[0] + arm * 0.4,
            shoulder[1] + arm * 0.3,
            shoulder[2] - arm * 0.4,
        ];
        let out2 = apply(
            &model,
            json!([
                {"op": "rotate", "bone": "spine", "quat": [0.05, 0.2, 0.0, 0.98]},
                {"op": "ik", "end": "leftHand", "target": target},
                {"op": "pole", "chain": "leftArm", "point": point}
            ]),
            None,
            &dir,
        );
        assert!(
            dist(v3(&out2["world"]["leftHand"]), target) <= 1e-5,
            "{name}: the hand moved in a pole drag"
        );
        assert_ne!(
            out2["world"]["leftLowerArm"], out["world"]["leftLowerArm"],
            "{name}: the elbow swung"
        );

        // Hips: lower 0.2, shift 0.05, turn 20° about Y, feet pinned.
        let hips = v3(&rest["hips"]);
        let s = (10f64.to_radians()).sin();
        let c = (10f64.to_radians()).cos();
        let out3 = apply(
            &model,
            json!([
                {"op": "move_hips", "to": [hips[0] + 0.05, hips[1] - 0.2, hips[2]], "rotate": [0, s, 0, c], "pin_feet": true}
            ]),
            None,
            &dir,
        );
        for foot in ["leftFoot", "rightFoot"] {
            let moved = dist(v3(&out3["world"][foot]), v3(&rest[foot]));
            assert!(moved <= 1e-5, "{name}: {foot} moved {moved} m");
        }
        assert!((v3(&out3["world"]["hips"])[1] - (hips[1] - 0.2)).abs() < 1e-6);
    }
}

#[test]
fn an_ik_drag_between_keys_inserts_a_key_and_undo_returns_everything() {
    let dir = scratch("posing-keys");
    let (model, _) = mannequins(&dir);
    let project = dir.join("p.json");
    std::fs::write(
        &project,
        json!({"v": 1, "fps": 30, "keys": [
        {"id": 1, "t": 0, "pose": {"bones": {"spine": [0, 0.1, 0, 0.995]}}},
        {"id": 2, "t": 1, "pose": {"bones": {"spine": [0, -0.1, 0, 0.995]}}}]})
        .to_string(),
    )
    .unwrap();
    let before = apply(
        &model,
        json!([{"op": "seek", "t": 0.5}]),
        Some(&project),
        &dir,
    );
    let after = apply(
        &model,
        json!([
            {"op": "seek", "t": 0.5},
            {"op": "ik", "end": "rightFoot", "target": [-0.2, 0.3, 0.25]}
        ]),
        Some(&project),
        &dir,
    );
    let times: Vec<f64> = after["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["t"].as_f64().unwrap())
        .collect();
    assert_eq!(times.len(), 3, "{times:?}");
    assert!((times[1] - 0.5).abs() < 1e-6);
    let undone = apply(
        &model,
        json!([
            {"op": "seek", "t": 0.5},
            {"op": "ik", "end": "rightFoot", "target": [-0.2, 0.3, 0.25]},
            {"op": "undo"}
        ]),
        Some(&project),
        &dir,
    );
    assert_eq!(undone["keys"], before["keys"]);
    assert_eq!(undone["pose"], before["pose"]);
    assert_eq!(undone["world"], before["world"]);
}

#[test]
fn bad_posing_ops_are_refused() {
    let dir = scratch("posing-bad");
    let (model, _) = mannequins(&dir);
    for (script, needle) in [
        (
            json!([{"op": "ik", "end": "head", "target": [0, 1, 0]}]),
            "not a hand or a foot",
        ),
        (
            json!([{"op": "ik", "end": "leftHand", "target": [0, "x", 0]}]),
            "'target'",
        ),
        (
            json!([{"op": "pole", "chain": "tail", "point": [0, 1, 0]}]),
            "unknown chain 'tail'",
        ),
        (json!([{"op": "move_hips"}]), "needs 'to'"),
        (
            json!([{"op": "move_hips", "to": [0, 1e9, 0]}]),
            "within 10 km",
        ),
    ] {
        let path = dir.join("s.json");
        std::fs::write(&path, script.to_string()).unwrap();
        let out = run(&[
            "apply",
            "--model",
            model.to_str().unwrap(),
            "--script",
            path.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{script}: {stderr}");
        assert!(stderr.contains(needle), "{script}: {stderr}");
    }
}
