//! `vrma-maker pose-from-video --model M VIDEO -o PROJECT.json [--from T --to T]
//! [--mirror]`: a video (H.264 in MP4 or MOV, decoded in process by `media::video`)
//! turned into editable keys. Every frame goes through the live camera's pipeline
//! (`vision::LiveCapture`: detect, then track), then what only a whole video allows
//! (`core::capture::offline`): landmarks smoothed with look-ahead, each limb's depth kept
//! continuous, the feet found standing and planted; the poses reduced to keys within a
//! tolerance (`core::formats::motion::keys`). Progress goes to stderr.

use std::ops::ControlFlow;
use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};

use crate::core::Refusal;
use crate::core::animation::edit::Editor;
use crate::core::animation::project::{Project, Settings};
use crate::core::animation::timeline::FPS;
use crate::core::capture::offline::keys_from_video;
use crate::media::video::VideoReader;
use crate::vision::recorded::{between, picture, track_frames};
use crate::vision::{PoseModels, default_models_dir};

pub struct Options<'a> {
    pub models: Option<&'a Path>,
    pub from: Option<f32>,
    pub to: Option<f32>,
    pub mirror: bool,
}

pub fn run(model: &Path, video: &Path, output: &Path, options: &Options) -> Result<Value, Refusal> {
    let started = Instant::now();
    let from = options.from.unwrap_or(0.0);
    if !from.is_finite() || from < 0.0 || options.to.is_some_and(|t| !t.is_finite() || t <= from) {
        return Err(Refusal::new(
            "--from and --to must be seconds into the video, --to after --from",
        ));
    }
    let rig = crate::core::body::rig::load_rig(model)?;
    let mut reader = VideoReader::open(video)?;
    let info = reader.info().clone();
    let dir = options
        .models
        .map_or_else(default_models_dir, Path::to_path_buf);
    let models = PoseModels::load(&dir, false)?;
    let frames = std::iter::from_fn(|| reader.next_frame().transpose()).map(|frame| {
        let frame = frame?;
        Ok((
            frame.time as f32,
            picture(frame.width, frame.height, frame.rgb)?,
        ))
    });
    let frames = between(frames, from, options.to);
    let tracked = track_frames(
        &models,
        frames,
        info.fps as f32,
        options.mirror,
        |i, _, _| {
            if (i + 1).is_multiple_of(30) {
                eprintln!("read {} of {} frames", i + 1, info.frames);
            }
            ControlFlow::Continue(())
        },
    )?
    .unwrap_or_default();
    let read = tracked.captures.len();
    let keys = keys_from_video(&rig, tracked.captures, &tracked.times, info.fps as f32)
        .map_err(|e| e.context(video.display()))?;
    let project = Project {
        model_path: Some(model.to_path_buf()),
        model_title: rig.model.title.clone(),
        settings: Settings {
            length: keys.duration.max(1.0 / FPS),
            fps: FPS,
            ..Default::default()
        },
        timeline: keys.timeline,
        ..Default::default()
    };
    let mut warnings = Vec::new();
    let editor = Editor::with_project(rig, project, &mut warnings);
    let project = editor.project(Some(model.to_path_buf()));
    project.save(output)?;
    let seconds = started.elapsed().as_secs_f64();
    Ok(json!({
        "output": output.display().to_string(),
        "video": {"width": info.width, "height": info.height, "frames": info.frames, "fps": info.fps},
        "frames_read": read,
        "found": keys.found,
        "depths_kept": keys.depths_kept,
        "keys": project.timeline.keys().len(),
        "plants": project.timeline.plants().len(),
        "duration": keys.duration,
        "seconds": seconds,
        "frames_per_second": read as f64 / seconds.max(1e-9),
    }))
}
