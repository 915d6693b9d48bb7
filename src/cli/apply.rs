//! `vrma-maker apply --model M --script S.json [-o OUT.json]`: run an edit script
//! through the editor's own edit path and print `{pose, keys, world}`.

use std::path::Path;

use serde_json::{Value, json};

use crate::core::edit::{Editor, parse_script};
use crate::core::{LoadError, load_rig, write_atomic};

pub fn run(model: &Path, script: &Path, output: Option<&Path>) -> Result<Value, LoadError> {
    let rig = load_rig(model)?;
    let steps =
        parse_script(&super::read_json(script)?).map_err(|e| e.context(script.display()))?;
    let mut editor = Editor::new(rig);
    for (i, step) in steps.into_iter().enumerate() {
        editor
            .apply(step)
            .map_err(|e| e.context(format!("{}: step {}", script.display(), i + 1)))?;
    }
    let pose = editor.pose.to_json(&editor.rig.model.title);
    if let Some(out) = output {
        let text = serde_json::to_vec_pretty(&pose).expect("JSON serialises");
        write_atomic(out, &text)
            .map_err(|e| LoadError::new(format!("cannot write {}: {e}", out.display())))?;
    }
    // Keys arrive with the timeline; until then a script edits the pose alone.
    Ok(json!({"pose": pose, "keys": [], "world": editor.world_json()}))
}
