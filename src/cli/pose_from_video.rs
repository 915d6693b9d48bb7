//! `vrma-maker pose-from-video --model M VIDEO -o PROJECT.json [--from T --to T]
//! [--mirror]`: a video (H.264 in MP4 or MOV, decoded in process by `media::video`)
//! turned into editable keys. Every frame goes through the live camera's pipeline
//! (`vision::LiveCapture`: detect, then track), then what only a whole video allows
//! (`core::capture::offline`): landmarks smoothed with look-ahead, each limb's depth kept
//! continuous, the feet found standing and planted; the poses reduced to keys within a
//! tolerance (`core::formats::motion::keys`). Progress goes to stderr.

use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};

use crate::core::Refusal;
use crate::core::animation::edit::Editor;
use crate::core::animation::project::{Project, Settings};
use crate::core::animation::timeline::FPS;
use crate::core::body::math::slerp_shortest;
use crate::core::body::pose::Pose;
use crate::core::capture::offline::{
    SMOOTHING_SECONDS, keep_depths_continuous, smooth_offline, standing_spans,
};
use crate::core::capture::{Capture, pose_from_capture};
use crate::core::formats::motion::KeyPolicy;
use crate::core::formats::motion::keys::lay_out;
use crate::core::formats::motion::retarget::{Baked, BakedFrame};
use crate::core::model::humanoid::ALL_BONES;
use crate::media::video::VideoReader;
use crate::vision::{LiveCapture, PoseModels, default_models_dir};

pub struct Options<'a> {
    pub models: Option<&'a Path>,
    pub from: Option<f32>,
    pub to: Option<f32>,
    pub mirror: bool,
}

/// Keys from video stay within this of every frame (its poses are noisier than a
/// mocap file's, and a key per wobble is not editable).
const VIDEO_KEYS: KeyPolicy = KeyPolicy::Reduced {
    degrees: 4.0,
    metres: 0.02,
};

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
    let mut live = LiveCapture::default();
    live.unfiltered = true; // smoothed below, looking ahead
    live.mirror = options.mirror;
    let dt = (1.0 / info.fps) as f32;
    let mut captures: Vec<Option<Capture>> = Vec::new();
    let mut times = Vec::new();
    while let Some(frame) = reader.next_frame()? {
        let t = frame.time as f32;
        if t + 1e-4 < from {
            continue;
        }
        if options.to.is_some_and(|to| t > to + 1e-4) {
            break;
        }
        let picture = image::RgbImage::from_raw(frame.width, frame.height, frame.rgb)
            .ok_or_else(|| Refusal::new(format!("frame {} has the wrong size", frame.index)))?;
        captures.push(
            live.next(&models, &picture, dt)
                .ok()
                .map(|found| found.capture),
        );
        times.push(t - from);
        if captures.len().is_multiple_of(30) {
            eprintln!("read {} of {} frames", captures.len(), info.frames);
        }
    }
    if captures.iter().all(Option::is_none) {
        return Err(Refusal::new(format!(
            "{}: nobody was found in the video",
            video.display()
        )));
    }
    let fps = info.fps as f32;
    smooth_offline(&mut captures, fps, SMOOTHING_SECONDS);
    let flipped = keep_depths_continuous(&mut captures);
    let mut pose = Pose::default();
    let poses: Vec<Pose> = captures
        .iter()
        .map(|capture| {
            if let Some(posed) = capture
                .as_ref()
                .and_then(|c| pose_from_capture(&rig, &pose, c).ok())
            {
                pose = posed.pose;
            }
            pose.clone()
        })
        .collect();
    let baked = bake(&rig, &poses, &times);
    let mut timeline = lay_out(&baked, VIDEO_KEYS)?;
    let grid: Vec<Pose> = baked
        .frames
        .iter()
        .map(|f| Pose {
            bones: f.bones,
            hips: Some(f.hips),
            ..Default::default()
        })
        .collect();
    let spans = standing_spans(&rig, &grid, FPS);
    for &(foot, first, last) in &spans {
        timeline.set_plant(foot, first as f32 / FPS, last as f32 / FPS, true);
    }
    let duration = (baked.frames.len().max(2) - 1) as f32 / FPS;
    let project = Project {
        model_path: Some(model.to_path_buf()),
        model_title: rig.model.title.clone(),
        settings: Settings {
            length: duration.max(1.0 / FPS),
            fps: FPS,
            ..Default::default()
        },
        timeline,
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
        "frames_read": captures.len(),
        "found": captures.iter().filter(|c| c.is_some()).count(),
        "depths_kept": flipped,
        "keys": project.timeline.keys().len(),
        "plants": project.timeline.plants().len(),
        "duration": duration,
        "seconds": seconds,
        "frames_per_second": captures.len() as f64 / seconds.max(1e-9),
    }))
}

/// The video's poses on the timeline's 1/30 s grid (each bone slerped, the hips lerped
/// between the two frames around each grid time).
fn bake(rig: &crate::core::body::rig::Rig, poses: &[Pose], times: &[f32]) -> Baked {
    let end = times.last().copied().unwrap_or(0.0);
    let count = (end * FPS).round() as usize + 1;
    let hips_rest = rig.hips_rest();
    let mut next = 0;
    let frames = (0..count)
        .map(|i| {
            let t = i as f32 / FPS;
            while next + 1 < times.len() && times[next + 1] <= t {
                next += 1;
            }
            let (a, b) = (next, (next + 1).min(times.len() - 1));
            let span = (times[b] - times[a]).max(1e-6);
            let w = ((t - times[a]) / span).clamp(0.0, 1.0);
            let (pa, pb) = (&poses[a], &poses[b]);
            BakedFrame {
                bones: std::array::from_fn(|k| slerp_shortest(pa.bones[k], pb.bones[k], w)),
                hips: pa
                    .hips
                    .unwrap_or(hips_rest)
                    .lerp(pb.hips.unwrap_or(hips_rest), w),
                expressions: Vec::new(),
            }
        })
        .collect::<Vec<_>>();
    let moving = ALL_BONES
        .into_iter()
        .filter(|b| {
            frames
                .iter()
                .any(|f| f.bones[b.index()].angle_between(bevy::math::Quat::IDENTITY) > 1e-3)
        })
        .collect();
    Baked {
        frames,
        moving,
        expressions: Vec::new(),
    }
}
