//! Atomic saves under SIGKILL (issue 8): processes writing a project are killed at
//! random moments, 200 times; the file on disk is always a complete old or new version.

mod common;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};

#[test]
fn a_killed_save_leaves_the_old_or_the_new_file_never_a_broken_one() {
    let dir = scratch("kill-saves");
    let (model, _) = mannequins(&dir);
    let out = dir.join("project.json");
    // Two versions that differ everywhere: 40 keys of different poses.
    let scripts: Vec<std::path::PathBuf> = (0..2)
        .map(|v| {
            let mut steps = Vec::new();
            for k in 0..40 {
                let a = (k as f32 * 0.1 + v as f32) * 0.5;
                steps.push(json!({"op": "seek", "t": k as f32 / 10.0}));
                steps.push(
                    json!({"op": "rotate", "bone": "spine", "quat": [0.0, a.sin(), 0.0, a.cos()]}),
                );
                steps.push(json!({"op": "key"}));
            }
            let path = dir.join(format!("script{v}.json"));
            std::fs::write(&path, Value::Array(steps).to_string()).unwrap();
            path
        })
        .collect();
    let versions: Vec<Value> = scripts
        .iter()
        .map(|s| {
            let tmp = dir.join("reference.json");
            assert!(
                run(&[
                    "apply",
                    "--model",
                    model.to_str().unwrap(),
                    "--script",
                    s.to_str().unwrap(),
                    "-o",
                    tmp.to_str().unwrap()
                ])
                .status
                .success()
            );
            serde_json::from_slice(&std::fs::read(&tmp).unwrap()).unwrap()
        })
        .collect();
    std::fs::write(&out, versions[0].to_string()).unwrap();
    let mut seed = 0x2545_f491_u64;
    let mut killed_mid_run = 0;
    for i in 0..200 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut child = bin()
            .args([
                "apply",
                "--model",
                model.to_str().unwrap(),
                "--script",
                scripts[i % 2].to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(seed % 40_000));
        if child.try_wait().unwrap().is_none() {
            killed_mid_run += 1;
        }
        let _ = child.kill(); // SIGKILL
        child.wait().unwrap();
        let on_disk: Value = serde_json::from_slice(&std::fs::read(&out).unwrap())
            .unwrap_or_else(|e| panic!("kill {i}: broken file: {e}"));
        assert!(
            versions.contains(&on_disk),
            "kill {i}: the file is neither the old nor the new version"
        );
    }
    assert!(
        killed_mid_run >= 50,
        "most kills must land while the process runs ({killed_mid_run})"
    );
}
