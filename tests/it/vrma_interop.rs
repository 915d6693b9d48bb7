//! Our VRMA played by the real thing: @pixiv/three-vrm-animation under Node, on the
//! mannequin (1.0 and 0.x) and every fixture model, compared with `vrma-maker sample` at
//! every exported frame (0.086°, the reduction's tolerance / 0.001 m / 0.002 everywhere, 0.01° at key times); every
//! file passes the Khronos validator. And importing the real .vrma fixtures gives what
//! three-vrm plays from them.

use std::path::Path;

use crate::common::*;
use bevy::math::Quat;
use serde_json::Value;

fn quat(v: &Value) -> Quat {
    Quat::from_array([0, 1, 2, 3].map(|i| v[i].as_f64().unwrap() as f32))
}

fn angle_deg(a: Quat, b: Quat) -> f64 {
    (vrma_maker::core::body::math::angle_between(a.normalize(), b.normalize()) as f64).to_degrees()
}

/// Compares three-vrm's playback with our samples at the same times.
fn compare(
    label: &str,
    played: &Value,
    ours: &Value,
    key_times: &[f64],
    tolerance_deg: f64,
    check_expressions: bool,
) {
    let samples = played["samples"].as_array().unwrap();
    let ours = ours.as_array().unwrap();
    assert_eq!(samples.len(), ours.len(), "{label}");
    let mut worst = 0.0f64;
    for (p, o) in samples.iter().zip(ours) {
        let t = o["t"].as_f64().unwrap();
        let at_key = key_times.iter().any(|k| (k - t).abs() < 1e-4);
        let limit = if at_key { 0.01 } else { tolerance_deg };
        for (bone, q) in p["bones"].as_object().unwrap() {
            if bone == "leftEye" || bone == "rightEye" {
                continue;
            }
            let expected = o["pose"]["bones"].get(bone).map_or(Quat::IDENTITY, quat);
            let d = angle_deg(quat(q), expected);
            worst = worst.max(d);
            assert!(
                d <= limit,
                "{label}: t={t} {bone}: three-vrm {q} vs ours {expected} ({d:.4}°, limit {limit}°)"
            );
        }
        for i in 0..3 {
            let d = (p["hips"][i].as_f64().unwrap() - o["pose"]["hips"][i].as_f64().unwrap()).abs();
            assert!(d <= 0.001, "{label}: t={t} hips[{i}] differs by {d}");
        }
        if check_expressions {
            for (name, w) in p["expr"].as_object().unwrap() {
                let expected = o["pose"]["expr"]
                    .get(name)
                    .and_then(Value::as_f64)
                    .unwrap_or(0.0);
                // Ours are clamped to [0, 1] (SPEC §4); three-vrm reports the raw clip value.
                let d = (w.as_f64().unwrap().clamp(0.0, 1.0) - expected).abs();
                assert!(
                    d <= 0.002,
                    "{label}: t={t} expression {name}: three-vrm {w} vs ours {expected}"
                );
            }
        }
    }
    eprintln!(
        "{label}: worst rotation difference {worst:.5}° over {} samples",
        samples.len()
    );
}

fn sample(model: &Path, project: &Path, times: &[f64]) -> Value {
    sample_project(model, project, times, &[])
}

#[test]
fn exported_vrma_plays_in_three_vrm_as_authored() {
    if !required_or_skip("Node harness (tests/node/node_modules)", node_ready()) {
        return;
    }
    let dir = scratch("vrma-interop");
    let (v1, v0) = mannequins(&dir);
    let mut models = vec![v1, v0];
    models.extend(fixture_models());
    for model in &models {
        let name = model.file_name().unwrap().to_string_lossy().to_string();
        let project = dir.join(format!("{name}.json"));
        let anim = dir.join(format!("{name}.vrma"));
        let stats = export_rich_animation(model, &project, &anim);
        let validated = node("validate.mjs", &[&anim]);
        assert!(
            validated.status.success(),
            "{name}: validator: {}",
            String::from_utf8_lossy(&validated.stdout)
        );

        let frames = stats["frames"].as_u64().unwrap() as usize;
        let duration = stats["duration"].as_f64().unwrap();
        // Every exported frame; the last is played (and sampled) just before the end,
        // where three.js does not wrap a looping clip back to the start.
        let times: Vec<f64> = (0..frames)
            .map(|f| (f as f64 / 30.0).min(duration - 1e-4))
            .collect();
        let played = play_vrma(model, &anim, &serde_json::to_string(&times).unwrap());
        let ours = sample(model, &project, &times);
        let keys: Vec<f64> = rich_project(model)["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["t"].as_f64().unwrap())
            .collect();
        // The reduction's own tolerance, as three-vrm plays the file.
        let tolerance =
            (vrma_maker::core::formats::vrma::reduce::ROTATION_TOLERANCE as f64).to_degrees();
        compare(
            &name,
            &played,
            &ours,
            &keys[..keys.len() - 1],
            tolerance,
            true,
        );
    }
}

#[test]
fn importing_real_vrma_files_gives_what_three_vrm_plays() {
    if !required_or_skip("Node harness (tests/node/node_modules)", node_ready()) {
        return;
    }
    let Some(fixtures) = fixtures() else {
        required_or_skip("../shared/fixtures", false);
        return;
    };
    let dir = scratch("vrma-import-fixtures");
    let mut anims: Vec<_> = std::fs::read_dir(fixtures.join("vrma"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    anims.sort();
    assert!(!anims.is_empty());
    for model in fixture_models() {
        for anim in &anims {
            let label = format!(
                "{} on {}",
                anim.file_name().unwrap().to_string_lossy(),
                model.file_name().unwrap().to_string_lossy()
            );
            let project = dir.join("imported.json");
            let imported = import_anim(&model, anim, &project);
            let saved: Value = serde_json::from_slice(&std::fs::read(&project).unwrap()).unwrap();
            let key_times: Vec<f64> = saved["keys"]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| k["t"].as_f64().unwrap())
                .collect();
            assert_eq!(key_times.len() as u64, imported["keys"].as_u64().unwrap());
            // Compare at our keys (at most 200 of them, spread over the clip).
            let step = key_times.len().div_ceil(200).max(1);
            let duration = play_vrma(&model, anim, "[0]")["duration"].as_f64().unwrap();
            let times: Vec<f64> = key_times
                .iter()
                .step_by(step)
                .map(|t| {
                    if duration > 0.0 {
                        t.min(duration - 1e-4)
                    } else {
                        0.0
                    }
                })
                .collect();
            let played = play_vrma(&model, anim, &serde_json::to_string(&times).unwrap());
            let ours = sample(&model, &project, &times);
            compare(&label, &played, &ours, &[], 0.1, true);
        }
    }
}
