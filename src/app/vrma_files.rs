//! File ▸ Export VRMA… (on a worker thread, with a progress bar) and File ▸ Import
//! animation… (keys replace the timeline as one undoable edit).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};

use bevy::prelude::*;

use super::session::{Banner, EditRequest, Session};
use crate::core::edit::{Edit, Gesture, KeyEdit, PoseEdit};
use crate::core::vrma::export::export_vrma;
use crate::core::vrma::import::{AnimationKind, import_animation};

/// A running export: progress in thousandths, and its result.
#[derive(Resource, Default)]
pub struct ExportJob {
    progress: Arc<AtomicU32>,
    result: Option<Mutex<Receiver<Result<String, String>>>>,
}

impl ExportJob {
    /// `Some(0..=1)` while an export runs.
    pub fn progress(&self) -> Option<f32> {
        self.result
            .as_ref()
            .map(|_| self.progress.load(Ordering::Relaxed) as f32 / 1000.0)
    }
}

pub fn plugin(app: &mut App) {
    app.init_resource::<ExportJob>()
        .add_systems(Update, finish_export);
}

/// Starts exporting the session's timeline to `path` on a worker thread.
pub fn start_export(job: &mut ExportJob, session: &Session, path: PathBuf, banner: &mut Banner) {
    if job.result.is_some() {
        banner.error("An export is already running");
        return;
    }
    let path = if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("vrma"))
    {
        path
    } else {
        path.with_extension("vrma")
    };
    let rig = session.editor.rig.clone();
    let timeline = session.editor.timeline.clone();
    let still = session.editor.pose.clone();
    let progress = Arc::new(AtomicU32::new(0));
    let (sender, receiver) = channel();
    job.progress = progress.clone();
    job.result = Some(Mutex::new(receiver));
    std::thread::spawn(move || {
        let (bytes, stats) = export_vrma(&rig, &timeline, &still, &mut |p| {
            progress.store((p * 1000.0) as u32, Ordering::Relaxed)
        });
        let result = crate::core::write_atomic(&path, &bytes)
            .map(|()| {
                format!(
                    "Exported {} ({:.2} s, {} keyframes instead of {})",
                    path.display(),
                    stats.duration,
                    stats.written_keys,
                    stats.naive_keys
                )
            })
            .map_err(|e| format!("Cannot write {}: {e}", path.display()));
        let _ = sender.send(result);
    });
}

fn finish_export(mut job: ResMut<ExportJob>, mut banner: ResMut<Banner>) {
    let Some(receiver) = &job.result else { return };
    let answer = receiver.lock().ok().and_then(|r| r.try_recv().ok());
    if let Some(result) = answer {
        match result {
            Ok(message) => banner.notice = Some(message),
            Err(e) => banner.error(e),
        }
        job.result = None;
    }
}

/// Imports an animation file as the timeline's keys (one undoable edit).
pub fn import_file(
    path: &Path,
    session: &Session,
    rate: Option<f32>,
    edits: &mut MessageWriter<EditRequest>,
    banner: &mut Banner,
) {
    let result =
        crate::core::vrma::import::read_animation_file(path).and_then(|(bytes, external)| {
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
            edits.write(EditRequest(Edit::Keys(KeyEdit::Replace(Box::new(
                imported.timeline,
            )))));
            let mut notice = format!("Imported {keys} keys from {}", path.display());
            if !imported.warnings.is_empty() {
                notice.push_str(&format!(" (warnings: {})", imported.warnings.join("; ")));
            }
            banner.notice = Some(notice);
        }
        Err(e) => banner.error(format!("Cannot import: {e}")),
    }
}
