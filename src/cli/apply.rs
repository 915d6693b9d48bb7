//! `vrma-maker apply --model M [--project P] --script S.json [-o OUT.json]`: run an edit
//! script through the editor's own edit path and print `{pose, keys, world, selection, plants}` (the selection as key times). With `-o`
//! the resulting project (pose, keys, playhead, settings) is saved there.

use std::path::Path;

use serde_json::{Value, json};

use crate::core::Refusal;
use crate::core::animation::edit::parse_script;

pub fn run(
    model: &Path,
    project: Option<&Path>,
    script: &Path,
    output: Option<&Path>,
) -> Result<Value, Refusal> {
    let mut editor = super::open_editor(model, project)?;
    let steps =
        parse_script(&super::read_json(script)?).map_err(|e| e.context(script.display()))?;
    for (i, step) in steps.into_iter().enumerate() {
        editor
            .apply(step)
            .map_err(|e| e.context(format!("{}: step {}", script.display(), i + 1)))?;
    }
    if let Some(out) = output {
        editor.project(Some(model.to_path_buf())).save(out)?;
    }
    let title = &editor.rig.model.title;
    let keys: Vec<Value> = editor.timeline.keys().iter().map(|k| k.to_json()).collect();
    let selected: std::collections::HashSet<u64> = editor.selection.iter().copied().collect();
    let selection: Vec<Value> = editor
        .timeline
        .keys()
        .iter()
        .filter(|k| selected.contains(&k.id))
        .map(|k| json!(k.t))
        .collect();
    let plants = crate::core::animation::timeline::Plant::list_json(editor.timeline.plants());
    Ok(
        json!({"pose": editor.pose.to_json(title), "keys": keys, "world": editor.world_json(),
              "selection": selection, "plants": plants}),
    )
}
