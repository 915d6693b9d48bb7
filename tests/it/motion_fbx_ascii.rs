//! ASCII FBX: Blender's FBX files (whose accuracy against Blender `motion_capture`
//! checks) rewritten as ASCII by `tests/blender/fbx_to_ascii.py` — the same node tree,
//! value for value, since no outside tool here writes ASCII FBX faithfully — must import
//! to exactly the keys of their binary originals.

use std::process::Command;

use serde_json::Value;

use crate::common::*;
use crate::motion_capture::{blender, blender_file};

/// Every number in a JSON value, in order.
fn numbers(value: &Value, out: &mut Vec<f64>) {
    match value {
        Value::Number(n) => out.push(n.as_f64().unwrap()),
        Value::Array(items) => items.iter().for_each(|v| numbers(v, out)),
        Value::Object(fields) => fields.values().for_each(|v| numbers(v, out)),
        _ => {}
    }
}

#[test]
fn ascii_fbx_imports_exactly_as_its_binary_original() {
    let Some(python) = blender() else { return };
    let work = scratch("motion-fbx-ascii");
    let (vrm1, _) = mannequins(&work);
    for variant in ["mixamo_t_m", "blender_a_cm_rolled"] {
        let Some(binary) = blender_file(&format!("{variant}.fbx")) else {
            return;
        };
        let ascii = work.join(format!("{variant} ascii.fbx"));
        let out = Command::new(&python)
            .arg(repo().join("tests/blender/fbx_to_ascii.py"))
            .args([&binary, &ascii])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&ascii).expect("ASCII text");
        assert!(text.starts_with("; FBX 7.4.0 project file") && text.contains("AnimationCurve: "));
        let keys = |file: &std::path::Path, name: &str| {
            let project = work.join(format!("{variant} {name}.json"));
            let facts = json_stdout(&run(&[
                "import-anim",
                "--model",
                vrm1.to_str().unwrap(),
                "--anim",
                file.to_str().unwrap(),
                "-o",
                project.to_str().unwrap(),
                "--keys",
                "every-frame",
            ]));
            let project: Value = serde_json::from_slice(&std::fs::read(&project).unwrap()).unwrap();
            (
                facts["mapping"]["mapped"].as_array().unwrap().len(),
                project["keys"].clone(),
            )
        };
        let (mapped_binary, from_binary) = keys(&binary, "binary");
        let (mapped_ascii, from_ascii) = keys(&ascii, "ascii");
        assert!(
            mapped_binary > 20 && mapped_ascii == mapped_binary,
            "{variant}"
        );
        let (mut a, mut b) = (Vec::new(), Vec::new());
        numbers(&from_binary, &mut a);
        numbers(&from_ascii, &mut b);
        assert!(
            a.len() > 1000 && a.len() == b.len(),
            "{variant}: {} vs {}",
            a.len(),
            b.len()
        );
        let worst = a
            .iter()
            .zip(&b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max);
        assert!(
            worst < 1e-6,
            "{variant}: ASCII and binary keys differ by {worst}"
        );
    }
}
