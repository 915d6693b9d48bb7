//! The one table of formats, behind File ▸ Import/Export and the CLI: each export
//! format's label, file extension and the function that writes it, and each import
//! format's extensions and the function that reads it. Adding a format is an entry here
//! (and, for a rendered one, the renderer's side in the app).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::Refusal;
use crate::animation::edit::Editor;
use crate::animation::timeline::Timeline;
use crate::body::pose::Pose;
use crate::body::rig::Rig;
use crate::formats::bvh::write::{BvhUnit, export_bvh};
use crate::formats::gltf_anim::export_animated_glb;
use crate::formats::imported::Imported;
use crate::formats::motion::{KeyPolicy, MotionOptions, UserMap};
use crate::formats::vrma::export::export_vrma;
use crate::formats::vrma::import::{AnimationKind, import_animation, read_animation_file};

/// The formats, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExportKind {
    Vrma,
    Bvh,
    Glb,
    Png,
    Pose,
}

/// What a format's file is made from: a copy of the work, so it can be written on a
/// worker thread while editing goes on.
pub struct ExportWork {
    pub rig: Rig,
    pub timeline: Timeline,
    pub pose: Pose,
    /// The project's export frame rate.
    pub fps: f32,
    /// Lengths in a BVH file.
    pub bvh_unit: BvhUnit,
    /// The model file the rig came from (an animated glTF is that file with the
    /// animation added); `None`: the built-in mannequin.
    pub model_file: Option<PathBuf>,
    /// An animated glTF of the skeleton alone, without the avatar's meshes.
    pub skeleton_only: bool,
}

impl ExportWork {
    pub fn of(editor: &Editor) -> ExportWork {
        ExportWork {
            rig: editor.rig.clone(),
            timeline: editor.timeline.clone(),
            pose: editor.pose.clone(),
            fps: editor.settings.fps,
            bvh_unit: BvhUnit::default(),
            model_file: None,
            skeleton_only: false,
        }
    }
}

/// A file's bytes, the facts the CLI prints, and a short line for the status bar.
pub struct Written {
    pub bytes: Vec<u8>,
    pub facts: Value,
    pub summary: String,
}

/// Writes one format's file from the work, reporting progress 0..=1.
pub type CoreWriter = fn(&ExportWork, &mut dyn FnMut(f32)) -> Result<Written, Refusal>;

/// Who makes a format's file.
pub enum Writer {
    /// The core, from the work.
    Core(CoreWriter),
    /// The app's renderer: a transparent still of the avatar (size and camera asked).
    Render,
}

pub struct ExportFormat {
    pub kind: ExportKind,
    /// The File menu entry.
    pub menu: &'static str,
    /// The dialog's filter name.
    pub filter: &'static str,
    pub extension: &'static str,
    pub default_name: &'static str,
    pub writer: Writer,
}

pub const EXPORT_FORMATS: [ExportFormat; 5] = [
    ExportFormat {
        kind: ExportKind::Vrma,
        menu: "Export VRMA…",
        filter: "VRM Animation",
        extension: "vrma",
        default_name: "animation.vrma",
        writer: Writer::Core(write_vrma),
    },
    ExportFormat {
        kind: ExportKind::Bvh,
        menu: "Export BVH…",
        filter: "BVH motion capture",
        extension: "bvh",
        default_name: "animation.bvh",
        writer: Writer::Core(write_bvh),
    },
    ExportFormat {
        kind: ExportKind::Glb,
        menu: "Export animated glTF…",
        filter: "glTF binary",
        extension: "glb",
        default_name: "animation.glb",
        writer: Writer::Core(write_glb),
    },
    ExportFormat {
        kind: ExportKind::Png,
        menu: "Export PNG…",
        filter: "PNG image",
        extension: "png",
        default_name: "pose.png",
        writer: Writer::Render,
    },
    ExportFormat {
        kind: ExportKind::Pose,
        menu: "Export pose (JSON)…",
        filter: "Pose",
        extension: "json",
        default_name: "pose.json",
        writer: Writer::Core(write_pose),
    },
];

impl ExportKind {
    pub fn format(self) -> &'static ExportFormat {
        EXPORT_FORMATS
            .iter()
            .find(|f| f.kind == self)
            .expect("every kind is in the table")
    }
}

