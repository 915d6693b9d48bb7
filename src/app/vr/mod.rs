//! VR mode (SPEC §10). What every build has: the `VrStatus` the menu and the window
//! read, and the answer when VR cannot start. The OpenXR session itself, its input and
//! the spheres are in [`openxr_mode`], compiled with the `xr` cargo feature. All the
//! rules (grabbing, following, buttons, sticks, smoothing) are in `core::vr`.

#[cfg(feature = "xr")]
pub mod openxr_mode;

use bevy::app::PluginGroupBuilder;
use bevy::prelude::*;

use super::session::{Banner, EditorSet, Launch, VrStatus};

/// Adds Bevy's default plugins and decides whether VR can start here. With the `xr`
/// feature and an OpenXR runtime, OpenXR creates the renderer (the session itself starts
/// only when VR is wanted); otherwise [`VrStatus::unavailable`] says why not.
pub(super) fn add_default_plugins(app: &mut App, defaults: PluginGroupBuilder) {
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
        status.unavailable = Some(crate::tr!("vr-unavailable-no-xr-build"));
    }
    app.add_plugins(defaults);
    app.insert_resource(status);
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, want_vr_at_start)
        .add_systems(Update, explain_when_unavailable.in_set(EditorSet::Input));
    #[cfg(feature = "xr")]
    openxr_mode::plugin(app);
}

fn want_vr_at_start(launch: Res<Launch>, mut status: ResMut<VrStatus>) {
    if launch.vr {
        status.wanted = true;
    }
}

/// Asking for VR where it cannot start: say why once, and stay on the desktop.
fn explain_when_unavailable(mut status: ResMut<VrStatus>, mut banner: ResMut<Banner>) {
    if status.wanted
        && let Some(reason) = status.unavailable.clone()
    {
        status.wanted = false;
        banner.error(crate::tr!("vr-unavailable-staying", reason = reason));
    }
}
