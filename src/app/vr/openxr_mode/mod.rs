//! The OpenXR session through `bevy_mod_openxr` (feature `xr`): starting and leaving
//! VR, the controller and hand-tracking input, the spheres and lasers. Input becomes
//! `core::vr` calls whose edits go through [`EditRequest`] like every other edit.
//!
//! Placement: the avatar stays at the world origin facing +Z (as on the desktop), and the
//! tracking root is put 2 m in front of it, so the player stands at the origin of their
//! floor space looking down −Z at the avatar, and model space is world space.
//!
//! The parts: [`session`] (the session and its frames, the controller actions, entering
//! and leaving VR, the window mirroring the headset), [`input`] (controllers, hands,
//! grabs, spheres and lasers), [`comfort`] (turning, recentring and scaling the player),
//! [`panels`] (the in-headset panel and the hand-preset menu).
//!
//! [`EditRequest`]: crate::app::session::EditRequest

mod comfort;
mod input;
mod panels;
mod session;

use bevy::camera::visibility::RenderLayers;
use bevy::prelude::*;
use bevy_mod_openxr::action_binding::OxrSendActionBindings;
use bevy_mod_openxr::action_set_syncing::OxrActionSetSyncSet;
use bevy_mod_openxr::exts::OxrExtensions;
use bevy_mod_openxr::init::OxrInitPlugin;
use bevy_mod_openxr::poll_events::OxrEventHandlerExt;
use bevy_mod_openxr::reference_space::OxrReferenceSpacePlugin;
use bevy_mod_openxr::resources::{OxrInstance, OxrSessionConfig};
use bevy_mod_openxr::types::{AppInfo, Version};
use bevy_mod_openxr::{add_xr_plugins, openxr_session_running};
use bevy_mod_xr::session::{XrPreDestroySession, XrSessionCreated, XrSessionPlugin, XrState};

use crate::app::session::{EditorSet, Launch, VR_LAYER, VrPanelPass, VrStatus};
use crate::core::animation::edit::GripSide;
use crate::core::vr::panel::{PanelPlace, PanelPointer, pinned_at_start};
use crate::core::{
    body::smoothing::OneEuroParams, body::smoothing::OneEuroVec3, vr::Buttons, vr::Grabber,
    vr::Hold, vr::Place, vr::ScaleGesture, vr::TurnMode, vr::Turner,
};

use input::{place_spheres, vr_input};
use panels::{VrRadialPass, draw_panel_frame, draw_radial, place_panel};
use session::{
    attach_actions, create_actions, drive_session, enter_vr, leave_vr, log_session_state,
    mirror_headset, see_vr_layer, suggest_bindings, sync_actions,
};

/// Checks for an OpenXR loader and runtime, as `bevy_mod_openxr` would, to be able to
/// say why VR is unavailable (the library only logs it).
fn probe() -> Result<openxr::ExtensionSet, String> {
    // On Windows the loader is built into the program (as bevy_mod_openxr links it).
    #[cfg(windows)]
    let entry = openxr::Entry::linked();
    // SAFETY: loading the system's OpenXR loader library; no other code touches it yet.
    #[cfg(not(windows))]
    let entry = unsafe { openxr::Entry::load() }
        .map_err(|e| crate::tr!("vr-no-loader", error = e.to_string()))?;
    entry.enumerate_extensions().map_err(|e| {
        if cfg!(windows) {
            crate::tr!("vr-no-runtime-windows", error = e.to_string())
        } else {
            crate::tr!("vr-no-runtime", error = e.to_string())
        }
    })
}

/// The desktop plugins, with OpenXR's in place of the plain renderer when a runtime is
/// there. The session starts only when VR is wanted (`--vr` or Enter VR).
pub fn plugin_group(
    defaults: bevy::app::PluginGroupBuilder,
    status: &mut VrStatus,
) -> bevy::app::PluginGroupBuilder {
    let available = match probe() {
        Ok(available) => available,
        Err(reason) => {
            status.unavailable = Some(reason);
            return defaults;
        }
    };
    let mut exts = OxrExtensions::default();
    if available.ext_hand_tracking {
        exts.enable_hand_tracking();
    }
    // Local-floor: the player's own floor position, not the play area's centre.
    let space = if available.ext_local_floor {
        exts.raw_mut().ext_local_floor = true;
        openxr::ReferenceSpaceType::LOCAL_FLOOR_EXT
    } else {
        openxr::ReferenceSpaceType::STAGE
    };
    // Logged once logging is up (this runs while the plugins are being put together).
    status.runtime = Some(format!(
        "OpenXR runtime found (hand tracking: {}, reference space: {})",
        available.ext_hand_tracking,
        if available.ext_local_floor {
            "local-floor"
        } else {
            "stage"
        }
    ));
    add_xr_plugins(defaults)
        .set(XrSessionPlugin { auto_handle: false })
        .set(OxrInitPlugin {
            app_info: AppInfo {
                name: "VRMA Maker".into(),
                version: Version(0, 1, 0),
            },
            exts,
            ..default()
        })
        .set(OxrReferenceSpacePlugin {
            default_primary_ref_space: space,
        })
}

/// Testing and slow machines: `VRMA_MAKER_VR_RESOLUTION=WxH` renders each eye smaller
/// than the runtime recommends (software rendering in CI).
pub fn session_config_from_env() -> Option<OxrSessionConfig> {
    let text = std::env::var("VRMA_MAKER_VR_RESOLUTION").ok()?;
    let (w, h) = text.split_once('x')?;
    let size = UVec2::new(w.trim().parse().ok()?, h.trim().parse().ok()?);
    Some(OxrSessionConfig {
        resolutions: Some(vec![size]),
        ..default()
    })
}

