//! The foundation every feature builds on, importing no feature: the [`Session`] (the one
//! core [`Editor`]), the [`EditRequest`] message and the one place edits are applied,
//! playback, the selection, the banner, the layout the panels leave to the 3D view, the
//! render layers, the [`EditorSet`] order, the worker [`Job`], and the messages and
//! shared state through which features talk to each other (see ARCHITECTURE.md).

pub mod fonts;
mod images;
mod instance;
mod job;
pub mod keymap;
pub mod language;
mod messages;
pub mod names;
mod prefs;

use std::path::PathBuf;

use bevy::prelude::*;
use bevy_egui::egui;

use crate::core::animation::edit::{Edit, Editor};
use crate::core::model::humanoid::Bone;
use crate::core::model::mannequin::{self, MannequinVariant};
use crate::tr;

pub use fonts::fonts_plugin;
pub use images::{
    AMBIENT_FRACTION, KEY_LIGHT_FROM, captured_rgba, framed_view, render_target, save_png,
    spawn_lights,
};
pub use instance::{
    Avatar, GltfNodeIndex, MaterialsPending, adopt_instance, gazed_pose, node_entities,
    pose_instance, set_node_rotations,
};
pub use job::{Job, Progress};
pub use language::Language;
pub use messages::*;
pub use prefs::{Prefs, prefs_plugin};

/// Layer 0 is the scene (the avatar) every camera sees.
pub const SCENE_LAYER: usize = 0;
/// The hidden avatar instance key and library thumbnails are rendered from.
pub const THUMBNAIL_LAYER: usize = 1;
/// Markers, the gizmo and the floor grid: the editor camera sees them, stills never do.
pub const OVERLAY_LAYER: usize = 2;
/// VR spheres and lasers (the headset's cameras only).
pub const VR_LAYER: usize = 3;
/// The onion skin's ghosts: the editor camera sees them, stills never do.
pub const ONION_LAYER: usize = 4;
/// egui's own full-window camera: nothing 3D lives there.
pub const UI_LAYER: usize = 31;

/// Library and key thumbnails (SPEC §5).
pub const THUMBNAIL: UVec2 = UVec2::new(96, 128);

/// One order for every frame's systems in `Update`: input becomes edit requests, the
/// edits are applied, playback advances, then what shows the state reads it.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EditorSet {
    /// Keys, mouse, panels, VR input, dialogs answered: they send [`EditRequest`]s.
    Input,
    /// [`apply_edits`]: the one place edits reach the core.
    Edit,
    /// Playback advances the playhead.
    Playback,
    /// Everything that reads the applied state (thumbnails, autosave, the title).
    Drive,
}

/// Start-up order: the model from the command line (or the mannequin) is asked for
/// first, so that recovered work, asked for after it, is what opens.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StartupSet {
    OpenModel,
    Recover,
}

/// The order egui panels are laid out in (each takes its part of [`UiSpace`]), then the
/// 3D view gets what is left, then floating windows.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UiLayout {
    /// The menu bar, the error banner and the status line.
    Bars,
    /// The timeline along the bottom.
    Timeline,
    /// The inspector and the expressions panel.
    Sides,
    /// The view rectangle and whether the pointer is over a panel.
    View,
    /// Floating windows (library, PNG options, help, questions).
    Windows,
}

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
    /// A session on the built-in mannequin.
    pub fn mannequin() -> Session {
        let rig = crate::core::body::rig::rig_from_bytes(&mannequin::build(MannequinVariant::Vrm1))
            .expect("the built-in mannequin is a valid VRM");
        Session {
            editor: Editor::new(rig),
            model_path: None,
            project_path: None,
        }
    }

    /// "name.json" or "Untitled", for the title bar and dialogs.
    pub fn project_name(&self) -> String {
        self.project_path
            .as_ref()
            .and_then(|p| p.file_name())
            .map_or_else(|| tr!("app-untitled"), |n| n.to_string_lossy().into_owned())
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
        crate::core::recovery::clear(&crate::core::recovery::own_path());
        Ok(())
    }

    /// "VRMA Maker — walk.json* — Model title": the project, an unsaved mark, the model.
    pub fn window_title(&self) -> String {
        let title = &self.editor.rig.model.title;
        let model = if title.is_empty() {
            tr!("app-untitled-model")
        } else {
            title.clone()
        };
        let dirty = if self.editor.dirty { "*" } else { "" };
        format!("VRMA Maker — {}{dirty} — {model}", self.project_name())
    }
}

