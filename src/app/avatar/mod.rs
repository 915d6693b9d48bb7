//! The avatar: loading a model (file, dialog, drag-and-drop, the built-in mannequin)
//! off the main thread, spawning it, falling back when the GPU cannot draw it, and
//! driving its raw skeleton and morph targets from the normalized pose.
//!
//! A file is parsed by the core first; only a valid VRM reaches Bevy's glTF loader, and
//! the current model stays on screen until the new one is fully spawned.

use std::f32::consts::PI;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bevy::asset::io::memory::Dir;
use bevy::asset::{RecursiveDependencyLoadState, RenderAssetUsages};
use bevy::ecs::system::SystemParam;
use bevy::gltf::GltfLoaderSettings;
use bevy::gltf::extensions::{
    ErasedGltfExtensionHandler, GltfExtensionHandler, GltfExtensionHandlers,
};
use bevy::prelude::*;
use bevy::render::RenderApp;
use bevy::render::error_handler::{RenderError, RenderErrorHandler, RenderErrorPolicy};
use bevy::render::mesh::allocator::MeshAllocatorSettings;
use bevy::render::renderer::RenderDevice;
use bevy::render::slab_allocator::SlabAllocatorSettings;
use bevy::world_serialization::WorldInstanceReady;

use super::session::{
    Avatar, AvatarShown, Banner, EditorCamera, EditorSet, GltfNodeIndex, Job, KeepAwake, Launch,
    LoadModel, ModelSource, OpenFailed, SaveRecoveryNow, Selection, Session, SpringBones,
    StartupSet, StillPose, gazed_pose, node_entities, pose_instance, set_node_rotations,
};
use crate::core::display::{self, DeviceLimits, DisplayModel, MorphRoutes};
use crate::core::edit::Editor;
use crate::core::mannequin::{self, MannequinVariant};
use crate::core::project::{Project, is_project_file};
use crate::core::vrm::VrmVersion;
use crate::tr;

mod mtoon;
mod mtoon_material;
mod mtoon_outline;
mod texture_binds;
pub(in crate::app) use mtoon::plugin as materials_plugin;

/// Registers the `mem://` asset source; must run before the AssetPlugin is added.
/// Models (and the generated mannequin) reach Bevy's glTF loader from bytes the core has
/// already validated.
pub fn register_memory_source(app: &mut App) -> Dir {
    let memory = Dir::default();
    let reader_root = memory.clone();
    app.register_asset_source(
        "mem",
        bevy::asset::io::AssetSourceBuilder::new(move || {
            Box::new(bevy::asset::io::memory::MemoryAssetReader {
                root: reader_root.clone(),
            })
        }),
    );
    memory
}

/// Bytes handed to Bevy's asset server under `mem://`.
#[derive(Resource, Clone)]
pub struct MemoryAssets(pub Dir);

/// A model being spawned; it replaces the current one when ready.
#[derive(Component)]
struct PendingAvatar {
    editor: Option<Editor>,
    path: Option<PathBuf>,
    project_path: Option<PathBuf>,
    /// Carry the keys, pose and history over to the new model (poses are normalized,
    /// so they mean the same on any model).
    keep_work: bool,
    gltf: Handle<Gltf>,
    file: String,
    timings: LoadTimings,
    node_count: usize,
    routes: Arc<MorphRoutes>,
    /// The notice once it is on screen ("Opened …"), if any.
    opened: Option<String>,
}

/// Where the time to open a model went (logged, and read by `scripts/bench`).
#[derive(Clone, Copy, Debug, Default)]
struct LoadTimings {
    started: Option<std::time::Instant>,
    /// Reading the file and checking it in the core.
    parse_ms: f64,
    /// Making the renderer's copy (compaction, texture checks and downscaling).
    display_ms: f64,
    /// From handing the bytes to Bevy to its scene existing (decoding textures, meshes).
    bevy_ms: f64,
}

