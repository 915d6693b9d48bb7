//! View ▸ Follow camera: the avatar follows a person live. Frames come from the first
//! webcam that streams (`vision::webcam`, Video4Linux), or from a folder standing in for
//! one (`--camera-frames DIR`, paced at 30 frames a second); with neither the menu says
//! there is no camera (devices are looked for again every two seconds). A worker runs
//! `vision::LiveCapture` (tracked from frame to frame, One Euro at the landmarks,
//! mirrored as a selfie view); each result is shown as a live preview of the pose (a
//! gesture: no undo step per frame). Space or View ▸ Capture key keeps the followed pose
//! as a key at the playhead (one undo step) and steps the playhead on; stopping lets the
//! preview go, so only captured keys remain.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bevy::prelude::*;

use super::photo::Models;
use crate::app::session::{
    CameraFollow, CaptureKey, EditRequest, EditorSet, KeepAwake, Launch, Session,
};
use crate::core::Refusal;
use crate::core::animation::edit::{Edit, Gesture, KeyEdit, PoseEdit};
use crate::core::body::pose::BodyMask;
use crate::core::capture::{Capture, pose_from_capture};
use crate::tr;
use crate::vision::webcam::{Webcam, camera_devices};
use crate::vision::{LiveCapture, PoseModels, frame_files, read_image};

/// The rate a folder of frames plays at.
const FRAMES_PER_SECOND: f32 = 30.0;
/// How far the playhead steps after each captured key.
pub const CAPTURE_STEP_SECONDS: f32 = 0.5;

/// A running follow: its worker and what it has sent.
struct Worker {
    stop: Arc<AtomicBool>,
    /// Behind a lock only so the resource can be shared (one system reads it).
    results: Mutex<Receiver<Result<Capture, Refusal>>>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

#[derive(Resource, Default)]
struct Following {
    worker: Option<Worker>,
    /// A preview gesture is open (let go by a capture or a stop).
    previewing: bool,
    /// The pose last followed: what a capture keeps.
    last_pose: Option<Box<crate::core::body::pose::Pose>>,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Following>()
        .add_systems(Startup, take_frames_folder)
        .add_systems(Update, follow.in_set(EditorSet::Drive));
}

/// How often devices are looked for while there is none (a camera plugged in later).
const DEVICE_SCAN_SECONDS: f32 = 2.0;

fn take_frames_folder(launch: Option<Res<Launch>>, mut camera: ResMut<CameraFollow>) {
    camera.frames = launch.and_then(|l| l.camera_frames.clone());
    if camera.frames.is_none() {
        camera.devices = camera_devices();
    }
}

/// Where frames come from: a folder standing in for a camera, or the webcams.
enum Source {
    Frames(PathBuf),
    Devices(Vec<PathBuf>),
}

fn start(source: Source, models: Models) -> Worker {
    let stop = Arc::new(AtomicBool::new(false));
    let (sender, results) = sync_channel(4);
    let halt = stop.clone();
    let spawned = std::thread::Builder::new()
        .name("follow-camera".into())
        .spawn(move || {
            // A panic in the models must not take the editor with it.
            let sent = sender.clone();
            let outcome =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &source {
                    Source::Frames(dir) => run_frames(dir, &models, &halt, &sender),
                    Source::Devices(devices) => run_webcam(devices, &models, &halt, &sender),
                }));
            if outcome.is_err() {
                let _ = sent.send(Err(Refusal::new(tr!("files-camera-stopped"))));
            }
        });
    if let Err(e) = spawned {
        let (sender, receiver) = sync_channel(1);
        let _ = sender.send(Err(Refusal::new(tr!(
            "files-camera-cannot-start",
            reason = e.to_string()
        ))));
        return Worker {
            stop,
            results: Mutex::new(receiver),
        };
    }
    Worker {
        stop,
        results: Mutex::new(results),
    }
}

fn run_frames(
    dir: &std::path::Path,
    models: &Models,
    stop: &AtomicBool,
    sender: &SyncSender<Result<Capture, Refusal>>,
) {
    let ready = || -> Result<(Arc<PoseModels>, Vec<PathBuf>), Refusal> {
        let files = frame_files(dir)?;
        let loaded = super::photo::loaded(models)?;
        Ok((loaded, files))
    };
    let (loaded, files) = match ready() {
        Ok(ready) => ready,
        Err(refusal) => {
            let _ = sender.send(Err(refusal));
            return;
        }
    };
    // A selfie view: the avatar moves as the user's reflection.
    let mut live = LiveCapture::default();
    live.mirror = true;
    let started = Instant::now();
    let step = 1.0 / FRAMES_PER_SECOND;
    for (i, file) in files.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        // A camera delivers at its own pace: frames wait for their time.
        let due = started + Duration::from_secs_f32(i as f32 * step);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let result = read_image(file).and_then(|frame| live.next(&loaded, &frame, step));
        if sender.send(result.map(|found| found.capture)).is_err() {
            return; // the editor stopped following
        }
    }
}

