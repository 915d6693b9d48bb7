//! Hands, face and gaze (issue 18): hand presets on every model, the gaze exported as a
//! VRMA lookAt track that three-vrm-animation plays as authored, `test.vrma`'s gaze
//! imported as keys, and expressions applied with three-vrm's isBinary and override
//! rules.

use std::path::{Path, PathBuf};

use bevy::math::Vec3;
use serde_json::{Value, json};
use vrma_maker::core::animation::edit::{Editor, Gesture, GripSide, PoseEdit};
use vrma_maker::core::body::gaze::export_viewer;
use vrma_maker::core::body::hand::{
    self, Finger, copy_hand_to_other_side, fingertip, in_palm, mean_tip_distance,
};
use vrma_maker::core::body::pose::Pose;
use vrma_maker::core::body::rig::Rig;
use vrma_maker::core::model::humanoid::{Side, finger_bones};
use vrma_maker::core::model::vrm::Model;

use crate::common::*;

fn rig_of(path: &Path) -> Rig {
    Rig::new(Model::from_bytes(&std::fs::read(path).unwrap()).unwrap()).unwrap()
}

/// The mannequins and every fixture model that has finger bones.
fn models_with_fingers(dir: &Path) -> Vec<PathBuf> {
    let (v1, v0) = mannequins(dir);
    let mut models = vec![v1, v0];
    models.extend(fixture_models().into_iter().filter(|m| {
        let rig = rig_of(m);
        Finger::ALL
            .iter()
            .all(|f| f.bones(Side::Left).iter().any(|b| rig.has(*b)))
    }));
    models
}

/// Runs edit-script steps through the editor's one edit path.
fn run_script(editor: &mut Editor, steps: Value) {
    for edit in vrma_maker::core::animation::edit::parse_script(&steps).unwrap() {
        editor.apply(edit).unwrap();
    }
}

fn shaped(editor: &mut Editor, side: &str, preset: &str) -> Pose {
    run_script(
        editor,
        json!([{"op": "reset_pose"}, {"op": "hand", "side": side, "preset": preset}]),
    );
    editor.pose.clone()
}

#[test]
fn every_hand_preset_reads_right_on_the_mannequins_and_every_fixture_with_fingers() {
    let dir = scratch("hand-presets");
    let models = models_with_fingers(&dir);
    if fixtures().is_some() {
        assert!(models.len() >= 4, "the fixtures with fingers: {models:?}");
    }
    for model in &models {
        let rig = rig_of(model);
        let mut editor = Editor::new(rig.clone());
        let rest = Pose::default();
        for side in Side::BOTH {
            let name = if side == Side::Left { "left" } else { "right" };
            let fist = shaped(&mut editor, name, "fist");
            for finger in [Finger::Index, Finger::Middle, Finger::Ring, Finger::Little] {
                let tip = fingertip(&rig, &fist, side, finger).unwrap();
                assert!(
                    in_palm(&rig, &fist, side, tip),
                    "{}: fist {side:?} {finger:?} tip {tip} is not in the palm",
                    model.display()
                );
                let rest_tip = fingertip(&rig, &rest, side, finger).unwrap();
                assert!(!in_palm(&rig, &rest, side, rest_tip), "at rest it is out");
            }
            let open = shaped(&mut editor, name, "open");
            assert!(
                mean_tip_distance(&rig, &open, side).unwrap()
                    > mean_tip_distance(&rig, &rest, side).unwrap(),
                "{}: an open {side:?} hand reaches further than at rest",
                model.display()
            );
            let point = shaped(&mut editor, name, "point");
            let reach = |pose: &Pose, f: Finger| {
                let knuckle = rig.world_position(pose, f.bones(side)[0]).unwrap();
                fingertip(&rig, pose, side, f).unwrap().distance(knuckle)
            };
            assert!(
                (reach(&point, Finger::Index) - reach(&rest, Finger::Index)).abs() < 1e-4,
                "{}: point keeps the index straight",
                model.display()
            );
            for f in [Finger::Middle, Finger::Ring, Finger::Little] {
                assert!(
                    reach(&point, f) < reach(&rest, f) * 0.7,
                    "{}: point curls the {f:?} finger",
                    model.display()
                );
            }
            // The other hand is left alone.
            let other = if side == Side::Left {
                Side::Right
            } else {
                Side::Left
            };
            for &bone in finger_bones(other) {
                assert_eq!(point.rotation(bone), rest.rotation(bone), "{bone}");
            }
        }
        // Every preset: one undo step on both hands, and a copied hand is the mirrored one.
        for preset in hand::presets() {
            run_script(&mut editor, json!([{"op": "reset_pose"}]));
            let steps = editor.history.undo_steps().count();
            run_script(
                &mut editor,
                json!([{"op": "hand", "side": "left", "preset": preset.name, "amount": 0.9}]),
            );
            assert_eq!(
                editor.history.undo_steps().count(),
                steps + 1,
                "one undo step"
            );
            let shaped = editor.pose.clone();
            assert!(
                finger_bones(Side::Left)
                    .iter()
                    .all(|b| shaped.rotation(*b).is_finite())
            );
            run_script(&mut editor, json!([{"op": "copy_hand", "from": "left"}]));
            let mirrored = shaped.mirrored();
            for &bone in finger_bones(Side::Right) {
                assert_eq!(
                    editor.pose.rotation(bone),
                    mirrored.rotation(bone),
                    "{}: {} copied to the right: {bone}",
                    model.display(),
                    preset.name
                );
            }
            let mut by_hand = shaped.clone();
            copy_hand_to_other_side(&mut by_hand, Side::Left);
            assert_eq!(by_hand, editor.pose);
        }
    }
}

