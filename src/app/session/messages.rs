//! What features say to each other: requests (messages) and the small shared state they
//! read. A feature sends or reads these; it never reaches into another feature.

use std::collections::HashMap;
use std::path::PathBuf;

use bevy::prelude::*;

use crate::core::body::framing::CameraPreset;
use crate::core::body::pose::Pose;
use crate::core::formats::table::ExportKind;

/// What the window was started with (the command line).
#[derive(Resource, Clone, Debug, Default)]
pub struct Launch {
    /// A model (or project) to open instead of the mannequin.
    pub file: Option<PathBuf>,
    /// Testing: save a screenshot of the window here once the model shows, then exit.
    pub screenshot: Option<PathBuf>,
    /// Testing: quit after this many seconds.
    pub exit_after: Option<f32>,
    /// Testing: quit as `exit_after` does once this file exists.
    pub quit_when: Option<PathBuf>,
    /// Testing: save the project as it stands at exit here.
    pub save_on_exit: Option<PathBuf>,
    /// Testing: the bone selected at start.
    pub select: Option<String>,
    /// Testing: export a PNG through the window's path once the model shows.
    pub export_png: Option<PathBuf>,
    /// Testing: save the pose to the library once the model shows.
    pub library_save: Option<String>,
    /// Start playing once the model shows.
    pub play: bool,
    /// Testing: accept the recovery offer at once.
    pub recover: bool,
    /// Start in VR (`--vr`).
    pub vr: bool,
    /// One Euro filter settings for hand tracking (`--one-euro`).
    pub one_euro: Option<crate::core::body::smoothing::OneEuroParams>,
    /// A folder of frames standing in for a camera (`--camera-frames`).
    pub camera_frames: Option<PathBuf>,
}

/// Where a model comes from.
#[derive(Clone, Debug)]
pub enum ModelSource {
    Mannequin,
    File(PathBuf),
    /// A project file: its model (or the mannequin) with its keys, pose and settings.
    Project(PathBuf),
    /// A recovery file: the work as it was autosaved, still unsaved.
    Recovered(PathBuf),
}

/// Ask to open a model (the avatar feature does it).
#[derive(Message, Clone, Debug)]
pub struct LoadModel(pub ModelSource);

/// A new avatar is on screen (camera framing, thumbnails, start-up aids).
#[derive(Message, Clone, Debug)]
pub struct AvatarShown;

/// A model, project or recovered work could not be opened (the banner says why; what
/// was on screen stays).
#[derive(Message, Clone, Debug)]
pub struct OpenFailed(pub ModelSource);

/// Ask to write the work to the recovery file now (before anything risky).
#[derive(Message, Clone, Copy, Debug, Default)]
pub struct SaveRecoveryNow;

/// Ask to quit (File ▸ Quit, Ctrl+Q, the window's close button): unsaved work is asked
/// about first.
#[derive(Message, Clone, Copy, Debug)]
pub struct QuitRequested;

/// What a file dialog is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialogPurpose {
    OpenModel,
    LoadPose,
    OpenProject,
    SaveProjectAs,
    ImportAnimation,
    /// A photo (PNG or JPEG) whose person's pose goes onto the model.
    PoseFromImage,
    /// A video (MP4 or MOV, H.264) whose person's motion goes in as keys.
    ImportVideo,
    /// An entry of the export table (`core::formats::table`).
    Export(ExportKind),
    /// The animation as a moving picture (WebP, APNG, GIF, MP4: the name's extension).
    ExportFilm,
}

/// Ask the files feature for something.
#[derive(Message, Clone, Debug)]
pub enum FileRequest {
    /// Show the native dialog for this purpose; its answer arrives in a later frame.
    Dialog(DialogPurpose),
    /// Open a path as a drop would: a model, a project or a pose.
    OpenPath(PathBuf),
    /// Answer a purpose without a dialog (a typed path; tests).
    Answer(DialogPurpose, PathBuf),
    /// Save the project: to its file, or through Save As when it has none; `then_quit`
    /// quits once the save succeeds (the close guard's "Save").
    Save { save_as: bool, then_quit: bool },
}

/// Which floating windows are open.
#[derive(Resource, Debug)]
pub struct Windows {
    pub library: bool,
    pub png: bool,
    pub help: bool,
}

impl Default for Windows {
    fn default() -> Self {
        Windows {
            library: true,
            png: false,
            help: false,
        }
    }
}

/// Options the File menu sets for the files feature.
#[derive(Resource, Debug, Default, Clone, Copy)]
pub struct FileSettings {
    /// Keys per second when importing a dense clip (0 = a key at every source key).
    pub import_rate: f32,
    pub png: PngSettings,
}

