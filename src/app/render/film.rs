//! Films: the timeline rendered frame by frame into a moving picture (`Films`: File ▸
//! Export animation as video and `vrma-maker render-anim`). One off-screen camera for
//! the whole film; each frame's pose and springs (`core::animation::film`) are set
//! before the skeleton is driven, and the frame is captured as it is drawn. The first
//! frame waits, as a still does, until every pipeline is built; after that, one frame
//! is drawn per update. Captures go to an encoding thread (reduced from the supersampled
//! target, then `media`'s writer for the output's format), at most a few ahead of it so
//! a slow encoder never piles frames up in memory. Cancel, or an error, drops the
//! writer: nothing is left at the output.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use bevy::camera::RenderTarget;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};

use super::{PipelinesCompiling, UnconvertedMtoon, fixed_transform, still_projection};
use crate::app::session::{
    Banner, EditorSet, FilmRequest, Films, KeepAwake, Progress, SpringBones, StillPose,
    captured_rgba, render_target,
};
use crate::core::Refusal;
use crate::core::animation::film::Film;
use crate::tr;

/// Frames captured but not yet encoded, at most (each is a supersampled RGBA image).
const MAX_FRAMES_AHEAD: usize = 6;

/// A captured frame on its way to the encoder.
type Capture = (usize, Result<image::RgbaImage, String>);

/// The film being rendered.
struct ActiveFilm {
    film: Film,
    frames: usize,
    camera: Entity,
    target: Handle<Image>,
    /// Updates drawn while the first frame waits for its pipelines.
    warm_updates: u32,
    compiled_updates: u32,
    pipelines_seen: usize,
    /// Frames whose capture was asked for.
    shot: usize,
    /// Frames the encoder has written (shared with it).
    encoded: Arc<AtomicUsize>,
    captures: Option<mpsc::Sender<Capture>>,
    encoder: Option<JoinHandle<Result<PathBuf, Refusal>>>,
    progress: Progress,
    cancel: Arc<AtomicBool>,
    log_progress: bool,
    last_logged: usize,
}

/// The film being rendered, and the outcomes of finished ones.
#[derive(Resource, Default)]
pub(super) struct FilmQueue {
    active: Option<ActiveFilm>,
    pub(super) finished: Vec<Result<PathBuf, String>>,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<FilmQueue>().add_systems(
        Update,
        (start_film, shoot_film, finish_film)
            .chain()
            .in_set(EditorSet::Drive),
    );
}

/// The window shows the film's progress with a Cancel button, and its outcome.
pub(super) fn report_in_window(app: &mut App) {
    app.add_systems(Update, report_films.after(finish_film));
}

fn start_film(
    mut films: ResMut<Films>,
    mut queue: ResMut<FilmQueue>,
    mut images: ResMut<Assets<Image>>,
    mut commands: Commands,
    device: Option<Res<bevy::render::renderer::RenderDevice>>,
    avatars: Query<(), With<crate::app::session::Avatar>>,
) {
    if queue.active.is_some() || avatars.is_empty() {
        return;
    }
    let Some(request) = films.pending.take() else {
        return;
    };
    let FilmRequest {
        film,
        camera,
        settings,
        output,
        progress,
        cancel,
        log_progress,
    } = request;
    let size = UVec2::new(settings.width, settings.height);
    let max_side = device.map_or(4096, |d| d.limits().max_texture_dimension_2d);
    if let Some(refusal) = super::too_big(size, max_side) {
        queue.finished.push(Err(refusal));
        return;
    }
    // Sampled as a still is: a film's frame is the still of its moment.
    let supersample = super::supersample_for(size, max_side);
    let target = render_target(&mut images, size * supersample);
    let entity = commands
        .spawn((
            Camera3d::default(),
            Camera {
                order: -1,
                clear_color: ClearColorConfig::Custom(Color::NONE),
                ..default()
            },
            RenderTarget::Image(target.clone().into()),
            still_projection(camera.fov.to_radians()),
            Msaa::Off,
            fixed_transform(&camera),
        ))
        .id();
    let (sender, receiver) = mpsc::channel::<Capture>();
    let encoded = Arc::new(AtomicUsize::new(0));
    let frames = film.len();
    let encoder = {
        let encoded = encoded.clone();
        let progress = progress.clone();
        std::thread::Builder::new()
            .name("film encoder".into())
            .spawn({
                let cancel = cancel.clone();
                move || {
                    encode(
                        receiver,
                        output,
                        settings,
                        supersample,
                        encoded,
                        progress,
                        cancel,
                    )
                }
            })
    };
    let encoder = match encoder {
        Ok(handle) => handle,
        Err(e) => {
            commands.entity(entity).despawn();
            queue
                .finished
                .push(Err(tr!("app-worker-cannot-start", reason = e.to_string())));
            return;
        }
    };
    films.running = true;
    info!("film started: {frames} frames");
    queue.active = Some(ActiveFilm {
        film,
        frames,
        camera: entity,
        target,
        warm_updates: 0,
        compiled_updates: 0,
        pipelines_seen: 0,
        shot: 0,
        encoded,
        captures: Some(sender),
        encoder: Some(encoder),
        progress,
        cancel,
        log_progress,
        last_logged: 0,
    });
}

/// No capture for this long: the renderer has stopped, and the film with it.
const CAPTURE_PATIENCE: Duration = Duration::from_secs(120);

