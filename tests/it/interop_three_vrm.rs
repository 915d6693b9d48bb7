//! The core's normalized rig against the real thing: @pixiv/three-vrm under Node, on
//! the mannequin (1.0 and 0.x) and on every fixture model; and the Khronos glTF
//! validator on the mannequin.

use std::path::{Path, PathBuf};

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
        // Limits off: this compares the skeleton's arithmetic on arbitrary turns.
        json!([{"op": "limits", "on": false},
               {"op": "pose", "pose": {"v": 1, "bones": bones, "hips": [0.05, 0.8, -0.1]}}])
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

/// The generated avatar with constraint nodes of each kind added (as UniVRM exports
/// twist bones): a roll of the left upper arm's twist from the lower arm, a rotation of
/// the right one's, an aim from the chest at the left hand, and a rotation following
/// another constraint's destination (so the order matters).
pub(crate) fn with_constraints(model: &Path, out: PathBuf) -> PathBuf {
    edited_glb(model, out, |root| {
        let bone = |root: &Value, name: &str| {
            root["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"][name]["node"]
                .as_u64()
                .unwrap() as usize
        };
        let (left_upper, left_lower, left_hand) = (
            bone(root, "leftUpperArm"),
            bone(root, "leftLowerArm"),
            bone(root, "leftHand"),
        );
        let (right_upper, right_lower, chest, hips) = (
            bone(root, "rightUpperArm"),
            bone(root, "rightLowerArm"),
            bone(root, "chest"),
            bone(root, "hips"),
        );
        let half_way = |root: &Value, lower: usize| {
            let t = &root["nodes"][lower]["translation"];
            json!([
                t[0].as_f64().unwrap() * 0.5,
                t[1].as_f64().unwrap() * 0.5,
                t[2].as_f64().unwrap() * 0.5
            ])
        };
        let first = root["nodes"].as_array().unwrap().len();
        let added = [
            (
                left_upper,
                json!({"name": "J_Adj_L_UpperArmTwist", "translation": half_way(root, left_lower),
                "rotation": [0.0, 0.0, 0.28, 0.96],
                "extensions": {"VRMC_node_constraint": {"specVersion": "1.0",
                    "constraint": {"roll": {"source": left_lower, "rollAxis": "X", "weight": 0.5}}}}}),
            ),
            (
                right_upper,
                json!({"name": "J_Adj_R_UpperArmTwist", "translation": half_way(root, right_lower),
                "extensions": {"VRMC_node_constraint": {"specVersion": "1.0",
                    "constraint": {"rotation": {"source": right_lower, "weight": 0.7}}}}}),
            ),
            (
                chest,
                json!({"name": "J_Aim_Chest", "translation": [0.0, 0.1, 0.05],
                "extensions": {"VRMC_node_constraint": {"specVersion": "1.0",
                    "constraint": {"aim": {"source": left_hand, "aimAxis": "PositiveZ", "weight": 0.8}}}}}),
            ),
            (
                hips,
                json!({"name": "J_Follow_Twist", "translation": [0.0, -0.05, 0.1],
                "extensions": {"VRMC_node_constraint": {"specVersion": "1.0",
                    "constraint": {"rotation": {"source": first + 1}}}}}),
            ),
        ];
        for (i, (parent, node)) in added.into_iter().enumerate() {
            root["nodes"].as_array_mut().unwrap().push(node);
            let children = &mut root["nodes"][parent]["children"];
            if children.is_null() {
                *children = json!([]);
            }
            children.as_array_mut().unwrap().push(json!(first + i));
        }
        root["extensionsUsed"]
            .as_array_mut()
            .unwrap()
            .push(json!("VRMC_node_constraint"));
    })
}

