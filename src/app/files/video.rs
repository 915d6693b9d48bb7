//! File ▸ Import video… (or an MP4/MOV dropped or typed): a video of a person becomes
//! editable keys. A window shows the video's first frame and what to take (the seconds,
//! mirrored or not); Import reads every frame on a worker through the live camera's
//! pipeline (`vision::recorded`), showing the frame being read with its landmarks and a
//! progress bar with Cancel, then what only a whole video allows (`core::capture::
//! offline`: smoothing that looks ahead, depths kept continuous, the standing feet
//! planted). The keys and planted spans go in at the playhead as one undoable edit
//! (`KeyEdit::InsertAt`); a cancelled or failed read changes nothing.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use super::photo::{Models, PhotoPose, loaded, shrunk};
use crate::app::session::{Banner, EditRequest, Job, KeepAwake, Session};
use crate::core::Refusal;
use crate::core::animation::edit::KeyEdit;
use crate::core::body::rig::Rig;
use crate::core::capture::BODY_POINTS;
use crate::core::capture::offline::{VideoKeys, keys_from_video};
use crate::tr;
use crate::vision::Found;
use crate::vision::recorded::{between, track_frames};

/// The containers File ▸ Import video reads (a drop of one does the same).
pub(super) const VIDEO_EXTENSIONS: [&str; 3] = ["mp4", "mov", "m4v"];

/// The longest side of the frame as the window shows it.
const SHOWN_SIDE: u32 = 320;
/// How often the worker hands a new frame to the window (a preview, not a player).
const PREVIEW_EVERY: Duration = Duration::from_millis(100);

/// What the header says of a video.
#[derive(Clone, Copy, Debug)]
struct Clip {
    width: u32,
    height: u32,
    frames: u32,
    fps: f64,
}

impl Clip {
    fn seconds(&self) -> f32 {
        (self.frames.saturating_sub(1) as f64 / self.fps.max(1e-3)) as f32
    }
}

/// A frame as the window shows it: a small copy and the body's landmarks on it.
struct Shown {
    picture: image::RgbImage,
    body: Vec<egui::Pos2>,
}

/// What the worker shares with the window while it reads.
#[derive(Default)]
struct Reading {
    frames_done: AtomicU32,
    cancel: AtomicBool,
    shown: Mutex<Option<Shown>>,
}

/// A read on its worker: the keys, or `None` when cancelled.
type Reader = Job<Result<Option<VideoKeys>, Refusal>>;

/// A decoded frame and its time in seconds.
type TimedFrame = Result<(f32, image::RgbImage), Refusal>;

/// How many passes a new frame's texture waits before it is shown.
const PASSES_BEFORE_SHOWN: u32 = 3;

/// A frame's texture being uploaded, with what goes over it.
struct Pending {
    texture: egui::TextureHandle,
    size: egui::Vec2,
    body: Vec<egui::Pos2>,
    passes: u32,
}

/// The open window.
struct Open {
    path: PathBuf,
    clip: Clip,
    from: f32,
    to: f32,
    mirror: bool,
    texture: Option<egui::TextureHandle>,
    pending: Option<Pending>,
    size: egui::Vec2,
    body: Vec<egui::Pos2>,
    reading: Arc<Reading>,
    /// The read, and the playhead its keys go in at.
    running: Option<(Reader, f32)>,
    /// Why the last read failed (shown in the window as well as the banner).
    failed: Option<String>,
    /// Closed while reading: the window goes once the read has stopped.
    closing: bool,
}

#[derive(Resource, Default)]
pub(super) struct VideoImport {
    open: Option<Open>,
}

