//! `vrma-maker follow-frames --model M DIR -o POSES.json [--unfiltered] [--mirror]`: the
//! live camera mode over a folder of frames standing in for a webcam (the same
//! `vision::LiveCapture` as View ▸ Follow camera): each frame tracked from the last,
//! smoothed at the landmarks, posed from the pose before it. Writes every frame's pose
//! (null where nobody was found) and prints the timing.

use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};

use crate::core::capture::pose_from_capture;
use crate::core::{Refusal, write_atomic};
use crate::vision::{LiveCapture, PoseModels, default_models_dir, frame_files, read_image};

pub struct Options<'a> {
    pub models: Option<&'a Path>,
    pub unfiltered: bool,
    pub mirror: bool,
    pub hands: bool,
    pub fps: f32,
    pub one_euro: Option<crate::core::body::smoothing::OneEuroParams>,
}

pub fn run(
    model: &Path,
    frames: &Path,
    output: &Path,
    options: &Options,
) -> Result<Value, Refusal> {
    if !(options.fps.is_finite() && options.fps > 0.0 && options.fps <= 240.0) {
        return Err(Refusal::new(format!(
            "--fps {} is not a frame rate (0–240)",
            options.fps
        )));
    }
    let editor = super::open_editor(model, None)?;
    let files = frame_files(frames)?;
    let dir = options
        .models
        .map_or_else(default_models_dir, Path::to_path_buf);
    let models = PoseModels::load(&dir, options.hands)?;
    let mut live = LiveCapture::default();
    live.unfiltered = options.unfiltered;
    live.mirror = options.mirror;
    if let Some(params) = options.one_euro {
        live.params = params;
    }
    let title = editor.rig.model.title.clone();
    let mut pose = editor.pose.clone();
    let mut out = Vec::with_capacity(files.len());
    let started = Instant::now();
    for (i, file) in files.iter().enumerate() {
        let frame = read_image(file)?;
        let entry = match live.next(&models, &frame, 1.0 / options.fps) {
            Ok(found) => match pose_from_capture(&editor.rig, &pose, &found.capture) {
                Ok(posed) => {
                    pose = posed.pose;
                    json!({"frame": i, "pose": pose.to_json(&title)})
                }
                Err(refusal) => json!({"frame": i, "pose": null, "error": refusal.0}),
            },
            Err(refusal) => json!({"frame": i, "pose": null, "error": refusal.0}),
        };
        out.push(entry);
    }
    let seconds = started.elapsed().as_secs_f64();
    let text =
        serde_json::to_string(&json!({"frames": out})).map_err(|e| Refusal::new(e.to_string()))?;
    write_atomic(output, text.as_bytes())
        .map_err(|e| Refusal::new(format!("cannot write {}: {e}", output.display())))?;
    let found = out.iter().filter(|f| !f["pose"].is_null()).count();
    Ok(json!({
        "frames": files.len(),
        "found": found,
        "seconds": seconds,
        "frames_per_second": files.len() as f64 / seconds.max(1e-9),
    }))
}
