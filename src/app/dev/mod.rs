//! Start-up flags and testing aids: `--screenshot OUT.png` saves the window once the
//! model is on screen, then exits; `--exit-after SECONDS` quits after a while (waiting
//! for a VR session to end), `--quit-when FILE` as soon as FILE exists, and `--save-on-exit P.json` saves the project as it stands
//! at exit; `--select BONE`, `--play` and `--export-png OUT.png` act once the model
//! shows (used by the real-window tests under Xvfb).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};

use super::session::{
    Avatar, AvatarShown, EditorSet, ExitGate, KeepAwake, Launch, RenderStill, Selection, Session,
    StillEyes, StillRequest, StillView, captured_rgba, save_png,
};
use crate::core::body::framing::CameraPreset;
use crate::core::model::humanoid::Bone;

/// Frames to wait after the avatar appears, so skinning and egui have settled.
const SETTLE_FRAMES: u32 = 20;
/// Give up (exit with an error) when nothing shows within this many frames.
const MAX_FRAMES: u32 = 3000;

/// How long a timed quit waits for a busy gate.
const GATE_TIMEOUT_SECS: f32 = 10.0;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, select_at_start)
        .add_systems(
            Update,
            (
                (play_at_start, export_at_start).in_set(EditorSet::Input),
                (take_screenshot, exit_after).in_set(EditorSet::Drive),
            ),
        )
        .add_systems(Last, (save_on_exit, log_each_frame));
}

/// With `RUST_LOG=vrma_maker::frames=debug`, a line per frame, so a test can count what an
/// idle window draws (each update renders one).
fn log_each_frame(frames: Res<bevy::diagnostic::FrameCount>) {
    debug!(target: "vrma_maker::frames", "frame {}", frames.0);
}

/// `--select BONE`: start with that bone selected.
fn select_at_start(launch: Res<Launch>, mut selection: ResMut<Selection>) {
    if let Some(bone) = launch.select.as_deref().and_then(Bone::from_name) {
        selection.0 = Some(bone);
    }
}

/// `--play`: start playing once the model shows.
fn play_at_start(
    launch: Res<Launch>,
    mut shown: MessageReader<AvatarShown>,
    mut session: ResMut<Session>,
) {
    if launch.play && shown.read().count() > 0 {
        session.editor.set_playing(true);
    }
}

/// `--export-png OUT.png`: one 240×320 front still through the window's own path.
fn export_at_start(
    launch: Res<Launch>,
    mut shown: MessageReader<AvatarShown>,
    mut stills: MessageWriter<RenderStill>,
    mut done: Local<bool>,
) {
    let Some(path) = launch.export_png.clone() else {
        return;
    };
    if *done || shown.read().count() == 0 {
        return;
    }
    *done = true;
    stills.write(RenderStill(StillRequest {
        size: UVec2::new(240, 320),
        view: StillView::Preset(CameraPreset::Front),
        background: None,
        output: path,
        at: None,
        eyes: StillEyes::Camera,
    }));
}

/// Where `--exit-after` is: the wake-up thread started (it raises `due` at the
/// deadline, or as soon as `--quit-when`'s file exists), when quitting was asked for,
/// the exit sent.
#[derive(Default)]
struct ExitAfter {
    due: Option<Arc<AtomicBool>>,
    asked_at: Option<f32>,
    sent: bool,
}

/// How often the wake-up thread looks for `--quit-when`'s file.
const QUIT_FILE_POLL: Duration = Duration::from_millis(100);

