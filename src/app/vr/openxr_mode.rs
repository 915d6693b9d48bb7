//! The OpenXR session through `bevy_mod_openxr` (feature `xr`): starting and leaving
//! VR, the controller and hand-tracking input, the spheres and lasers. Input becomes
//! `core::vr` calls whose edits go through [`EditRequest`] like every other edit.
//!
//! Placement: the avatar stays at the world origin facing +Z (as on the desktop), and the
//! tracking root is put 2 m in front of it, so the player stands at the origin of their
//! floor space looking down −Z at the avatar, and model space is world space.

use bevy::camera::visibility::RenderLayers;
use bevy::prelude::*;
use bevy_mod_openxr::action_binding::{OxrSendActionBindings, OxrSuggestActionBinding};
use bevy_mod_openxr::action_set_attaching::OxrAttachActionSet;
use bevy_mod_openxr::action_set_syncing::{OxrActionSetSyncSet, OxrSyncActionSet};
use bevy_mod_openxr::exts::OxrExtensions;
use bevy_mod_openxr::init::OxrInitPlugin;
use bevy_mod_openxr::poll_events::{OxrEventHandlerExt, OxrEventIn};
use bevy_mod_openxr::reference_space::OxrReferenceSpacePlugin;
use bevy_mod_openxr::resources::{OxrInstance, OxrSessionConfig};
use bevy_mod_openxr::session::OxrSession;
use bevy_mod_openxr::types::{AppInfo, Version};
use bevy_mod_openxr::{add_xr_plugins, openxr_session_running};
use bevy_mod_xr::camera::XrCamera;
use bevy_mod_xr::hands::{HandBone, LeftHand, RightHand};
use bevy_mod_xr::session::{
    XrBeginSessionMessage, XrCreateSessionMessage, XrDestroySessionMessage, XrEndSessionMessage,
    XrPreDestroySession, XrRequestExitMessage, XrSessionCreated, XrSessionPlugin, XrState,
    XrStateChanged, XrTrackingRoot,
};
use bevy_mod_xr::spaces::XrSpaceLocationFlags;

use bevy::camera::RenderTarget;
use bevy_egui::input::EguiInputEvent;
use bevy_egui::{EguiContext, EguiSchedule, egui};