/// The controller actions (one action per hand: no subaction paths to juggle).
#[derive(Resource)]
struct VrActions {
    set: openxr::ActionSet,
    grip: [openxr::Action<openxr::Posef>; 2],
    aim: [openxr::Action<openxr::Posef>; 2],
    squeeze: [openxr::Action<f32>; 2],
    trigger: [openxr::Action<f32>; 2],
    stick: [openxr::Action<openxr::Vector2f>; 2],
    stick_click: [openxr::Action<bool>; 2],
    a: openxr::Action<bool>,
    b: openxr::Action<bool>,
    x: openxr::Action<bool>,
    y: openxr::Action<bool>,
}

/// An entity following a controller's grip (or aim) pose.
#[derive(Component, Clone, Copy)]
struct ControllerSpace {
    hand: usize,
    aim: bool,
}

/// A sphere's mesh (one per movable handle of the handle table).
#[derive(Component)]
struct SphereMesh(crate::core::animation::handle::PoseHandle);

/// Lasers and held-sphere outlines.
#[derive(Default, Reflect, GizmoConfigGroup)]
struct VrGizmos;

/// Where the panel is: pinned in the player's floor space, or held in the left hand.
#[derive(Clone, Copy, Debug, PartialEq)]
enum PanelMode {
    Pinned(PanelPlace),
    InHand,
}

/// Grabs, button states and filters that live as long as the session.
#[derive(Resource)]
struct VrInput {
    grabber: Grabber,
    buttons: Buttons,
    /// Index tip and thumb tip per hand, One Euro filtered.
    tips: [[OneEuroVec3; 2]; 2],
    filter: OneEuroParams,
    /// Where the player's floor space is in the world (the tracking root).
    place: Place,
    turner: Turner,
    turn_mode: TurnMode,
    /// The left stick held down (recentre).
    recentre: Hold,
    scale: ScaleGesture,
    /// The right stick's click last frame (the hand-preset menu opens on a press).
    right_click: bool,
    panel: PanelMode,
    /// Where the panel was last frame, in floor space (pinning keeps it there).
    panel_floor: PanelPlace,
    /// Where the panel was last frame, in the world (lasers stop at it).
    panel_world: Option<PanelPlace>,
    pointer: PanelPointer,
    /// The hand-preset menu on the left hand (the right stick's click opens and closes it).
    radial_open: bool,
    /// Which of the avatar's hands its presets shape.
    radial_side: GripSide,
    radial_world: Option<PanelPlace>,
    radial_pointer: PanelPointer,
}

impl Default for VrInput {
    fn default() -> Self {
        VrInput {
            grabber: Grabber::default(),
            buttons: Buttons::default(),
            tips: Default::default(),
            filter: OneEuroParams::default(),
            place: Place::at_start(),
            turner: Turner::default(),
            turn_mode: TurnMode::default(),
            recentre: Hold::default(),
            scale: ScaleGesture::default(),
            right_click: false,
            panel: PanelMode::Pinned(pinned_at_start()),
            panel_floor: pinned_at_start(),
            panel_world: None,
            pointer: PanelPointer::default(),
            radial_open: false,
            radial_side: GripSide::Both,
            radial_world: None,
            radial_pointer: PanelPointer::default(),
        }
    }
}

/// The panel's background: a dark blue, apart from the desktop's greys.
pub const PANEL_FILL: [u8; 3] = [18, 30, 52];

pub fn plugin(app: &mut App) {
    let filter = app
        .world()
        .get_resource::<Launch>()
        .and_then(|l| l.one_euro)
        .unwrap_or_default();
    app.insert_resource(VrInput {
        filter,
        ..default()
    })
    .insert_gizmo_config(
        VrGizmos,
        GizmoConfig {
            render_layers: RenderLayers::layer(VR_LAYER),
            line: GizmoLineConfig {
                width: 3.0,
                ..default()
            },
            ..default()
        },
    )
    .add_systems(Startup, |status: Res<VrStatus>| {
        if let Some(runtime) = &status.runtime {
            info!("{runtime}");
        }
    })
    .add_systems(Startup, check_runtime_started);
    if !app.world().contains_resource::<OxrInstance>() {
        return;
    }
    app.add_oxr_event_handler(log_session_state)
        .add_systems(Startup, create_actions)
        .add_systems(OxrSendActionBindings, suggest_bindings)
        .add_systems(XrSessionCreated, (attach_actions, enter_vr))
        .add_systems(XrPreDestroySession, leave_vr)
        .add_systems(
            PreUpdate,
            sync_actions
                .before(OxrActionSetSyncSet)
                .run_if(openxr_session_running),
        )
        .add_systems(
            Update,
            (
                drive_session,
                see_vr_layer,
                vr_input
                    .run_if(openxr_session_running)
                    .in_set(EditorSet::Input),
                (place_spheres, place_panel).after(EditorSet::Edit),
            ),
        )
        .add_systems(
            PostUpdate,
            mirror_headset.before(bevy::transform::TransformSystems::Propagate),
        )
        .add_systems(VrPanelPass, draw_panel_frame)
        .add_systems(VrRadialPass, draw_radial);
}

/// OpenXR found a runtime but could not start on it (no headset, no Vulkan device).
/// (`OxrInitPlugin` sets the state while the app is built, so Startup can tell.)
fn check_runtime_started(state: Option<Res<XrState>>, mut status: ResMut<VrStatus>) {
    if status.unavailable.is_none() && state.is_none_or(|s| *s == XrState::Unavailable) {
        status.unavailable = Some(crate::tr!("vr-runtime-did-not-start"));
    }
}