/// The avatar that was on screen before the newest one, kept hidden for a few seconds:
/// if the GPU refuses to draw the new one, this one (and the session that went with it)
/// comes back.
#[derive(Component)]
struct Retired {
    session: Option<Session>,
    nodes: Vec<Option<Entity>>,
    routes: Arc<MorphRoutes>,
    /// The work moved to the new model and must move back.
    work_moved: bool,
    until: f64,
    /// Frames run since the swap: on a loaded machine a few seconds can pass before the
    /// GPU has seen the new model at all, so the trial also lasts a number of frames.
    frames: u32,
}

/// How long a replaced avatar is kept to fall back on (real seconds, and frames).
const FALLBACK_SECS: f64 = 4.0;
const FALLBACK_FRAMES: u32 = 30;

/// A model being read and prepared on a worker thread.
struct Opening {
    job: Job<Result<(Prepared, DisplayModel, LoadTimings), String>>,
    source: ModelSource,
}

/// The model being read; a newer request replaces it.
#[derive(Resource, Default)]
struct OpeningJob(Option<Opening>);

/// Render errors reported by wgpu since the app last looked (see [`on_render_error`]).
#[derive(Resource, Default, Debug)]
pub struct RenderFailures {
    pub new: Vec<String>,
    /// When the last one was taken up (app time, seconds).
    last_at: Option<f64>,
}

/// Set by the observer when the glTF scene instance exists.
#[derive(Component)]
struct SceneReady;

#[derive(Clone)]
struct NodeIndexHook;

impl GltfExtensionHandler for NodeIndexHook {
    fn dyn_clone(&self) -> Box<dyn ErasedGltfExtensionHandler> {
        Box::new(self.clone())
    }

    fn on_gltf_node(
        &mut self,
        _load_context: &mut bevy::asset::LoadContext<'_>,
        gltf_node: &gltf::Node,
        entity: &mut EntityWorldMut,
    ) {
        entity.insert(GltfNodeIndex(gltf_node.index()));
    }
}

pub(super) fn plugin(app: &mut App) {
    contain_render_errors(app);
    app.init_resource::<OpeningJob>()
        .init_resource::<LiveSprings>()
        .add_systems(Update, restart_springs)
        .add_systems(Startup, load_initial_model.in_set(StartupSet::OpenModel))
        .add_systems(
            Update,
            (
                start_loading,
                spawn_prepared,
                mtoon::attach_registry,
                watch_failures,
                finish_loading,
                take_back_undrawable_model,
                drop_retired_avatars,
                stay_awake_while_loading,
            )
                .chain()
                .in_set(EditorSet::Input),
        )
        .add_systems(
            PostUpdate,
            (
                drive_skeleton.before(bevy::transform::TransformSystems::Propagate),
                texture_binds::tag_material_slots,
                texture_binds::apply_texture_binds.after(texture_binds::tag_material_slots),
            ),
        )
        .add_observer(|ready: On<WorldInstanceReady>, mut commands: Commands| {
            if let Ok(mut e) = commands.get_entity(ready.entity) {
                e.insert(SceneReady);
            }
        });
    if let Some(handlers) = app.world().get_resource::<GltfExtensionHandlers>() {
        handlers.0.write_blocking().push(Box::new(NodeIndexHook));
    }
}

fn load_initial_model(launch: Res<Launch>, mut load: MessageWriter<LoadModel>) {
    load.write(LoadModel(match &launch.file {
        Some(path) if is_project_file(path) => ModelSource::Project(path.clone()),
        Some(path) => ModelSource::File(path.clone()),
        None => ModelSource::Mannequin,
    }));
}

/// Reads and validates a model file through the core.
pub fn read_model(path: &Path) -> Result<(Vec<u8>, Editor), String> {
    let cannot_open = |e: crate::core::Refusal| {
        tr!(
            "app-open-failed",
            path = path.display().to_string(),
            reason = e.to_string()
        )
    };
    let bytes =
        crate::core::read_bounded(path, crate::core::MAX_FILE_BYTES).map_err(cannot_open)?;
    let rig = crate::core::rig_from_bytes(&bytes).map_err(cannot_open)?;
    Ok((bytes, Editor::new(rig)))
}

/// A model (and maybe a project) read and validated, ready to spawn.
struct Prepared {
    bytes: Vec<u8>,
    editor: Editor,
    model_path: Option<PathBuf>,
    /// `Some` when a project was opened: it replaces the current work.
    project_path: Option<PathBuf>,
    warnings: Vec<String>,
}