use crate::app::session::{
    Banner, DialogPurpose, EditRequest, EditorCamera, EditorSet, ExitGate, FileRequest, Launch,
    MarkersVisible, Session, VR_LAYER, VrPanel, VrPanelPass, VrStatus, panel_button, panel_rect,
};
use crate::core::edit::{Edit, Gesture};
use crate::core::edit::{GripSide, PoseEdit};
use crate::core::export::ExportKind;
use crate::core::humanoid::Side;
use crate::core::vr::{
    Buttons, Grabber, HandInput, Hold, OneEuroParams, OneEuroVec3, PRESS_AT, Place, Pointer,
    ScaleGesture, TurnMode, Turner, button_commands, scrub_step, spheres, vr_handles, walk_step,
};
use crate::core::vr_panel::{
    PANEL_POINTS, PANEL_ZOOM, PanelEvent, PanelPlace, PanelPointer, PanelReach, RADIAL_POINTS,
    on_plane, palette_at, panel_pixels, pinned_at_start, radial_at,
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
struct SphereMesh(crate::core::handle::PoseHandle);

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

/// The hand-preset menu's egui pass (only `app::vr` draws it).
#[derive(bevy::ecs::schedule::ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
struct VrRadialPass;

/// The hand-preset menu's egui context (on the camera that renders it).
#[derive(Component)]
struct VrRadial;

/// The hand-preset menu's quad.
#[derive(Component)]
struct RadialQuad;

/// The panel's background: a dark blue, apart from the desktop's greys.
pub const PANEL_FILL: [u8; 3] = [18, 30, 52];
/// The window's view while it mirrors the headset (vertical field of view).
const MIRROR_FOV_DEGREES: f32 = 75.0;

/// What exists only in VR (spheres, the panel and the hand menu with their cameras).
type VrOnly = Or<(
    With<SphereMesh>,
    With<PanelQuad>,
    With<VrPanel>,
    With<RadialQuad>,
    With<VrRadial>,
)>;
type LeftJoints = (With<LeftHand>, Without<XrTrackingRoot>);
type RightJoints = (With<RightHand>, Without<XrTrackingRoot>);
/// A quad's place and whether it shows.
type Placed = (&'static mut Transform, &'static mut Visibility);

/// The panel's quad in the world.
#[derive(Component)]
struct PanelQuad;

/// The editor camera's place before VR: the window mirrors the headset meanwhile.
#[derive(Resource)]
struct MirroredFrom(Transform, RenderLayers, Projection);

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

/// Logs every session state at info level and tracks focus.
fn log_session_state(event: OxrEventIn, mut status: ResMut<VrStatus>) {
    if let openxr::Event::SessionStateChanged(change) = *event {
        let state = change.state();
        info!("VR session state: {state:?}");
        status.focused = state == openxr::SessionState::FOCUSED;
        status.running = matches!(
            state,
            openxr::SessionState::SYNCHRONIZED
                | openxr::SessionState::VISIBLE
                | openxr::SessionState::FOCUSED
        );
    }
}

/// Starts, begins, ends and destroys the session as the runtime and the user ask.
#[allow(clippy::too_many_arguments)]
fn drive_session(
    state: Res<XrState>,
    mut changes: MessageReader<XrStateChanged>,
    mut status: ResMut<VrStatus>,
    mut gate: ResMut<ExitGate>,
    mut create: MessageWriter<XrCreateSessionMessage>,
    mut begin: MessageWriter<XrBeginSessionMessage>,
    mut end: MessageWriter<XrEndSessionMessage>,
    mut destroy: MessageWriter<XrDestroySessionMessage>,
    mut request_exit: MessageWriter<XrRequestExitMessage>,
    mut asked: Local<Option<XrState>>,
) {
    for XrStateChanged(new) in changes.read() {
        match new {
            XrState::Ready => {
                begin.write_default();
            }
            XrState::Stopping => {
                end.write_default();
            }
            XrState::Exiting { should_restart } => {
                if !should_restart {
                    status.wanted = false;
                }
                destroy.write_default();
            }
            _ => {}
        }
    }
    // Quitting (--exit-after or the window closing): leave VR cleanly first.
    if gate.quit_requested {
        status.wanted = false;
    }
    let in_session = !matches!(*state, XrState::Available | XrState::Unavailable);
    gate.busy = in_session || (status.wanted && *state == XrState::Available);
    // One request per state: a request made in another state no longer counts.
    if *asked != Some(*state) {
        *asked = None;
    }
    if asked.is_none() {
        if status.wanted && *state == XrState::Available {
            info!("entering VR");
            create.write_default();
            *asked = Some(*state);
        } else if !status.wanted && matches!(*state, XrState::Running | XrState::Ready) {
            info!("leaving VR");
            request_exit.write_default();
            *asked = Some(*state);
        }
    }
}

fn create_actions(
    instance: Res<OxrInstance>,
    mut commands: Commands,
    mut banner: ResMut<crate::app::session::Banner>,
) {
    let made = (|| -> openxr::Result<VrActions> {
        let set = instance.create_action_set("vrma_maker", "VRMA Maker", 0)?;
        Ok(VrActions {
            grip: per_hand(&set, "grip")?,
            aim: per_hand(&set, "aim")?,
            squeeze: per_hand(&set, "squeeze")?,
            trigger: per_hand(&set, "trigger")?,
            stick: per_hand(&set, "stick")?,
            stick_click: per_hand(&set, "stick_click")?,
            // The runtime shows these names in its binding settings (SteamVR's, say).
            a: set.create_action("button_a", &crate::tr!("vr-action-a"), &[])?,
            b: set.create_action("button_b", &crate::tr!("vr-action-b"), &[])?,
            x: set.create_action("button_x", &crate::tr!("vr-action-x"), &[])?,
            y: set.create_action("button_y", &crate::tr!("vr-action-y"), &[])?,
            set,
        })
    })();
    match made {
        Ok(actions) => commands.insert_resource(actions),
        Err(e) => banner.error(crate::tr!("vr-controllers-failed", error = e.to_string())),
    }
}

/// One action per hand, `left_KIND` and `right_KIND`.
fn per_hand<T: openxr::ActionTy>(
    set: &openxr::ActionSet,
    kind: &str,
) -> openxr::Result<[openxr::Action<T>; 2]> {
    let left = format!("left_{kind}");
    let right = format!("right_{kind}");
    Ok([
        set.create_action(&left, &left, &[])?,
        set.create_action(&right, &right, &[])?,
    ])
}

const TOUCH: &str = "/interaction_profiles/oculus/touch_controller";
const INDEX: &str = "/interaction_profiles/valve/index_controller";
const SIMPLE: &str = "/interaction_profiles/khr/simple_controller";

fn suggest_bindings(
    actions: Option<Res<VrActions>>,
    mut suggest: MessageWriter<OxrSuggestActionBinding>,
) {
    let Some(actions) = actions else {
        return;
    };
    let mut bind = |action: openxr::sys::Action, profile: &'static str, path: String| {
        suggest.write(OxrSuggestActionBinding {
            action,
            interaction_profile: profile.into(),
            bindings: vec![path.into()],
        });
    };
    for (i, hand) in ["left", "right"].into_iter().enumerate() {
        for profile in [TOUCH, INDEX, SIMPLE] {
            bind(
                actions.grip[i].as_raw(),
                profile,
                format!("/user/hand/{hand}/input/grip/pose"),
            );
            bind(
                actions.aim[i].as_raw(),
                profile,
                format!("/user/hand/{hand}/input/aim/pose"),
            );
        }
        for profile in [TOUCH, INDEX] {
            let input = |what: &str| format!("/user/hand/{hand}/input/{what}");
            bind(actions.squeeze[i].as_raw(), profile, input("squeeze/value"));
            bind(actions.trigger[i].as_raw(), profile, input("trigger/value"));
            bind(actions.stick[i].as_raw(), profile, input("thumbstick"));
            bind(
                actions.stick_click[i].as_raw(),
                profile,
                input("thumbstick/click"),
            );
        }
        // The simple controller has one button: it is the trigger.
        bind(
            actions.trigger[i].as_raw(),
            SIMPLE,
            format!("/user/hand/{hand}/input/select/click"),
        );
    }
    let right = |b: &str| format!("/user/hand/right/input/{b}/click");
    let left = |b: &str| format!("/user/hand/left/input/{b}/click");
    bind(actions.a.as_raw(), TOUCH, right("a"));
    bind(actions.b.as_raw(), TOUCH, right("b"));
    bind(actions.x.as_raw(), TOUCH, left("x"));
    bind(actions.y.as_raw(), TOUCH, left("y"));
    // Index controllers have A and B on both hands: the left pair is X and Y.
    bind(actions.a.as_raw(), INDEX, right("a"));
    bind(actions.b.as_raw(), INDEX, right("b"));
    bind(actions.x.as_raw(), INDEX, left("a"));
    bind(actions.y.as_raw(), INDEX, left("b"));
}

