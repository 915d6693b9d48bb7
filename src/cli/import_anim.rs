//! `vrma-maker import-anim --model M --anim A.vrma|A.glb|A.bvh|A.fbx|A.vmd -o PROJECT.json
//! [--keys reduced|every-frame] [--tolerance DEG[,MM]] [--map MAP.json] [--from S --to S]
//! [--rate N]`: an animation as editable keys, retargeted onto the model (SPEC §11).

use std::path::Path;

use serde_json::{Value, json};

use crate::core::Refusal;
use crate::core::animation::edit::Editor;
use crate::core::animation::project::Project;
use crate::core::formats::table::{ImportOptions, import_file};

pub fn run(
    model: &Path,
    anim: &Path,
    output: &Path,
    options: &ImportOptions,
) -> Result<Value, Refusal> {
    let rig = crate::core::body::rig::load_rig(model)?;
    let imported = import_file(anim, &rig, options)?;
    let mut warnings = imported.warnings.clone();
    let project = Project {
        model_path: Some(model.to_path_buf()),
        model_title: rig.model.title.clone(),
        settings: crate::core::animation::project::Settings {
            length: imported.duration.max(1.0 / 30.0),
            fps: imported
                .fps
                .unwrap_or(crate::core::animation::timeline::FPS),
            ..Default::default()
        },
        timeline: imported.timeline,
        ..Default::default()
    };
    // Drop expressions the model lacks (with warnings), as opening the project would.
    let editor = Editor::with_project(rig, project, &mut warnings);
    let project = editor.project(Some(model.to_path_buf()));
    project.save(output)?;
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    let mut facts = json!({
        "output": output.display().to_string(),
        "keys": project.timeline.keys().len(),
        "source_keyframe_times": imported.source_times,
        "duration": imported.duration,
        "restored": imported.fps.is_some(),
        "plants": project.timeline.plants().len(),
        "warnings": warnings,
    });
    if let Some(report) = &imported.mapping {
        facts["mapping"] = json!({
            "mapped": report.mapped.iter().map(|(b, j)| json!({"bone": b, "joint": j})).collect::<Vec<_>>(),
            "unused_joints": report.unused,
            "missing_bones": report.missing,
        });
    }
    Ok(facts)
}

/// `--tolerance 1` (degrees) or `--tolerance 1,5` (degrees, millimetres).
pub fn parse_tolerance(text: &str) -> Result<(f32, f32), String> {
    let mut parts = text.split(',');
    let number = |part: Option<&str>, what: &str, default: f32| -> Result<f32, String> {
        match part.map(str::trim) {
            None => Ok(default),
            Some(p) => p
                .parse::<f32>()
                .ok()
                .filter(|v| v.is_finite() && *v > 0.0 && *v <= 90.0)
                .ok_or_else(|| format!("'{p}' is not a {what} from 0 to 90")),
        }
    };
    let degrees = number(parts.next(), "number of degrees", 1.0)?;
    let millimetres = number(parts.next(), "number of millimetres", 5.0)?;
    if parts.next().is_some() {
        return Err("expected DEGREES or DEGREES,MILLIMETRES".into());
    }
    Ok((degrees, millimetres))
}
