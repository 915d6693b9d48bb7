//! The command line through the real binary: output shapes of SPEC §12, exit codes,
//! and refusal of bad input without a panic.

use crate::common::*;
use serde_json::json;

#[test]
fn inspect_reports_the_mannequin_in_the_vrm1_frame_for_both_variants() {
    let dir = scratch("inspect");
    let (v1, v0) = mannequins(&dir);
    let a = json_stdout(&run(&["inspect", v1.to_str().unwrap()]));
    let b = json_stdout(&run(&["inspect", v0.to_str().unwrap()]));
    assert_eq!(a["vrm_version"], "1");
    assert_eq!(b["vrm_version"], "0");
    assert_eq!(a["bones"].as_object().unwrap().len(), 55);
    // Same rig in the VRM 1.0 frame, whichever file format carried it.
    assert_eq!(a["bones"], b["bones"]);
    assert_eq!(a["hips_rest"], b["hips_rest"]);
    assert_eq!(a["expressions"], b["expressions"]);
    assert_eq!(a["bones"]["leftUpperArm"]["parent"], "leftShoulder");
    assert!(
        a["bones"]["leftHand"]["rest"][0].as_f64().unwrap() > 0.0,
        "left is +X"
    );
    let preset = a["expressions"]["preset"].as_array().unwrap();
    for name in [
        "blink",
        "blinkLeft",
        "blinkRight",
        "aa",
        "ih",
        "ou",
        "ee",
        "oh",
        "happy",
        "angry",
        "sad",
        "relaxed",
        "surprised",
    ] {
        assert!(preset.contains(&json!(name)), "missing expression {name}");
    }
}

#[test]
fn the_same_pose_gives_the_same_world_positions_on_vrm1_and_vrm0() {
    let dir = scratch("pose-both");
    let (v1, v0) = mannequins(&dir);
    let script = dir.join("s.json");
    std::fs::write(
        &script,
        json!([
            {"op": "rotate", "bone": "spine", "quat": [0.1, 0.2, 0.05, 0.97]},
            {"op": "rotate", "bone": "leftUpperArm", "quat": [0.0, 0.3, -0.4, 0.87]},
            {"op": "rotate", "bone": "rightLowerLeg", "quat": [0.5, 0.0, 0.0, 0.87]},
            {"op": "grip", "side": "both", "amount": 0.7},
            {"op": "expr", "name": "happy", "value": 0.5}
        ])
        .to_string(),
    )
    .unwrap();
    let a = json_stdout(&run(&[
        "apply",
        "--model",
        v1.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
    ]));
    let b = json_stdout(&run(&[
        "apply",
        "--model",
        v0.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
    ]));
    assert_eq!(a["pose"]["bones"], b["pose"]["bones"]);
    let (wa, wb) = (
        a["world"].as_object().unwrap(),
        b["world"].as_object().unwrap(),
    );
    assert_eq!(wa.len(), 55);
    for (bone, pa) in wa {
        for i in 0..3 {
            let d = pa[i].as_f64().unwrap() - wb[bone][i].as_f64().unwrap();
            assert!(d.abs() <= 1e-5, "{bone}[{i}] differs by {d}");
        }
    }
    assert_eq!(a["keys"], json!([]));
    assert_eq!(a["pose"]["expr"]["happy"], 0.5);
}