fn attach_actions(actions: Option<Res<VrActions>>, mut attach: MessageWriter<OxrAttachActionSet>) {
    if let Some(actions) = actions {
        attach.write(OxrAttachActionSet(actions.set.clone()));
    }
}

fn sync_actions(actions: Option<Res<VrActions>>, mut sync: MessageWriter<OxrSyncActionSet>) {
    if let Some(actions) = actions {
        sync.write(OxrSyncActionSet(actions.set.clone()));
    }
}

/// The session exists: controller spaces, spheres, the panel, the player's place; the
/// desktop's markers and gizmo step aside. Thumbnails stay live: they render through
/// cameras of their own into textures, as the panel does, apart from the headset's.
#[allow(clippy::too_many_arguments)]
fn enter_vr(
    actions: Option<Res<VrActions>>,
    session: Option<Res<OxrSession>>,
    mut commands: Commands,
    mut root: Query<&mut Transform, With<XrTrackingRoot>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut markers: ResMut<MarkersVisible>,
    mut input: ResMut<VrInput>,
    mut images: ResMut<Assets<Image>>,
) {
    let (Some(actions), Some(session)) = (actions, session) else {
        error!("VR session could not be created; staying on the desktop");
        return;
    };
    for hand in 0..2 {
        for (aim, action) in [(false, &actions.grip[hand]), (true, &actions.aim[hand])] {
            match session.create_action_space(action, openxr::Path::NULL, Isometry3d::IDENTITY) {
                Ok(space) => {
                    commands.spawn((space, ControllerSpace { hand, aim }, Transform::default()));
                }
                Err(e) => error!("cannot track controller {hand}: {e}"),
            }
        }
    }
    for mut transform in &mut root {
        *transform = root_transform(&Place::at_start());
    }
    spawn_panel(&mut commands, &mut images, &mut meshes, &mut materials);
    for handle in vr_handles() {
        let [r, g, b] = handle.colour();
        commands.spawn((
            SphereMesh(handle),
            Mesh3d(meshes.add(Sphere::new(handle.sphere_radius()))),
            MeshMaterial3d(materials.add(StandardMaterial {
                base_color: Color::linear_rgba(r, g, b, 0.55),
                emissive: LinearRgba::rgb(r * 0.6, g * 0.6, b * 0.6),
                alpha_mode: AlphaMode::Blend,
                unlit: true,
                ..default()
            })),
            Transform::default(),
            Visibility::Hidden,
            RenderLayers::layer(VR_LAYER),
        ));
    }
    markers.0 = false;
    *input = VrInput {
        filter: input.filter,
        turn_mode: input.turn_mode,
        ..default()
    };
    info!(
        "VR: spheres and the panel ready, player at the origin of the floor space, avatar \
         2 m ahead"
    );
}

/// The session is going away: commit a drag in progress, bring the desktop back.
#[allow(clippy::too_many_arguments)]
fn leave_vr(
    mut commands: Commands,
    spaces: Query<Entity, With<ControllerSpace>>,
    spheres: Query<Entity, VrOnly>,
    mut markers: ResMut<MarkersVisible>,
    mut input: ResMut<VrInput>,
    mut edits: MessageWriter<EditRequest>,
    mut status: ResMut<VrStatus>,
) {
    if input.grabber.holding() {
        edits.write(EditRequest(Edit::Gesture(Gesture::End)));
    }
    input.grabber = Grabber::default();
    for entity in spaces.iter().chain(spheres.iter()) {
        commands.entity(entity).despawn();
    }
    markers.0 = true;
    info!("VR session ended; back on the desktop");
    status.running = false;
    status.focused = false;
}

/// The headset's cameras see the scene and the VR layer.
fn see_vr_layer(mut commands: Commands, cameras: Query<Entity, Added<XrCamera>>) {
    for camera in &cameras {
        commands
            .entity(camera)
            .insert(RenderLayers::from_layers(&[0, VR_LAYER]));
    }
}

/// A tracked hand joint: which one, where (in the tracking root), whether it is valid.
type HandJoint = (
    &'static HandBone,
    &'static Transform,
    &'static XrSpaceLocationFlags,
);