#[test]
fn hand_and_finger_ops_run_through_the_cli_and_bad_ones_change_nothing() {
    let dir = scratch("hand-cli");
    let (v1, _) = mannequins(&dir);
    let script = dir.join("hands.json");
    std::fs::write(
        &script,
        json!([
            {"op": "hand", "side": "both", "preset": "fist"},
            {"op": "finger", "bone": "leftIndexProximal", "curl": 0.0, "spread": 0.2},
            {"op": "look_at", "target": [0.3, 1.4, 1.0]},
        ])
        .to_string(),
    )
    .unwrap();
    let out = json_stdout(&run(&[
        "apply",
        "--model",
        v1.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
    ]));
    let pose = Pose::from_json(&out["pose"], &mut Vec::new()).unwrap();
    let mut editor = Editor::new(rig_of(&v1));
    editor
        .apply(
            PoseEdit::Hand {
                side: GripSide::Both,
                shape: Box::new(hand::preset("fist").unwrap().shape),
                amount: 1.0,
            }
            .into(),
        )
        .unwrap();
    let index = Finger::Index.bones(Side::Left);
    let read = editor.hands.read_finger(&pose, Side::Left, Finger::Index);
    assert!(
        read.curl.abs() < 1e-3 && (read.spread - 0.2).abs() < 0.05,
        "{read:?}"
    );
    // The rest of the fist stands.
    for &bone in finger_bones(Side::Right) {
        assert!(
            pose.rotation(bone)
                .angle_between(editor.pose.rotation(bone))
                < 1e-4
        );
    }
    assert!(
        !index
            .iter()
            .all(|b| pose.rotation(*b) == editor.pose.rotation(*b))
    );
    let look: Vec<f64> = out["pose"]["look"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(look, [0.3, 1.4, 1.0]);
    for bad in [
        json!([{"op": "hand", "preset": "jazz"}]),
        json!([{"op": "hand", "side": "middle", "preset": "fist"}]),
        json!([{"op": "finger", "bone": "head", "curl": 1}]),
        json!([{"op": "finger", "bone": "leftIndexProximal", "curl": "lots"}]),
        json!([{"op": "look_at", "target": "moon"}]),
        json!([{"op": "look_at", "target": [0, 1e9, 0]}]),
    ] {
        std::fs::write(&script, bad.to_string()).unwrap();
        let out = run(&[
            "apply",
            "--model",
            v1.to_str().unwrap(),
            "--script",
            script.to_str().unwrap(),
        ]);
        assert!(!out.status.success(), "{bad} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    }
    // A finger slider drag is one undo step.
    let steps = editor.history.undo_steps().count();
    for curl in [0.1, 0.2, 0.3] {
        editor
            .apply(
                Gesture::Preview(PoseEdit::Finger {
                    bone: index[1],
                    curl,
                    spread: 0.0,
                })
                .into(),
            )
            .unwrap();
    }
    editor.apply(Gesture::End.into()).unwrap();
    assert_eq!(editor.history.undo_steps().count(), steps + 1);
}

fn degrees_apart(a: &Value, b: &Value) -> f64 {
    let d = |k: &str| (a[k].as_f64().unwrap() - b[k].as_f64().unwrap()).abs();
    d("yaw").max(d("pitch"))
}

/// A project whose keys look at the camera, a point, ahead and a point with the head
/// turned; returns the targets (model space; `None`: ahead) at the key times 0..3 s.
/// The mannequin's custom expression (the fixtures lack it; the edit drops it there),
/// keyed at 1 s with this weight and 0 elsewhere.
const CUSTOM: &str = vrma_maker::core::model::mannequin::CUSTOM_EXPRESSIONS[0];
const SMIRK: f64 = 0.8;

fn gaze_project(model: &Path, project: &Path, dir: &Path) -> Vec<Option<Vec3>> {
    let rig = rig_of(model);
    let eyes = rig
        .world_position(
            &Pose::default(),
            vrma_maker::core::model::humanoid::Bone::Head,
        )
        .unwrap();
    let (p1, p3) = (
        eyes + Vec3::new(0.6, 0.3, 1.0),
        eyes + Vec3::new(-0.5, -0.4, 0.8),
    );
    let half = 0.35f32 / 2.0;
    // The custom expression only where the model has it (elsewhere the op is refused).
    let has_custom = rig.model.expression_names().1.iter().any(|n| n == CUSTOM);
    let custom =
        |value: f64| has_custom.then(|| json!({"op": "expr", "name": CUSTOM, "value": value}));
    let steps = [
        Some(json!({"op": "look_at", "target": "camera"})),
        Some(json!({"op": "key"})),
        Some(json!({"op": "seek", "t": 1})),
        Some(json!({"op": "look_at", "target": p1.to_array()})),
        custom(SMIRK),
        Some(json!({"op": "key"})),
        Some(json!({"op": "seek", "t": 2})),
        custom(0.0),
        Some(json!({"op": "look_at", "target": "ahead"})),
        Some(json!({"op": "key"})),
        Some(json!({"op": "seek", "t": 3})),
        Some(json!({"op": "rotate", "bone": "neck", "quat": [0.0, half.sin(), 0.0, half.cos()]})),
        Some(json!({"op": "look_at", "target": p3.to_array()})),
        Some(json!({"op": "key"})),
    ];
    let script = Value::Array(steps.into_iter().flatten().collect());
    let path = dir.join("gaze-script.json");
    std::fs::write(&path, script.to_string()).unwrap();
    json_stdout(&run(&[
        "apply",
        "--model",
        model.to_str().unwrap(),
        "--script",
        path.to_str().unwrap(),
        "-o",
        project.to_str().unwrap(),
    ]));
    vec![Some(export_viewer(&rig)), Some(p1), None, Some(p3)]
}

fn play_with_targets(model: &Path, anim: &Path, times: &[f64], targets: &[Option<Vec3>]) -> Value {
    let targets: Vec<Value> = targets
        .iter()
        .map(|t| t.map_or(Value::Null, |p| json!(p.to_array())))
        .collect();
    let (times, targets) = (json!(times).to_string(), json!(targets).to_string());
    node_json(
        "play_vrma.mjs",
        &[
            model.as_os_str(),
            anim.as_os_str(),
            times.as_ref(),
            targets.as_ref(),
        ],
    )
}

#[test]
fn an_exported_gaze_validates_and_three_vrm_aims_it_at_each_key_target() {
    if !required_or_skip("Node harness (tests/node/node_modules)", node_ready()) {
        return;
    }
    let dir = scratch("gaze-export");
    let (v1, v0) = mannequins(&dir);
    let mut models = vec![v1, v0];
    models.extend(fixtures().map(|f| f.join("vrm1/debug_robot.vrm")));
    let mut with_custom = 0;
    for model in &models {
        let project = dir.join("gaze.json");
        let anim = dir.join("gaze.vrma");
        let targets = gaze_project(model, &project, &dir);
        export_vrma(model, &project, &anim);
        let report = node("validate.mjs", &[&anim]);
        let text = String::from_utf8_lossy(&report.stdout);
        assert!(report.status.success(), "validator: {text}");
        let report: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(report["errors"], 0, "{report}");
        let times = [0.0, 1.0, 2.0, 3.0];
        let played = play_with_targets(model, &anim, &times, &targets);
        for (sample, target) in played["samples"].as_array().unwrap().iter().zip(&targets) {
            let look = &sample["look"];
            let expected = match target {
                Some(_) => sample["look_toward"].clone(),
                None => json!({"yaw": 0.0, "pitch": 0.0}),
            };
            assert!(
                degrees_apart(look, &expected) < 0.5,
                "{} at {}: played {look}, aimed {expected}",
                model.display(),
                sample["t"]
            );
        }
        // The mannequins' custom expression goes under `expressions.custom` and plays.
        let gltf = glb_json(&anim);
        let custom = &gltf["extensions"]["VRMC_vrm_animation"]["expressions"]["custom"];
        if rig_of(model)
            .model
            .expression_names()
            .1
            .iter()
            .any(|n| n == CUSTOM)
        {
            with_custom += 1;
            assert!(custom[CUSTOM]["node"].is_u64(), "{custom}");
            let weight = |i: usize| played["samples"][i]["expr"][CUSTOM].as_f64().unwrap();
            assert!((weight(1) - SMIRK).abs() < 1e-3, "played {}", weight(1));
            assert!(weight(0).abs() < 1e-3 && weight(2).abs() < 1e-3);
        }
        // The keys looked somewhere other than ahead (the check is not trivially zero).
        assert!(
            degrees_apart(
                &played["samples"][1]["look"],
                &json!({"yaw": 0, "pitch": 0})
            ) > 10.0
        );
    }
    assert_eq!(with_custom, 2, "both mannequins carry a custom expression");
}

#[test]
fn the_gaze_of_test_vrma_imports_as_keys_whose_export_plays_the_same() {
    let (Some(fixtures), true) = (fixtures(), required_or_skip("Node harness", node_ready()))
    else {
        return;
    };
    let dir = scratch("gaze-import");
    let (v1, v0) = mannequins(&dir);
    let source = fixtures.join("vrma/test.vrma");
    for model in [v1, v0] {
        let project = dir.join("imported.json");
        import_anim(&model, &source, &project);
        let saved: Value = serde_json::from_slice(&std::fs::read(&project).unwrap()).unwrap();
        let looks: Vec<&Value> = saved["keys"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|k| k["pose"].get("look"))
            .collect();
        assert!(!looks.is_empty(), "gaze keys: {saved}");
        let anim = dir.join("again.vrma");
        export_vrma(&model, &project, &anim);
        let times: Vec<f64> = written_key_times(&saved);
        let list = json!(times).to_string();
        let original = play_vrma(&model, &source, &list);
        let ours = play_vrma(&model, &anim, &list);
        let mut turned = 0;
        for (a, b) in original["samples"]
            .as_array()
            .unwrap()
            .iter()
            .zip(ours["samples"].as_array().unwrap())
        {
            assert!(
                degrees_apart(&a["look"], &b["look"]) < 0.5,
                "at {}: test.vrma {} ours {}",
                a["t"],
                a["look"],
                b["look"]
            );
            turned += (a["look"]["yaw"].as_f64().unwrap().abs() > 45.0) as usize;
        }
        assert!(turned > 0, "test.vrma turns the eyes 90° at 2.5 s");
    }
}

/// Expression inputs that exercise the rules: binary snapping at 0.5, overrides
/// blocking and blending, and both together.
pub(crate) fn expression_cases() -> Vec<Value> {
    vec![
        json!({"happy": 0.6, "blink": 1.0}),
        json!({"happy": 0.4, "blink": 1.0}),
        json!({"happy": 0.3, "blink": 0.7}),
        json!({"happy": 1.0, "blink": 0.45}),
        json!({"blink": 0.51}),
        json!({}),
    ]
}

/// three-vrm's expressionManager output for each case (`tests/node/expressions.mjs`).
pub(crate) fn three_vrm_expressions(model: &Path, cases: &[Value]) -> Value {
    let cases = json!(cases).to_string();
    node_json("expressions.mjs", &[model.as_os_str(), cases.as_ref()])
}

fn weights_of(case: &Value) -> std::collections::BTreeMap<String, f32> {
    case.as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_f64().unwrap() as f32))
        .collect()
}

#[test]
fn is_binary_and_overrides_apply_as_three_vrm_applies_them_on_both_fixtures() {
    let (Some(fixtures), true) = (fixtures(), required_or_skip("Node harness", node_ready()))
    else {
        return;
    };
    for name in ["Overrides", "Overridden"] {
        let model_path = fixtures.join(format!("vrm1/VRMC_vrm_expressions_isBinary_{name}.vrm"));
        let model = Model::from_bytes(&std::fs::read(&model_path).unwrap()).unwrap();
        let cases = expression_cases();
        let reference = three_vrm_expressions(&model_path, &cases);
        let mut differed = false;
        for (case, three) in cases.iter().zip(reference["cases"].as_array().unwrap()) {
            let weights = weights_of(case);
            for (i, applied) in
                vrma_maker::core::model::expressions::applied_weights(&model, &weights)
            {
                let name = &model.expressions[i].name;
                let theirs = three["applied"][name].as_f64().unwrap() as f32;
                assert!(
                    (applied - theirs).abs() < 1e-6,
                    "{case}: {name} ours {applied} three-vrm {theirs}"
                );
                differed |= (applied - weights.get(name).copied().unwrap_or(0.0)).abs() > 0.05;
            }
            let transforms =
                vrma_maker::core::model::expressions::texture_transforms(&model, &weights);
            assert!(!transforms.is_empty(), "the fixture moves textures");
            for (material, uv) in transforms {
                let theirs = &three["textures"][material.to_string()];
                for k in 0..2 {
                    for (ours, key) in [(uv.offset[k], "offset"), (uv.scale[k], "scale")] {
                        let t = theirs[key][k].as_f64().unwrap() as f32;
                        assert!(
                            (ours - t).abs() < 1e-5,
                            "{case}: material {material} {key}[{k}] ours {ours} three-vrm {t}"
                        );
                    }
                }
            }
        }
        assert!(
            differed,
            "the rules changed some weight (the cases test something)"
        );
    }
}

/// Green (✓) and red (✗) pixels of a still: the isBinary samples show a green field of
/// ticks when a player applies the rules right and a red field of crosses when not.
fn ticks_and_crosses(img: &image::RgbaImage) -> (u32, u32) {
    let (mut green, mut red) = (0, 0);
    for p in img.pixels() {
        if p[3] < 200 {
            continue;
        }
        let (r, g) = (p[0] as i32, p[1] as i32);
        green += (g > 60 && g > r + 40) as u32;
        red += (r > 100 && r > g + 60 && p[2] < 60) as u32;
    }
    (green, red)
}

#[test]
fn stills_of_the_is_binary_samples_show_their_ticks_and_a_player_ignoring_overrides_shows_crosses()
{
    let (Some(fixtures), true) = (
        fixtures(),
        required_or_skip("a Vulkan driver", have_vulkan()),
    ) else {
        return;
    };
    let dir = scratch("is-binary-stills");
    for name in ["Overrides", "Overridden"] {
        let model = fixtures.join(format!("vrm1/VRMC_vrm_expressions_isBinary_{name}.vrm"));
        // Every override of the file dropped: what a player ignoring them would draw.
        let ignoring = edited_glb(&model, dir.join(format!("ignoring-{name}.vrm")), |root| {
            let preset = &mut root["extensions"]["VRMC_vrm"]["expressions"]["preset"];
            for expression in preset.as_object_mut().unwrap().values_mut() {
                let e = expression.as_object_mut().unwrap();
                for key in ["overrideBlink", "overrideLookAt", "overrideMouth"] {
                    e.remove(key);
                }
            }
        });
        let mut crosses_seen = false;
        for (i, case) in expression_cases().iter().enumerate() {
            let pose = dir.join(format!("{name}-{i}.json"));
            std::fs::write(&pose, json!({"v": 1, "expr": case}).to_string()).unwrap();
            let size = ["--size", "192x256"];
            let still = render_png(&model, &pose, &dir.join(format!("{name}-{i}.png")), &size);
            let (green, red) = ticks_and_crosses(&still);
            assert!(
                green > 500 && red < 50,
                "{name} {case}: {green} green, {red} red pixels"
            );
            let wrong = render_png(
                &ignoring,
                &pose,
                &dir.join(format!("{name}-{i}-x.png")),
                &size,
            );
            let (_, red) = ticks_and_crosses(&wrong);
            crosses_seen |= red > 500;
        }
        assert!(
            crosses_seen,
            "{name}: ignoring the overrides shows crosses (the check sees errors)"
        );
    }
}
