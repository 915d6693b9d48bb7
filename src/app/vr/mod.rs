//! VR mode (SPEC §10). What every build has: the [`VrStatus`] the menu and the window
//! read, and the answer when VR cannot start. The OpenXR session itself, its input and
//! the spheres are in [`openxr_mode`], compiled with the `xr` cargo feature. All the
//! rules (grabbing, following, buttons, sticks, smoothing) are in `core::vr`.

#[cfg(feature = "xr")]
pub mod openxr_mode;

use bevy::app::PluginGroupBuilder;
use bevy::prelude::*;

use super::Launch;
use super::session::Banner;

/// Where VR stands, for the menu, the window and the exit path.
#[derive(Resource, Debug, Default)]
pub struct VrStatus {
    /// The user asked to be in VR (`--vr`, or View ▸ Enter VR).
    pub wanted: bool,
    /// A session is running (the headset shows the scene).
    pub running: bool,
    /// The runtime gave the session input focus.
    pub focused: bool,
    /// Why VR cannot start here (no runtime, no headset, or a build without `xr`).
    pub unavailable: Option<String>,
    /// What the OpenXR runtime offers, when there is one (logged at start).
    pub runtime: Option<String>,
}

/// Adds Bevy's default plugins and decides whether VR can start here. With the `xr`
/// feature and an OpenXR runtime, OpenXR creates the renderer (the session itself starts
/// only when VR is wanted); otherwise [`VrStatus::unavailable`] says why not.
pub fn add_default_plugins(app: &mut App, defaults: PluginGroupBuilder) {
    let mut status = VrStatus::default();
    #[cfg(feature = "xr")]
    let defaults = {
        if let Some(config) = openxr_mode::session_config_from_env() {
            app.insert_resource(config);
        }
        openxr_mode::plugin_group(defaults, &mut status)
    };
    #[cfg(not(feature = "xr"))]
    {
        status.unavailable = Some(
            "this build has no VR support: build it with `cargo build --release --features xr`"
                .into(),
        );
    }
    app.add_plugins(defaults);
    app.insert_resource(status);
}

pub fn plugin(app: &mut App) {
    app.init_resource::<VrStatus>();
    app.add_systems(Startup, want_vr_at_start)
        .add_systems(Update, explain_when_unavailable);
    #[cfg(feature = "xr")]
    openxr_mode::plugin(app);
}

fn want_vr_at_start(launch: Option<Res<Launch>>, mut status: ResMut<VrStatus>) {
    if launch.is_some_and(|l| l.vr) {
        status.wanted = true;
    }
}

/// Asking for VR where it cannot start: say why once, and stay on the desktop.
fn explain_when_unavailable(mut status: ResMut<VrStatus>, mut banner: ResMut<Banner>) {
    if status.wanted
        && let Some(reason) = status.unavailable.clone()
    {
        status.wanted = false;
        banner.error(format!(
            "VR is not available: {reason}. Staying on the desktop."
        ));
    }
}