#[test]
fn node_constraints_follow_the_pose_as_three_vrm_evaluates_them() {
    if !required_or_skip("Node harness (tests/node/node_modules)", node_ready()) {
        return;
    }
    let dir = scratch("three-vrm-constraints");
    let plain = test_avatar(&dir, "plain.vrm", false, &["--texture-size", "16"]);
    let model = with_constraints(&plain, dir.join("constrained.vrm"));
    let report = node("validate.mjs", &[&model]);
    assert!(
        report.status.success(),
        "{}",
        String::from_utf8_lossy(&report.stdout)
    );
    // Bent, twisted arms and a turned chest.
    let q = |axis: [f32; 3], degrees: f32| {
        let r = bevy::math::Quat::from_axis_angle(
            bevy::math::Vec3::from(axis).normalize(),
            degrees.to_radians(),
        );
        json!([r.x, r.y, r.z, r.w])
    };
    let pose = json!({"v": 1, "bones": {
        "leftUpperArm": q([0.0, 0.3, 1.0], -50.0), "leftLowerArm": q([1.0, 0.4, 0.2], 70.0),
        "rightUpperArm": q([0.2, 0.0, 1.0], 40.0), "rightLowerArm": q([1.0, -0.5, 0.3], -60.0),
        "chest": q([0.0, 1.0, 0.1], 20.0)}});
    let pose_path = dir.join("pose.json");
    std::fs::write(&pose_path, pose.to_string()).unwrap();
    let theirs = json_stdout(&node("vrm_facts.mjs", &[&model, &pose_path]));
    let constrained = theirs["constrained"]
        .as_object()
        .expect("three-vrm's constraints");
    assert_eq!(constrained.len(), 4);

    let rig = vrma_maker::core::body::rig::load_rig(&model).unwrap();
    assert_eq!(
        rig.model.constraints.ordered.len(),
        4,
        "{:?}",
        rig.model.constraints.warnings
    );
    let pose = vrma_maker::core::body::pose::Pose::from_json(&pose, &mut Vec::new()).unwrap();
    let mut worlds = vrma_maker::core::body::nodes::NodeWorlds::new(&rig);
    worlds.pose(&rig, &pose);
    let mut moved = 0.0f32;
    for (name, facts) in constrained {
        let node = rig
            .model
            .nodes
            .iter()
            .position(|n| &n.name == name)
            .unwrap();
        let (_, rotation, position) = worlds.worlds[node].to_scale_rotation_translation();
        let number = |v: &Value, i: usize| v[i].as_f64().unwrap() as f32;
        let p = bevy::math::Vec3::new(
            number(&facts["position"], 0),
            number(&facts["position"], 1),
            number(&facts["position"], 2),
        );
        let r = bevy::math::Quat::from_xyzw(
            number(&facts["rotation"], 0),
            number(&facts["rotation"], 1),
            number(&facts["rotation"], 2),
            number(&facts["rotation"], 3),
        );
        assert!(
            p.distance(position) < 1e-4,
            "{name}: at {position}, three-vrm {p}"
        );
        let angle = rotation.angle_between(r).to_degrees();
        assert!(angle < 0.05, "{name}: turned {angle}° from three-vrm's");
        // Against the same pose with the constraint left at rest: it did something.
        let parent = rig.model.nodes[node].parent.unwrap();
        let at_rest = worlds.worlds[parent].to_scale_rotation_translation().1
            * rig.model.nodes[node].rotation;
        moved = moved.max(at_rest.angle_between(rotation).to_degrees());
        eprintln!(
            "{name}: within {angle:.4}° of three-vrm; {:.1}° from rest",
            at_rest.angle_between(rotation).to_degrees()
        );
    }
    assert!(
        moved > 10.0,
        "the constraints turned their nodes (at most {moved}°)"
    );
}

/// The generated avatar with an expression gaze (`look*` expressions bound to face
/// targets) in place of its bone gaze.
fn with_expression_gaze(model: &Path, out: PathBuf) -> PathBuf {
    edited_glb(model, out, |root| {
        let vrm = &mut root["extensions"]["VRMC_vrm"];
        let face = vrm["expressions"]["preset"]["aa"]["morphTargetBinds"][0]["node"].clone();
        for (k, name) in ["lookUp", "lookDown", "lookLeft", "lookRight"]
            .iter()
            .enumerate()
        {
            vrm["expressions"]["preset"][name] = json!({"morphTargetBinds":
                [{"node": face, "index": k, "weight": 1.0}]});
        }
        vrm["lookAt"]["type"] = json!("expression");
        vrm["lookAt"]["rangeMapHorizontalOuter"] =
            json!({"inputMaxValue": 60.0, "outputScale": 0.8});
        vrm["lookAt"]["rangeMapVerticalUp"] = json!({"inputMaxValue": 45.0, "outputScale": 1.0});
    })
}

