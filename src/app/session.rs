//! The editing session as a resource, and the one place edits are applied.

use std::path::PathBuf;

use bevy::prelude::*;

use crate::core::edit::{Edit, Editor};
use crate::core::humanoid::Bone;
use crate::core::mannequin::{self, MannequinVariant};

/// The core editor for the model on screen.
#[derive(Resource)]
pub struct Session {
    pub editor: Editor,
    /// Where the model came from (`None` = the built-in mannequin).
    pub model_path: Option<PathBuf>,
    /// The project file this work is saved to (`None` = not saved yet).
    pub project_path: Option<PathBuf>,
}

impl Session {
    /// "name.json" or "Untitled", for the title bar and dialogs.
    pub fn project_name(&self) -> String {
        self.project_path
            .as_ref()
            .and_then(|p| p.file_name())
            .map_or("Untitled".into(), |n| n.to_string_lossy().into_owned())
    }

    /// Saves the work to `path` (atomically) and remembers it as the project file.
    pub fn save_to(&mut self, path: &std::path::Path) -> Result<(), String> {
        self.editor
            .project(self.model_path.clone())
            .save(path)
            .map_err(|e| e.to_string())?;
        self.project_path = Some(path.to_path_buf());
        self.editor.dirty = false;
        // Saved: the autosaved copy is no longer needed.
        crate::core::recovery::clear(&crate::core::recovery::recovery_path());
        Ok(())
    }
}

/// A user edit from any panel, key or tool; applied by [`apply_edits`] only.
#[derive(Message, Clone, Debug)]
pub struct EditRequest(pub Edit);

/// The selected bone (markers, bone list, inspector).
#[derive(Resource, Default, Debug)]
pub struct Selection(pub Option<Bone>);

/// Messages shown in the window: an error banner, a transient notice, and a line for
/// long work in progress (opening a model).
#[derive(Resource, Default, Debug)]
pub struct Banner {
    pub error: Option<String>,
    pub notice: Option<String>,
    pub progress: Option<String>,
}

/// Ask for the work to be written to the recovery file now (before anything risky).
#[derive(Message, Clone, Copy, Debug, Default)]
pub struct SaveRecoveryNow;

/// Work on a worker thread whose result the app picks up when it is ready, so the
/// window keeps drawing meanwhile. A panic in the work becomes an `Err` with its message.
pub struct Job<T> {
    slot: std::sync::Arc<std::sync::Mutex<Option<Result<T, String>>>>,
}

impl<T: Send + 'static> Job<T> {
    pub fn spawn(name: &str, work: impl FnOnce() -> T + Send + 'static) -> Job<T> {
        let slot: std::sync::Arc<std::sync::Mutex<Option<Result<T, String>>>> = Default::default();
        let sink = slot.clone();
        let run = move || {
            let outcome =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).map_err(|panic| {
                    panic
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "the work stopped unexpectedly".into())
                });
            if let Ok(mut slot) = sink.lock() {
                *slot = Some(outcome);
            }
        };
        if let Err(e) = std::thread::Builder::new().name(name.into()).spawn(run) {
            *slot.lock().expect("a new lock") = Some(Err(format!("cannot start a worker: {e}")));
        }
        Job { slot }
    }

    /// The result once the work is done (once).
    pub fn take(&self) -> Option<Result<T, String>> {
        self.slot.lock().ok().and_then(|mut s| s.take())
    }
}

impl Banner {
    pub fn error(&mut self, message: impl Into<String>) {
        let message = message.into();
        warn!("{message}");
        self.error = Some(message);
    }
}

pub fn plugin(app: &mut App) {
    let rig = crate::core::rig_from_bytes(&mannequin::build(MannequinVariant::Vrm1))
        .expect("the built-in mannequin is a valid VRM");
    app.insert_resource(Session {
        editor: Editor::new(rig),
        model_path: None,
        project_path: None,
    })
    .init_resource::<Selection>()
    .add_systems(Startup, select_at_start)
    .init_resource::<Banner>()
    .add_message::<EditRequest>()
    .add_message::<SaveRecoveryNow>()
    .add_systems(Update, (apply_edits, play).chain());
}

/// Applies queued edits in order; a refused edit shows its reason and changes nothing.
pub fn apply_edits(
    mut requests: MessageReader<EditRequest>,
    mut session: ResMut<Session>,
    mut banner: ResMut<Banner>,
) {
    for EditRequest(edit) in requests.read() {
        if let Err(e) = session.editor.apply(edit.clone()) {
            banner.error(e.to_string());
        }
    }
}

/// Testing aid: `--select BONE` starts with that bone selected.
fn select_at_start(launch: Option<Res<super::Launch>>, mut selection: ResMut<Selection>) {
    if let Some(bone) = launch.and_then(|l| l.select.as_deref().and_then(Bone::from_name)) {
        selection.0 = Some(bone);
    }
}

/// `--play`: start playing once the model shows.
pub fn play_at_start(
    launch: Option<Res<super::Launch>>,
    mut shown: MessageReader<super::model::AvatarShown>,
    mut session: ResMut<Session>,
) {
    if launch.is_some_and(|l| l.play) && shown.read().count() > 0 {
        session.editor.set_playing(true);
    }
}

/// Advances playback by the frame time.
fn play(time: Res<Time>, mut session: ResMut<Session>) {
    if session.editor.playing {
        session.editor.advance(time.delta_secs());
    }
}
