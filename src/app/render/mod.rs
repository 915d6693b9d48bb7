//! Transparent PNG stills (SPEC §6): the avatar alone rendered off-screen into an image
//! with a fully transparent background — no markers, gizmos or floor (those live on
//! another render layer) — from a preset camera framed to fit the posed figure, or from
//! the current view. Used by File ▸ Export PNG… and by `vrma-maker render-png`, which
//! runs the same plugins with no window.

mod film;
mod headless;
mod onion;
mod thumbnails;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bevy::camera::RenderTarget;
use bevy::prelude::*;
use bevy::render::render_resource::PipelineCache;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::render::{Render, RenderApp, RenderSystems};

use crate::core::animation::edit::Edit;
use crate::tr;

use super::session::{
    Avatar, Banner, EditorCamera, EditorSet, KeepAwake, RenderStill, SPRING_SETTLE_SECONDS,
    Session, SpringBones, StillPose, StillRequest, StillView, captured_rgba, framed_view,
    render_target, save_png,
};

pub(super) use headless::{StillOutcome, one_film_plugin, one_still_plugin};

/// A still is captured after this many frames even if some pipeline never builds.
const MAX_SETTLE_FRAMES: u32 = 240;

/// Vertical field of view of still cameras.
const STILL_FOV: f32 = crate::core::body::framing::STILL_FOV_DEGREES;

/// Samples per pixel each way for stills: 3 × 3 gives 10 levels of edge coverage,
/// enough that no stair step shows on a silhouette.
const SUPERSAMPLE: u32 = 3;

/// The most pixels a supersampled still renders (72 MP: 288 MB of target and as much
/// read back): a 4096 × 4096 still gets 2 × 2 samples, not a gigabyte of target.
const MAX_SUPERSAMPLED_PIXELS: f64 = 72e6;

/// The most a still can be supersampled within the device's texture size and the
/// pixel budget.
fn supersample_for(size: UVec2, max_side: u32) -> u32 {
    let by_side = max_side / size.max_element().max(1);
    let by_budget = (MAX_SUPERSAMPLED_PIXELS / (size.x as f64 * size.y as f64).max(1.0))
        .sqrt()
        .floor() as u32;
    by_side.min(by_budget).clamp(1, SUPERSAMPLE)
}

/// Why a still cannot be drawn on this device, if it cannot. Vulkan devices draw at
/// least 4096 pixels a side (most 16384), so a 4096 × 4096 still always fits, with
/// fewer samples where needed; only a larger one than the device draws is refused,
/// rather than drawn blank.
fn too_big(size: UVec2, max_side: u32) -> Option<String> {
    (size.max_element() > max_side).then(|| {
        tr!(
            "app-still-too-big",
            width = size.x.to_string(),
            height = size.y.to_string(),
            side = max_side.to_string()
        )
    })
}

/// Stills waiting to be rendered (one at a time).
#[derive(Resource, Default)]
struct StillQueue {
    pending: Vec<StillRequest>,
    active: Option<ActiveStill>,
    /// Quit after the queue empties (the CLI).
    exit_when_done: bool,
    /// Results of finished stills: Ok(path) or Err(message).
    finished: Vec<Result<PathBuf, String>>,
    /// The playhead to go back to once stills rendered at other times are done.
    return_to: Option<f32>,
}

struct ActiveStill {
    request: StillRequest,
    /// Rendered this many times larger each way, then reduced (anti-aliased edges).
    supersample: u32,
    camera: Entity,
    frames: u32,
    /// Frames in a row that ended with no pipeline still compiling.
    compiled_frames: u32,
    /// The pipeline cache's size at the last frame.
    pipelines_seen: usize,
    captured: bool,
}