fn mannequin_editor() -> (Vec<u8>, Editor) {
    let bytes = mannequin::build(MannequinVariant::Vrm1);
    let rig = crate::core::rig_from_bytes(&bytes).expect("the mannequin is valid");
    (bytes, Editor::new(rig))
}

fn prepare(source: &ModelSource) -> Result<Prepared, String> {
    match source {
        ModelSource::Mannequin => {
            let (bytes, editor) = mannequin_editor();
            Ok(Prepared {
                bytes,
                editor,
                model_path: None,
                project_path: None,
                warnings: Vec::new(),
            })
        }
        ModelSource::File(path) => {
            let (bytes, editor) = read_model(path)?;
            Ok(Prepared {
                bytes,
                editor,
                model_path: Some(path.clone()),
                project_path: None,
                warnings: Vec::new(),
            })
        }
        ModelSource::Project(path) => {
            let mut warnings = Vec::new();
            let project = Project::load(path, &mut warnings)
                .map_err(|e| tr!("app-open-project-failed", reason = e.to_string()))?;
            let model_path = project.resolved_model_path(path);
            let (bytes, editor) = match &model_path {
                Some(model) => read_model(model)?,
                None => mannequin_editor(),
            };
            let editor = Editor::with_project(editor.rig, project, &mut warnings);
            Ok(Prepared {
                bytes,
                editor,
                model_path,
                project_path: Some(path.clone()),
                warnings,
            })
        }
        ModelSource::Recovered(path) => {
            let found = crate::core::recovery::read(path)
                .map_err(|e| tr!("app-recover-failed", reason = e.to_string()))?
                .ok_or_else(|| tr!("app-recovery-file-gone"))?;
            let mut warnings = Vec::new();
            let model_path = found.project.model_path.clone();
            let (bytes, editor) = match &model_path {
                Some(model) => read_model(model)?,
                None => mannequin_editor(),
            };
            let mut editor = Editor::with_project(editor.rig, found.project, &mut warnings);
            editor.dirty = true; // recovered work is not saved anywhere yet
            Ok(Prepared {
                bytes,
                editor,
                model_path,
                project_path: found.project_path,
                warnings,
            })
        }
    }
}

/// The device's limits a model must fit; wgpu's defaults before the device exists.
/// `VRMA_MAKER_SKIP_DEVICE_CHECKS` turns the checks off, so tests can send a model the
/// GPU will refuse all the way to the renderer and see the editor survive it.
fn device_limits(device: Option<&RenderDevice>) -> DeviceLimits {
    if std::env::var_os("VRMA_MAKER_SKIP_DEVICE_CHECKS").is_some() {
        return DeviceLimits {
            max_texture_side: u32::MAX,
            max_storage_binding: u64::MAX,
        };
    }
    device.map_or(DeviceLimits::WGPU_DEFAULT, |d| {
        let limits = d.limits();
        DeviceLimits {
            max_texture_side: limits.max_texture_dimension_2d,
            max_storage_binding: limits.max_storage_buffer_binding_size,
        }
    })
}

/// Decodes a texture and encodes it again at most `side` pixels on its longer side.
pub fn downscale_texture(encoded: &[u8], side: u32) -> Result<Vec<u8>, String> {
    let image = image::load_from_memory(encoded).map_err(|e| e.to_string())?;
    // `thumbnail` averages integer boxes: memory for the output only, where a filtered
    // resize of an 8k texture holds a float copy of it (~800 MB).
    let smaller = image.thumbnail(side, side);
    let mut out = std::io::Cursor::new(Vec::new());
    smaller
        .write_to(&mut out, image::ImageFormat::Png)
        .map_err(|e| e.to_string())?;
    Ok(out.into_inner())
}

/// What Bevy's glTF loader is asked to load of an avatar: meshes and materials kept in
/// `usages`, no cameras, lights or animations. (The loader fuzz test loads with the same.)
pub fn loader_settings(usages: RenderAssetUsages) -> impl Fn(&mut GltfLoaderSettings) + Copy {
    move |s: &mut GltfLoaderSettings| {
        s.load_meshes = usages;
        s.load_materials = usages;
        s.load_cameras = false;
        s.load_lights = false;
        s.load_animations = false;
    }
}