/// One hand's index tip and thumb tip (in the tracking root), when both are tracked.
fn tracked_tips<'a>(
    joints: impl Iterator<Item = (&'a HandBone, &'a Transform, &'a XrSpaceLocationFlags)>,
) -> Option<(Vec3, Vec3)> {
    let (mut index, mut thumb) = (None, None);
    for (bone, transform, _) in joints.filter(|(_, _, f)| f.position_tracked) {
        match bone {
            HandBone::IndexTip => index = Some(transform.translation),
            HandBone::ThumbTip => thumb = Some(transform.translation),
            _ => {}
        }
    }
    index.zip(thumb)
}

fn pointer(transform: &Transform, root: &Transform) -> Pointer {
    Pointer::new(
        root.transform_point(transform.translation),
        root.rotation * transform.rotation,
    )
}

/// The tracking root's transform for a place of the player.
fn root_transform(place: &Place) -> Transform {
    Transform {
        translation: place.translation,
        rotation: place.rotation,
        scale: Vec3::splat(place.scale),
    }
}

/// What the panel's input needs: its egui context and where egui reads its events.
#[derive(bevy::ecs::system::SystemParam)]
struct PanelInput<'w, 's> {
    panel: Query<'w, 's, Entity, With<VrPanel>>,
    radial: Query<'w, 's, Entity, (With<VrRadial>, Without<VrPanel>)>,
    events: MessageWriter<'w, EguiInputEvent>,
}

impl PanelInput<'_, '_> {
    /// Tells the panel's egui (or the hand menu's, `radial`) what its pointer did.
    fn send(&mut self, radial: bool, event: PanelEvent) {
        debug!(
            "VR {}: {event:?}",
            if radial { "hand menu" } else { "panel" }
        );
        let context = if radial {
            self.radial.single()
        } else {
            self.panel.single()
        };
        let Ok(context) = context else {
            return;
        };
        let pos = |at: Vec2| egui::pos2(at.x, at.y);
        let event = match event {
            PanelEvent::Moved(at) => egui::Event::PointerMoved(pos(at)),
            PanelEvent::Pressed(at) | PanelEvent::Released(at) => egui::Event::PointerButton {
                pos: pos(at),
                button: egui::PointerButton::Primary,
                pressed: matches!(event, PanelEvent::Pressed(_)),
                modifiers: egui::Modifiers::default(),
            },
            PanelEvent::Gone => egui::Event::PointerGone,
        };
        self.events.write(EguiInputEvent { context, event });
    }
}

