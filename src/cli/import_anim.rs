//! `vrma-maker import-anim --model M --anim A.vrma|A.glb -o PROJECT.json [--rate N]`:
//! an animation as editable keys, retargeted onto the model (SPEC §11).

use std::path::Path;

use serde_json::{Value, json};

use crate::core::LoadError;
use crate::core::edit::Editor;
use crate::core::project::Project;
use crate::core::vrma::import::{AnimationKind, import_animation};

/// Reads an animation file and the external buffers a .gltf names beside it.
pub fn read_animation(path: &Path) -> Result<(Vec<u8>, Vec<Vec<u8>>), LoadError> {
    let bytes = std::fs::read(path)
        .map_err(|e| LoadError::new(format!("cannot read {}: {e}", path.display())))?;
    let mut external = Vec::new();
    if bytes.iter().copied().find(|b| !b.is_ascii_whitespace()) == Some(b'{') {
        let root: Value = serde_json::from_slice(&bytes).map_err(|e| {
            LoadError::new(format!("{}: the glTF JSON is invalid: {e}", path.display()))
        })?;
        for buffer in root
            .get("buffers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(uri) = buffer.get("uri").and_then(Value::as_str) else {
                continue;
            };
            if uri.starts_with("data:") || uri.contains("://") || uri.contains("..") {
                return Err(LoadError::new(format!(
                    "{}: buffer '{uri}' cannot be read (use a .glb)",
                    path.display()
                )));
            }
            let file = path.parent().unwrap_or(Path::new(".")).join(uri);
            external.push(
                std::fs::read(&file)
                    .map_err(|e| LoadError::new(format!("cannot read {}: {e}", file.display())))?,
            );
        }
    }
    Ok((bytes, external))
}

pub fn run(
    model: &Path,
    anim: &Path,
    output: &Path,
    rate: Option<f32>,
) -> Result<Value, LoadError> {
    let rig = crate::core::load_rig(model)?;
    let (bytes, external) = read_animation(anim)?;
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
        settings: crate::core::project::Settings {
            length: imported.duration.max(1.0 / 30.0),
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
        "warnings": warnings,
    }))
}
