//! `vrma-maker export-vrma --model M --project P -o OUT.vrma`: the timeline as a VRM
//! Animation (SPEC §7). Prints what was written.

use std::path::Path;

use serde_json::{Value, json};

use crate::core::vrma::export::export_vrma;
use crate::core::{Refusal, write_atomic};

pub fn run(model: &Path, project: &Path, output: &Path) -> Result<Value, Refusal> {
    let editor = super::open_editor(model, Some(project))?;
    let (bytes, stats) = export_vrma(&editor.rig, &editor.timeline, &editor.pose, &mut |_| {});
    write_atomic(output, &bytes)
        .map_err(|e| Refusal::new(format!("cannot write {}: {e}", output.display())))?;
    Ok(json!({
        "output": output.display().to_string(),
        "bytes": bytes.len(),
        "duration": stats.duration,
        "frames": stats.frames,
        "tracks": stats.tracks,
        "keyframes": stats.written_keys,
        "naive_keyframes": stats.naive_keys,
    }))
}