/// One frame of VR input: the panel, grabs, buttons, sticks, turning, recentring and
/// scaling.
#[allow(clippy::too_many_arguments)]
fn vr_input(
    actions: Option<Res<VrActions>>,
    oxr: Res<OxrSession>,
    time: Res<Time>,
    status: Res<VrStatus>,
    session: Res<Session>,
    mut input: ResMut<VrInput>,
    mut root: Query<&mut Transform, With<XrTrackingRoot>>,
    controllers: Query<
        (&ControllerSpace, &Transform, &XrSpaceLocationFlags),
        Without<XrTrackingRoot>,
    >,
    (left_joints, right_joints): (Query<HandJoint, LeftJoints>, Query<HandJoint, RightJoints>),
    head: Query<(&XrCamera, &Transform), Without<XrTrackingRoot>>,
    mut edits: MessageWriter<EditRequest>,
    mut panel_input: PanelInput,
    mut gizmos: Gizmos<VrGizmos>,
) {
    let Some(actions) = actions else {
        return;
    };
    let Ok(mut root) = root.single_mut() else {
        return;
    };
    if !status.focused {
        return; // OpenXR gives no input without focus
    }
    *root = root_transform(&input.place);
    let dt = time.delta_secs();
    let float = |a: &openxr::Action<f32>| {
        a.state(&oxr, openxr::Path::NULL)
            .map_or(0.0, |s| if s.is_active { s.current_state } else { 0.0 })
    };
    let flag = |a: &openxr::Action<bool>| {
        a.state(&oxr, openxr::Path::NULL)
            .is_ok_and(|s| s.is_active && s.current_state)
    };
    let stick = |a: &openxr::Action<openxr::Vector2f>| {
        a.state(&oxr, openxr::Path::NULL).map_or(Vec2::ZERO, |s| {
            if s.is_active {
                Vec2::new(s.current_state.x, s.current_state.y)
            } else {
                Vec2::ZERO
            }
        })
    };

    let mut hands = [HandInput::default(), HandInput::default()];
    // The grips in floor space (the left one holds the palette, both scale).
    let mut floor_grips: [Option<Pointer>; 2] = [None, None];
    for (space, transform, flags) in &controllers {
        if !(flags.position_tracked && flags.rotation_tracked) {
            continue;
        }
        let p = pointer(transform, &root);
        if space.aim {
            hands[space.hand].aim = Some(p);
        } else {
            hands[space.hand].grip = Some(p);
            floor_grips[space.hand] = Some(Pointer::new(transform.translation, transform.rotation));
        }
    }
    let filter = input.filter;
    for (hand, tips) in [
        tracked_tips(left_joints.iter()),
        tracked_tips(right_joints.iter()),
    ]
    .into_iter()
    .enumerate()
    {
        match tips {
            Some((index, thumb)) => {
                let index = root.transform_point(index);
                let thumb = root.transform_point(thumb);
                let [fi, ft] = &mut input.tips[hand];
                hands[hand].pinch_tips =
                    Some((fi.filter(index, dt, &filter), ft.filter(thumb, dt, &filter)));
            }
            _ => input.tips[hand].iter_mut().for_each(OneEuroVec3::reset),
        }
    }
    for (hand, input) in hands.iter_mut().enumerate() {
        input.squeeze = float(&actions.squeeze[hand]);
        input.trigger = float(&actions.trigger[hand]);
    }

    let now = spheres(
        &session.editor.rig,
        &session.editor.hands,
        &session.editor.pose,
    );

    // The panel: where it is this frame, then what each hand does to it. A hand on the
    // panel is the panel's: its laser, trigger and fingertips do not also grab spheres.
    let floor_panel = match input.panel {
        PanelMode::Pinned(place) => place,
        PanelMode::InHand => floor_grips[0].map_or(input.panel_floor, |g| palette_at(&g)),
    };
    input.panel_floor = floor_panel;
    let panel = floor_panel.in_world(&input.place);
    input.panel_world = Some(panel);
    let mut reach = [PanelReach::default(); 2];
    for (hand, r) in reach.iter_mut().enumerate() {
        let held_here = input.grabber.hands[hand].grab.is_some();
        // The palette's own hand does not point at it.
        if held_here || (hand == 0 && input.panel == PanelMode::InHand) {
            continue;
        }
        let h = &hands[hand];
        let pinching = h
            .pinch_tips
            .is_some_and(|(i, t)| i.distance(t) < crate::core::vr::PINCH_START);
        r.press = if pinching { 1.0 } else { h.trigger };
        if let Some(aim) = h.aim {
            r.laser = if input.pointer.laser_pressing(hand) {
                on_plane(&panel, aim.position, aim.forward())
            } else {
                let sphere = crate::core::vr::ray_hit(&now, aim.position, aim.forward(), &[])
                    .map_or(f32::INFINITY, |(_, t)| t);
                panel
                    .ray_hit(aim.position, aim.forward())
                    .filter(|hit| hit.distance < sphere)
            };
        }
        r.poke = h.pinch_tips.and_then(|(index, _)| panel.poke(index));
    }
    // The hand-preset menu, open on the left hand: the right hand works it, and while
    // it does, not the panel behind.
    let right_click = flag(&actions.stick_click[1]);
    if right_click && !input.right_click {
        input.radial_open = !input.radial_open;
        info!(
            "VR: hand-preset menu {}",
            if input.radial_open { "open" } else { "closed" }
        );
    }
    input.right_click = right_click;
    input.radial_world = None;
    let mut radial_reach = PanelReach::default();
    if input.radial_open
        && let Some(grip) = floor_grips[0]
    {
        let menu = radial_at(&grip).in_world(&input.place);
        input.radial_world = Some(menu);
        let h = &hands[1];
        radial_reach.press = reach[1].press;
        if let Some(aim) = h.aim.filter(|_| input.grabber.hands[1].grab.is_none()) {
            radial_reach.laser = if input.radial_pointer.laser_pressing(1) {
                on_plane(&menu, aim.position, aim.forward())
            } else {
                menu.ray_hit(aim.position, aim.forward())
            };
        }
        radial_reach.poke = h.pinch_tips.and_then(|(index, _)| menu.poke(index));
    }
    for event in input
        .radial_pointer
        .update([PanelReach::default(), radial_reach])
    {
        panel_input.send(true, event);
    }
    let radial_takes = input.radial_pointer.takes(1, &radial_reach);
    if radial_takes {
        reach[1] = PanelReach::default();
    }
    for event in input.pointer.update(reach) {
        panel_input.send(false, event);
    }
    let mut for_grabber = hands;
    for (hand, h) in for_grabber.iter_mut().enumerate() {
        let menu = hand == 1 && radial_takes;
        if input.grabber.hands[hand].grab.is_none()
            && (menu || input.pointer.takes(hand, &reach[hand]))
        {
            h.aim = None;
            h.trigger = 0.0;
            h.pinch_tips = None;
        }
    }

    // Grabs: previews while dragging, one undo step on release.
    let settings = session.editor.settings;
    for edit in input
        .grabber
        .update([&for_grabber[0], &for_grabber[1]], &now, &settings)
    {
        edits.write(EditRequest(edit));
    }

    // Both grips squeezed with no sphere in either: the pull scales the avatar.
    let free =
        |hand: usize| hands[hand].squeeze >= PRESS_AT && input.grabber.hands[hand].grab.is_none();
    let grips = match (floor_grips[0], floor_grips[1]) {
        (Some(l), Some(r)) if free(0) && free(1) => Some((l.position, r.position)),
        _ => None,
    };
    let place = input.place;
    if let Some(scaled) = input.scale.update(grips, &place) {
        if (scaled.scale - place.scale).abs() > 1e-6 {
            debug!("VR: avatar shown at {:.2}×", scaled.avatar_scale());
        }
        input.place = scaled;
    }

    // Buttons.
    let buttons = Buttons {
        a: flag(&actions.a),
        b: flag(&actions.b),
        x: flag(&actions.x),
        y: flag(&actions.y),
    };
    for command in button_commands(input.buttons, buttons) {
        info!("VR button: {command:?}");
        edits.write(EditRequest(command.edit(session.editor.playing)));
    }
    input.buttons = buttons;

    // Sticks: the left turns (sideways) and walks (forwards and back), the right scrubs.
    // The head: between the eyes, looking where the first eye looks.
    let eyes: Vec<&Transform> = head.iter().map(|(_, t)| t).collect();
    let head_floor = match eyes.first() {
        Some(first) => (
            eyes.iter().map(|t| t.translation).sum::<Vec3>() / eyes.len() as f32,
            first.rotation * Vec3::NEG_Z,
        ),
        None => (Vec3::new(0.0, 1.6, 0.0), Vec3::NEG_Z),
    };
    let left = stick(&actions.stick[0]);
    if !input.scale.active() {
        let mode = input.turn_mode;
        let turn = input.turner.step(left.x, mode, dt);
        if turn != 0.0 {
            input.place = input.place.turned(head_floor.0, turn);
        }
        let head_forward = input.place.rotation * head_floor.1;
        input.place.translation += walk_step(Vec2::new(0.0, left.y), head_forward, dt);
    }
    let scrub = scrub_step(stick(&actions.stick[1]), dt);
    if scrub != 0.0 && !session.editor.playing {
        edits.write(EditRequest(Edit::Seek(
            (session.editor.playhead + scrub).max(0.0),
        )));
    }
    // Hold the left stick down: back in front of the avatar, facing it; the panel
    // goes back to its first place.
    if input.recentre.update(flag(&actions.stick_click[0]), dt) {
        input.place = input.place.recentred(head_floor.0, head_floor.1);
        input.panel = PanelMode::Pinned(pinned_at_start());
        info!("VR: recentred");
    }
    *root = root_transform(&input.place);

    // Lasers: to the panel or the sphere they point at, or 3 m.
    for (hand, h) in hands.iter().enumerate() {
        if let Some(aim) = h.aim {
            let on_ui = if hand == 1 && radial_reach.laser.is_some() {
                radial_reach.laser
            } else {
                reach[hand].laser
            };
            let length = on_ui.map(|hit| hit.distance).unwrap_or_else(|| {
                crate::core::vr::ray_hit(&now, aim.position, aim.forward(), &[])
                    .map_or(3.0, |(_, t)| t)
            });
            let end = aim.position + aim.forward() * length;
            gizmos.line(aim.position, end, Color::srgba(0.6, 0.95, 1.0, 0.8));
            if on_ui.is_some() {
                gizmos.sphere(Isometry3d::from_translation(end), 0.006, Color::WHITE);
            }
        }
    }
}