/// Reads, checks and prepares a model for this device (on a worker thread).
fn prepare_for_display(
    source: &ModelSource,
    limits: DeviceLimits,
) -> Result<(Prepared, DisplayModel, LoadTimings), String> {
    let started = std::time::Instant::now();
    let mut prepared = prepare(source)?;
    let parsed = std::time::Instant::now();
    let display = display::prepare(&prepared.bytes, &limits, &mut downscale_texture)
        .map_err(|e| tr!("app-display-failed", reason = e.to_string()))?;
    prepared.bytes = Vec::new(); // the display copy replaces it
    let timings = LoadTimings {
        started: Some(started),
        parse_ms: (parsed - started).as_secs_f64() * 1e3,
        display_ms: parsed.elapsed().as_secs_f64() * 1e3,
        bevy_ms: 0.0,
    };
    Ok((prepared, display, timings))
}

fn source_name(source: &ModelSource) -> String {
    match source {
        ModelSource::Mannequin => tr!("app-the-mannequin"),
        ModelSource::File(p) | ModelSource::Project(p) | ModelSource::Recovered(p) => {
            p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        }
    }
}

/// Starts reading each requested model on a worker thread; the window keeps drawing.
fn start_loading(
    mut requests: MessageReader<LoadModel>,
    mut opening: ResMut<OpeningJob>,
    device: Option<Res<RenderDevice>>,
    mut banner: ResMut<Banner>,
) {
    for LoadModel(source) in requests.read().cloned() {
        let limits = device_limits(device.as_deref());
        let work_source = source.clone();
        banner.progress = Some(tr!("app-opening-reading", name = source_name(&source)));
        // A newer request supersedes one still being read.
        opening.0 = Some(Opening {
            job: Job::spawn("open-model", move || {
                prepare_for_display(&work_source, limits)
            }),
            source,
        });
    }
}

/// Where models go to be loaded: the `mem://` bytes and Bevy's asset server.
#[derive(SystemParam)]
struct Loader<'w> {
    memory: Res<'w, MemoryAssets>,
    assets: Res<'w, AssetServer>,
}

/// What changes when an avatar is swapped in or taken back.
#[derive(SystemParam)]
struct Swap<'w> {
    session: ResMut<'w, Session>,
    selection: ResMut<'w, Selection>,
    banner: ResMut<'w, Banner>,
    shown: MessageWriter<'w, AvatarShown>,
    save_now: MessageWriter<'w, SaveRecoveryNow>,
}

