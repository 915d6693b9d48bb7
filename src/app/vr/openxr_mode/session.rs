//! The OpenXR session and its frames: its states, entering and leaving VR, the controller
//! actions (created, bound, attached, synced), and the window mirroring the headset.

use bevy::camera::visibility::RenderLayers;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_mod_openxr::action_binding::OxrSuggestActionBinding;
use bevy_mod_openxr::action_set_attaching::OxrAttachActionSet;
use bevy_mod_openxr::action_set_syncing::OxrSyncActionSet;
use bevy_mod_openxr::poll_events::OxrEventIn;
use bevy_mod_openxr::resources::OxrInstance;
use bevy_mod_openxr::session::OxrSession;
use bevy_mod_xr::camera::XrCamera;
use bevy_mod_xr::session::{
    XrBeginSessionMessage, XrCreateSessionMessage, XrDestroySessionMessage, XrEndSessionMessage,
    XrRequestExitMessage, XrState, XrStateChanged, XrTrackingRoot,
};

use super::comfort::root_transform;
use super::panels::{PanelQuad, RadialQuad, VrRadial, spawn_panel};
use super::{ControllerSpace, SphereMesh, VrActions, VrInput};
use crate::app::session::{
    EditRequest, EditorCamera, ExitGate, MarkersVisible, VR_LAYER, VrPanel, VrStatus,
};
use crate::core::animation::edit::{Edit, Gesture};
use crate::core::vr::{Grabber, Place, vr_handles};

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

/// The editor camera's place before VR: the window mirrors the headset meanwhile.
#[derive(Resource)]
pub(super) struct MirroredFrom(Transform, RenderLayers, Projection);

/// Logs every session state at info level and tracks focus.
pub(super) fn log_session_state(event: OxrEventIn, mut status: ResMut<VrStatus>) {
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

/// What [`drive_session`] asks of `bevy_mod_xr`: to create, begin, end or destroy the
/// session, or to leave it.
#[derive(SystemParam)]
pub(super) struct SessionRequests<'w> {
    create: MessageWriter<'w, XrCreateSessionMessage>,
    begin: MessageWriter<'w, XrBeginSessionMessage>,
    end: MessageWriter<'w, XrEndSessionMessage>,
    destroy: MessageWriter<'w, XrDestroySessionMessage>,
    request_exit: MessageWriter<'w, XrRequestExitMessage>,
}

/// Starts, begins, ends and destroys the session as the runtime and the user ask.
pub(super) fn drive_session(
    state: Res<XrState>,
    mut changes: MessageReader<XrStateChanged>,
    mut status: ResMut<VrStatus>,
    mut gate: ResMut<ExitGate>,
    requests: SessionRequests,
    mut asked: Local<Option<XrState>>,
) {
    let SessionRequests {
        mut create,
        mut begin,
        mut end,
        mut destroy,
        mut request_exit,
    } = requests;
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

pub(super) fn create_actions(
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

pub(super) fn suggest_bindings(
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

pub(super) fn attach_actions(
    actions: Option<Res<VrActions>>,
    mut attach: MessageWriter<OxrAttachActionSet>,
) {
    if let Some(actions) = actions {
        attach.write(OxrAttachActionSet(actions.set.clone()));
    }
}

pub(super) fn sync_actions(
    actions: Option<Res<VrActions>>,
    mut sync: MessageWriter<OxrSyncActionSet>,
) {
    if let Some(actions) = actions {
        sync.write(OxrSyncActionSet(actions.set.clone()));
    }
}

/// Where what VR shows is made: the spheres' and quads' meshes and materials, and the
/// textures egui draws the panel and the hand menu into.
#[derive(SystemParam)]
pub(super) struct VrAssets<'w> {
    meshes: ResMut<'w, Assets<Mesh>>,
    materials: ResMut<'w, Assets<StandardMaterial>>,
    images: ResMut<'w, Assets<Image>>,
}

/// The session exists: controller spaces, spheres, the panel, the player's place; the
/// desktop's markers and gizmo step aside. Thumbnails stay live: they render through
/// cameras of their own into textures, as the panel does, apart from the headset's.
pub(super) fn enter_vr(
    actions: Option<Res<VrActions>>,
    session: Option<Res<OxrSession>>,
    mut commands: Commands,
    mut root: Query<&mut Transform, With<XrTrackingRoot>>,
    assets: VrAssets,
    mut markers: ResMut<MarkersVisible>,
    mut input: ResMut<VrInput>,
) {
    let VrAssets {
        mut meshes,
        mut materials,
        mut images,
    } = assets;
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
pub(super) fn leave_vr(
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
pub(super) fn see_vr_layer(mut commands: Commands, cameras: Query<Entity, Added<XrCamera>>) {
    for camera in &cameras {
        commands
            .entity(camera)
            .insert(RenderLayers::from_layers(&[0, VR_LAYER]));
    }
}

/// While in VR the window shows what the headset sees (from its first eye, with the
/// spheres, lasers and panel); the editor's own view comes back after.
pub(super) fn mirror_headset(
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
