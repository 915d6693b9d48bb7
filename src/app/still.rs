//! Transparent PNG stills (SPEC §6): the avatar alone rendered off-screen into an image
//! with a fully transparent background — no markers, gizmos or floor (those live on
//! another render layer) — from a preset camera framed to fit the posed figure, or from
//! the current view. Used by File ▸ Export PNG… and by `vrma-maker render-png`, which
//! runs the same plugins with no window.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bevy::app::ScheduleRunnerPlugin;
use bevy::camera::RenderTarget;
use bevy::prelude::*;
use bevy::render::RenderPlugin;
use bevy::render::render_resource::TextureFormat;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::window::ExitCondition;
use bevy::winit::WinitPlugin;

use super::model::{Avatar, AvatarShown};
use super::session::{Banner, Session};
use crate::core::edit::{Edit, Gesture, KeyEdit, PoseEdit};
use crate::core::framing::{CameraPreset, figure_points, fit};
use crate::core::pose::Pose;
use crate::core::rig::Rig;

/// Vertical field of view of still cameras.
const STILL_FOV: f32 = 30.0;

/// Where a still is seen from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StillView {
    Preset(CameraPreset),
    /// The editor's current camera, as it is when the still renders.
    CurrentCamera,
}

/// The window's Export PNG settings.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct PngSettings {
    pub size: UVec2,
    pub view: StillView,
}

impl Default for PngSettings {
    fn default() -> Self {
        PngSettings {
            size: UVec2::new(1024, 1365),
            view: StillView::Preset(CameraPreset::Front),
        }
    }
}

/// One still to render.
#[derive(Clone, Debug, Default)]
pub struct StillRequest {
    pub size: UVec2,
    pub view: StillView,
    pub output: PathBuf,
    /// A fixed background (thumbnails); `None` is fully transparent.
    pub background: Option<Color>,
    /// Library thumbnails: no notice in the status line.
    pub quiet: bool,
}

impl Default for StillView {
    fn default() -> Self {
        StillView::Preset(CameraPreset::Front)
    }
}

/// Thumbnail files rewritten since the library panel last looked.
#[derive(Resource, Default, Debug)]
pub struct UpdatedThumbnails(pub Vec<PathBuf>);

/// Stills waiting to be rendered (one at a time).
#[derive(Resource, Default)]
pub struct StillQueue {
    pub pending: Vec<StillRequest>,
    active: Option<ActiveStill>,
    /// Quit after the queue empties (the CLI).
    pub exit_when_done: bool,
    /// Results of finished stills: Ok(path) or Err(message).
    pub finished: Vec<Result<PathBuf, String>>,
    /// Outputs of quiet requests that finished (thumbnails).
    quiet_outputs: Vec<PathBuf>,
}

struct ActiveStill {
    request: StillRequest,
    camera: Entity,
    frames: u32,
    captured: bool,
}

/// Captured images, handed from the observer to the queue.
#[derive(Resource, Default)]
struct Captures(Vec<(Entity, Result<image::RgbaImage, String>)>);

pub fn plugin(app: &mut App) {
    app.add_systems(Update, export_at_start);
    app.init_resource::<StillQueue>()
        .init_resource::<PngSettings>()
        .init_resource::<UpdatedThumbnails>()
        .init_resource::<Captures>()
        .add_systems(Update, (start_still, finish_still).chain());
}

fn camera_transform(
    session: &Session,
    request: &StillRequest,
    current: Option<Transform>,
) -> Transform {
    match request.view {
        StillView::CurrentCamera => current.unwrap_or_default(),
        StillView::Preset(preset) => framed_view(
            &session.editor.rig,
            &session.editor.pose,
            preset,
            STILL_FOV,
            request.size,
        ),
    }
}

