//! Controller and hand input in VR: the controllers' and fingertips' pointers, the panel
//! and hand menu they work, grabs, buttons and sticks, the spheres and the lasers.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_mod_openxr::session::OxrSession;
use bevy_mod_xr::camera::XrCamera;
use bevy_mod_xr::hands::{HandBone, LeftHand, RightHand};
use bevy_mod_xr::session::XrTrackingRoot;
use bevy_mod_xr::spaces::XrSpaceLocationFlags;

use super::comfort::{recentre_player, root_transform, scale_player, turn_and_walk};
use super::panels::PanelInput;
use super::{ControllerSpace, PanelMode, SphereMesh, VrActions, VrGizmos, VrInput};
use crate::app::session::{EditRequest, PIN_COLOUR, Session, VrStatus};
use crate::core::animation::edit::Edit;
use crate::core::animation::handle::PoseHandle;
use crate::core::model::humanoid::Bone;
use crate::core::vr::panel::{PanelReach, on_plane, palette_at, radial_at};
use crate::core::{
    body::smoothing::OneEuroVec3, vr::Buttons, vr::HandInput, vr::Pointer, vr::button_commands,
    vr::scrub_step, vr::spheres,
};

type LeftJoints = (With<LeftHand>, Without<XrTrackingRoot>);
type RightJoints = (With<RightHand>, Without<XrTrackingRoot>);
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

/// The controller actions and the session they are read from.
#[derive(SystemParam)]
pub(super) struct VrControls<'w> {
    actions: Option<Res<'w, VrActions>>,
    oxr: Res<'w, OxrSession>,
}

/// What is tracked of the player: the tracking root (their floor space in the world), the
/// controllers' spaces, both hands' joints and the headset's eyes.
#[derive(SystemParam)]
pub(super) struct VrTracking<'w, 's> {
    root: Query<'w, 's, &'static mut Transform, With<XrTrackingRoot>>,
    controllers: Query<
        'w,
        's,
        (
            &'static ControllerSpace,
            &'static Transform,
            &'static XrSpaceLocationFlags,
        ),
        Without<XrTrackingRoot>,
    >,
    left_joints: Query<'w, 's, HandJoint, LeftJoints>,
    right_joints: Query<'w, 's, HandJoint, RightJoints>,
    head: Query<'w, 's, (&'static XrCamera, &'static Transform), Without<XrTrackingRoot>>,
}

/// What VR input acts on: edits, the panel's and the hand menu's egui, the lasers.
#[derive(SystemParam)]
pub(super) struct VrEffects<'w, 's> {
    edits: MessageWriter<'w, EditRequest>,
    panel_input: PanelInput<'w, 's>,
    gizmos: Gizmos<'w, 's, VrGizmos>,
}

/// One frame of VR input: the panel, grabs, buttons, sticks, turning, recentring and
/// scaling.
pub(super) fn vr_input(
    controls: VrControls,
    time: Res<Time>,
    status: Res<VrStatus>,
    session: Res<Session>,
    mut input: ResMut<VrInput>,
    tracking: VrTracking,
    effects: VrEffects,
) {
    let VrControls { actions, oxr } = controls;
    let VrTracking {
        mut root,
        controllers,
        left_joints,
        right_joints,
        head,
    } = tracking;
    let VrEffects {
        mut edits,
        mut panel_input,
        mut gizmos,
    } = effects;
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
    input.grabber.tick(dt, session.editor.pins);
    for edit in input
        .grabber
        .update([&for_grabber[0], &for_grabber[1]], &now, &settings)
    {
        edits.write(EditRequest(edit));
    }

    scale_player(&mut input, &hands, &floor_grips);

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
    turn_and_walk(&mut input, stick(&actions.stick[0]), head_floor, dt);
    let scrub = scrub_step(stick(&actions.stick[1]), dt);
    if scrub != 0.0 && !session.editor.playing {
        edits.write(EditRequest(Edit::Seek(
            (session.editor.playhead + scrub).max(0.0),
        )));
    }
    recentre_player(&mut input, flag(&actions.stick_click[0]), head_floor, dt);
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

/// Spheres follow the pose; a held one is outlined, a pinned end boxed (as the desktop
/// view boxes its marker).
pub(super) fn place_spheres(
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
                let end = match mesh.0 {
                    PoseHandle::Reach(bone) => Some(bone),
                    PoseHandle::Turn(Bone::Head) => Some(Bone::Head),
                    _ => None,
                };
                if end.is_some_and(|end| session.editor.pins.contains(end)) {
                    gizmos.cube(
                        Transform::from_translation(sphere.center)
                            .with_scale(Vec3::splat(sphere.radius * 2.6)),
                        PIN_COLOUR,
                    );
                }
            }
            None => *visibility = Visibility::Hidden,
        }
    }
}