/// Where a still is seen from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StillView {
    Preset(CameraPreset),
    /// The editor's current camera, as it is when the still renders.
    CurrentCamera,
    /// A camera given in model space (`render-png --camera-json`): the same for every
    /// pose, so stills of several keys line up.
    Fixed(crate::core::body::framing::StillCamera),
}

impl Default for StillView {
    fn default() -> Self {
        StillView::Preset(CameraPreset::Front)
    }
}

/// The window's Export PNG settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PngSettings {
    pub size: UVec2,
    pub view: StillView,
    /// An opaque background colour; `None` is transparent.
    pub background: Option<[u8; 3]>,
    /// Every key as a numbered PNG, all seen by one camera.
    pub every_key: bool,
}

impl Default for PngSettings {
    fn default() -> Self {
        PngSettings {
            size: UVec2::new(1024, 1365),
            view: StillView::default(),
            background: None,
            every_key: false,
        }
    }
}

/// One transparent still to render into a PNG file.
#[derive(Clone, Debug, Default)]
pub struct StillRequest {
    pub size: UVec2,
    pub view: StillView,
    /// An opaque background colour; `None` leaves it transparent.
    pub background: Option<[u8; 3]>,
    pub output: PathBuf,
    /// Render the pose at this time (a key of a sequence), the playhead put back after;
    /// `None`: the pose as it stands.
    pub at: Option<f32>,
    /// Where the eyes look.
    pub eyes: StillEyes,
}

pub use crate::core::body::look::StillEyes;

/// The pose a still renders while it renders (the editor's, its eyes on the still's
/// camera); `None`: the editor's pose.
#[derive(Resource, Debug, Clone, Default)]
pub struct StillPose(pub Option<crate::core::body::pose::Pose>);

/// A pose shown instead of the editor's while a dialog previews something (an import
/// before its keys go in); `None`: the editor's pose.
#[derive(Resource, Debug, Clone, Default)]
pub struct PreviewPose(pub Option<crate::core::body::pose::Pose>);

/// Ask the renderer for a still.
#[derive(Message, Clone, Debug)]
pub struct RenderStill(pub StillRequest);

/// Ask for a pose that is not on screen to be rendered into a thumbnail PNG (library).
#[derive(Message, Clone, Debug)]
pub struct RenderPoseThumbnail {
    pub pose: Pose,
    pub output: PathBuf,
}

/// Thumbnail files rewritten since the library last looked.
#[derive(Resource, Default, Debug)]
pub struct UpdatedThumbnails(pub Vec<PathBuf>);

/// Key thumbnails as egui shows them, by key id (live in VR too: they render apart from
/// the headset's frame).
#[derive(Resource, Default, Debug)]
pub struct Thumbnails {
    pub textures: HashMap<u64, bevy_egui::egui::TextureId>,
    /// The keys the timeline has room to show a thumbnail for, in time order: only these
    /// are rendered (one image and camera each, so never one per key of a long take).
    pub wanted: Vec<u64>,
}

/// A library pose being dragged (onto the timeline).
#[derive(Clone, Debug)]
pub struct LibraryPoseDrag(pub Pose, pub crate::core::body::pose::BodyMask);

/// Work that must end before the app quits (a VR session ending cleanly).
#[derive(Resource, Default, Debug)]
pub struct ExitGate {
    /// Something is still running that quitting would cut short.
    pub busy: bool,
    /// A timed quit is waiting for it (it should wind down now).
    pub quit_requested: bool,
}

/// Live capture (View ▸ Follow camera): what the user asked, and how it goes.
#[derive(Resource, Debug, Default)]
pub struct CameraFollow {
    /// Follow the camera (the View menu's check).
    pub wanted: bool,
    /// The folder of frames standing in for a camera (`--camera-frames`).
    pub frames: Option<PathBuf>,
    /// The video devices found (`/dev/video*`), followed when there is no folder.
    pub devices: Vec<PathBuf>,
    /// Why following stopped or finds nobody (shown in the menu).
    pub problem: Option<String>,
    /// Frames followed so far in this run.
    pub followed: u32,
}

/// Capture the followed pose as a key at the playhead, then step on (Space while
/// following, or View ▸ Capture key).
#[derive(Message, Clone, Copy, Debug)]
pub struct CaptureKey;

