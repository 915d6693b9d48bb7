//! `vrma-maker import-anim --model M --anim A.vrma|A.glb -o PROJECT.json [--rate N]`:
//! an animation as editable keys, retargeted onto the model (SPEC §11).

use std::path::Path;

use serde_json::{Value, json};

use crate::core::Refusal;
use crate::core::animation::edit::Editor;
use crate::core::animation::project::Project;
use crate::core::formats::vrma::import::{AnimationKind, import_animation, read_animation_file};

pub fn run(model: &Path, anim: &Path, output: &Path, rate: Option<f32>) -> Result<Value, Refusal> {
    let rig = crate::core::body::rig::load_rig(model)?;
    let (bytes, external) = read_animation_file(anim)?;
    let imported = import_animation(
        &bytes,
        &external,
        AnimationKind::from_path(anim),
        rig.hips_rest(),
        rate,
    )
    .map_err(|e| e.context(anim.display()))?;
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
    Ok(json!({
        "output": output.display().to_string(),
        "keys": project.timeline.keys().len(),
        "source_keyframe_times": imported.source_times,
        "duration": imported.duration,
        "restored": imported.fps.is_some(),
        "plants": project.timeline.plants().len(),
        "warnings": warnings,
    }))
}