/// `path` with the format's extension: kept when it is there (any case), else added.
/// `wanted` when no file is there, else the first free `STEM-2.EXT`, `STEM-3.EXT`… beside
/// it: an export made without a dialog (in VR) never writes over a file.
pub fn unused_path(wanted: &Path) -> PathBuf {
    if !wanted.exists() {
        return wanted.to_path_buf();
    }
    let stem = wanted
        .file_stem()
        .map_or_else(|| "export".into(), |s| s.to_string_lossy().into_owned());
    let named = |n: u64| match wanted.extension() {
        Some(ext) => wanted.with_file_name(format!("{stem}-{n}.{}", ext.to_string_lossy())),
        None => wanted.with_file_name(format!("{stem}-{n}")),
    };
    (2..u64::MAX)
        .map(named)
        .find(|p| !p.exists())
        .unwrap_or_else(|| named(u64::MAX))
}

pub fn with_extension(path: &Path, extension: &str) -> PathBuf {
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(extension))
    {
        path.to_path_buf()
    } else {
        let mut name = path.as_os_str().to_owned();
        name.push(".");
        name.push(extension);
        PathBuf::from(name)
    }
}

/// Writes a core-made format to `path` (its extension forced), atomically. Returns the
/// path written and the file's facts (with "output" and "bytes").
pub fn write_file(
    format: &ExportFormat,
    work: &ExportWork,
    path: &Path,
    progress: &mut dyn FnMut(f32),
) -> Result<(PathBuf, Written), Refusal> {
    let Writer::Core(write) = format.writer else {
        return Err(Refusal::new(format!(
            "{} is rendered by the app, not written by the core",
            format.extension
        )));
    };
    let path = with_extension(path, format.extension);
    let mut written = write(work, progress)?;
    crate::write_atomic(&path, &written.bytes)
        .map_err(|e| Refusal::new(format!("cannot write {}: {e}", path.display())))?;
    if let Value::Object(facts) = &mut written.facts {
        facts.insert("output".into(), json!(path.display().to_string()));
        facts.insert("bytes".into(), json!(written.bytes.len()));
    }
    Ok((path, written))
}

fn write_vrma(work: &ExportWork, progress: &mut dyn FnMut(f32)) -> Result<Written, Refusal> {
    let (bytes, stats) = export_vrma(&work.rig, &work.timeline, &work.pose, work.fps, progress);
    Ok(Written {
        bytes,
        facts: json!({
            "duration": stats.duration,
            "frames": stats.frames,
            "tracks": stats.tracks,
            "keyframes": stats.written_keys,
            "naive_keyframes": stats.naive_keys,
        }),
        summary: if stats.written_keys < stats.naive_keys {
            format!(
                "{:.2} s, {} keyframes instead of {}",
                stats.duration, stats.written_keys, stats.naive_keys
            )
        } else {
            format!("{:.2} s, {} keyframes", stats.duration, stats.written_keys)
        },
    })
}

fn write_bvh(work: &ExportWork, progress: &mut dyn FnMut(f32)) -> Result<Written, Refusal> {
    let export = export_bvh(
        &work.rig,
        &work.timeline,
        &work.pose,
        work.fps,
        work.bvh_unit,
        progress,
    );
    Ok(Written {
        bytes: export.text.into_bytes(),
        facts: json!({
            "duration": export.duration,
            "frames": export.frames,
            "joints": export.joints,
            "unit": if work.bvh_unit == BvhUnit::Centimetres { "cm" } else { "m" },
        }),
        summary: format!(
            "{:.2} s, {} frames of {} joints",
            export.duration, export.frames, export.joints
        ),
    })
}