impl VideoImport {
    /// Opens the window on a video: its header read and its first frame shown.
    pub(super) fn open(&mut self, path: PathBuf, banner: &mut Banner) {
        if self.open.as_ref().is_some_and(|o| o.running.is_some()) {
            return banner.error(tr!("files-video-running"));
        }
        match first_frame(&path) {
            Ok((clip, first)) => {
                let reading = Arc::new(Reading::default());
                *reading.shown.lock().expect("a new lock") = Some(shown(&first, None));
                self.open = Some(Open {
                    path,
                    clip,
                    from: 0.0,
                    to: clip.seconds(),
                    mirror: false,
                    texture: None,
                    pending: None,
                    size: egui::Vec2::ZERO,
                    body: Vec::new(),
                    reading,
                    running: None,
                    failed: None,
                    closing: false,
                });
            }
            Err(refusal) => banner.error(refusal.to_string()),
        }
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<VideoImport>()
        .add_systems(Update, follow.in_set(crate::app::session::EditorSet::Drive));
}

pub(super) fn window_plugin(app: &mut App) {
    app.add_systems(
        bevy_egui::EguiPrimaryContextPass,
        show.in_set(crate::app::session::UiLayout::Windows),
    );
}

/// The frame the window shows: shrunk to [`SHOWN_SIDE`], the landmarks scaled with it.
fn shown(frame: &image::RgbImage, found: Option<&Found>) -> Shown {
    let (picture, scale) = shrunk(frame, SHOWN_SIDE);
    let body = found
        .map(|found| {
            (0..BODY_POINTS)
                .filter(|&i| found.visibility[i] >= 0.5)
                .map(|i| {
                    egui::pos2(
                        found.body_pixels[i].x * scale,
                        found.body_pixels[i].y * scale,
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    Shown { picture, body }
}

#[cfg(feature = "codecs")]
fn frames_of(path: &Path) -> Result<(Clip, impl Iterator<Item = TimedFrame>), Refusal> {
    let mut reader = crate::media::video::VideoReader::open(path)?;
    let info = reader.info().clone();
    let clip = Clip {
        width: info.width,
        height: info.height,
        frames: info.frames,
        fps: info.fps,
    };
    let frames = std::iter::from_fn(move || reader.next_frame().transpose()).map(|frame| {
        let frame = frame?;
        let picture = crate::vision::recorded::picture(frame.width, frame.height, frame.rgb)?;
        Ok((frame.time as f32, picture))
    });
    Ok((clip, frames))
}

/// Without the codecs (the macOS compile check) there is no video reader.
#[cfg(not(feature = "codecs"))]
fn frames_of(_path: &Path) -> Result<(Clip, std::iter::Empty<TimedFrame>), Refusal> {
    Err(Refusal::new(
        "this build reads no video (built without the codecs feature)",
    ))
}

fn first_frame(path: &Path) -> Result<(Clip, image::RgbImage), Refusal> {
    let (clip, mut frames) = frames_of(path)?;
    let first = frames
        .next()
        .unwrap_or_else(|| Err(Refusal::new("the video has no frames")))
        .map_err(|e| e.context(path.display()))?
        .1;
    Ok((clip, first))
}

/// The worker: every frame from `from` to `to` tracked, then turned into keys; `None`
/// when cancelled.
fn read_video(
    path: &Path,
    rig: &Rig,
    models: &Models,
    (from, to, mirror): (f32, f32, bool),
    reading: &Reading,
) -> Result<Option<VideoKeys>, Refusal> {
    let models = loaded(models)?;
    let (clip, frames) = frames_of(path)?;
    let mut last_shown: Option<Instant> = None;
    let tracked = track_frames(
        &models,
        between(frames, from, Some(to)),
        clip.fps as f32,
        mirror,
        |index, frame, found| {
            reading
                .frames_done
                .store(index as u32 + 1, Ordering::Relaxed);
            if last_shown.is_none_or(|at| at.elapsed() >= PREVIEW_EVERY) {
                last_shown = Some(Instant::now());
                if let Ok(mut slot) = reading.shown.lock() {
                    *slot = Some(shown(frame, found));
                }
            }
            if reading.cancel.load(Ordering::Relaxed) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    )
    .map_err(|e| e.context(path.display()))?;
    let Some(tracked) = tracked else {
        return Ok(None);
    };
    keys_from_video(rig, tracked.captures, &tracked.times, clip.fps as f32)
        .map(Some)
        .map_err(|e| e.context(path.display()))
}

/// A finished read: its keys in at the playhead as it was when Import was pressed.
fn follow(
    mut import: ResMut<VideoImport>,
    mut edits: MessageWriter<EditRequest>,
    mut banner: ResMut<Banner>,
    mut awake: ResMut<KeepAwake>,
) {
    let Some(open) = &mut import.open else {
        return;
    };
    let Some((job, at)) = &open.running else {
        return;
    };
    awake.now();
    let Some(result) = job.take() else { return };
    let at = *at;
    open.running = None;
    match result {
        Ok(Ok(Some(keys))) => {
            let count = keys.timeline.keys().len();
            let plants = keys.timeline.plants().len();
            edits.write(EditRequest::new(KeyEdit::InsertAt {
                timeline: Box::new(keys.timeline),
                at,
            }));
            banner.notice = Some(tr!(
                "files-video-imported",
                keys = count,
                plants = plants,
                time = format!("{at:.2}"),
                path = open.path.display().to_string()
            ));
            info!(
                "video imported: {count} keys, {plants} planted spans at {at:.2} s from {}",
                open.path.display()
            );
            import.open = None;
        }
        Ok(Ok(None)) => {
            banner.notice = Some(tr!("files-video-cancelled"));
            info!("video import cancelled");
            if open.closing {
                import.open = None;
            }
        }
        Ok(Err(refusal)) => {
            open.failed = Some(refusal.to_string());
            banner.error(refusal.to_string());
        }
        Err(panic) => {
            let message = tr!(
                "files-video-failed",
                path = open.path.display().to_string(),
                reason = panic
            );
            open.failed = Some(message.clone());
            banner.error(message);
        }
    }
}

/// The window: the frame (the first, or the one being read) with its landmarks, the
/// range and mirror, Import; while reading, the progress and Cancel.
fn show(
    mut contexts: EguiContexts,
    mut import: ResMut<VideoImport>,
    session: Res<Session>,
    photo: Res<PhotoPose>,
    mut awake: ResMut<KeepAwake>,
) -> Result {
    let Some(open) = &mut import.open else {
        return Ok(());
    };
    let ctx = contexts.ctx_mut()?;
    // A frame's texture is shown only once it has been drawn for a few passes (uploaded
    // by then): a texture replaced as soon as it is made shows black until its upload,
    // and on a slow renderer the next frame would replace it first, so it would stay
    // black all along.
    if let Some(pending) = &mut open.pending {
        pending.passes += 1;
        if pending.passes >= PASSES_BEFORE_SHOWN
            && let Some(pending) = open.pending.take()
        {
            open.texture = Some(pending.texture);
            open.size = pending.size;
            open.body = pending.body;
        }
    } else if let Some(next) = open.reading.shown.lock().ok().and_then(|mut s| s.take()) {
        let size = [
            next.picture.width() as usize,
            next.picture.height() as usize,
        ];
        let pixels = egui::ColorImage::from_rgb(size, next.picture.as_raw());
        open.pending = Some(Pending {
            texture: ctx.load_texture("import-video", pixels, egui::TextureOptions::LINEAR),
            size: egui::vec2(size[0] as f32, size[1] as f32),
            body: next.body,
            passes: 0,
        });
    }
    let mut window_open = true;
    let mut start = false;
    let mut cancel = false;
    let name = open.path.file_name().map_or_else(
        || open.path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let playhead = session.editor.playhead;
    egui::Window::new(tr!("files-video-title", name = name.as_str()))
        .id(egui::Id::new("import-video"))
        .open(&mut window_open)
        .resizable(false)
        .default_pos(egui::pos2(740.0, 40.0))
        .show(ctx, |ui| {
            if let Some(texture) = &open.texture {
                let (rect, _) = ui.allocate_exact_size(open.size, egui::Sense::hover());
                ui.painter().image(
                    texture.id(),
                    rect,
                    egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
                    egui::Color32::WHITE,
                );
                let painter = ui.painter_at(rect);
                for p in &open.body {
                    painter.circle(
                        *p + rect.min.to_vec2(),
                        3.5,
                        egui::Color32::from_rgb(60, 220, 90),
                        egui::Stroke::new(1.0, egui::Color32::BLACK),
                    );
                }
            }
            let clip = open.clip;
            ui.label(tr!(
                "files-video-about",
                width = clip.width,
                height = clip.height,
                fps = format!("{:.2}", clip.fps),
                seconds = format!("{:.2}", clip.seconds())
            ));
            let reading = open.running.is_some();
            ui.add_enabled_ui(!reading, |ui| {
                ui.horizontal(|ui| {
                    ui.label(tr!("files-video-from"));
                    let end = clip.seconds();
                    ui.add(
                        egui::DragValue::new(&mut open.from)
                            .range(0.0..=end)
                            .speed(0.05)
                            .suffix(" s"),
                    );
                    ui.label(tr!("files-video-to"));
                    ui.add(
                        egui::DragValue::new(&mut open.to)
                            .range(0.0..=end)
                            .speed(0.05)
                            .suffix(" s"),
                    );
                });
                ui.checkbox(&mut open.mirror, tr!("files-video-mirror"))
                    .on_hover_text(tr!("files-video-mirror.tooltip"));
            });
            if let Some((_, at)) = &open.running {
                let total = ((open.to - open.from) * clip.fps as f32).round().max(0.0) as u32 + 1;
                let done = open.reading.frames_done.load(Ordering::Relaxed).min(total);
                ui.add(
                    egui::ProgressBar::new(done as f32 / total.max(1) as f32).text(tr!(
                        "files-video-progress",
                        done = done,
                        total = total
                    )),
                );
                ui.label(tr!("files-video-goes-at", time = format!("{at:.2}")));
                cancel = ui.button(tr!("files-video-cancel")).clicked();
            } else {
                if let Some(failed) = &open.failed {
                    ui.colored_label(egui::Color32::from_rgb(230, 90, 80), failed);
                }
                let valid = open.to > open.from;
                start = ui
                    .add_enabled(
                        valid,
                        egui::Button::new(tr!(
                            "files-video-import",
                            time = format!("{playhead:.2}")
                        )),
                    )
                    .clicked();
            }
        });
    if open.running.is_some() || open.pending.is_some() {
        awake.now();
    }
    if cancel || (!window_open && open.running.is_some()) {
        open.reading.cancel.store(true, Ordering::Relaxed);
        open.closing |= !window_open;
    }
    if start {
        let reading = Arc::new(Reading::default());
        open.reading = reading.clone();
        open.failed = None;
        let (path, rig, models) = (
            open.path.clone(),
            session.editor.rig.clone(),
            photo.models(),
        );
        let range = (open.from, open.to, open.mirror);
        let job = Job::spawn("video", move || {
            read_video(&path, &rig, &models, range, &reading)
        });
        open.running = Some((job, playhead));
    }
    if !window_open && open.running.is_none() {
        import.open = None;
    }
    Ok(())
}