/// Render pipelines still compiling at the end of the last rendered frame, and how many
/// the cache holds. Bevy compiles them in the background and skips what they would draw
/// meanwhile; a still's new camera needs its own, so on a loaded machine a capture after
/// a fixed few frames could lack the face's morphing pipeline, or whole meshes. A
/// material made ready a frame late asks for its pipeline only then: while the count
/// still grows, more may come.
#[derive(Resource, Clone, Default)]
struct PipelinesCompiling {
    waiting: Arc<AtomicUsize>,
    total: Arc<AtomicUsize>,
}

impl PipelinesCompiling {
    fn none(&self) -> bool {
        self.waiting.load(Ordering::Relaxed) == 0
    }

    fn total(&self) -> usize {
        self.total.load(Ordering::Relaxed)
    }
}

fn count_compiling_pipelines(cache: Res<PipelineCache>, compiling: Res<PipelinesCompiling>) {
    compiling
        .waiting
        .store(cache.waiting_pipelines().count(), Ordering::Relaxed);
    compiling
        .total
        .store(cache.pipelines().count(), Ordering::Relaxed);
}

/// Captured images, handed from the observer to the queue.
#[derive(Resource, Default)]
struct Captures(Vec<(Entity, Result<image::RgbaImage, String>)>);

pub(in crate::app) use onion::plugin as onion_plugin;
pub(in crate::app) use thumbnails::plugin as thumbnails_plugin;

pub(super) fn plugin(app: &mut App) {
    let compiling = PipelinesCompiling::default();
    if let Some(render_app) = app.get_sub_app_mut(RenderApp) {
        render_app.insert_resource(compiling.clone()).add_systems(
            Render,
            count_compiling_pipelines.in_set(RenderSystems::Cleanup),
        );
    }
    film::plugin(app);
    app.insert_resource(compiling)
        .init_resource::<StillQueue>()
        .init_resource::<Captures>()
        .add_systems(
            Update,
            (queue_stills, start_still, finish_still)
                .chain()
                .in_set(EditorSet::Drive),
        );
}

/// The window reports each finished still in the status line.
pub(super) fn report_in_window(app: &mut App) {
    app.add_systems(Update, report_stills.after(finish_still));
    film::report_in_window(app);
}

fn queue_stills(
    mut requests: MessageReader<RenderStill>,
    mut queue: ResMut<StillQueue>,
    mut awake: ResMut<KeepAwake>,
) {
    queue
        .pending
        .extend(requests.read().map(|RenderStill(r)| r.clone()));
    if queue.active.is_some() || !queue.pending.is_empty() {
        awake.now(); // a still takes a few frames to settle and capture
    }
}

/// Where a fixed camera (`--camera-json`, a sequence's one camera) stands and looks.
fn fixed_transform(camera: &crate::core::body::framing::StillCamera) -> Transform {
    Transform::from_translation(camera.position).looking_at(camera.target, Vec3::Y)
}

/// A still camera's projection, from its vertical field of view in radians.
fn still_projection(fov: f32) -> Projection {
    Projection::from(PerspectiveProjection {
        fov,
        near: 0.02,
        ..default()
    })
}