fn write_glb(work: &ExportWork, progress: &mut dyn FnMut(f32)) -> Result<Written, Refusal> {
    if work.skeleton_only {
        // The skeleton alone is our VRMA without its VRM extension: a plain glTF
        // animation on a node per bone, which any glTF reader plays.
        let (bytes, stats) = export_vrma(&work.rig, &work.timeline, &work.pose, work.fps, progress);
        let split = crate::files::glb::split(&bytes)?;
        let mut root: Value = serde_json::from_slice(split.json)
            .map_err(|e| Refusal::new(format!("cannot write the glTF: {e}")))?;
        if let Some(map) = root.as_object_mut() {
            map.remove("extensions");
            map.remove("extensionsUsed");
        }
        let json = serde_json::to_vec(&root)
            .map_err(|e| Refusal::new(format!("cannot write the glTF: {e}")))?;
        return Ok(Written {
            bytes: crate::files::glb::build(&json, split.bin.unwrap_or(&[])),
            facts: json!({"duration": stats.duration, "frames": stats.frames, "skeleton_only": true}),
            summary: format!("{:.2} s, the skeleton alone", stats.duration),
        });
    }
    let model = match &work.model_file {
        Some(path) => crate::read_bounded(path, crate::MAX_FILE_BYTES)?,
        None => crate::model::mannequin::build(crate::model::mannequin::MannequinVariant::Vrm1),
    };
    let export = export_animated_glb(
        &model,
        &work.rig,
        &work.timeline,
        &work.pose,
        work.fps,
        progress,
    )?;
    Ok(Written {
        bytes: export.bytes,
        facts: json!({
            "duration": export.duration,
            "frames": export.frames,
            "channels": export.channels,
        }),
        summary: format!(
            "{:.2} s, {} frames on the avatar",
            export.duration, export.frames
        ),
    })
}

/// The export format a path's extension names (core-written formats only).
pub fn export_format_for(path: &Path) -> Option<&'static ExportFormat> {
    let ext = path.extension()?.to_str()?;
    EXPORT_FORMATS.iter().find(|f| {
        matches!(f.writer, Writer::Core(_))
            && f.kind != ExportKind::Pose
            && f.extension.eq_ignore_ascii_case(ext)
    })
}

