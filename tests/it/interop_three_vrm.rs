//! The core's normalized rig against the real thing: @pixiv/three-vrm under Node, on
//! the mannequin (1.0 and 0.x) and on every fixture model; and the Khronos glTF
//! validator on the mannequin.

use std::path::Path;

use crate::common::*;
use serde_json::{Value, json};

fn close(a: &Value, b: &Value, tol: f64, what: &str) {
    let (a, b) = (a.as_array().unwrap(), b.as_array().unwrap());
    assert_eq!(a.len(), b.len(), "{what}");
    for (x, y) in a.iter().zip(b) {
        let d = (x.as_f64().unwrap() - y.as_f64().unwrap()).abs();
        assert!(d <= tol, "{what}: ours {a:?} three-vrm {b:?} (diff {d})");
    }
}

fn compare_facts(model: &Path, pose: &Path, script: &Path) {
    let ours = json_stdout(&run(&["inspect", model.to_str().unwrap()]));
    let theirs = json_stdout(&node("vrm_facts.mjs", &[model, pose]));
    let name = model.display();
    assert_eq!(ours["vrm_version"], theirs["vrm_version"], "{name}");
    assert_eq!(ours["title"], theirs["title"], "{name}");
    assert_eq!(ours["expressions"], theirs["expressions"], "{name}");
    let (ob, tb) = (
        ours["bones"].as_object().unwrap(),
        theirs["bones"].as_object().unwrap(),
    );
    let mut on: Vec<_> = ob.keys().collect();
    let mut tn: Vec<_> = tb.keys().collect();
    on.sort();
    tn.sort();
    assert_eq!(on, tn, "{name}: bone sets");
    for (bone, o) in ob {
        assert_eq!(o["parent"], tb[bone]["parent"], "{name}: parent of {bone}");
        close(
            &o["rest"],
            &tb[bone]["rest"],
            1e-4,
            &format!("{name}: rest of {bone}"),
        );
    }
    close(
        &ours["hips_rest"],
        &theirs["hips_rest"],
        1e-4,
        &format!("{name}: hips_rest"),
    );

    let applied = json_stdout(&run(&[
        "apply",
        "--model",
        model.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
    ]));
    let (ow, tw) = (
        applied["world"].as_object().unwrap(),
        theirs["world"].as_object().unwrap(),
    );
    assert_eq!(ow.len(), ob.len(), "{name}: world covers every bone");
    for (bone, p) in ow {
        close(
            p,
            &tw[bone],
            1e-4,
            &format!("{name}: world position of {bone} after the pose"),
        );
    }
}

/// A pose touching the torso, both arms, a leg, the fingers and the hips, given both as
/// a script for our CLI and as pose JSON for three-vrm.
fn write_pose(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let bones = json!({
        "spine": [0.1, 0.2, 0.05, 0.97], "chest": [0.0, -0.1, 0.1, 0.99], "neck": [0.2, 0.0, 0.0, 0.98],
        "leftUpperArm": [0.0, 0.3, -0.4, 0.87], "rightLowerArm": [0.1, -0.5, 0.0, 0.86],
        "leftUpperLeg": [-0.4, 0.1, 0.0, 0.91], "rightLowerLeg": [0.5, 0.0, 0.0, 0.87],
        "leftIndexProximal": [0.0, 0.0, -0.4, 0.92], "rightThumbMetacarpal": [0.2, 0.1, 0.0, 0.97],
        "leftFoot": [0.2, 0.0, 0.1, 0.97], "head": [0.0, 0.3, 0.0, 0.95]
    });
    let pose = dir.join("pose.json");
    std::fs::write(
        &pose,
        json!({"v": 1, "bones": bones, "hips": [0.05, 0.8, -0.1], "expr": {}}).to_string(),
    )
    .unwrap();
    // Our script reaches the same pose through the edit path (bones the model lacks are skipped).
    let script = dir.join("script.json");
    std::fs::write(
        &script,
        json!([{"op": "pose", "pose": {"v": 1, "bones": bones, "hips": [0.05, 0.8, -0.1]}}])
            .to_string(),
    )
    .unwrap();
    (pose, script)
}

#[test]
fn the_normalized_rig_agrees_with_three_vrm_on_the_mannequin_and_fixtures() {
    if !required_or_skip("Node harness (tests/node/node_modules)", node_ready()) {
        return;
    }
    let dir = scratch("three-vrm");
    let (v1, v0) = mannequins(&dir);
    let (pose, script) = write_pose(&dir);
    compare_facts(&v1, &pose, &script);
    compare_facts(&v0, &pose, &script);
    let fixtures = fixture_models();
    if required_or_skip("../shared/fixtures models", !fixtures.is_empty()) {
        for model in fixtures {
            compare_facts(&model, &pose, &script);
        }
    }
}

#[test]
fn the_mannequin_passes_the_khronos_gltf_validator() {
    if !required_or_skip("Node harness (tests/node/node_modules)", node_ready()) {
        return;
    }
    let dir = scratch("validator");
    let (v1, v0) = mannequins(&dir);
    let out = node("validate.mjs", &[&v1, &v0]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "validator found errors: {text}");
    let reports: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reports.len(), 2);
    for r in reports {
        assert_eq!(r["errors"], 0, "{r}");
    }
}

#[test]
fn vroid_scale_test_avatars_pass_the_validator_and_agree_with_three_vrm() {
    if !required_or_skip("Node harness (tests/node/node_modules)", node_ready()) {
        return;
    }
    let dir = scratch("three-vrm-vroid");
    // Full-size textures are only needed for load and memory tests; the rig, skin,
    // morphs and extensions are the same at any texture size.
    let v1 = test_avatar(&dir, "vroid1.vrm", false, &["--texture-size", "256"]);
    let v0 = test_avatar(&dir, "vroid0.vrm", true, &["--texture-size", "256"]);
    let out = node("validate.mjs", &[&v1, &v0]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "validator found errors: {text}");
    for line in text.lines() {
        let report: Value = serde_json::from_str(line).unwrap();
        assert_eq!(report["errors"], 0, "{report}");
    }
    // Non-identity rest rotations on every bone: the normalized rig must still match.
    let (pose, script) = write_pose(&dir);
    compare_facts(&v1, &pose, &script);
    compare_facts(&v0, &pose, &script);
}
