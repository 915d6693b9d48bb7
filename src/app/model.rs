//! Model loading (file, dialog, drag-and-drop, the built-in mannequin) and driving the
//! raw skeleton and morph targets from the normalized pose.
//!
//! A file is parsed by the core first; only a valid VRM reaches Bevy's glTF loader, and
//! the current model stays on screen until the new one is fully spawned.

use std::f32::consts::PI;
use std::path::{Path, PathBuf};

use bevy::asset::io::memory::Dir;
use bevy::gltf::extensions::{
    ErasedGltfExtensionHandler, GltfExtensionHandler, GltfExtensionHandlers,
};
use bevy::prelude::*;
use bevy::world_serialization::WorldInstanceReady;

use super::session::{Banner, Selection, Session};
use crate::core::edit::Editor;
use crate::core::expressions::morph_weights;
use crate::core::mannequin::{self, MannequinVariant};
use crate::core::pose::Pose;
use crate::core::project::Project;
use crate::core::rig::Rig;
use crate::core::vrm::VrmVersion;

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

/// Ask to open a model.
#[derive(Message, Clone, Debug)]
pub struct LoadModel(pub ModelSource);

/// The glTF node index of a spawned node entity (set by a glTF loader hook).
#[derive(Component, Reflect, Clone, Copy, Debug)]
#[reflect(Component)]
pub struct GltfNodeIndex(pub usize);

/// The avatar on screen: node index → entity.
#[derive(Component)]
pub struct Avatar {
    pub nodes: Vec<Option<Entity>>,
}

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
}

/// Set by the observer when the glTF scene instance exists.
#[derive(Component)]
struct SceneReady;

/// Fired when a new avatar is on screen (camera framing, title).
#[derive(Message, Clone, Debug)]
pub struct AvatarShown;

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

