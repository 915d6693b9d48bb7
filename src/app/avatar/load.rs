//! The loading job: reading, checking and preparing a model on a worker thread (a file,
//! a project, recovered work or the built-in mannequin), and the `mem://` source its
//! bytes reach Bevy's asset server through.

use std::path::{Path, PathBuf};

use bevy::asset::RenderAssetUsages;
use bevy::asset::io::memory::Dir;
use bevy::ecs::system::SystemParam;
use bevy::gltf::GltfLoaderSettings;
use bevy::prelude::*;
use bevy::render::renderer::RenderDevice;

use crate::app::session::{Banner, Job, Launch, LoadModel, ModelSource};
use crate::core::animation::edit::Editor;
use crate::core::animation::project::{Project, is_project_file};
use crate::core::model::display::{self, DeviceLimits, DisplayModel};
use crate::core::model::mannequin::{self, MannequinVariant};
use crate::tr;

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

/// Where the time to open a model went (logged, and read by `scripts/bench`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LoadTimings {
    pub(super) started: Option<std::time::Instant>,
    /// Reading the file and checking it in the core.
    pub(super) parse_ms: f64,
    /// Making the renderer's copy (compaction, texture checks and downscaling).
    pub(super) display_ms: f64,
    /// From handing the bytes to Bevy to its scene existing (decoding textures, meshes).
    pub(super) bevy_ms: f64,
}

/// A model being read and prepared on a worker thread.
pub(super) struct Opening {
    pub(super) job: Job<Result<(Prepared, DisplayModel, LoadTimings), String>>,
    pub(super) source: ModelSource,
}

/// The model being read; a newer request replaces it.
#[derive(Resource, Default)]
pub(super) struct OpeningJob(pub(super) Option<Opening>);

pub(super) fn load_initial_model(launch: Res<Launch>, mut load: MessageWriter<LoadModel>) {
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
    let rig = crate::core::body::rig::rig_from_bytes(&bytes).map_err(cannot_open)?;
    Ok((bytes, Editor::new(rig)))
}

/// A model (and maybe a project) read and validated, ready to spawn.
pub(super) struct Prepared {
    bytes: Vec<u8>,
    pub(super) editor: Editor,
    pub(super) model_path: Option<PathBuf>,
    /// `Some` when a project was opened: it replaces the current work.
    pub(super) project_path: Option<PathBuf>,
    pub(super) warnings: Vec<String>,
}

fn mannequin_editor() -> (Vec<u8>, Editor) {
    let bytes = mannequin::build(MannequinVariant::Vrm1);
    let rig = crate::core::body::rig::rig_from_bytes(&bytes).expect("the mannequin is valid");
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

pub(super) fn source_name(source: &ModelSource) -> String {
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
pub(super) fn start_loading(
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
pub(super) struct Loader<'w> {
    pub(super) memory: Res<'w, MemoryAssets>,
    pub(super) assets: Res<'w, AssetServer>,
}
