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

use crate::app::session::{
    EditRequest, EditorSet, ExitGate, Launch, MarkersVisible, Session, Thumbnails, VR_LAYER,
    VrStatus,
};
use crate::core::edit::{Edit, Gesture};
use crate::core::vr::{
    Buttons, Grabber, HandInput, OneEuroParams, OneEuroVec3, Pointer, button_commands, scrub_step,
    spheres, vr_handles, walk_step,
};

/// The player stands this far in front of the avatar.
const PLAYER_DISTANCE: f32 = 2.0;

/// Checks for an OpenXR loader and runtime, as `bevy_mod_openxr` would, to be able to
/// say why VR is unavailable (the library only logs it).
fn probe() -> Result<openxr::ExtensionSet, String> {
    // SAFETY: loading the system's OpenXR loader library; no other code touches it yet.
    let entry = unsafe { openxr::Entry::load() }.map_err(|e| {
        format!(
            "the OpenXR loader (libopenxr_loader.so) is not installed ({e}); on Debian/Ubuntu: \
             sudo apt-get install libopenxr-loader1 libopenxr-dev"
        )
    })?;
    entry.enumerate_extensions().map_err(|e| {
        format!(
            "no OpenXR runtime is active ({e}); start SteamVR, Meta Quest Link, Monado or \
             WiVRn, or point XR_RUNTIME_JSON at a runtime"
        )
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

/// Grabs, button states and filters that live as long as the session.
#[derive(Resource, Default)]
struct VrInput {
    grabber: Grabber,
    buttons: Buttons,
    /// Index tip and thumb tip per hand, One Euro filtered.
    tips: [[OneEuroVec3; 2]; 2],
    filter: OneEuroParams,
}

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
                place_spheres.after(EditorSet::Edit),
            ),
        );
}

/// OpenXR found a runtime but could not start on it (no headset, no Vulkan device).
/// (`OxrInitPlugin` sets the state while the app is built, so Startup can tell.)
fn check_runtime_started(state: Option<Res<XrState>>, mut status: ResMut<VrStatus>) {
    if status.unavailable.is_none() && state.is_none_or(|s| *s == XrState::Unavailable) {
        status.unavailable = Some(
            "the OpenXR runtime is there but did not start (no headset connected, or no \
             Vulkan device it can use; see the log)"
                .into(),
        );
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
            a: set.create_action("button_a", "A: add key", &[])?,
            b: set.create_action("button_b", "B: undo", &[])?,
            x: set.create_action("button_x", "X: play or stop", &[])?,
            y: set.create_action("button_y", "Y: redo", &[])?,
            set,
        })
    })();
    match made {
        Ok(actions) => commands.insert_resource(actions),
        Err(e) => banner.error(format!("VR controllers cannot be set up: {e}")),
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

/// The session exists: controller spaces, spheres, the player's place; desktop-only
/// things (markers, gizmo, thumbnail regeneration) step aside.
#[allow(clippy::too_many_arguments)]
fn enter_vr(
    actions: Option<Res<VrActions>>,
    session: Option<Res<OxrSession>>,
    mut commands: Commands,
    mut root: Query<&mut Transform, With<XrTrackingRoot>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut markers: ResMut<MarkersVisible>,
    mut thumbnails: ResMut<Thumbnails>,
    mut input: ResMut<VrInput>,
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
        *transform = Transform::from_xyz(0.0, 0.0, PLAYER_DISTANCE);
    }
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
    thumbnails.paused = true;
    *input = VrInput {
        filter: input.filter,
        ..default()
    };
    info!("VR: spheres ready, player at the origin of the floor space, avatar 2 m ahead");
}

/// The session is going away: commit a drag in progress, bring the desktop back.
#[allow(clippy::too_many_arguments)]
fn leave_vr(
    mut commands: Commands,
    spaces: Query<Entity, With<ControllerSpace>>,
    spheres: Query<Entity, With<SphereMesh>>,
    mut markers: ResMut<MarkersVisible>,
    mut thumbnails: ResMut<Thumbnails>,
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
    thumbnails.paused = false;
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

/// One frame of VR input: grabs, buttons, sticks.
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
    left_joints: Query<HandJoint, (With<LeftHand>, Without<XrTrackingRoot>)>,
    right_joints: Query<HandJoint, (With<RightHand>, Without<XrTrackingRoot>)>,
    head: Query<(&XrCamera, &Transform), Without<XrTrackingRoot>>,
    mut edits: MessageWriter<EditRequest>,
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
    for (space, transform, flags) in &controllers {
        if !(flags.position_tracked && flags.rotation_tracked) {
            continue;
        }
        let p = pointer(transform, &root);
        if space.aim {
            hands[space.hand].aim = Some(p);
        } else {
            hands[space.hand].grip = Some(p);
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

    for (hand, input) in hands.iter().enumerate() {
        if let Some((index, thumb)) = input.pinch_tips {
            debug!(
                "hand {hand}: index-thumb gap {:.3} m",
                index.distance(thumb)
            );
        }
    }

    // Grabs: previews while dragging, one undo step on release.
    let now = spheres(
        &session.editor.rig,
        &session.editor.hands,
        &session.editor.pose,
    );
    let settings = session.editor.settings;
    for edit in input
        .grabber
        .update([&hands[0], &hands[1]], &now, &settings)
    {
        edits.write(EditRequest(edit));
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

    // Sticks: walk with the left, scrub with the right.
    let head_forward = head.iter().next().map_or(Vec3::NEG_Z, |(_, t)| {
        root.rotation * (t.rotation * Vec3::NEG_Z)
    });
    let step = walk_step(stick(&actions.stick[0]), head_forward, dt);
    root.translation += step;
    let scrub = scrub_step(stick(&actions.stick[1]), dt);
    if scrub != 0.0 && !session.editor.playing {
        edits.write(EditRequest(Edit::Seek(
            (session.editor.playhead + scrub).max(0.0),
        )));
    }

    // Lasers: to the sphere they point at, or 3 m.
    for hand in &hands {
        if let Some(aim) = hand.aim {
            let length = crate::core::vr::ray_hit(&now, aim.position, aim.forward(), &[])
                .map_or(3.0, |(_, t)| t);
            gizmos.line(
                aim.position,
                aim.position + aim.forward() * length,
                Color::srgba(0.6, 0.95, 1.0, 0.8),
            );
        }
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
