//! `vrma-maker export-vrma --model M --project P -o OUT.vrma`: the timeline as a VRM
//! Animation (SPEC §7); `export-anim … -o OUT.vrma|OUT.bvh` in the format the name
//! says. Both go through the export table File ▸ Export uses and print what was written.

use std::path::Path;

use serde_json::Value;

use crate::core::Refusal;
use crate::core::formats::bvh::write::BvhUnit;
use crate::core::formats::table::{ExportKind, ExportWork, export_format_for, write_file};

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

pub fn run_any(
    model: &Path,
    project: &Path,
    output: &Path,
    unit: &str,
    skeleton_only: bool,
) -> Result<Value, Refusal> {
    let format = export_format_for(output).ok_or_else(|| {
        Refusal::new(format!(
            "{}: the name must end in .vrma, .bvh or .glb to say the format",
            output.display()
        ))
    })?;
    let editor = super::open_editor(model, Some(project))?;
    let mut work = ExportWork::of(&editor);
    work.bvh_unit = BvhUnit::from_name(unit).unwrap_or_default();
    work.model_file = Some(model.to_path_buf());
    work.skeleton_only = skeleton_only;
    let (_, written) = write_file(format, &work, output, &mut |_| {})?;
    Ok(written.facts)
}
