//! File ▸ Export: every entry of the export table (`core::export`) as a job with a
//! progress bar: core-made files on a worker thread, stills through the renderer; and
//! File ▸ Import animation… (keys replace the timeline as one undoable edit).

use std::path::{Path, PathBuf};

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use crate::app::session::{
    Banner, EditRequest, EditorSet, FileSettings, Job, KeepAwake, Progress, RenderStill, Session,
    StillRequest,
};
use crate::core::edit::KeyEdit;
use crate::core::export::{ExportKind, ExportWork, Writer, with_extension, write_file};
use crate::core::vrma::import::{AnimationKind, import_animation, read_animation_file};

/// The running export: what it is, how far it got, and its result.
struct Running {
    label: String,
    progress: Progress,
    job: Job<Result<String, String>>,
}

#[derive(Resource, Default)]
struct ExportJob(Option<Running>);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<ExportJob>()
        .add_systems(Update, follow_export.in_set(EditorSet::Drive));
}

/// Starting exports (for the dialog's answers).
#[derive(SystemParam)]
pub(super) struct Exports<'w> {
    job: ResMut<'w, ExportJob>,
    stills: MessageWriter<'w, RenderStill>,
}

impl Exports<'_> {
    /// Starts exporting the session's work as `kind` to `path` (its extension forced).
    pub(super) fn start(
        &mut self,
        kind: ExportKind,
        session: &Session,
        settings: &FileSettings,
        path: PathBuf,
        banner: &mut Banner,
    ) {
        let format = kind.format();
        match format.writer {
            Writer::Render => {
                self.stills.write(RenderStill(StillRequest {
                    size: settings.png.size,
                    view: settings.png.view,
                    output: with_extension(&path, format.extension),
                }));
                banner.notice = Some("Rendering the PNG…".into());
            }
            Writer::Core(_) => {
                if self.job.0.is_some() {
                    banner.error("An export is already running");
                    return;
                }
                let work = ExportWork::of(&session.editor);
                let progress = Progress::default();
                let report = progress.clone();
                let job = Job::spawn("export", move || {
                    write_file(format, &work, &path, &mut |p| report.set(p))
                        .map(|(path, written)| {
                            format!("Exported {} ({})", path.display(), written.summary)
                        })
                        .map_err(|e| e.to_string())
                });
                self.job.0 = Some(Running {
                    label: format!("Exporting {}", format.extension.to_uppercase()),
                    progress,
                    job,
                });
            }
        }
    }
}

/// Shows the running export's progress and, when it ends, its result.
fn follow_export(
    mut job: ResMut<ExportJob>,
    mut banner: ResMut<Banner>,
    mut awake: ResMut<KeepAwake>,
) {
    let Some(running) = &job.0 else { return };
    awake.now();
    match running.job.take() {
        None => banner.bar = Some((running.label.clone(), running.progress.get())),
        Some(result) => {
            match result.and_then(|r| r) {
                Ok(message) => banner.notice = Some(message),
                Err(e) => banner.error(e),
            }
            banner.bar = None;
            job.0 = None;
        }
    }
}

/// Imports an animation file as the timeline's keys (one undoable edit).
pub(super) fn import_file(
    path: &Path,
    session: &Session,
    rate: Option<f32>,
    edits: &mut MessageWriter<EditRequest>,
    banner: &mut Banner,
) {
    let result = read_animation_file(path).and_then(|(bytes, external)| {
        import_animation(
            &bytes,
            &external,
            AnimationKind::from_path(path),
            session.editor.rig.hips_rest(),
            rate,
        )
        .map_err(|e| e.context(path.display()))
    });
    match result {
        Ok(imported) => {
            let keys = imported.timeline.keys().len();
            edits.write(EditRequest::new(KeyEdit::Replace(Box::new(
                imported.timeline,
            ))));
            let mut notice = format!("Imported {keys} keys from {}", path.display());
            if !imported.warnings.is_empty() {
                notice.push_str(&format!(" (warnings: {})", imported.warnings.join("; ")));
            }
            banner.notice = Some(notice);
        }
        Err(e) => banner.error(format!("Cannot import: {e}")),
    }
}