fn start_still(
    mut queue: ResMut<StillQueue>,
    session: Res<Session>,
    avatars: Query<(), With<Avatar>>,
    mut images: ResMut<Assets<Image>>,
    mut commands: Commands,
    editor_camera: Query<(&Transform, &Projection), With<super::viewport::OrbitCamera>>,
) {
    if queue.active.is_some() || queue.pending.is_empty() || avatars.is_empty() {
        return;
    }
    let request = queue.pending.remove(0);
    let size = request.size.max(UVec2::ONE);
    let current = editor_camera.iter().next();
    let fov = match (request.view, current) {
        (StillView::CurrentCamera, Some((_, Projection::Perspective(p)))) => p.fov,
        _ => STILL_FOV.to_radians(),
    };
    let transform = camera_transform(&session, &request, current.map(|(t, _)| *t));
    let target = render_target(&mut images, size);
    let camera = commands
        .spawn((
            Camera3d::default(),
            Camera {
                order: -1,
                clear_color: ClearColorConfig::Custom(request.background.unwrap_or(Color::NONE)),
                ..default()
            },
            RenderTarget::Image(target.clone().into()),
            Projection::from(PerspectiveProjection {
                fov,
                near: 0.02,
                ..default()
            }),
            // No multisampling: edges stay straight alpha (no premultiplied fringes).
            Msaa::Off,
            transform,
            StillCamera(target),
        ))
        .id();
    queue.active = Some(ActiveStill {
        request,
        camera,
        frames: 0,
        captured: false,
    });
}

/// The off-screen camera of a still, and its target image.
#[derive(Component)]
struct StillCamera(Handle<Image>);

fn finish_still(
    mut queue: ResMut<StillQueue>,
    mut captures: ResMut<Captures>,
    cameras: Query<&StillCamera>,
    mut commands: Commands,
    mut exit: MessageWriter<AppExit>,
) {
    let Some(active) = queue.active.as_mut() else {
        if queue.exit_when_done && queue.pending.is_empty() && !queue.finished.is_empty() {
            let failed = queue.finished.iter().any(|r| r.is_err());
            exit.write(if failed {
                AppExit::error()
            } else {
                AppExit::Success
            });
        }
        return;
    };
    active.frames += 1;
    // A few frames for the pipelines and the skinned pose to settle, then capture.
    if active.frames == 4 && !active.captured {
        active.captured = true;
        if let Ok(StillCamera(target)) = cameras.get(active.camera) {
            let owner = active.camera;
            commands.spawn(Screenshot::image(target.clone())).observe(
                move |captured: On<ScreenshotCaptured>, mut captures: ResMut<Captures>| {
                    let image = captured_rgba(&captured.image);
                    captures.0.push((owner, image));
                },
            );
        }
    }
    let Some(index) = captures
        .0
        .iter()
        .position(|(owner, _)| *owner == active.camera)
    else {
        if active.frames > 600 {
            let path = active.request.output.clone();
            commands.entity(active.camera).despawn();
            queue.active = None;
            queue
                .finished
                .push(Err(format!("rendering {} timed out", path.display())));
        }
        return;
    };
    let (_, image) = captures.0.remove(index);
    let request = active.request.clone();
    commands.entity(active.camera).despawn();
    queue.active = None;
    if request.quiet {
        queue.quiet_outputs.push(request.output.clone());
    }
    let result = image
        .and_then(|img| save_png(&img, &request.output))
        .map(|()| request.output.clone());
    queue.finished.push(result);
}

/// A camera transform that fits a posed figure into an image of `size`, seen from a
/// preset with a vertical field of view of `fov_degrees`.
pub fn framed_view(
    rig: &Rig,
    pose: &Pose,
    preset: CameraPreset,
    fov_degrees: f32,
    size: UVec2,
) -> Transform {
    let aspect = size.x as f32 / size.y.max(1) as f32;
    let (eye, target) = fit(
        &figure_points(rig, pose),
        preset.direction(),
        fov_degrees.to_radians(),
        aspect,
    );
    Transform::from_translation(eye).looking_at(target, Vec3::Y)
}

/// A new image an off-screen camera can render into.
pub fn render_target(images: &mut Assets<Image>, size: UVec2) -> Handle<Image> {
    images.add(Image::new_target_texture(
        size.x,
        size.y,
        TextureFormat::Rgba8UnormSrgb,
        None,
    ))
}

/// A captured image as straight RGBA pixels.
pub fn captured_rgba(image: &Image) -> Result<image::RgbaImage, String> {
    image
        .clone()
        .try_into_dynamic()
        .map(|d| d.to_rgba8())
        .map_err(|e| e.to_string())
}

