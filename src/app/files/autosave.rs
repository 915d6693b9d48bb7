//! Never lose work (issue 8): the open work is written to a recovery file 2 s after the
//! last change, and at least every 60 s while changes keep coming; a successful save
//! (or discarding on quit) removes it. After a crash the next start offers it back.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::app::session::{
    Banner, EditorSet, KeepAwake, Launch, LoadModel, ModelSource, SaveRecoveryNow, Session,
    StartupSet, UiLayout,
};
use crate::core::recovery::{self, Recovery, now_secs, recovery_path};

/// Seconds of quiet after a change before autosaving.
const DEBOUNCE_SECS: f64 = 2.0;
/// Longest time unsaved changes go without an autosave.
const MAX_INTERVAL_SECS: f64 = 60.0;

#[derive(Resource)]
struct Autosave {
    path: PathBuf,
    seen_revision: u64,
    written_revision: u64,
    last_change: f64,
    /// When the oldest change not yet autosaved happened.
    unsaved_since: Option<f64>,
    /// A recovery file found at start, waiting for the user's answer.
    offer: Option<Recovery>,
}

pub(super) fn plugin(app: &mut App) {
    app.insert_resource(Autosave {
        path: recovery_path(),
        seen_revision: 0,
        written_revision: 0,
        last_change: 0.0,
        unsaved_since: None,
        offer: None,
    })
    .add_systems(Startup, look_for_recovery.in_set(StartupSet::Recover))
    .add_systems(Update, autosave.in_set(EditorSet::Drive));
}

/// The "Recover unsaved work?" window.
pub(super) fn offer_plugin(app: &mut App) {
    app.add_systems(
        EguiPrimaryContextPass,
        offer_recovery.in_set(UiLayout::Windows),
    );
}

fn look_for_recovery(
    mut autosave: ResMut<Autosave>,
    mut banner: ResMut<Banner>,
    launch: Res<Launch>,
    mut loads: MessageWriter<LoadModel>,
) {
    match recovery::read(&autosave.path) {
        Ok(Some(found)) => {
            if launch.recover {
                loads.write(LoadModel(ModelSource::Recovered(autosave.path.clone())));
            } else {
                autosave.offer = Some(found);
            }
        }
        Ok(None) => {}
        Err(e) => banner.error(format!(
            "The recovery file could not be read (kept as it is): {e}"
        )),
    }
}

fn autosave(
    time: Res<Time<Real>>,
    session: Res<Session>,
    mut autosave: ResMut<Autosave>,
    mut banner: ResMut<Banner>,
    mut save_now: MessageReader<SaveRecoveryNow>,
    mut awake: ResMut<KeepAwake>,
) {
    let now = time.elapsed_secs_f64();
    let urgent = save_now.read().count() > 0;
    let editor = &session.editor;
    if editor.revision != autosave.seen_revision {
        autosave.seen_revision = editor.revision;
        autosave.last_change = now;
        autosave.unsaved_since.get_or_insert(now);
    }
    // Never overwrite work that is still waiting to be recovered.
    if autosave.offer.is_some() || !editor.dirty || autosave.written_revision == editor.revision {
        return;
    }
    // Unsaved work waits for its autosave: keep the frames coming until it is written.
    awake.now();
    let quiet = now - autosave.last_change >= DEBOUNCE_SECS;
    let overdue = autosave
        .unsaved_since
        .is_some_and(|t| now - t >= MAX_INTERVAL_SECS);
    if !(quiet || overdue || urgent) {
        return;
    }
    let model = session
        .model_path
        .as_ref()
        .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()));
    let project_path = session
        .project_path
        .as_ref()
        .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()));
    match recovery::write(
        &autosave.path,
        &editor.project(model),
        project_path.as_deref(),
    ) {
        Ok(()) => {
            autosave.written_revision = editor.revision;
            autosave.unsaved_since = None;
            debug!("autosaved to {}", autosave.path.display());
        }
        Err(e) => {
            autosave.unsaved_since = Some(now); // retry at the next interval, not every frame
            autosave.last_change = now;
            banner.error(format!("Autosave failed: {e}"));
        }
    }
}

fn offer_recovery(
    mut contexts: EguiContexts,
    mut autosave: ResMut<Autosave>,
    mut loads: MessageWriter<LoadModel>,
) -> Result {
    let Some(offer) = autosave.offer.as_ref() else {
        return Ok(());
    };
    let minutes = now_secs().saturating_sub(offer.saved_at) / 60;
    let when = match minutes {
        0 => "less than a minute ago".to_string(),
        1 => "1 minute ago".to_string(),
        m if m < 120 => format!("{m} minutes ago"),
        m => format!("{} hours ago", m / 60),
    };
    let name = offer
        .project_path
        .as_ref()
        .and_then(|p| p.file_name())
        .map_or("an unsaved project".to_string(), |n| {
            n.to_string_lossy().into_owned()
        });
    let keys = offer.project.timeline.keys().len();
    let ctx = contexts.ctx_mut()?;
    let mut answer = None;
    egui::Window::new("Recover unsaved work?")
        .collapsible(false)
        .resizable(false)
        .anchor(egui::Align2::CENTER_CENTER, egui::vec2(0.0, 0.0))
        .show(ctx, |ui| {
            ui.label(format!(
                "Unsaved work on {name} ({keys} keys) was kept from {when}. Recover it?"
            ));
            ui.horizontal(|ui| {
                if ui.button("Recover").clicked() {
                    answer = Some(true);
                }
                if ui.button("Not now (keep it until the next save)").clicked() {
                    answer = Some(false);
                }
            });
        });
    match answer {
        Some(true) => {
            loads.write(LoadModel(ModelSource::Recovered(autosave.path.clone())));
            autosave.offer = None;
        }
        Some(false) => autosave.offer = None,
        None => {}
    }
    Ok(())
}