/// Frames arrive in order of capture; written in frame order, each reduced from the
/// supersampled target, until all are in (then the file is finished), the film is
/// cancelled or the captures stop coming (the writer is dropped and leaves nothing).
fn encode(
    receiver: mpsc::Receiver<Capture>,
    output: PathBuf,
    settings: crate::media::FilmSettings,
    supersample: u32,
    encoded: Arc<AtomicUsize>,
    progress: Progress,
    cancel: Arc<AtomicBool>,
) -> Result<PathBuf, Refusal> {
    let mut writer = crate::media::open(&output, &settings)?;
    let mut waiting = BTreeMap::new();
    let mut next = 0;
    let mut last_capture = Instant::now();
    while next < settings.frames {
        if cancel.load(Ordering::Relaxed) {
            return Err(Refusal::new(tr!("app-film-cancelled")));
        }
        let (index, image) = match receiver.recv_timeout(Duration::from_millis(100)) {
            Ok(capture) => capture,
            Err(mpsc::RecvTimeoutError::Timeout) if last_capture.elapsed() < CAPTURE_PATIENCE => {
                continue;
            }
            Err(_) => return Err(Refusal::new(tr!("app-film-stopped"))),
        };
        last_capture = Instant::now();
        waiting.insert(index, image);
        while let Some(image) = waiting.remove(&next) {
            let image = image.map_err(Refusal::new)?;
            let (w, h) = image.dimensions();
            let pixels = crate::core::body::still::downsample(image.as_raw(), w, h, supersample);
            writer.push(&pixels)?;
            next += 1;
            encoded.store(next, Ordering::Relaxed);
            progress.set(next as f32 / settings.frames as f32);
        }
    }
    writer.finish()
}

#[allow(clippy::too_many_arguments)]
fn shoot_film(
    mut queue: ResMut<FilmQueue>,
    compiling: Res<PipelinesCompiling>,
    unconverted: UnconvertedMtoon,
    mut still_pose: ResMut<StillPose>,
    mut springs: ResMut<SpringBones>,
    mut awake: ResMut<KeepAwake>,
    mut commands: Commands,
) {
    let Some(active) = queue.active.as_mut() else {
        return;
    };
    awake.now();
    if active.cancel.load(Ordering::Relaxed) {
        active.captures = None; // the encoder sees the flag and drops its writer
        return;
    }
    if active.shot >= active.frames || active.captures.is_none() {
        return;
    }
    if active.shot == 0 {
        // The first frame: shown until every pipeline its camera needs is built.
        if active.warm_updates == 0 {
            show(active, &mut still_pose, &mut springs);
        }
        active.warm_updates += 1;
        let total = compiling.total();
        active.compiled_updates =
            if compiling.none() && total == active.pipelines_seen && !unconverted.any() {
                active.compiled_updates + 1
            } else {
                0
            };
        active.pipelines_seen = total;
        let settled = active.warm_updates >= 6 && active.compiled_updates >= 3;
        if !settled && active.warm_updates < super::MAX_SETTLE_FRAMES {
            return;
        }
    } else {
        if active.shot - active.encoded.load(Ordering::Relaxed) >= MAX_FRAMES_AHEAD {
            return; // the encoder catches up first
        }
        show(active, &mut still_pose, &mut springs);
    }
    // Captured as this update's pose is drawn (the pose is set before the skeleton is
    // driven in PostUpdate, the capture taken from this frame's render).
    let index = active.shot;
    let sender = active.captures.clone().expect("checked above");
    commands
        .spawn(Screenshot::image(active.target.clone()))
        .observe(move |captured: On<ScreenshotCaptured>| {
            let _ = sender.send((index, captured_rgba(&captured.image)));
        });
    active.shot += 1;
}

/// Puts the film's next frame on the avatar.
fn show(active: &mut ActiveFilm, still_pose: &mut StillPose, springs: &mut SpringBones) {
    if let Some(frame) = active.film.next_frame() {
        still_pose.0 = Some(frame.pose);
        springs.held = Some(frame.springs);
    }
}

fn finish_film(
    mut queue: ResMut<FilmQueue>,
    mut films: ResMut<Films>,
    mut still_pose: ResMut<StillPose>,
    mut springs: ResMut<SpringBones>,
    mut commands: Commands,
) {
    let Some(active) = queue.active.as_mut() else {
        return;
    };
    if active.log_progress {
        let done = active.encoded.load(Ordering::Relaxed);
        if done > active.last_logged && (done == active.frames || done - active.last_logged >= 10) {
            eprintln!("rendered {done} of {} frames", active.frames);
            active.last_logged = done;
        }
    }
    if !active.encoder.as_ref().is_some_and(|e| e.is_finished()) {
        return;
    }
    let outcome = active
        .encoder
        .take()
        .expect("checked above")
        .join()
        .unwrap_or_else(|_| Err(Refusal::new(tr!("app-work-stopped"))))
        .map_err(|e| e.to_string());
    commands.entity(active.camera).despawn();
    queue.active = None;
    match &outcome {
        Ok(path) => info!("film ended: written to {}", path.display()),
        Err(e) if *e == tr!("app-film-cancelled") => info!("film ended: cancelled"),
        Err(e) => info!("film ended: {e}"),
    }
    queue.finished.push(outcome);
    films.running = false;
    still_pose.0 = None;
    springs.held = None;
}

/// The bar with Cancel while a film renders; its outcome when it ends.
fn report_films(queue: ResMut<FilmQueue>, mut banner: ResMut<Banner>) {
    let queue = queue.into_inner();
    match &queue.active {
        Some(active) => {
            banner.bar = Some((tr!("app-film-rendering"), active.progress.get()));
            banner.cancel = Some(active.cancel.clone());
        }
        None if banner.cancel.is_some() => {
            banner.bar = None;
            banner.cancel = None;
        }
        None => {}
    }
    for outcome in queue.finished.drain(..) {
        match outcome {
            Ok(path) => {
                banner.notice = Some(tr!("app-still-saved", path = path.display().to_string()))
            }
            Err(e) if e == tr!("app-film-cancelled") => banner.notice = Some(e),
            Err(e) => banner.error(e),
        }
    }
}