pub fn plugin(app: &mut App) {
    app.register_type::<GltfNodeIndex>()
        .add_message::<LoadModel>()
        .add_message::<AvatarShown>()
        .add_systems(Startup, load_initial_model)
        .add_systems(
            Update,
            (start_loading, watch_failures, finish_loading).chain(),
        )
        .add_systems(
            PostUpdate,
            drive_skeleton.before(bevy::transform::TransformSystems::Propagate),
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

fn load_initial_model(launch: Res<super::Launch>, mut load: MessageWriter<LoadModel>) {
    load.write(LoadModel(match &launch.file {
        Some(path) if super::files::is_project_file(path) => ModelSource::Project(path.clone()),
        Some(path) => ModelSource::File(path.clone()),
        None => ModelSource::Mannequin,
    }));
}

/// Reads and validates a model file through the core.
pub fn read_model(path: &Path) -> Result<(Vec<u8>, Editor), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("Cannot open {}: {e}", path.display()))?;
    let rig = crate::core::rig_from_bytes(&bytes)
        .map_err(|e| format!("Cannot open {}: {e}", path.display()))?;
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
                .map_err(|e| format!("Cannot open the project: {e}"))?;
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
                .map_err(|e| format!("Cannot recover: {e}"))?
                .ok_or_else(|| "The recovery file is gone".to_string())?;
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

fn start_loading(
    mut requests: MessageReader<LoadModel>,
    mut commands: Commands,
    memory: Res<MemoryAssets>,
    assets: Res<AssetServer>,
    mut banner: ResMut<Banner>,
    mut counter: Local<u32>,
    pending: Query<Entity, With<PendingAvatar>>,
) {
    let requests: Vec<LoadModel> = requests.read().cloned().collect();
    for LoadModel(source) in requests {
        let prepared = match prepare(&source) {
            Ok(p) => {
                if !matches!(source, ModelSource::Mannequin) {
                    banner.error = None;
                }
                p
            }
            Err(e) => {
                banner.error(e);
                if *counter == 0 {
                    // Nothing on screen yet: fall back to the mannequin.
                    commands.write_message(LoadModel(ModelSource::Mannequin));
                    *counter += 1;
                }
                continue;
            }
        };
        if !prepared.warnings.is_empty() {
            banner.notice = Some(format!(
                "Opened with warnings: {}",
                prepared.warnings.join("; ")
            ));
        }
        // A newer request supersedes one still spawning.
        for e in &pending {
            commands.entity(e).despawn();
        }
        *counter += 1;
        let file = format!("avatar-{}.glb", *counter);
        memory.0.insert_asset(Path::new(&file), prepared.bytes);
        let url = format!("mem://{file}");
        let gltf: Handle<Gltf> = assets.load(url.clone());
        let scene: Handle<WorldAsset> = assets.load(GltfAssetLabel::Scene(0).from_asset(url));
        // VRM 0.x faces -Z: turn it to face +Z like VRM 1.0 (SPEC §1).
        let turn = if prepared.editor.rig.version() == VrmVersion::V0 {
            Quat::from_rotation_y(PI)
        } else {
            Quat::IDENTITY
        };
        let first = *counter == 1;
        commands.spawn((
            WorldAssetRoot(scene),
            Transform::from_rotation(turn),
            Visibility::Hidden,
            PendingAvatar {
                editor: Some(prepared.editor),
                path: prepared.model_path,
                project_path: prepared.project_path,
                keep_work: !first
                    && matches!(source, ModelSource::Mannequin | ModelSource::File(_)),
                gltf,
                file,
            },
        ));
    }
}

fn watch_failures(
    mut commands: Commands,
    pending: Query<(Entity, &PendingAvatar)>,
    assets: Res<AssetServer>,
    memory: Res<MemoryAssets>,
    mut banner: ResMut<Banner>,
) {
    for (entity, p) in &pending {
        if let bevy::asset::LoadState::Failed(err) = assets.load_state(&p.gltf) {
            banner.error(format!("Cannot display the model: {err}"));
            memory.0.remove_asset(Path::new(&p.file));
            commands.entity(entity).despawn();
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn finish_loading(
    mut commands: Commands,
    mut pending: Query<(Entity, &mut PendingAvatar, &mut Visibility), With<SceneReady>>,
    old: Query<Entity, With<Avatar>>,
    children: Query<&Children>,
    indices: Query<&GltfNodeIndex>,
    mut session: ResMut<Session>,
    mut selection: ResMut<Selection>,
    mut shown: MessageWriter<AvatarShown>,
) {
    for (entity, mut p, mut visibility) in &mut pending {
        let Some(editor) = p.editor.take() else {
            continue;
        };
        let nodes = node_entities(entity, editor.rig.model.nodes.len(), &children, &indices);
        for e in &old {
            commands.entity(e).despawn();
        }
        info!(
            "model shown: {} ({} nodes)",
            editor.rig.model.title,
            nodes.iter().flatten().count()
        );
        let mut editor = editor;
        let project_path = if p.keep_work {
            session.editor.hand_work_to(&mut editor);
            session.project_path.take()
        } else {
            p.project_path.take()
        };
        *session = Session {
            editor,
            model_path: p.path.take(),
            project_path,
        };
        if selection.0.is_some_and(|b| !session.editor.rig.has(b)) {
            selection.0 = None;
        }
        *visibility = Visibility::Inherited;
        commands
            .entity(entity)
            .remove::<(PendingAvatar, SceneReady)>()
            .insert(Avatar { nodes });
        shown.write(AvatarShown);
    }
}

/// Node index → spawned entity for one instance of a model's scene.
pub fn node_entities(
    root: Entity,
    node_count: usize,
    children: &Query<&Children>,
    indices: &Query<&GltfNodeIndex>,
) -> Vec<Option<Entity>> {
    let mut nodes = vec![None; node_count];
    for e in children.iter_descendants(root) {
        if let Ok(GltfNodeIndex(i)) = indices.get(e)
            && let Some(slot) = nodes.get_mut(*i)
        {
            *slot = Some(e);
        }
    }
    nodes
}

/// Writes a pose's raw bone transforms and morph weights onto one spawned instance.
/// With `always` false only what changed is written, so change detection stays quiet
/// while nothing moves; a one-frame thumbnail render writes everything, so the skinned
/// meshes are refreshed for that frame even when the pose equals the last one.
pub fn pose_instance(
    rig: &Rig,
    pose: &Pose,
    nodes: &[Option<Entity>],
    transforms: &mut Query<&mut Transform>,
    morphs: &mut Query<&mut MorphWeights>,
    always: bool,
) {
    for local in rig.raw_locals(pose) {
        if let Some(Some(entity)) = nodes.get(local.node)
            && let Ok(mut t) = transforms.get_mut(*entity)
        {
            let next = Transform {
                translation: local.translation,
                rotation: local.rotation,
                scale: local.scale,
            };
            if always || *t != next {
                *t = next;
            }
        }
    }
    for (node, w) in morph_weights(&rig.model, &pose.expressions) {
        if let Some(Some(entity)) = nodes.get(node)
            && let Ok(mut mw) = morphs.get_mut(*entity)
            && mw.weights().len() == w.len()
            && (always || mw.weights() != w.as_slice())
        {
            mw.weights_mut().copy_from_slice(&w);
        }
    }
}

/// Writes the raw bone transforms and morph weights from the normalized pose.
fn drive_skeleton(
    session: Res<Session>,
    avatars: Query<&Avatar>,
    mut transforms: Query<&mut Transform>,
    mut morphs: Query<&mut MorphWeights>,
) {
    for avatar in &avatars {
        pose_instance(
            &session.editor.rig,
            &session.editor.pose,
            &avatar.nodes,
            &mut transforms,
            &mut morphs,
            false,
        );
    }
}