#[test]
fn the_eyes_look_at_a_target_as_three_vrm_aims_them() {
    if !required_or_skip("Node harness (tests/node/node_modules)", node_ready()) {
        return;
    }
    use vrma_maker::core::model::humanoid::Bone;
    let dir = scratch("three-vrm-look-at");
    let v1 = test_avatar(&dir, "v1.vrm", false, &["--texture-size", "16"]);
    let v0 = test_avatar(&dir, "v0.vrm", true, &["--texture-size", "16"]);
    let expression = with_expression_gaze(&v1, dir.join("expression.vrm"));
    // A turned, bent head, and a target up, to the model's left and in front.
    let q = |axis: [f32; 3], degrees: f32| {
        let r = bevy::math::Quat::from_axis_angle(
            bevy::math::Vec3::from(axis).normalize(),
            degrees.to_radians(),
        );
        json!([r.x, r.y, r.z, r.w])
    };
    let target = [0.35f32, 1.75, 0.6];
    let pose = json!({"v": 1, "lookAt": target, "bones": {
        "neck": q([0.2, 1.0, 0.0], -25.0), "head": q([1.0, 0.0, 0.3], 15.0),
        "spine": q([0.0, 0.0, 1.0], 8.0)}});
    let pose_path = dir.join("pose.json");
    std::fs::write(&pose_path, pose.to_string()).unwrap();
    for model in [&v1, &v0, &expression] {
        let theirs = json_stdout(&node("vrm_facts.mjs", &[model, &pose_path]));
        let facts = &theirs["look_at"];
        assert!(facts.is_object(), "three-vrm has a gaze: {theirs}");
        let rig = vrma_maker::core::body::rig::load_rig(model).unwrap();
        let look = rig.model.look_at.clone().expect("our gaze");
        let pose = vrma_maker::core::body::pose::Pose::from_json(&pose, &mut Vec::new()).unwrap();
        let gaze = look.gaze_toward(&rig, &pose, bevy::math::Vec3::from(target));
        let number = |v: &Value| v.as_f64().unwrap() as f32;
        let name = model.file_name().unwrap().to_string_lossy();
        assert!(
            (gaze.yaw - number(&facts["yaw"])).abs() < 0.01
                && (gaze.pitch - number(&facts["pitch"])).abs() < 0.01,
            "{name}: ours {gaze:?}, three-vrm's {facts}"
        );
        assert!(gaze.yaw.abs() > 5.0 && gaze.pitch.abs() > 5.0, "{gaze:?}");
        let looking = look.apply(gaze, &pose);
        let mut worlds = vrma_maker::core::body::nodes::NodeWorlds::new(&rig);
        worlds.pose(&rig, &looking);
        for (bone, eye) in [(Bone::LeftEye, "leftEye"), (Bone::RightEye, "rightEye")] {
            let Some(theirs) = facts["eyes"].get(eye) else {
                continue;
            };
            let node = rig.model.humanoid[bone.index()].unwrap();
            let ours =
                rig.to_model_frame_quat(worlds.worlds[node].to_scale_rotation_translation().1);
            let theirs = bevy::math::Quat::from_xyzw(
                number(&theirs[0]),
                number(&theirs[1]),
                number(&theirs[2]),
                number(&theirs[3]),
            );
            let angle = ours.angle_between(theirs).to_degrees();
            assert!(angle < 0.05, "{name} {eye}: {angle}° from three-vrm's");
        }
        for (expression, value) in facts["expressions"].as_object().unwrap() {
            let ours = looking.expressions.get(expression).copied().unwrap_or(0.0);
            assert!(
                (ours - number(value)).abs() < 1e-4,
                "{name} {expression}: ours {ours}, three-vrm's {value}"
            );
        }
        let turned = facts["eyes"].as_object().is_some_and(|e| !e.is_empty());
        let weighted = facts["expressions"]
            .as_object()
            .is_some_and(|e| e.values().any(|v| number(v) > 0.05));
        assert!(
            turned || weighted,
            "{name}: the gaze did something: {facts}"
        );
        eprintln!(
            "{name}: yaw {:.2}°, pitch {:.2}°, as three-vrm",
            gaze.yaw, gaze.pitch
        );
    }
}
