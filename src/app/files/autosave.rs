//! Never lose work (issues 8 and 15): the open work is written to this instance's own
//! recovery file 2 s after the last change, and at least every 60 s while changes keep
//! coming; a successful save (or discarding on quit) removes it. Each running instance
//! holds a lock beside its file, so two windows never touch each other's; at start the
//! files whose owner is gone are offered back, one at a time, and one is removed only
//! once its work is safe in this instance (recovered and autosaved, or saved).

use std::path::PathBuf;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::app::session::{
    AvatarShown, Banner, EditorSet, Job, KeepAwake, Launch, LoadModel, ModelSource, OpenFailed,
    SaveRecoveryNow, Session, StartupSet, UiLayout,
};
use crate::core::Refusal;
use crate::core::recovery::{self, Claim, Recovery, now_secs};
use crate::tr;

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
    /// Recovery files of instances that are gone, waiting for the user's answer (the
    /// first is the one offered).
    offers: Vec<(Claim, Recovery)>,
    /// The one being recovered: removed once its work is safe here, offered again if it
    /// cannot be opened.
    adopting: Option<(Claim, Recovery)>,
    /// The recovered work is on screen.
    adopted: bool,
    /// The autosave being written on a worker thread, and the revision it holds: a
    /// 100,000-key project takes a while to serialise and fsync, and the window must not
    /// stall for it.
    writing: Option<(u64, Job<Result<(), Refusal>>)>,
    /// An urgent autosave asked for while another was being written.
    urgent_pending: bool,
}

pub(super) fn plugin(app: &mut App) {
    app.insert_resource(Autosave {
        path: recovery::own_path(),
        seen_revision: 0,
        written_revision: 0,
        last_change: 0.0,
        unsaved_since: None,
        offers: Vec::new(),
        adopting: None,
        adopted: false,
        writing: None,
        urgent_pending: false,
    })
    .add_systems(Startup, look_for_recovery.in_set(StartupSet::Recover))
    .add_systems(
        Update,
        (follow_openings, autosave).chain().in_set(EditorSet::Drive),
    );
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
    launch: Res<Launch>,
    mut loads: MessageWriter<LoadModel>,
) {
    autosave.offers = recovery::orphans();
    if launch.recover && !autosave.offers.is_empty() {
        let (claim, found) = autosave.offers.remove(0);
        loads.write(LoadModel(ModelSource::Recovered(claim.path.clone())));
        autosave.adopting = Some((claim, found));
    }
}