/// The panel's texture (egui draws into it through a camera of its own) and its quad;
/// the same for the hand-preset menu.
fn spawn_panel(
    commands: &mut Commands,
    images: &mut Assets<Image>,
    meshes: &mut Assets<Mesh>,
    materials: &mut Assets<StandardMaterial>,
) {
    let (w, h) = panel_pixels();
    let image = ui_texture(
        commands,
        images,
        (w, h),
        EguiSchedule::new(VrPanelPass),
        VrPanel,
    );
    commands.spawn((
        PanelQuad,
        ui_quad(meshes, materials, PANEL_POINTS, image),
        RenderLayers::layer(VR_LAYER),
    ));
    let size = RADIAL_POINTS * PANEL_ZOOM;
    let image = ui_texture(
        commands,
        images,
        (size.x as u32, size.y as u32),
        EguiSchedule::new(VrRadialPass),
        VrRadial,
    );
    commands.spawn((
        RadialQuad,
        ui_quad(meshes, materials, RADIAL_POINTS, image),
        RenderLayers::layer(VR_LAYER),
    ));
}

/// A texture egui draws into, through a camera of its own (`marker` on it).
fn ui_texture(
    commands: &mut Commands,
    images: &mut Assets<Image>,
    (w, h): (u32, u32),
    schedule: EguiSchedule,
    marker: impl Component,
) -> Handle<Image> {
    let image = images.add(Image::new_target_texture(
        w,
        h,
        bevy::render::render_resource::TextureFormat::Rgba8UnormSrgb,
        None,
    ));
    commands.spawn((
        Camera2d,
        Camera {
            // Before the headset's cameras, which show the texture.
            order: -10,
            clear_color: ClearColorConfig::Custom(Color::NONE),
            ..default()
        },
        RenderTarget::Image(image.clone().into()),
        RenderLayers::none(),
        EguiContext::default(),
        schedule,
        marker,
    ));
    image
}

/// A hidden quad of `points` (scaled to metres where it is placed) showing `image`.
fn ui_quad(
    meshes: &mut Assets<Mesh>,
    materials: &mut Assets<StandardMaterial>,
    points: Vec2,
    image: Handle<Image>,
) -> impl Bundle {
    (
        Mesh3d(meshes.add(Rectangle::new(points.x, points.y))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color_texture: Some(image),
            // Opaque but for its rounded corners: nothing shows through the text.
            alpha_mode: AlphaMode::Mask(0.5),
            unlit: true,
            cull_mode: None,
            ..default()
        })),
        Transform::default(),
        Visibility::Hidden,
    )
}