/// Where VR stands, for the menu, the window and the exit path.
#[derive(Resource, Debug, Default)]
pub struct VrStatus {
    /// The user asked to be in VR (`--vr`, or View ▸ Enter VR).
    pub wanted: bool,
    /// A session is running (the headset shows the scene).
    pub running: bool,
    /// The runtime gave the session input focus.
    pub focused: bool,
    /// Why VR cannot start here (no runtime, no headset, or a build without `xr`).
    pub unavailable: Option<String>,
    /// What the OpenXR runtime offers, when there is one (logged at start).
    pub runtime: Option<String>,
}

/// Which part of the body a pasted pose (Ctrl+V) or an applied library pose goes onto
/// (Edit ▸ Paste onto).
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PasteMask(pub crate::core::body::pose::BodyMask);

/// Ctrl+D's placing: the duplicated keys (selected) follow the pointer along the ruler
/// until a click puts them down (Esc or a right click leaves them where they landed).
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlacingKeys {
    pub active: bool,
}

/// View ▸ Onion skin: the previous and next keys' poses (or the poses ±N frames away)
/// drawn as translucent ghosts in the 3D view (never in stills).
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OnionSkin {
    pub on: bool,
    /// Ghosts this many frames before and after the playhead instead of the
    /// neighbouring keys.
    pub frames: Option<u32>,
}

/// Spring bones (hair, skirts): simulated live on screen (View ▸ Spring bones), and the
/// joint rotations a still holds while it renders (its pose settled from rest, so the
/// same pose always gives the same still), which pause the live simulation.
#[derive(Resource, Debug, Clone)]
pub struct SpringBones {
    pub live: bool,
    pub held: Option<Vec<(usize, Quat)>>,
}

impl Default for SpringBones {
    fn default() -> Self {
        SpringBones {
            live: true,
            held: None,
        }
    }
}

/// How long a still or thumbnail holds its pose for the springs to settle (three-vrm
/// players show hair that has hung for a while).
pub const SPRING_SETTLE_SECONDS: f32 = crate::core::body::springs::SETTLE_SECONDS;

/// Whether bone markers and the gizmo are shown (hidden in VR).
#[derive(Resource, Debug, Clone, Copy)]
pub struct MarkersVisible(pub bool);

/// The box drawn round a pinned hand, foot or head: its marker on the desktop, its
/// sphere in VR.
pub const PIN_COLOUR: Color = Color::srgb(1.0, 0.55, 0.1);

/// A modal viewport operation (G / R) owns the keyboard and mouse while true.
#[derive(Resource, Debug, Default, Clone, Copy)]
pub struct ModalTool(pub bool);

/// The editor's 3D camera (a still "from the current view" copies it).
#[derive(Component, Debug, Default, Clone, Copy)]
pub struct EditorCamera;

/// The VR panel's egui pass. One context holds the library and the timeline (so a pose
/// dragged from the library can be dropped on the ruler); `app::vr` renders it into the
/// panel's texture, and each feature draws its part in this schedule, in its rectangle
/// of `core::vr::panel`.
#[derive(bevy::ecs::schedule::ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
pub struct VrPanelPass;

/// A VR panel rectangle (`core::vr::panel`, egui points) as egui's.
pub fn panel_rect(r: crate::core::vr::panel::PanelRect) -> bevy_egui::egui::Rect {
    use bevy_egui::egui;
    egui::Rect::from_min_size(egui::pos2(r.min.x, r.min.y), egui::vec2(r.size.x, r.size.y))
}

/// A button on the VR panel: text big enough to read at arm's length.
pub fn panel_button(text: &str) -> bevy_egui::egui::Button<'static> {
    use bevy_egui::egui;
    egui::Button::new(egui::RichText::new(text).size(18.0))
}

/// The VR panel's egui context (on the camera that renders it).
#[derive(Component, Debug, Default, Clone, Copy)]
pub struct VrPanel;

/// A film to render into a moving picture (File ▸ Export animation as video,
/// `vrma-maker render-anim`): the timeline played frame by frame from one camera.
pub struct FilmRequest {
    pub film: crate::core::animation::film::Film,
    pub camera: crate::core::body::framing::StillCamera,
    pub settings: crate::media::FilmSettings,
    pub output: PathBuf,
    /// Frames written so far, of all.
    pub progress: super::Progress,
    /// Raised to stop: nothing is left at the output.
    pub cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// Print progress lines on stderr (the CLI).
    pub log_progress: bool,
}

/// The film asked for, taken by the renderer when it can start it, and whether one is
/// being rendered (the close guard asks before quitting then).
#[derive(Resource, Default)]
pub struct Films {
    pub pending: Option<FilmRequest>,
    pub running: bool,
}