/// Hands a prepared model to Bevy's glTF loader and spawns it hidden.
fn spawn_prepared(
    mut opening: ResMut<OpeningJob>,
    mut commands: Commands,
    loader: Loader,
    mut banner: ResMut<Banner>,
    mut counter: Local<u32>,
    pending: Query<Entity, With<PendingAvatar>>,
    (mut load, mut failed): (MessageWriter<LoadModel>, MessageWriter<OpenFailed>),
) {
    let Some(outcome) = opening.0.as_ref().and_then(|o| o.job.take()) else {
        return;
    };
    let Some(Opening { source, .. }) = opening.0.take() else {
        return;
    };
    let (prepared, mut display, timings) = match outcome.and_then(|r| r) {
        Ok(p) => p,
        Err(e) => {
            banner.progress = None;
            banner.error(e);
            failed.write(OpenFailed(source.clone()));
            if *counter == 0 {
                // Nothing on screen yet: fall back to the mannequin.
                load.write(LoadModel(ModelSource::Mannequin));
                *counter += 1;
            }
            return;
        }
    };
    if !matches!(source, ModelSource::Mannequin) {
        banner.error = None;
    }
    let mut warnings = prepared.warnings.clone();
    warnings.extend(display.warnings.iter().cloned());
    if !warnings.is_empty() {
        banner.notice = Some(tr!(
            "app-opened-with-warnings",
            warnings = warnings.join("; ")
        ));
    }
    // Said once the model is on screen (a warning said already stays).
    let opened = match &source {
        ModelSource::File(p) | ModelSource::Project(p) if warnings.is_empty() => {
            Some(tr!("files-status-opened", path = p.display().to_string()))
        }
        _ => None,
    };
    banner.progress = Some(tr!("app-opening-uploading", name = source_name(&source)));
    for e in &pending {
        commands.entity(e).despawn();
    }
    *counter += 1;
    let file = format!("avatar-{}.glb", *counter);
    loader
        .memory
        .0
        .insert_asset(Path::new(&file), std::mem::take(&mut display.bytes));
    let url = format!("mem://{file}");
    // Meshes and textures live on the GPU only: nothing reads them back, and a CPU copy
    // of a VRoid avatar's textures and morphs is hundreds of megabytes.
    let settings = loader_settings(RenderAssetUsages::RENDER_WORLD);
    let gltf: Handle<Gltf> = loader
        .assets
        .load_builder()
        .with_settings(settings)
        .load(url.clone());
    let scene: Handle<WorldAsset> = loader
        .assets
        .load_builder()
        .with_settings(settings)
        .load(GltfAssetLabel::Scene(0).from_asset(url));
    // VRM 0.x faces -Z: turn it to face +Z like VRM 1.0 (SPEC §1).
    let turn = if prepared.editor.rig.version() == VrmVersion::V0 {
        Quat::from_rotation_y(PI)
    } else {
        Quat::IDENTITY
    };
    let first = *counter == 1;
    let mut avatar = commands.spawn_empty();
    if display.mtoon.iter().any(Option::is_some) {
        avatar.insert((
            mtoon::MToonPending {
                mtoon: std::mem::take(&mut display.mtoon),
                gltf: gltf.clone(),
            },
            crate::app::session::MaterialsPending,
        ));
    }
    avatar.insert((
        WorldAssetRoot(scene),
        Transform::from_rotation(turn),
        Visibility::Hidden,
        PendingAvatar {
            editor: Some(prepared.editor),
            path: prepared.model_path,
            project_path: prepared.project_path,
            keep_work: !first && matches!(source, ModelSource::Mannequin | ModelSource::File(_)),
            gltf,
            file,
            timings,
            node_count: display.node_count,
            routes: Arc::new(display.routes),
            opened,
        },
    ));
}

fn watch_failures(
    mut commands: Commands,
    pending: Query<(Entity, &PendingAvatar)>,
    loader: Loader,
    mut banner: ResMut<Banner>,
) {
    for (entity, p) in &pending {
        if let bevy::asset::LoadState::Failed(err) = loader.assets.load_state(&p.gltf) {
            banner.progress = None;
            banner.error(tr!("app-display-failed", reason = err.to_string()));
            loader.memory.0.remove_asset(Path::new(&p.file));
            commands.entity(entity).despawn();
        }
    }
}