#[test]
fn apply_mirror_arms_down_and_output_file() {
    let dir = scratch("apply-ops");
    let (v1, _) = mannequins(&dir);
    let script = dir.join("s.json");
    let out = dir.join("pose.json");
    std::fs::write(&script, r#"[{"op":"rotate","bone":"leftUpperArm","quat":[0,0,0.38,0.92]},{"op":"mirror"},{"op":"arms_down"}]"#).unwrap();
    let result = json_stdout(&run(&[
        "apply",
        "--model",
        v1.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]));
    let saved: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(
        saved["pose"], result["pose"],
        "-o saves the project with the pose"
    );
    assert_eq!(saved["v"], 1);
    // arms_down replaced both upper arms: hands below the shoulders, symmetric.
    let w = &result["world"];
    for (hand, shoulder) in [("leftHand", "leftUpperArm"), ("rightHand", "rightUpperArm")] {
        assert!(w[hand][1].as_f64().unwrap() < w[shoulder][1].as_f64().unwrap() - 0.3);
    }
    let (l, r) = (
        w["leftHand"][0].as_f64().unwrap(),
        w["rightHand"][0].as_f64().unwrap(),
    );
    assert!((l + r).abs() < 1e-5);
}

fn assert_one_line_error(out: &std::process::Output, code: i32, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "stderr: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains(needle), "expected '{needle}' in: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(run(&["inspect"]).status.code(), Some(2));
    assert_eq!(run(&["apply", "--model", "x.vrm"]).status.code(), Some(2));
    assert_eq!(run(&["frobnicate", "a", "b"]).status.code(), Some(2));
}

#[test]
fn bad_models_exit_1_with_one_clear_line() {
    let dir = scratch("bad-models");
    let (v1, _) = mannequins(&dir);
    let good = std::fs::read(&v1).unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let truncated = write("truncated.vrm", &good[..good.len() / 2]);
    let random: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let random = write("random.vrm", &random);
    let plain = write(
        "plain.gltf",
        br#"{"asset":{"version":"2.0"},"nodes":[{"name":"a"}]}"#,
    );
    let json_of = |bytes: &[u8]| -> serde_json::Value {
        let glb = vrma_maker::core::files::glb::split(bytes).unwrap();
        serde_json::from_slice(glb.json).unwrap()
    };
    let mut no_hips = json_of(&good);
    no_hips["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]
        .as_object_mut()
        .unwrap()
        .remove("hips");
    let no_hips = write(
        "nohips.vrm",
        &vrma_maker::core::files::glb::replace_json(&good, no_hips.to_string().as_bytes()).unwrap(),
    );
    let nan = String::from_utf8(json_of(&good).to_string().into_bytes())
        .unwrap()
        .replacen("\"translation\":[", "\"translation\":[NaN,", 1);
    let nan = write(
        "nan.vrm",
        &vrma_maker::core::files::glb::replace_json(&good, nan.as_bytes()).unwrap(),
    );
    let missing = dir.join("does-not-exist.vrm");
    for (path, needle) in [
        (&truncated, "truncated"),
        (&random, "not a glTF/VRM file"),
        (&plain, "not a VRM"),
        (&no_hips, "missing required humanoid bone 'hips'"),
        (&nan, "JSON is invalid"),
        (&missing, "cannot read"),
    ] {
        assert_one_line_error(&run(&["inspect", path.to_str().unwrap()]), 1, needle);
    }
}

#[test]
fn bad_scripts_exit_1_and_name_the_step() {
    let dir = scratch("bad-scripts");
    let (v1, _) = mannequins(&dir);
    for (script, needle) in [
        (
            r#"[{"op":"mirror"},{"op":"teleport"}]"#,
            "step 2: unknown op 'teleport'",
        ),
        (
            r#"[{"op":"rotate","bone":"spine","quat":[0,0,0,0]}]"#,
            "zero length",
        ),
        (
            r#"[{"op":"rotate","bone":"spine","quat":[1e400,0,0,1]}]"#,
            "invalid JSON",
        ),
        (
            r#"[{"op":"rotate","bone":"spine","quat":[1e39,0,0,1]}]"#,
            "not a finite number",
        ),
        (
            r#"[{"op":"rotate","bone":"tail","quat":[0,0,0,1]}]"#,
            "unknown bone 'tail'",
        ),
        (
            r#"[{"op":"expr","name":"nonexistent","value":1}]"#,
            "no expression 'nonexistent'",
        ),
        (
            r#"[{"op":"pose","pose":{"bones":{"spine":[0,0,0,0]}}}]"#,
            "spine: quaternion has zero length",
        ),
        (r#"{"op":"mirror"}"#, "JSON array"),
        ("not json", "invalid JSON"),
    ] {
        let path = dir.join("s.json");
        std::fs::write(&path, script).unwrap();
        let out = run(&[
            "apply",
            "--model",
            v1.to_str().unwrap(),
            "--script",
            path.to_str().unwrap(),
        ]);
        assert_one_line_error(&out, 1, needle);
    }
}

#[test]
fn the_window_without_a_display_is_a_message_not_a_crash() {
    let out = bin()
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert_one_line_error(&out, 1, "no X11 display");
}

#[test]
fn huge_numbers_in_a_model_are_refused() {
    let dir = scratch("huge-node");
    let (v1, _) = mannequins(&dir);
    let good = std::fs::read(&v1).unwrap();
    let glb = vrma_maker::core::files::glb::split(&good).unwrap();
    let mut json: serde_json::Value = serde_json::from_slice(glb.json).unwrap();
    json["nodes"][3]["translation"] = json!([1e39, 0.0, 0.0]);
    let bad = dir.join("huge.vrm");
    std::fs::write(
        &bad,
        vrma_maker::core::files::glb::replace_json(&good, json.to_string().as_bytes()).unwrap(),
    )
    .unwrap();
    assert_one_line_error(
        &run(&["inspect", bad.to_str().unwrap()]),
        1,
        "node 3 translation",
    );
}

/// A project written by `import-anim -o out/p.json` from a model given relative to the
/// working directory stores the model relative to the project; moved together to
/// another folder, the project is opened from another working directory and finds it.
#[test]
fn project_model_paths_are_relative_to_the_project_and_survive_a_move() {
    let dir = scratch("cli-paths");
    let work = dir.join("work");
    std::fs::create_dir_all(work.join("models")).unwrap();
    std::fs::create_dir_all(work.join("out/deep")).unwrap();
    let (v1, _) = mannequins(&dir);
    std::fs::copy(&v1, work.join("models/a.vrm")).unwrap();
    let clip = work.join("clip.vrma");
    export_rich_animation(&v1, &dir.join("rich.json"), &clip);
    let out = bin()
        .current_dir(&work)
        .args([
            "import-anim",
            "--model",
            "models/a.vrm",
            "--anim",
            "clip.vrma",
        ])
        .args(["-o", "out/deep/p.json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(work.join("out/deep/p.json")).unwrap()).unwrap();
    assert_eq!(written["model"]["path"], "../../models/a.vrm", "{written}");

    // Move the folder; open the project from elsewhere (the library API, as the window
    // and the CLI do).
    let moved = dir.join("moved");
    std::fs::rename(&work, &moved).unwrap();
    let file = moved.join("out/deep/p.json");
    let opened =
        vrma_maker::core::animation::project::Project::load(&file, &mut Vec::new()).unwrap();
    let model = opened.resolved_model_path(&file).unwrap();
    assert_eq!(model, moved.join("models/a.vrm"));
    assert!(vrma_maker::core::body::rig::load_rig(&model).is_ok());
    // Saved again from there, it still points at the model beside it.
    let again = moved.join("again.json");
    vrma_maker::core::animation::project::Project {
        model_path: Some(model),
        ..opened
    }
    .save(&again)
    .unwrap();
    let again: serde_json::Value = serde_json::from_slice(&std::fs::read(&again).unwrap()).unwrap();
    assert_eq!(again["model"]["path"], "models/a.vrm");
}