fn write_pose(work: &ExportWork, progress: &mut dyn FnMut(f32)) -> Result<Written, Refusal> {
    let json = work.pose.to_json(&work.rig.model.title);
    let bytes = serde_json::to_vec_pretty(&json)
        .map_err(|e| Refusal::new(format!("cannot write the pose: {e}")))?;
    progress(1.0);
    Ok(Written {
        bytes,
        facts: json!({}),
        summary: "the pose".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_export_without_a_dialog_takes_the_next_free_name() {
        let dir = std::env::temp_dir().join(format!("vrma-unused-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let wanted = dir.join("walk.vrma");
        assert_eq!(unused_path(&wanted), wanted);
        std::fs::write(&wanted, b"x").unwrap();
        assert_eq!(unused_path(&wanted), dir.join("walk-2.vrma"));
        std::fs::write(dir.join("walk-2.vrma"), b"x").unwrap();
        assert_eq!(unused_path(&wanted), dir.join("walk-3.vrma"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_extension_is_forced_once_and_kept_in_any_case() {
        assert_eq!(
            with_extension(Path::new("a/walk"), "vrma"),
            Path::new("a/walk.vrma")
        );
        assert_eq!(
            with_extension(Path::new("walk.VRMA"), "vrma"),
            Path::new("walk.VRMA")
        );
        assert_eq!(
            with_extension(Path::new("walk.v1"), "vrma"),
            Path::new("walk.v1.vrma")
        );
    }

    #[test]
    fn every_kind_has_one_entry() {
        for kind in [ExportKind::Vrma, ExportKind::Png, ExportKind::Pose] {
            assert_eq!(EXPORT_FORMATS.iter().filter(|f| f.kind == kind).count(), 1);
            assert_eq!(kind.format().kind, kind);
        }
    }

    #[test]
    fn core_formats_write_their_files_and_rendered_ones_are_refused() {
        let rig = crate::body::rig::rig_from_bytes(&crate::model::mannequin::build(
            crate::model::mannequin::MannequinVariant::Vrm1,
        ))
        .unwrap();
        let editor = Editor::new(rig);
        let work = ExportWork::of(&editor);
        let dir = std::env::temp_dir().join(format!("vrma-export-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (path, written) = write_file(
            ExportKind::Pose.format(),
            &work,
            &dir.join("p"),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(path, dir.join("p.json"));
        let back: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(back, work.pose.to_json(&work.rig.model.title));
        assert_eq!(written.facts["bytes"], json!(written.bytes.len()));
        assert!(write_file(ExportKind::Png.format(), &work, &dir.join("x"), &mut |_| {}).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// How an import lays out its keys (the options a format does not use are ignored).
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// Reduced keys (and their tolerance) or every frame, for motion from a skeleton.
    pub keys: KeyPolicy,
    /// The user's bone mapping (`--map`).
    pub map: Option<UserMap>,
    /// The seconds of the source to take (in, out).
    pub range: Option<(f32, f32)>,
    /// For VRMA and glTF clips: at most this many keys per second.
    pub rate: Option<f32>,
    /// For FBX: the take (animation stack) by name or number; `None`: the longest.
    pub take: Option<String>,
}

impl ImportOptions {
    /// What the motion from a skeleton takes of them.
    fn motion(&self) -> MotionOptions {
        MotionOptions {
            keys: self.keys,
            map: self.map.clone(),
            range: self.range,
        }
    }
}

/// Reads one format's file (and, for `.gltf`, the buffers beside it) as keys for `rig`.
pub type CoreReader = fn(&Path, &Rig, &ImportOptions) -> Result<Imported, Refusal>;

pub struct ImportFormat {
    /// The dialog's filter name and what messages call it.
    pub name: &'static str,
    /// Lower-case extensions without the dot.
    pub extensions: &'static [&'static str],
    /// Whether it maps another skeleton onto the rig (so a mapping, a key layout and a
    /// range are the user's to choose before the keys go in).
    pub retargets: bool,
    pub reader: CoreReader,
}

pub const IMPORT_FORMATS: [ImportFormat; 5] = [
    ImportFormat {
        name: "VRM Animation",
        extensions: &["vrma"],
        retargets: false,
        reader: read_vrma_or_clip,
    },
    ImportFormat {
        name: "glTF animation",
        extensions: &["glb", "gltf"],
        retargets: false,
        reader: read_vrma_or_clip,
    },
    ImportFormat {
        name: "BVH motion capture",
        extensions: &["bvh"],
        retargets: true,
        reader: read_bvh,
    },
    ImportFormat {
        name: "FBX",
        extensions: &["fbx"],
        retargets: true,
        reader: read_fbx,
    },
    ImportFormat {
        name: "MikuMikuDance motion",
        extensions: &["vmd"],
        retargets: true,
        reader: read_vmd,
    },
];

/// Every extension an import takes, for file dialogs and dropped files.
pub fn import_extensions() -> Vec<&'static str> {
    IMPORT_FORMATS
        .iter()
        .flat_map(|f| f.extensions.iter().copied())
        .collect()
}

/// The import format a path's extension names.
pub fn import_format(path: &Path) -> Option<&'static ImportFormat> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    IMPORT_FORMATS
        .iter()
        .find(|f| f.extensions.contains(&ext.as_str()))
}

/// Imports an animation file as keys for `rig`, by its extension; a name without a known
/// one is read as a glTF clip (which says what is wrong with it, if anything).
pub fn import_file(path: &Path, rig: &Rig, options: &ImportOptions) -> Result<Imported, Refusal> {
    match import_format(path) {
        Some(format) => (format.reader)(path, rig, options),
        None => read_vrma_or_clip(path, rig, options),
    }
}

fn read_vrma_or_clip(path: &Path, rig: &Rig, options: &ImportOptions) -> Result<Imported, Refusal> {
    let (bytes, external) = read_animation_file(path)?;
    import_animation(
        &bytes,
        &external,
        AnimationKind::from_path(path),
        rig.hips_rest(),
        options.rate,
    )
    .map_err(|e| e.context(path.display()))
}

fn read_fbx(path: &Path, rig: &Rig, options: &ImportOptions) -> Result<Imported, Refusal> {
    let bytes = crate::read_bounded(path, crate::formats::fbx::import::MAX_BYTES as u64)?;
    crate::formats::fbx::import::import_fbx(&bytes, rig, &options.motion(), options.take.as_deref())
        .map_err(|e| e.context(path.display()))
}

fn read_vmd(path: &Path, rig: &Rig, options: &ImportOptions) -> Result<Imported, Refusal> {
    let bytes = crate::read_bounded(path, crate::formats::vmd::read::MAX_BYTES as u64)?;
    crate::formats::vmd::import::import_vmd(&bytes, rig, &options.motion())
        .map_err(|e| e.context(path.display()))
}

fn read_bvh(path: &Path, rig: &Rig, options: &ImportOptions) -> Result<Imported, Refusal> {
    let bytes = crate::read_bounded(path, crate::formats::bvh::read::MAX_BYTES as u64)?;
    crate::formats::bvh::import::import_bvh(&bytes, rig, &options.motion())
        .map_err(|e| e.context(path.display()))
}