/// The avatar on screen, and the one kept to fall back on.
type OnScreen<'w, 's> = Query<'w, 's, (Entity, &'static Avatar)>;
type RetiredAvatars<'w, 's> = Query<'w, 's, Entity, With<Retired>>;

fn finish_loading(
    mut commands: Commands,
    mut pending: Query<(Entity, &mut PendingAvatar, &mut Visibility), With<SceneReady>>,
    (old, retired): (OnScreen, RetiredAvatars),
    (children, indices): (Query<&Children>, Query<&GltfNodeIndex>),
    mut swap: Swap,
    loader: Loader,
    time: Res<Time<Real>>,
) {
    for (entity, mut p, mut visibility) in &mut pending {
        // The scene can exist before its textures and meshes have loaded; showing it
        // then would put a model without its face on screen (or in a still). A part
        // that failed to load is shown without, and said.
        match loader.assets.recursive_dependency_load_state(&p.gltf) {
            RecursiveDependencyLoadState::Loaded => {
                if let Some(opened) = p.opened.take() {
                    swap.banner.notice = Some(opened);
                }
            }
            RecursiveDependencyLoadState::Failed(e) => {
                swap.banner.notice = Some(tr!("app-part-not-loaded", reason = e.to_string()));
            }
            _ => continue,
        }
        let Some(editor) = p.editor.take() else {
            continue;
        };
        let nodes = node_entities(entity, p.node_count, &children, &indices);
        // Bevy has its own copy now; the bytes need not stay in memory.
        loader.memory.0.remove_asset(Path::new(&p.file));
        let mut editor = editor;
        let project_path = if p.keep_work {
            swap.session.editor.hand_work_to(&mut editor);
            swap.session.project_path.take()
        } else {
            p.project_path.take()
        };
        let previous = std::mem::replace(
            &mut *swap.session,
            Session {
                editor,
                model_path: p.path.take(),
                project_path,
            },
        );
        // Only the latest replaced avatar is kept to fall back on.
        for e in &retired {
            commands.entity(e).despawn();
        }
        let mut previous = Some(previous);
        for (e, avatar) in &old {
            commands.entity(e).remove::<Avatar>().insert((
                Visibility::Hidden,
                Retired {
                    session: previous.take(),
                    nodes: avatar.nodes.clone(),
                    routes: avatar.routes.clone(),
                    work_moved: p.keep_work,
                    until: time.elapsed_secs_f64() + FALLBACK_SECS,
                    frames: 0,
                },
            ));
        }
        let mut timings = p.timings;
        if let Some(started) = timings.started {
            timings.bevy_ms =
                started.elapsed().as_secs_f64() * 1e3 - timings.parse_ms - timings.display_ms;
        }
        info!(
            "model shown: {} ({} nodes); read and check {:.0} ms, display copy {:.0} ms, \
             textures and meshes {:.0} ms",
            swap.session.editor.rig.model.title,
            nodes.iter().flatten().count(),
            timings.parse_ms,
            timings.display_ms,
            timings.bevy_ms,
        );
        swap.banner.progress = None;
        if swap
            .selection
            .0
            .is_some_and(|b| !swap.session.editor.rig.has(b))
        {
            swap.selection.0 = None;
        }
        *visibility = Visibility::Inherited;
        commands
            .entity(entity)
            .remove::<(PendingAvatar, SceneReady)>()
            .insert((
                Avatar {
                    nodes,
                    routes: p.routes.clone(),
                },
                FirstFrame(timings),
            ));
        swap.shown.write(AvatarShown);
    }
}

/// On a new avatar until its first frame has been drawn (for the timing log).
#[derive(Component)]
struct FirstFrame(LoadTimings);

/// Keeps Bevy's renderer from quitting the app on a GPU error: the error is recorded for
/// [`take_back_undrawable_model`] and rendering goes on. Bevy's default handler exits
/// on any error, which would lose unsaved work over a model the GPU cannot draw.
fn contain_render_errors(app: &mut App) {
    app.init_resource::<RenderFailures>()
        .insert_resource(RenderErrorHandler(on_render_error))
        .add_systems(Last, log_first_frame);
    // Morph targets of every mesh share slabs that are bound whole as one storage
    // buffer: keep each slab within the limit every device meets (128 MiB), so only a
    // single mesh part over the device's own limit could ever exceed it — and the core
    // refuses those before upload.
    if let Some(render_app) = app.get_sub_app_mut(RenderApp) {
        let limit = DeviceLimits::WGPU_DEFAULT.max_storage_binding;
        let settings = MeshAllocatorSettings {
            slab_allocator_settings: SlabAllocatorSettings {
                max_slab_size: limit,
                large_threshold: limit / 2,
                ..default()
            },
            ..default()
        };
        render_app.insert_resource(settings);
    }
}

fn on_render_error(
    error: &RenderError,
    main_world: &mut World,
    _: &mut World,
) -> RenderErrorPolicy {
    // wgpu's text is "Validation Error / Caused by: / where / what": keep where and what.
    let lines: Vec<&str> = error
        .description
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "Caused by:" && !l.ends_with(" Error"))
        .collect();
    let description = lines[lines.len().saturating_sub(2)..].join(": ");
    let message = format!("{:?} error: {description}", error.ty);
    let mut failures = main_world.get_resource_or_init::<RenderFailures>();
    if failures.new.len() < 8 {
        failures.new.push(message);
    }
    RenderErrorPolicy::Ignore
}