/// Writes an RGBA PNG atomically.
pub fn save_png(image: &image::RgbaImage, path: &std::path::Path) -> Result<(), String> {
    let mut bytes = Vec::new();
    image::DynamicImage::ImageRgba8(image.clone())
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .map_err(|e| format!("cannot encode the PNG: {e}"))?;
    crate::core::write_atomic(path, &bytes)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Reports finished stills in the window.
pub fn report_stills(
    mut queue: ResMut<StillQueue>,
    mut banner: ResMut<Banner>,
    mut updated: ResMut<UpdatedThumbnails>,
) {
    let quiet = std::mem::take(&mut queue.quiet_outputs);
    for result in queue.finished.drain(..) {
        match result {
            Ok(path) if quiet.contains(&path) => updated.0.push(path),
            Ok(path) => banner.notice = Some(format!("Saved {}", path.display())),
            Err(e) => banner.error(e),
        }
    }
}

/// Lights for the windowless renderer (the window's come with the viewport).
fn headless_lights(mut commands: Commands) {
    commands.insert_resource(GlobalAmbientLight {
        brightness: 400.0,
        ..default()
    });
    super::viewport::spawn_lights(&mut commands);
}

/// The pose to show once the model is on screen (the CLI).
#[derive(Resource)]
struct PoseToShow(Option<Pose>, StillRequest);

fn show_pose_then_render(
    mut shown: MessageReader<AvatarShown>,
    mut to_show: ResMut<PoseToShow>,
    mut session: ResMut<Session>,
    mut queue: ResMut<StillQueue>,
    banner: Res<Banner>,
    mut exit: MessageWriter<AppExit>,
) {
    // A model Bevy could not load: say so and stop instead of waiting forever.
    if let Some(error) = banner.error.clone() {
        queue.finished.push(Err(error));
        exit.write(AppExit::error());
        return;
    }
    if shown.read().count() == 0 {
        return;
    }
    if let Some(pose) = to_show.0.take() {
        // The same edit path as everywhere; applied now so the framing sees the pose.
        if let Err(e) = session
            .editor
            .apply(Edit::Pose(PoseEdit::SetPose(Box::new(pose))))
        {
            queue.finished.push(Err(e.to_string()));
            exit.write(AppExit::error());
            return;
        }
    }
    queue.pending.push(to_show.1.clone());
}

/// Renders one still without a window: the model file, a pose, the size and view.
pub fn render_headless(
    model: PathBuf,
    pose: Option<Pose>,
    request: StillRequest,
) -> Result<(), String> {
    super::install_friendly_panic_hook();
    let mut app = App::new();
    let memory = super::model::register_memory_source(&mut app);
    app.add_plugins((
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: None,
                exit_condition: ExitCondition::DontExit,
                ..default()
            })
            .set(RenderPlugin {
                synchronous_pipeline_compilation: true,
                ..default()
            })
            .set(bevy::log::LogPlugin {
                // The CLI reports failures itself, in one line.
                filter: "off".into(),
                ..default()
            })
            .disable::<WinitPlugin>(),
        ScheduleRunnerPlugin::run_loop(Duration::from_millis(2)),
    ));
    app.insert_resource(super::model::MemoryAssets(memory));
    app.insert_resource(super::Launch {
        file: Some(model),
        ..default()
    });
    app.add_plugins((super::session::plugin, super::model::plugin, plugin));
    let queue = StillQueue {
        exit_when_done: true,
        ..default()
    };
    app.insert_resource(queue);
    app.insert_resource(PoseToShow(pose, request));
    // `App::run` hands the world to the runner; the outcome comes back through this.
    let outcome: Arc<Mutex<Option<Result<PathBuf, String>>>> = Arc::default();
    let sink = outcome.clone();
    app.add_systems(Startup, headless_lights)
        .add_systems(Update, show_pose_then_render)
        .add_systems(Last, move |queue: Res<StillQueue>| {
            if let (Some(first), Ok(mut slot)) = (queue.finished.first(), sink.lock()) {
                slot.get_or_insert_with(|| first.clone());
            }
        });
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| app.run()));
    if ran.is_err() {
        return Err("rendering failed (see the message above)".into());
    }
    let result = outcome.lock().ok().and_then(|mut o| o.take());
    match result {
        Some(Ok(_)) => Ok(()),
        Some(Err(e)) => Err(e),
        None => Err("the model could not be shown".into()),
    }
}

/// Testing aid (`--export-png`): queue one still through the window's own path.
fn export_at_start(
    launch: Option<Res<super::Launch>>,
    mut shown: MessageReader<AvatarShown>,
    mut queue: ResMut<StillQueue>,
    mut done: Local<bool>,
) {
    let Some(path) = launch.and_then(|l| l.export_png.clone()) else {
        return;
    };
    if *done || shown.read().count() == 0 {
        return;
    }
    *done = true;
    queue.pending.push(StillRequest {
        size: UVec2::new(240, 320),
        view: StillView::Preset(CameraPreset::Front),
        output: path,
        ..default()
    });
}