/// The quads stand where the panel and the hand menu are this frame.
fn place_panel(
    input: Res<VrInput>,
    mut panel: Query<Placed, (With<PanelQuad>, Without<RadialQuad>)>,
    mut radial: Query<Placed, With<RadialQuad>>,
) {
    let place =
        |place: Option<PanelPlace>,
         (mut transform, mut visibility): (Mut<Transform>, Mut<Visibility>)| {
            match place {
                Some(place) => {
                    *transform = Transform {
                        translation: place.center,
                        rotation: place.rotation,
                        scale: Vec3::new(place.metres_per_point, place.metres_per_point, 1.0),
                    };
                    *visibility = Visibility::Visible;
                }
                None => *visibility = Visibility::Hidden,
            }
        };
    for quad in &mut panel {
        place(input.panel_world, quad);
    }
    for quad in &mut radial {
        place(input.radial_world, quad);
    }
}

/// A VR egui context drawn at the panel's zoom, with clicks as a hand-held laser makes
/// them (slower and shakier than a mouse's).
fn made_for_lasers(ctx: &egui::Context) {
    if ctx.zoom_factor() != PANEL_ZOOM {
        ctx.set_zoom_factor(PANEL_ZOOM);
        ctx.options_mut(|o| {
            o.input_options.max_click_duration = crate::core::vr_panel::CLICK_SECONDS;
            o.input_options.max_click_dist = crate::core::vr_panel::CLICK_TRAVEL;
        });
    }
}

/// The hand-preset menu: the presets in a ring, and in the middle which of the avatar's
/// hands they shape (each press picks the next). A preset is one undo step.
fn draw_radial(
    mut menu: Single<&mut EguiContext, With<VrRadial>>,
    mut input: ResMut<VrInput>,
    mut edits: MessageWriter<EditRequest>,
) {
    use crate::core::vr_panel::{RADIAL_SIDE, radial_slot};
    let ctx = menu.get_mut().clone();
    made_for_lasers(&ctx);
    let rect = panel_rect;
    let centre = egui::pos2(RADIAL_POINTS.x * 0.5, RADIAL_POINTS.y * 0.5);
    ctx.layer_painter(egui::LayerId::background())
        .circle_filled(
            centre,
            RADIAL_POINTS.x * 0.5 - 1.0,
            egui::Color32::from_rgb(PANEL_FILL[0], PANEL_FILL[1], PANEL_FILL[2]),
        );
    let presets = crate::core::hand::presets();
    egui::Area::new(egui::Id::new("vr-hand-menu"))
        .fixed_pos(egui::Pos2::ZERO)
        .movable(false)
        .show(&ctx, |ui| {
            let button = |text: &str| egui::Button::new(egui::RichText::new(text).size(15.0));
            for (slot, preset) in presets.iter().enumerate() {
                if ui
                    .put(
                        rect(radial_slot(slot, presets.len())),
                        button(&crate::app::session::names::hand_preset_label(preset)),
                    )
                    .clicked()
                {
                    info!("VR hand menu: {}", preset.name);
                    edits.write(EditRequest::new(PoseEdit::Hand {
                        side: input.radial_side,
                        shape: Box::new(preset.shape),
                        amount: 1.0,
                    }));
                }
            }
            let side = match input.radial_side {
                GripSide::Both => crate::tr!("vr-hand-both"),
                GripSide::One(Side::Left) => crate::tr!("vr-hand-left"),
                GripSide::One(Side::Right) => crate::tr!("vr-hand-right"),
            };
            if ui.put(rect(RADIAL_SIDE), button(&side)).clicked() {
                input.radial_side = match input.radial_side {
                    GripSide::Both => GripSide::One(Side::Left),
                    GripSide::One(Side::Left) => GripSide::One(Side::Right),
                    GripSide::One(Side::Right) => GripSide::Both,
                };
            }
        });
}