fn log_first_frame(mut commands: Commands, fresh: Query<(Entity, &FirstFrame)>) {
    for (entity, FirstFrame(timings)) in &fresh {
        if let Some(started) = timings.started {
            let total = started.elapsed().as_secs_f64() * 1e3;
            info!(
                "model ready to pose {total:.0} ms after opening (first frame {:.0} ms)",
                total - timings.parse_ms - timings.display_ms - timings.bevy_ms
            );
        }
        commands.entity(entity).remove::<FirstFrame>();
    }
}

/// A GPU error while a newly opened model is on trial: put the previous model and its
/// session back, autosave, and say why. Any other GPU error is reported; work is kept.
fn take_back_undrawable_model(
    mut failures: ResMut<RenderFailures>,
    mut commands: Commands,
    mut retired: Query<(Entity, &mut Retired)>,
    current: Query<Entity, With<Avatar>>,
    mut swap: Swap,
    time: Res<Time<Real>>,
    mut last_take_back: Local<Option<f64>>,
) {
    if failures.new.is_empty() {
        return;
    }
    let error = failures.new.join("; ");
    failures.new.clear();
    let now = time.elapsed_secs_f64();
    failures.last_at = Some(now);
    // Frames already queued with the refused model report the same error once or twice
    // more after it is gone; they belong to the message already swap.shown.
    if last_take_back.is_some_and(|t| now - t < 2.0) {
        return;
    }
    swap.save_now.write(SaveRecoveryNow);
    let Some((entity, mut old)) = retired.iter_mut().next() else {
        swap.banner.error(tr!("app-gpu-error", error = error));
        return;
    };
    let Some(mut previous) = old.session.take() else {
        return;
    };
    for e in &current {
        commands.entity(e).despawn();
    }
    if old.work_moved {
        swap.session.editor.hand_work_to(&mut previous.editor);
        previous.project_path = swap.session.project_path.take();
    }
    *swap.session = previous;
    *last_take_back = Some(now);
    commands.entity(entity).remove::<Retired>().insert((
        Avatar {
            nodes: std::mem::take(&mut old.nodes),
            routes: old.routes.clone(),
        },
        Visibility::Inherited,
    ));
    swap.banner.error(tr!("app-gpu-cannot-draw", error = error));
    swap.shown.write(AvatarShown);
}

/// An avatar being spawned, kept to fall back on, or before its first frame.
type LoadingWork = Or<(With<PendingAvatar>, With<Retired>, With<FirstFrame>)>;

/// Loading, a new avatar's first frame and the fallback window all need frames; so do
/// the moments after a GPU error (a failed frame can lack the UI and the banner: the
/// next clean frame must replace it, not wait for the idle wake).
fn stay_awake_while_loading(
    opening: Res<OpeningJob>,
    busy: Query<(), LoadingWork>,
    failures: Res<RenderFailures>,
    time: Res<Time<Real>>,
    mut awake: ResMut<KeepAwake>,
) {
    let after_error = failures
        .last_at
        .is_some_and(|t| time.elapsed_secs_f64() - t < 2.0);
    if opening.0.is_some() || !busy.is_empty() || after_error {
        awake.now();
    }
}

fn drop_retired_avatars(
    mut commands: Commands,
    mut retired: Query<(Entity, &mut Retired)>,
    time: Res<Time<Real>>,
) {
    for (entity, mut r) in &mut retired {
        r.frames += 1;
        if time.elapsed_secs_f64() > r.until && r.frames > FALLBACK_FRAMES {
            commands.entity(entity).despawn();
        }
    }
}