/// Frames from the first webcam of `devices` that streams, as they come.
fn run_webcam(
    devices: &[PathBuf],
    models: &Models,
    stop: &AtomicBool,
    sender: &SyncSender<Result<Capture, Refusal>>,
) {
    let ready = || -> Result<(Arc<PoseModels>, Webcam), Refusal> {
        let loaded = super::photo::loaded(models)?;
        Ok((loaded, Webcam::open_first(devices)?))
    };
    let (loaded, mut webcam) = match ready() {
        Ok(ready) => ready,
        Err(refusal) => {
            let _ = sender.send(Err(refusal));
            return;
        }
    };
    info!("following the camera: {}", webcam.describe());
    let mut live = LiveCapture::default();
    live.mirror = true;
    let mut last = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        let frame = match webcam.next_frame() {
            Ok(frame) => frame,
            Err(refusal) => {
                // This ends following (the camera is let go): say how to start again.
                let _ = sender.send(Err(Refusal::new(tr!(
                    "files-camera-check",
                    reason = refusal.0
                ))));
                return;
            }
        };
        // The filter's time step is the camera's own pace (its rate may drop in the dark).
        let now = Instant::now();
        let dt = now.duration_since(last).as_secs_f32().clamp(1e-3, 0.5);
        last = now;
        if sender
            .send(live.next(&loaded, &frame, dt).map(|f| f.capture))
            .is_err()
        {
            return; // the editor stopped following
        }
    }
}

/// Starts and stops the worker as the menu asks, previews each new pose, and keeps it as
/// a key on Space.
fn follow(
    mut camera: ResMut<CameraFollow>,
    mut following: ResMut<Following>,
    photo: Res<super::photo::PhotoPose>,
    session: Res<Session>,
    mut captures: MessageReader<CaptureKey>,
    mut edits: MessageWriter<EditRequest>,
    (mut awake, time, mut since_scan): (ResMut<KeepAwake>, Res<Time>, Local<f32>),
) {
    if camera.frames.is_none() && following.worker.is_none() {
        *since_scan += time.delta_secs();
        if *since_scan >= DEVICE_SCAN_SECONDS {
            *since_scan = 0.0;
            camera.devices = camera_devices();
        }
    }
    let wants = camera.wanted && (camera.frames.is_some() || !camera.devices.is_empty());
    if !wants {
        camera.wanted = false;
        following.last_pose = None;
        if following.worker.take().is_some() && following.previewing {
            // Only captured keys stay: the live pose goes.
            edits.write(EditRequest(Edit::Gesture(Gesture::Cancel)));
            following.previewing = false;
        }
        captures.clear();
        return;
    }
    awake.now();
    if following.worker.is_none() {
        let source = match camera.frames.clone() {
            Some(dir) => Source::Frames(dir),
            None => Source::Devices(camera.devices.clone()),
        };
        camera.problem = None;
        camera.followed = 0;
        following.worker = Some(start(source, photo.models()));
    }
    let mut latest = None;
    let mut ended = false;
    if let Some(worker) = &following.worker
        && let Ok(results) = worker.results.lock()
    {
        loop {
            match results.try_recv() {
                Ok(Ok(capture)) => {
                    camera.followed += 1;
                    camera.problem = None;
                    latest = Some(capture);
                }
                Ok(Err(refusal)) => camera.problem = Some(refusal.0),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    ended = true;
                    break;
                }
            }
        }
    }
    // A worker that ended on a problem (the camera stopped, could not be opened) turns
    // Follow camera off, its message kept: turning it on again starts afresh.
    if ended && camera.problem.is_some() {
        camera.wanted = false;
    }
    if let Some(capture) = latest {
        let editor = &session.editor;
        match pose_from_capture(&editor.rig, &editor.pose, &capture) {
            Ok(posed) => {
                let pose = Box::new(posed.pose);
                edits.write(EditRequest(Edit::Gesture(Gesture::Preview(
                    PoseEdit::SetPose(pose.clone()),
                ))));
                following.previewing = true;
                following.last_pose = Some(pose);
            }
            Err(refusal) => camera.problem = Some(refusal.0),
        }
    }
    for _ in captures.read() {
        let Some(pose) = following.last_pose.clone() else {
            camera.problem = Some(tr!("files-camera-nothing-yet"));
            continue;
        };
        // The live preview goes, and the followed pose is keyed in one undo step.
        if following.previewing {
            edits.write(EditRequest(Edit::Gesture(Gesture::Cancel)));
            following.previewing = false;
        }
        let t = session.editor.playhead;
        edits.write(EditRequest(Edit::Keys(KeyEdit::PlacePose {
            t,
            pose,
            mask: BodyMask::WholeBody,
        })));
        edits.write(EditRequest(Edit::Seek(t + CAPTURE_STEP_SECONDS)));
    }
}