/// A user edit from any panel, key, tool or headset; applied by [`apply_edits`] only.
#[derive(Message, Clone, Debug)]
pub struct EditRequest(pub Edit);

impl EditRequest {
    pub fn new(edit: impl Into<Edit>) -> EditRequest {
        EditRequest(edit.into())
    }
}

/// The selected bone (markers, bone list, inspector).
#[derive(Resource, Default, Debug)]
pub struct Selection(pub Option<Bone>);

/// Messages shown in the window: an error banner, a transient notice, a line for long
/// work in progress (opening a model) and a progress bar (an export).
#[derive(Resource, Default, Debug)]
pub struct Banner {
    pub error: Option<String>,
    pub notice: Option<String>,
    pub progress: Option<String>,
    /// A job with a known fraction done: its label and 0..=1.
    pub bar: Option<(String, f32)>,
    /// Set, the bar has a Cancel button that raises this flag (a film being rendered).
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl Banner {
    pub fn error(&mut self, message: impl Into<String>) {
        let message = message.into();
        warn!("{message}");
        self.error = Some(message);
    }
}

/// Set by any feature that needs the next frame soon (loading, a job, a still, a
/// thumbnail, a framing). The window otherwise draws only on input (an idle editor costs
/// nothing), so without this, work that finishes off the main thread would wait for the
/// next mouse move to show.
#[derive(Resource, Default, Debug)]
pub struct KeepAwake(bool);

/// How long an idle window sleeps between frames when nothing asks for one: what waits
/// for time to pass keeps it awake (autosave and a model on trial with [`KeepAwake`],
/// `--exit-after` with a timer thread), so this is only a safety net.
pub const IDLE_WAKE: std::time::Duration = std::time::Duration::from_secs(10);

impl KeepAwake {
    pub fn now(&mut self) {
        self.0 = true;
    }
}

/// Whether the pointer is over a panel (the 3D view then ignores the mouse).
#[derive(Resource, Default, Debug)]
pub struct PointerOverUi(pub bool);

/// The part of the window left for the 3D view after the panels, in logical pixels.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq)]
pub struct ViewRect(pub Option<bevy::math::Rect>);

/// The part of the window the panels laid out so far have left (reset every frame).
#[derive(Resource, Debug, Clone, Copy)]
pub struct UiSpace(pub egui::Rect);

impl Default for UiSpace {
    fn default() -> Self {
        UiSpace(egui::Rect::NOTHING)
    }
}

impl UiSpace {
    /// Lays out one panel group in what is left, and keeps what it leaves.
    pub fn show(&mut self, ctx: &egui::Context, id: &'static str, add: impl FnOnce(&mut egui::Ui)) {
        let mut ui = egui::Ui::new(
            ctx.clone(),
            id.into(),
            egui::UiBuilder::new()
                .layer_id(egui::LayerId::background())
                .max_rect(self.0),
        );
        add(&mut ui);
        self.0 = ui.available_rect_before_wrap();
    }
}

pub fn plugin(app: &mut App) {
    app.insert_resource(Session::mannequin())
        .init_resource::<Launch>()
        .init_resource::<Selection>()
        .init_resource::<Banner>()
        .init_resource::<PointerOverUi>()
        .init_resource::<ViewRect>()
        .init_resource::<UiSpace>()
        .init_resource::<Windows>()
        .init_resource::<FileSettings>()
        .init_resource::<Thumbnails>()
        .init_resource::<UpdatedThumbnails>()
        .init_resource::<ExitGate>()
        .init_resource::<VrStatus>()
        .init_resource::<CameraFollow>()
        .add_message::<CaptureKey>()
        .init_resource::<ModalTool>()
        .init_resource::<KeepAwake>()
        .add_message::<bevy::window::RequestRedraw>()
        .insert_resource(MarkersVisible(true))
        .init_resource::<SpringBones>()
        .init_resource::<Films>()
        .init_resource::<PasteMask>()
        .init_resource::<OnionSkin>()
        .init_resource::<PlacingKeys>()
        .init_resource::<StillPose>()
        .init_resource::<PreviewPose>()
        .add_message::<EditRequest>()
        .add_message::<SaveRecoveryNow>()
        .add_message::<LoadModel>()
        .add_message::<AvatarShown>()
        .add_message::<QuitRequested>()
        .add_message::<OpenFailed>()
        .add_message::<FileRequest>()
        .add_message::<RenderStill>()
        .add_message::<RenderPoseThumbnail>()
        .register_type::<GltfNodeIndex>()
        .configure_sets(
            Startup,
            (StartupSet::OpenModel, StartupSet::Recover).chain(),
        )
        .configure_sets(
            Update,
            (
                EditorSet::Input,
                EditorSet::Edit,
                EditorSet::Playback,
                EditorSet::Drive,
            )
                .chain(),
        )
        .add_systems(
            Update,
            (
                apply_edits.in_set(EditorSet::Edit),
                play.in_set(EditorSet::Playback),
            ),
        )
        .add_systems(PostUpdate, images::without_tone_mapping)
        .add_systems(Last, ask_for_the_next_frame);
}

/// Messages sent this frame that a later frame acts on.
#[derive(bevy::ecs::system::SystemParam)]
struct Pending<'w, 's> {
    edits: MessageReader<'w, 's, EditRequest>,
    loads: MessageReader<'w, 's, LoadModel>,
    files: MessageReader<'w, 's, FileRequest>,
    stills: MessageReader<'w, 's, RenderStill>,
    thumbnails: MessageReader<'w, 's, RenderPoseThumbnail>,
    shown: MessageReader<'w, 's, AvatarShown>,
}

impl Pending<'_, '_> {
    fn any(&mut self) -> bool {
        // Every reader is read (and so cleared), not just the first with news.
        let counts = [
            self.edits.read().count(),
            self.loads.read().count(),
            self.files.read().count(),
            self.stills.read().count(),
            self.thumbnails.read().count(),
            self.shown.read().count(),
        ];
        counts.iter().any(|&n| n > 0)
    }
}

/// Asks for another frame at once while anything is moving or waiting: playback, a
/// modal drag, a change or request made this frame, or a feature's [`KeepAwake`].
fn ask_for_the_next_frame(
    session: Res<Session>,
    modal: Res<ModalTool>,
    vr: Res<VrStatus>,
    mut awake: ResMut<KeepAwake>,
    mut pending: Pending,
    mut redraw: MessageWriter<bevy::window::RequestRedraw>,
) {
    let busy = pending.any()
        || awake.0
        || session.is_changed()
        || session.editor.playing
        || modal.0
        || vr.wanted
        || vr.running;
    awake.0 = false;
    if busy {
        redraw.write(bevy::window::RequestRedraw);
    }
}

/// The panel order in egui's pass, and redraws after a resize (window apps only).
pub fn ui_plugin(app: &mut App) {
    use bevy_egui::EguiPrimaryContextPass;
    app.add_systems(Update, draw_after_resize);
    app.configure_sets(
        EguiPrimaryContextPass,
        (
            UiLayout::Bars,
            UiLayout::Timeline,
            UiLayout::Sides,
            UiLayout::View,
            UiLayout::Windows,
        )
            .chain(),
    );
}

/// A resize brings one frame, drawn before the new surface size and layout apply: a few
/// more show the window as it now is (else it stayed stale until the idle wake).
fn draw_after_resize(
    mut resized: MessageReader<bevy::window::WindowResized>,
    mut frames_left: Local<u8>,
    mut awake: ResMut<KeepAwake>,
) {
    if resized.read().count() > 0 {
        *frames_left = 3;
    }
    if *frames_left > 0 {
        *frames_left -= 1;
        awake.now();
    }
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

/// Advances playback by the frame time. The frame playback starts in does not advance:
/// its time is the idle gap before the key press, not playback time.
fn play(time: Res<Time>, mut session: ResMut<Session>, mut was_playing: Local<bool>) {
    let playing = session.editor.playing;
    if playing && *was_playing {
        session.editor.advance(time.delta_secs());
    }
    *was_playing = playing;
}
