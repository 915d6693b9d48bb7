//! Testing aids: `--screenshot OUT.png` saves the window once the model is on screen,
//! then exits; `--exit-after SECONDS` quits after a while and `--save-on-exit P.json`
//! saves the project as it stands at exit (used by the real-window tests under Xvfb).

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};

use super::Launch;
use super::model::Avatar;

/// Frames to wait after the avatar appears, so skinning and egui have settled.
const SETTLE_FRAMES: u32 = 20;
/// Give up (exit with an error) when nothing shows within this many frames.
const MAX_FRAMES: u32 = 3000;

/// Work that must end before the app quits (a VR session ending cleanly).
#[derive(Resource, Default, Debug)]
pub struct ExitGate {
    /// Something is still running that quitting would cut short.
    pub busy: bool,
    /// A timed quit is waiting for it (it should wind down now).
    pub quit_requested: bool,
}

/// How long a timed quit waits for a busy gate.
const GATE_TIMEOUT_SECS: f32 = 10.0;

pub fn plugin(app: &mut App) {
    app.init_resource::<ExitGate>()
        .add_systems(Update, (take_screenshot, exit_after))
        .add_systems(Last, save_on_exit);
}

fn exit_after(
    launch: Res<Launch>,
    time: Res<Time<Real>>,
    mut gate: ResMut<ExitGate>,
    mut exit: MessageWriter<AppExit>,
    mut asked_at: Local<Option<f32>>,
    mut sent: Local<bool>,
) {
    let Some(limit) = launch.exit_after else {
        return;
    };
    let now = time.elapsed_secs();
    if *sent || now < limit {
        return;
    }
    let asked = *asked_at.get_or_insert_with(|| {
        info!("--exit-after {limit}: quitting");
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
    session: Res<super::session::Session>,
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
    mut exit: MessageWriter<AppExit>,
) {
    let Some(path) = launch.screenshot.clone() else {
        return;
    };
    let (total, settled, requested) = &mut *frames;
    *total += 1;
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
            let result = super::still::captured_rgba(&captured.image)
                .and_then(|img| super::still::save_png(&img, &path));
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