fn camera_transform(
    session: &Session,
    request: &StillRequest,
    current: Option<Transform>,
) -> Transform {
    match request.view {
        StillView::CurrentCamera => current.unwrap_or_default(),
        StillView::Fixed(camera) => fixed_transform(&camera),
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
    mut session: ResMut<Session>,
    avatars: Query<(), With<Avatar>>,
    mut images: ResMut<Assets<Image>>,
    mut commands: Commands,
    editor_camera: Query<(&Transform, &Projection), With<EditorCamera>>,
    (device, mut springs, mut still_pose): (
        Option<Res<bevy::render::renderer::RenderDevice>>,
        ResMut<SpringBones>,
        ResMut<StillPose>,
    ),
) {
    if queue.active.is_some() || queue.pending.is_empty() || avatars.is_empty() {
        return;
    }
    let request = queue.pending.remove(0);
    if let Some(at) = request.at {
        // A key of a sequence: the pose there (the same edit path as a click on the
        // timeline), the playhead put back when the queue is done.
        let playhead = session.editor.playhead;
        queue.return_to.get_or_insert(playhead);
        let _ = session.editor.apply(Edit::Seek(at));
    }
    let size = request.size.max(UVec2::ONE);
    let max_side = device.map_or(4096, |d| d.limits().max_texture_dimension_2d);
    if let Some(refusal) = too_big(size, max_side) {
        queue.finished.push(Err(refusal));
        return;
    }
    let current = editor_camera.iter().next();
    let fov = match (request.view, current) {
        (StillView::CurrentCamera, Some((_, Projection::Perspective(p)))) => p.fov,
        (StillView::Fixed(camera), _) => camera.fov.to_radians(),
        _ => STILL_FOV.to_radians(),
    };
    let transform = camera_transform(&session, &request, current.map(|(t, _)| *t));
    // The eyes on the camera, as a player's default target (the world is the model's
    // VRM 1.0 frame: the avatar stands at the origin, a VRM 0.x one turned round).
    let editor = &session.editor;
    let pose = crate::core::body::gaze::still_gaze(
        &editor.rig,
        &editor.pose,
        request.eyes,
        transform.translation,
    );
    // Hair and skirts as they hang after holding this pose, whatever moved before: the
    // same pose gives the same still.
    springs.held = Some(crate::core::body::springs::settle(
        &editor.rig.model.springs,
        &editor.rig,
        &pose,
        SPRING_SETTLE_SECONDS,
    ));
    still_pose.0 = Some(pose);
    let supersample = supersample_for(size, max_side);
    let target = render_target(&mut images, size * supersample);
    let camera = commands
        .spawn((
            Camera3d::default(),
            Camera {
                order: -1,
                clear_color: ClearColorConfig::Custom(Color::NONE),
                ..default()
            },
            RenderTarget::Image(target.clone().into()),
            still_projection(fov),
            // Supersampled instead (reduced in `core::body::still`): MSAA would resolve the
            // edges in the renderer's premultiplied colour and leave fringes.
            Msaa::Off,
            transform,
            StillCamera(target),
        ))
        .id();
    queue.active = Some(ActiveStill {
        request,
        supersample,
        camera,
        frames: 0,
        compiled_frames: 0,
        pipelines_seen: 0,
        captured: false,
    });
}

/// Meshes under an avatar with MToon whose PBR material is still to be swapped.
#[derive(bevy::ecs::system::SystemParam)]
struct UnconvertedMtoon<'w, 's> {
    meshes: Query<'w, 's, (Entity, &'static MeshMaterial3d<StandardMaterial>)>,
    parents: Query<'w, 's, &'static ChildOf>,
    registries: Query<'w, 's, &'static bevy_vrm1::prelude::VrmcMaterialRegistry>,
    pending: Query<'w, 's, (), With<crate::app::session::MaterialsPending>>,
}

impl UnconvertedMtoon<'_, '_> {
    fn any(&self) -> bool {
        !self.pending.is_empty()
            || (!self.registries.is_empty()
                && self.meshes.iter().any(|(entity, material)| {
                    self.registries
                        .get(self.parents.root_ancestor(entity))
                        .is_ok_and(|r| r.materials.contains_key(&material.id()))
                }))
    }
}

/// The off-screen camera of a still, and its target image.
#[derive(Component)]
struct StillCamera(Handle<Image>);

#[allow(clippy::type_complexity)] // the grouped resources keep the system's arity down
fn finish_still(
    mut queue: ResMut<StillQueue>,
    mut captures: ResMut<Captures>,
    cameras: Query<&StillCamera>,
    compiling: Res<PipelinesCompiling>,
    mut commands: Commands,
    (mut exit, mut springs, mut session, mut still_pose, films): (
        MessageWriter<AppExit>,
        ResMut<SpringBones>,
        ResMut<Session>,
        ResMut<StillPose>,
        Res<crate::app::session::Films>,
    ),
    unconverted: UnconvertedMtoon,
) {
    let Some(active) = queue.active.as_mut() else {
        if films.running {
            return; // a film holds the pose and springs frame by frame
        }
        if springs.held.is_some() {
            springs.held = None; // the live simulation takes over again
        }
        if still_pose.0.is_some() {
            still_pose.0 = None; // the editor's pose again
        }
        if queue.pending.is_empty()
            && let Some(playhead) = queue.return_to.take()
        {
            let _ = session.editor.apply(Edit::Seek(playhead));
        }
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
    let total = compiling.total();
    active.compiled_frames = if compiling.none() && total == active.pipelines_seen {
        active.compiled_frames + 1
    } else {
        0
    };
    active.pipelines_seen = total;
    // A few frames for the skinned pose to settle and until every pipeline the still's
    // camera needs has been built (the count lags the main world by a frame), then capture;
    // a pipeline that keeps failing to build does not hold the still up for ever.
    // Nor while a mesh still waits for its MToon material: a still taken then showed
    // part of the avatar in Bevy's PBR material (and its pipelines not yet asked for).
    if unconverted.any() {
        active.compiled_frames = 0;
    }
    let settled = active.frames >= 6 && active.compiled_frames >= 3;
    if (settled || active.frames >= MAX_SETTLE_FRAMES) && !active.captured {
        active.captured = true;
        debug!("still captured after {} frames", active.frames);
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
            queue.finished.push(Err(tr!(
                "app-still-timed-out",
                path = path.display().to_string()
            )));
        }
        return;
    };
    let (_, image) = captures.0.remove(index);
    let request = active.request.clone();
    let factor = active.supersample;
    commands.entity(active.camera).despawn();
    queue.active = None;
    let result = image
        .and_then(|img| {
            let (w, h) = img.dimensions();
            let mut pixels = crate::core::body::still::downsample(img.as_raw(), w, h, factor);
            if let Some(background) = request.background {
                crate::core::body::still::over_background(&mut pixels, background);
            }
            image::RgbaImage::from_raw(w / factor, h / factor, pixels)
                .ok_or_else(|| tr!("app-still-not-reduced"))
        })
        .and_then(|img| save_png(&img, &request.output))
        .map(|()| request.output.clone());
    queue.finished.push(result);
}

/// Reports finished stills in the window.
fn report_stills(mut queue: ResMut<StillQueue>, mut banner: ResMut<Banner>) {
    for result in queue.finished.drain(..) {
        match result {
            Ok(path) => {
                banner.notice = Some(tr!("app-still-saved", path = path.display().to_string()))
            }
            Err(e) => banner.error(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_still_past_the_device_limit_is_refused_and_one_at_it_is_not() {
        assert!(too_big(UVec2::new(4096, 4096), 4096).is_none());
        let refusal = too_big(UVec2::new(4097, 300), 4096).expect("refused");
        assert!(
            refusal.contains("4097×300") && refusal.contains("4096"),
            "{refusal}"
        );
        assert_eq!(supersample_for(UVec2::new(4096, 4096), 4096), 1);
    }

    #[test]
    fn big_stills_take_fewer_samples_within_the_device_and_the_budget() {
        assert_eq!(supersample_for(UVec2::new(1024, 1365), 16384), 3);
        assert_eq!(supersample_for(UVec2::new(4096, 4096), 16384), 2);
        assert_eq!(supersample_for(UVec2::new(8192, 8192), 16384), 1);
        assert_eq!(
            supersample_for(UVec2::new(3000, 100), 8192),
            2,
            "the device's side"
        );
        for side in [1u32, 100, 1000, 4096, 8192] {
            let n = supersample_for(UVec2::splat(side), 16384);
            assert!(
                (side * n) as f64 * (side * n) as f64
                    <= MAX_SUPERSAMPLED_PIXELS.max((side as f64).powi(2))
            );
        }
    }
}
