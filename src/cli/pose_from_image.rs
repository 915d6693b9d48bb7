//! `vrma-maker pose-from-image --model M IMAGE -o POSE.json [--hands] [--mirror]
//! [--flip BONE,…]`: find
//! the person in a photo (MediaPipe's models on tract, `vrma_vision`) and write the pose
//! they show on model M (`core::capture`: the model's own bone lengths, limbs through the
//! IK), as File ▸ Export pose writes one (`.json` forced). Prints what was posed, what kept
//! its pose and which landmarks were used.

use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};

use crate::core::Refusal;
use crate::core::animation::edit::{Edit, PoseEdit};
use crate::core::capture::{FLIPPABLE_LIMBS, Part, pose_from_capture};
use crate::core::formats::table::{ExportKind, ExportWork, write_file};
use crate::core::model::humanoid::Bone;
use crate::vision::{PoseModels, default_models_dir, read_image};

pub struct Options<'a> {
    pub models: Option<&'a Path>,
    pub project: Option<&'a Path>,
    pub hands: bool,
    pub mirror: bool,
    /// Limb bones to flip in depth (`core::capture::Capture::with_depth_flipped`).
    pub flip: &'a [String],
}

pub fn run(model: &Path, image: &Path, output: &Path, options: &Options) -> Result<Value, Refusal> {
    let started = Instant::now();
    let flips = options
        .flip
        .iter()
        .map(|name| {
            Bone::from_name(name.trim())
                .filter(|b| FLIPPABLE_LIMBS.contains(b))
                .ok_or_else(|| {
                    Refusal::new(format!(
                        "--flip: '{name}' is not a limb bone (one of {})",
                        FLIPPABLE_LIMBS.map(|b| b.name()).join(", ")
                    ))
                })
        })
        .collect::<Result<Vec<Bone>, Refusal>>()?;
    let mut editor = super::open_editor(model, options.project)?;
    let picture = read_image(image)?;
    let dir = options
        .models
        .map_or_else(default_models_dir, Path::to_path_buf);
    let loading = Instant::now();
    let models = PoseModels::load(&dir, options.hands)?;
    let loaded = loading.elapsed();
    let finding = Instant::now();
    let found = models
        .find(&picture, None)
        .map_err(|e| e.context(image.display()))?;
    let found_in = finding.elapsed();
    let mut capture = if options.mirror {
        found.capture.mirrored()
    } else {
        found.capture.clone()
    };
    // In the avatar's terms: after mirroring, a flipped left arm is the avatar's left.
    for &bone in &flips {
        capture = capture
            .with_depth_flipped(bone)
            .map_err(|e| e.context(image.display()))?;
    }
    let posed = pose_from_capture(&editor.rig, &editor.pose, &capture)
        .map_err(|e| e.context(image.display()))?;
    // The same edit and the same pose file as the window's (Export pose).
    editor.apply(Edit::Pose(PoseEdit::SetPose(Box::new(posed.pose.clone()))))?;
    write_file(
        ExportKind::Pose.format(),
        &ExportWork::of(&editor),
        output,
        &mut |_| {},
    )?;
    let names = |parts: &[Part]| parts.iter().map(|p| p.name()).collect::<Vec<_>>();
    let used: Vec<usize> = (0..posed.used.len()).filter(|&i| posed.used[i]).collect();
    let pixels: Vec<Value> = found
        .body_pixels
        .iter()
        .zip(found.visibility)
        .map(|(p, v)| json!([p.x, p.y, v]))
        .collect();
    let hands: Vec<Value> = found
        .hand_pixels
        .iter()
        .map(|(side, points)| {
            json!({"side": side.name(), "pixels": points.iter().map(|p| [p.x, p.y]).collect::<Vec<_>>()})
        })
        .collect();
    Ok(json!({
        "posed": names(&posed.posed),
        "flipped": flips.iter().map(|b| b.name()).collect::<Vec<_>>(),
        "kept": names(&posed.kept()),
        "used": used,
        "landmarks": pixels,
        "hands": hands,
        "image": [picture.width(), picture.height()],
        "seconds": {
            "load_models": loaded.as_secs_f64(),
            "find": found_in.as_secs_f64(),
            "total": started.elapsed().as_secs_f64(),
        },
    }))
}