/// A new session on screen starts its own count of revisions; recovered work that
/// opened is adopted, and one that could not be opened is offered again.
fn follow_openings(
    mut autosave: ResMut<Autosave>,
    mut shown: MessageReader<AvatarShown>,
    mut failed: MessageReader<OpenFailed>,
    mut banner: ResMut<Banner>,
) {
    for OpenFailed(source) in failed.read() {
        let ModelSource::Recovered(path) = source else {
            continue;
        };
        if autosave
            .adopting
            .as_ref()
            .is_some_and(|(c, _)| c.path == *path)
        {
            let again = autosave.adopting.take().expect("checked");
            autosave.offers.insert(0, again);
            let why = banner.error.clone().unwrap_or_default();
            banner.error(tr!("files-recover-failed-kept", why = why));
        }
    }
    if shown.read().count() > 0 {
        // Revisions count from 0 in every new editor: forget what the last one wrote.
        autosave.seen_revision = u64::MAX;
        autosave.written_revision = u64::MAX;
        if autosave.adopting.is_some() {
            autosave.adopted = true;
        }
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
    let urgent = save_now.read().count() > 0 || std::mem::take(&mut autosave.urgent_pending);
    if let Some((revision, job)) = &autosave.writing {
        let revision = *revision;
        match job.take() {
            None => {
                awake.now();
                autosave.urgent_pending |= urgent; // after this one, never beside it
                return;
            }
            Some(result) => {
                autosave.writing = None;
                let result = result.map_err(Refusal::new).and_then(|r| r);
                finish_write(&mut autosave, revision, result, now, &mut banner);
            }
        }
    }
    let editor = &session.editor;
    if editor.revision != autosave.seen_revision {
        autosave.seen_revision = editor.revision;
        autosave.last_change = now;
        autosave.unsaved_since.get_or_insert(now);
    }
    // Recovered work saved to its project: the old recovery file is no longer needed.
    if autosave.adopted && !editor.dirty {
        finish_adopting(&mut autosave);
    }
    if !editor.dirty || autosave.written_revision == editor.revision {
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
    let project = editor.project(model);
    let path = autosave.path.clone();
    let write = move || recovery::write(&path, &project, project_path.as_deref());
    if urgent {
        // Asked for before something risky: on disk before that happens.
        let result = write();
        finish_write(&mut autosave, editor.revision, result, now, &mut banner);
    } else {
        autosave.writing = Some((editor.revision, Job::spawn("autosave", write)));
    }
}

fn finish_write(
    autosave: &mut Autosave,
    revision: u64,
    result: Result<(), Refusal>,
    now: f64,
    banner: &mut Banner,
) {
    match result {
        Ok(()) => {
            autosave.written_revision = revision;
            autosave.unsaved_since = None;
            debug!("autosaved to {}", autosave.path.display());
            if autosave.adopted {
                finish_adopting(autosave); // the work is safe in this file now
            }
        }
        Err(e) => {
            autosave.unsaved_since = Some(now); // retry at the next interval, not every frame
            autosave.last_change = now;
            banner.error(tr!("files-autosave-failed", reason = e.to_string()));
        }
    }
}

fn finish_adopting(autosave: &mut Autosave) {
    if let Some((claim, _)) = autosave.adopting.take() {
        info!("recovered work is safe; removing {}", claim.path.display());
        claim.discard();
    }
    autosave.adopted = false;
}

fn offer_recovery(
    mut contexts: EguiContexts,
    mut autosave: ResMut<Autosave>,
    mut loads: MessageWriter<LoadModel>,
) -> Result {
    if autosave.adopting.is_some() {
        return Ok(()); // one at a time
    }
    let Some((_, offer)) = autosave.offers.first() else {
        return Ok(());
    };
    let minutes = now_secs().saturating_sub(offer.saved_at) / 60;
    let when = match minutes {
        0 => tr!("files-recover-just-now"),
        m if m < 120 => tr!("files-recover-minutes-ago", minutes = m),
        m => tr!("files-recover-hours-ago", hours = m / 60),
    };
    let name = offer
        .project_path
        .as_ref()
        .and_then(|p| p.file_name())
        .map_or_else(
            || tr!("files-recover-unsaved-project"),
            |n| n.to_string_lossy().into_owned(),
        );
    let keys = offer.project.timeline.keys().len();
    let ctx = contexts.ctx_mut()?;
    let mut answer = None;
    egui::Window::new(tr!("files-recover-title"))
        .id(egui::Id::new("recover-unsaved-work"))
        .collapsible(false)
        .resizable(false)
        .anchor(egui::Align2::CENTER_CENTER, egui::vec2(0.0, 0.0))
        .show(ctx, |ui| {
            ui.label(tr!(
                "files-recover-question",
                name = name.as_str(),
                keys = keys,
                when = when.as_str()
            ));
            ui.horizontal(|ui| {
                if ui.button(tr!("files-recover")).clicked() {
                    answer = Some(true);
                }
                if ui.button(tr!("files-recover-not-now")).clicked() {
                    answer = Some(false);
                }
            });
        });
    match answer {
        Some(true) => {
            let (claim, found) = autosave.offers.remove(0);
            loads.write(LoadModel(ModelSource::Recovered(claim.path.clone())));
            autosave.adopting = Some((claim, found));
        }
        // Kept on disk (and claimed until this instance ends) for the next start.
        Some(false) => drop(autosave.offers.remove(0)),
        None => {}
    }
    Ok(())
}