fn exit_after(
    launch: Res<Launch>,
    time: Res<Time<Real>>,
    mut gate: ResMut<ExitGate>,
    mut exit: MessageWriter<AppExit>,
    proxy: Option<Res<bevy::winit::EventLoopProxyWrapper>>,
    mut state: Local<ExitAfter>,
) {
    let ExitAfter {
        due,
        asked_at,
        sent,
    } = &mut *state;
    if launch.exit_after.is_none() && launch.quit_when.is_none() {
        return;
    }
    let now = time.elapsed_secs();
    // An idle window sleeps between frames: a thread wakes it when quitting is due (and
    // a few times after, while quitting takes its frames).
    let due = due.get_or_insert_with(|| {
        let due = Arc::new(AtomicBool::new(false));
        let raised = due.clone();
        let proxy = proxy.map(|proxy| (**proxy).clone());
        let deadline = launch
            .exit_after
            .map(|limit| Instant::now() + Duration::from_secs_f32((limit - now).max(0.0)));
        let quit_file = launch.quit_when.clone();
        std::thread::spawn(move || {
            while deadline.is_none_or(|d| Instant::now() < d)
                && !quit_file.as_ref().is_some_and(|f| f.exists())
            {
                std::thread::sleep(QUIT_FILE_POLL);
            }
            raised.store(true, Ordering::Release);
            let Some(proxy) = proxy else { return };
            for _ in 0..40 {
                if proxy
                    .send_event(bevy::winit::WinitUserEvent::WakeUp)
                    .is_err()
                {
                    return; // the app has gone
                }
                std::thread::sleep(Duration::from_millis(250));
            }
        });
        due
    });
    let past_deadline = launch.exit_after.is_some_and(|limit| now >= limit);
    if *sent || !(past_deadline || due.load(Ordering::Acquire)) {
        return;
    }
    let asked = *asked_at.get_or_insert_with(|| {
        match (&launch.quit_when, launch.exit_after) {
            (Some(file), _) if file.exists() => info!("--quit-when {}: quitting", file.display()),
            (_, Some(limit)) => info!("--exit-after {limit}: quitting"),
            _ => {}
        }
        now
    });
    gate.quit_requested = true;
    if gate.busy && now - asked < GATE_TIMEOUT_SECS {
        return; // e.g. the VR session is ending
    }
    if gate.busy {
        warn!("quitting without waiting any longer for the VR session to end");
    }
    exit.write(AppExit::Success);
    *sent = true;
}

fn save_on_exit(
    launch: Res<Launch>,
    mut exits: MessageReader<AppExit>,
    session: Res<Session>,
    mut saved: Local<bool>,
) {
    let Some(path) = &launch.save_on_exit else {
        return;
    };
    if exits.read().count() == 0 || *saved {
        return;
    }
    *saved = true;
    match session
        .editor
        .project(session.model_path.clone())
        .save(path)
    {
        Ok(()) => info!("project saved on exit to {}", path.display()),
        Err(e) => error!("cannot save on exit: {e}"),
    }
}

fn take_screenshot(
    launch: Res<Launch>,
    avatars: Query<(), With<Avatar>>,
    mut commands: Commands,
    mut frames: Local<(u32, u32, bool)>,
    mut awake: ResMut<KeepAwake>,
    mut exit: MessageWriter<AppExit>,
) {
    let Some(path) = launch.screenshot.clone() else {
        return;
    };
    let (total, settled, requested) = &mut *frames;
    *total += 1;
    awake.now(); // the screenshot waits for frames to settle, then for its capture
    if *requested {
        return;
    }
    if *total > MAX_FRAMES {
        error!("no model appeared after {MAX_FRAMES} frames; no screenshot taken");
        exit.write(AppExit::error());
        return;
    }
    if avatars.is_empty() {
        return;
    }
    *settled += 1;
    if *settled < SETTLE_FRAMES {
        return;
    }
    *requested = true;
    commands.spawn(Screenshot::primary_window()).observe(
        move |captured: On<ScreenshotCaptured>, mut exit: MessageWriter<AppExit>| {
            let result = captured_rgba(&captured.image).and_then(|img| save_png(&img, &path));
            match result {
                Ok(()) => {
                    info!("screenshot saved to {}", path.display());
                    exit.write(AppExit::Success);
                }
                Err(e) => {
                    error!("cannot save the screenshot: {e}");
                    exit.write(AppExit::error());
                }
            }
        },
    );
}