/// Writes the raw bone transforms and morph weights from the normalized pose.
fn drive_skeleton(
    (session, still_pose): (Res<Session>, Res<StillPose>),
    camera: Query<&GlobalTransform, With<EditorCamera>>,
    avatars: Query<&Avatar>,
    mut transforms: Query<&mut Transform>,
    mut morphs: Query<&mut MorphWeights>,
    (springs, mut live, time, mut awake): (
        Res<SpringBones>,
        ResMut<LiveSprings>,
        Res<Time<Real>>,
        ResMut<KeepAwake>,
    ),
) {
    let rig = &session.editor.rig;
    // While a still renders, its pose (the eyes on its camera); else the editor's, its
    // gaze on the editor's camera (the world is the model's frame).
    let viewer = camera
        .iter()
        .next()
        .map_or(Vec3::Z * 3.0, |t| t.translation());
    let shown = gazed_pose(rig, &session.editor.pose, viewer);
    let pose = still_pose.0.as_ref().unwrap_or(&shown);
    for avatar in &avatars {
        pose_instance(
            rig,
            pose,
            &avatar.nodes,
            &avatar.routes,
            &mut transforms,
            &mut morphs,
            false,
        );
        let rotations = match (&springs.held, springs.live) {
            // A still holds its settled springs while it renders.
            (Some(held), _) => held.clone(),
            (None, true) => {
                if live.step(rig, &session.editor.pose, time.delta_secs()) {
                    awake.now(); // hair still swinging: keep the frames coming
                }
                live.rotations(rig)
            }
            // Off: the hair back as the file has it (not frozen mid-swing, nor as the
            // last still left it), and switching on again starts from rest.
            (None, false) => {
                live.running = None;
                if !live.swung {
                    continue;
                }
                crate::core::spring::rest_rotations(rig)
            }
        };
        set_node_rotations(&avatar.nodes, &rotations, &mut transforms);
    }
    live.swung = springs.held.is_some() || springs.live;
}

/// The live spring simulation of the avatar on screen (started afresh for each model).
#[derive(Resource, Default)]
struct LiveSprings {
    running: Option<(
        crate::core::spring::NodeWorlds,
        crate::core::spring::SpringState,
    )>,
    /// The last step's largest tail movement (metres).
    moved: f32,
    /// Whether the joints may be off their rest rotations (a still or the simulation
    /// set them since they were last put back).
    swung: bool,
    /// Real time not yet simulated (steps are a fixed 1/60 s).
    pending: f32,
}

/// The live simulation's fixed step: Verlet's inertia assumes equal steps, and with the
/// window's uneven frames (long ones after an idle wait) the hair jittered for ever and
/// kept the window drawing.
const SPRING_STEP: f32 = 1.0 / 60.0;

impl LiveSprings {
    /// One step with the pose as it is; whether anything still moves visibly.
    fn step(
        &mut self,
        rig: &crate::core::rig::Rig,
        pose: &crate::core::pose::Pose,
        dt: f32,
    ) -> bool {
        use crate::core::spring::{NodeWorlds, SpringState};
        let springs = &rig.model.springs;
        if springs.chains.is_empty() {
            return false;
        }
        // Another model (its message may come a frame after the session changed): start
        // afresh rather than step one model's state on another's nodes.
        if self
            .running
            .as_ref()
            .is_some_and(|(worlds, state)| !worlds.fits(rig) || !state.fits(springs))
        {
            self.running = None;
        }
        let (worlds, state) = self.running.get_or_insert_with(|| {
            let mut worlds = NodeWorlds::new(rig);
            worlds.pose(rig, pose);
            let state = SpringState::reset(springs, &worlds);
            (worlds, state)
        });
        // At most 0.1 s is caught up: after a long idle wait the hair does not jump.
        self.pending = (self.pending + dt.max(0.0)).min(0.1);
        if self.pending >= SPRING_STEP {
            worlds.pose(rig, pose);
            self.moved = 0.0;
            while self.pending >= SPRING_STEP {
                self.pending -= SPRING_STEP;
                self.moved = self
                    .moved
                    .max(state.step(springs, rig, worlds, SPRING_STEP));
            }
        }
        self.moved > 1e-4
    }

    fn rotations(&self, rig: &crate::core::rig::Rig) -> Vec<(usize, Quat)> {
        self.running
            .as_ref()
            .map(|(worlds, _)| crate::core::spring::joint_rotations(&rig.model.springs, worlds))
            .unwrap_or_default()
    }
}

/// A new model's springs start from rest.
fn restart_springs(mut shown: MessageReader<AvatarShown>, mut live: ResMut<LiveSprings>) {
    if shown.read().count() > 0 {
        live.running = None;
    }
}
