//! Swapping a prepared model in: spawning its scene hidden, showing it once everything
//! has loaded, keeping the previous avatar to fall back on when the GPU cannot draw the
//! new one, and keeping render errors from ending the app.

use std::f32::consts::PI;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bevy::asset::{RecursiveDependencyLoadState, RenderAssetUsages};
use bevy::ecs::system::SystemParam;
use bevy::gltf::extensions::{ErasedGltfExtensionHandler, GltfExtensionHandler};
use bevy::prelude::*;
use bevy::render::RenderApp;
use bevy::render::error_handler::{RenderError, RenderErrorHandler, RenderErrorPolicy};
use bevy::render::mesh::allocator::MeshAllocatorSettings;
use bevy::render::slab_allocator::SlabAllocatorSettings;

use super::load::{LoadTimings, Loader, Opening, OpeningJob, loader_settings, source_name};
use super::mtoon;
use crate::app::session::{
    Avatar, AvatarShown, Banner, GltfNodeIndex, KeepAwake, LoadModel, ModelSource, OpenFailed,
    SaveRecoveryNow, Selection, Session, node_entities,
};
use crate::core::animation::edit::Editor;
use crate::core::model::display::{DeviceLimits, MorphRoutes};
use crate::core::model::gltf::VrmVersion;
use crate::tr;

/// A model being spawned; it replaces the current one when ready.
#[derive(Component)]
pub(super) struct PendingAvatar {
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

/// The avatar that was on screen before the newest one, kept hidden for a few seconds:
/// if the GPU refuses to draw the new one, this one (and the session that went with it)
/// comes back.
#[derive(Component)]
pub(super) struct Retired {
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

/// Render errors reported by wgpu since the app last looked (see [`on_render_error`]).
#[derive(Resource, Default, Debug)]
pub struct RenderFailures {
    pub new: Vec<String>,
    /// When the last one was taken up (app time, seconds).
    last_at: Option<f64>,
}

/// Set by the observer when the glTF scene instance exists.
#[derive(Component)]
pub(super) struct SceneReady;

#[derive(Clone)]
pub(super) struct NodeIndexHook;

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

/// What changes when an avatar is swapped in or taken back.
#[derive(SystemParam)]
pub(super) struct Swap<'w> {
    session: ResMut<'w, Session>,
    selection: ResMut<'w, Selection>,
    banner: ResMut<'w, Banner>,
    shown: MessageWriter<'w, AvatarShown>,
    save_now: MessageWriter<'w, SaveRecoveryNow>,
}

/// Hands a prepared model to Bevy's glTF loader and spawns it hidden.
pub(super) fn spawn_prepared(
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

pub(super) fn watch_failures(
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

pub(super) fn finish_loading(
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
pub(super) struct FirstFrame(LoadTimings);

/// Keeps Bevy's renderer from quitting the app on a GPU error: the error is recorded for
/// [`take_back_undrawable_model`] and rendering goes on. Bevy's default handler exits
/// on any error, which would lose unsaved work over a model the GPU cannot draw.
pub(super) fn contain_render_errors(app: &mut App) {
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
pub(super) fn take_back_undrawable_model(
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
pub(super) fn stay_awake_while_loading(
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

pub(super) fn drop_retired_avatars(
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