/// The panel's background, its title row (turning, holding or pinning it) and the help
/// line; the library and the timeline draw their parts in the same pass.
fn draw_panel_frame(
    mut panel: Single<&mut EguiContext, With<VrPanel>>,
    mut input: ResMut<VrInput>,
    session: Res<Session>,
    banner: Res<Banner>,
    mut files: MessageWriter<FileRequest>,
) {
    use crate::core::vr_panel::{EXPORT_BUTTON, HEADER, HINT, PIN_BUTTON, TURN_BUTTON};
    let ctx = panel.get_mut().clone();
    made_for_lasers(&ctx);
    let rect = panel_rect;
    let whole =
        egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(PANEL_POINTS.x, PANEL_POINTS.y));
    ctx.layer_painter(egui::LayerId::background()).rect_filled(
        whole,
        14.0,
        egui::Color32::from_rgb(PANEL_FILL[0], PANEL_FILL[1], PANEL_FILL[2]),
    );
    let big = panel_button;
    egui::Area::new(egui::Id::new("vr-header"))
        .fixed_pos(rect(HEADER).min)
        .movable(false)
        .show(&ctx, |ui| {
            ui.put(
                egui::Rect::from_min_size(rect(HEADER).min, egui::vec2(480.0, 36.0)),
                egui::Label::new(egui::RichText::new("VRMA Maker").size(20.0).strong()),
            );
            if ui
                .put(rect(EXPORT_BUTTON), big(&crate::tr!("vr-panel-export")))
                .clicked()
            {
                let path = export_path(&session);
                info!("VR: exporting to {}", path.display());
                files.write(FileRequest::Answer(
                    DialogPurpose::Export(ExportKind::Vrma),
                    path,
                ));
            }
            let turn = match input.turn_mode {
                TurnMode::Snap => crate::tr!("vr-panel-turn-snap"),
                TurnMode::Smooth => crate::tr!("vr-panel-turn-smooth"),
            };
            if ui.put(rect(TURN_BUTTON), big(&turn)).clicked() {
                input.turn_mode = match input.turn_mode {
                    TurnMode::Snap => TurnMode::Smooth,
                    TurnMode::Smooth => TurnMode::Snap,
                };
            }
            let pin = match input.panel {
                PanelMode::Pinned(_) => crate::tr!("vr-panel-hold"),
                PanelMode::InHand => crate::tr!("vr-panel-pin"),
            };
            if ui.put(rect(PIN_BUTTON), big(&pin)).clicked() {
                input.panel = match input.panel {
                    PanelMode::Pinned(_) => PanelMode::InHand,
                    PanelMode::InHand => PanelMode::Pinned(input.panel_floor),
                };
            }
        });
    egui::Area::new(egui::Id::new("vr-hint"))
        .fixed_pos(rect(HINT).min)
        .movable(false)
        .show(&ctx, |ui| {
            // What the status line says (an export's outcome, a refused edit), else help.
            let text = match (&banner.error, &banner.progress, &banner.notice) {
                (Some(error), _, _) => egui::RichText::new(error).color(egui::Color32::LIGHT_RED),
                (_, Some(progress), _) => egui::RichText::new(progress),
                (_, _, Some(notice)) => egui::RichText::new(notice),
                _ => egui::RichText::new(crate::tr!("vr-panel-help")),
            };
            ui.put(rect(HINT), egui::Label::new(text.size(13.0)).truncate());
        });
}

/// Where the panel's Export VRMA writes: beside the project (or the model) under its
/// name, else in the user's data folder; never over an existing file.
fn export_path(session: &Session) -> std::path::PathBuf {
    use crate::core::export::unused_path;
    let base = session
        .project_path
        .clone()
        .or_else(|| session.model_path.clone())
        .unwrap_or_else(|| crate::core::library::default_dir().with_file_name("animation"));
    if let Some(dir) = base.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    unused_path(&base.with_extension("vrma"))
}

/// While in VR the window shows what the headset sees (from its first eye, with the
/// spheres, lasers and panel); the editor's own view comes back after.
fn mirror_headset(
    mut commands: Commands,
    status: Res<VrStatus>,
    saved: Option<Res<MirroredFrom>>,
    root: Query<&GlobalTransform, With<XrTrackingRoot>>,
    eyes: Query<&Transform, (With<XrCamera>, Without<EditorCamera>)>,
    mut editor: Query<(&mut Transform, &mut RenderLayers, &mut Projection), With<EditorCamera>>,
) {
    let Ok((mut transform, mut layers, mut projection)) = editor.single_mut() else {
        return;
    };
    let eye = eyes.iter().next();
    match (status.running, eye, root.single(), saved) {
        (true, Some(eye), Ok(root), saved) => {
            if saved.is_none() {
                commands.insert_resource(MirroredFrom(
                    *transform,
                    layers.clone(),
                    projection.clone(),
                ));
                *layers = layers.clone().with(VR_LAYER);
                if let Projection::Perspective(p) = &mut *projection {
                    p.fov = MIRROR_FOV_DEGREES.to_radians();
                }
            }
            let world = root.mul_transform(*eye).compute_transform();
            *transform =
                Transform::from_translation(world.translation).with_rotation(world.rotation);
        }
        (false, _, _, Some(saved)) => {
            *transform = saved.0;
            *layers = saved.1.clone();
            *projection = saved.2.clone();
            commands.remove_resource::<MirroredFrom>();
        }
        _ => {}
    }
}

/// Spheres follow the pose; a held one is outlined.
fn place_spheres(
    session: Res<Session>,
    input: Res<VrInput>,
    mut meshes: Query<(&SphereMesh, &mut Transform, &mut Visibility)>,
    mut gizmos: Gizmos<VrGizmos>,
) {
    let now = spheres(
        &session.editor.rig,
        &session.editor.hands,
        &session.editor.pose,
    );
    let held: Vec<_> = input
        .grabber
        .hands
        .iter()
        .filter_map(|h| h.grab.map(|g| g.handle))
        .collect();
    for (mesh, mut transform, mut visibility) in &mut meshes {
        match now.iter().find(|s| s.handle == mesh.0) {
            Some(sphere) => {
                transform.translation = sphere.center;
                *visibility = Visibility::Visible;
                if held.contains(&mesh.0) {
                    gizmos.sphere(
                        Isometry3d::from_translation(sphere.center),
                        sphere.radius * 1.15,
                        Color::WHITE,
                    );
                }
            }
            None => *visibility = Visibility::Hidden,
        }
    }
}
