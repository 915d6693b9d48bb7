//! `vrma-maker export-vrma --model M --project P -o OUT.vrma`: the timeline as a VRM
//! Animation (SPEC §7), through the export table File ▸ Export uses. Prints what was
//! written.

use std::path::Path;

use serde_json::Value;

use crate::core::Refusal;
use crate::core::formats::table::{ExportKind, ExportWork, write_file};

pub fn run(model: &Path, project: &Path, output: &Path) -> Result<Value, Refusal> {
    let editor = super::open_editor(model, Some(project))?;
    let (_, written) = write_file(
        ExportKind::Vrma.format(),
        &ExportWork::of(&editor),
        output,
        &mut |_| {},
    )?;
    Ok(written.facts)
}
