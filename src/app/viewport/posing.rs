//! Posing in the viewport: Blender-style modal G (move) and R (rotate) with X/Y/Z axis
//! locks, and a transform gizmo on the selection (arrows to move along an axis, rings to
//! rotate about one) that starts the same operations by dragging. Moving a hand or foot
//! is IK, an elbow or knee a pole drag, the hips a hips move (feet pinned when set);
//! rotating works on any bone. L is a look: the head, the neck and a little of the chest
//! turn to face the point under the pointer (on a plane half way between the head and the
//! camera), and the eyes with them. Every step is an `Gesture::Preview`; confirming is one
//! `EndGesture` (one undo step, written back to the key), cancelling restores exactly.

use bevy::prelude::*;
use bevy_egui::input::EguiWantsInput;

use super::cursor::ViewCursor;
use super::markers::MarkerGizmos;
use crate::app::session::keymap::{self, Action};
use crate::app::session::{
    Banner, EditRequest, EditorSet, MarkersVisible, ModalTool, PointerOverUi, Selection, Session,
};
use crate::core::animation::edit::{Edit, Gesture, Pins, PoseEdit};
use crate::core::animation::handle::PoseHandle;
use crate::core::body::math::{ray_axis, ray_plane, screen_angle};
use crate::core::model::humanoid::Bone;

/// Move or rotate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OpKind {
    Move,
    Rotate,
    Look,
}

/// A modal operation in progress.
#[derive(Clone, Copy, Debug)]
pub(super) struct ActiveOp {
    pub kind: OpKind,
    pub bone: Bone,
    /// World axis lock (X, Y or Z), if any.
    pub axis: Option<Vec3>,
    /// Started by dragging a gizmo handle: releasing the button confirms.
    pub from_gizmo: bool,
    start_cursor: Vec2,
    start_position: Vec3,
    start_world_rotation: Quat,
    parent_world_rotation: Quat,
}

/// The posing state shared with the other viewport tools.
#[derive(Resource, Default, Debug)]
pub(super) struct Posing {
    pub active: Option<ActiveOp>,
    /// Where a look in progress is looking (drawn as a point with a line from the head).
    pub look_target: Option<Vec3>,
    /// This frame's left click started or ended an operation (marker picking skips it).
    pub took_click: bool,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Posing>().add_systems(
        Update,
        (
            (
                forget_click,
                pin_from_key,
                start_from_keys,
                start_from_gizmo,
                update_op,
                share_modal_state,
            )
                .chain()
                .in_set(EditorSet::Input)
                .before(super::markers::pick_marker),
            draw_gizmo.in_set(EditorSet::Drive),
        ),
    );
}

pub(super) fn forget_click(mut posing: ResMut<Posing>) {
    posing.took_click = false;
}

/// Other features (shortcuts, camera, VR) stay out of the way while G / R runs.
fn share_modal_state(posing: Res<Posing>, mut modal: ResMut<ModalTool>) {
    let active = posing.active.is_some();
    if modal.0 != active {
        modal.0 = active;
    }
}

const AXES: [(Vec3, Color); 3] = [
    (Vec3::X, Color::srgb(0.95, 0.3, 0.3)),
    (Vec3::Y, Color::srgb(0.4, 0.9, 0.3)),
    (Vec3::Z, Color::srgb(0.3, 0.5, 1.0)),
];

/// Whether G can move this bone (the handle table says: IK ends, elbows/knees, hips).
fn movable(bone: Bone) -> bool {
    PoseHandle::of(bone).moves()
}

/// Gizmo size in world units: about the same on screen at any zoom.
fn gizmo_size(camera_position: Vec3, at: Vec3) -> f32 {
    camera_position.distance(at) * 0.08
}

fn begin(
    session: &Session,
    kind: OpKind,
    bone: Bone,
    axis: Option<Vec3>,
    cursor: Vec2,
    from_gizmo: bool,
) -> Option<ActiveOp> {
    let world = session.editor.rig.world_pose(&session.editor.pose);
    let (position, rotation) = world[bone.index()]?;
    let parent = session.editor.rig.bone(bone).and_then(|b| b.parent);
    let parent_world_rotation = parent
        .and_then(|p| world[p.index()])
        .map_or(Quat::IDENTITY, |(_, r)| r);
    Some(ActiveOp {
        kind,
        bone,
        axis,
        from_gizmo,
        start_cursor: cursor,
        start_position: position,
        start_world_rotation: rotation,
        parent_world_rotation,
    })
}

/// P: pin the selected hand, foot or head where it is, or let it go (one undo step).
fn pin_from_key(
    keys: Res<ButtonInput<KeyCode>>,
    egui_input: Option<Res<EguiWantsInput>>,
    session: Res<Session>,
    selection: Res<Selection>,
    posing: Res<Posing>,
    mut edits: MessageWriter<EditRequest>,
    mut banner: ResMut<Banner>,
) {
    if posing.active.is_some()
        || egui_input.is_some_and(|e| e.wants_any_keyboard_input())
        || !keymap::just_pressed(Action::Pin, &keys)
    {
        return;
    }
    let Some(bone) = selection.0 else {
        banner.notice = Some(crate::tr!("view-select-bone-first"));
        return;
    };
    let bone_name = crate::app::session::names::bone_label(bone);
    let Ok(ends) = Pins::of(bone) else {
        banner.notice = Some(crate::tr!("view-pin-not-an-end", bone = bone_name));
        return;
    };
    let on = !session.editor.pins.contains(bone);
    edits.write(EditRequest(Edit::Pin { ends, on }));
    banner.notice = Some(if on {
        crate::tr!("view-pinned", bone = bone_name)
    } else {
        crate::tr!("view-unpinned", bone = bone_name)
    });
}

fn start_from_keys(
    keys: Res<ButtonInput<KeyCode>>,
    egui_input: Option<Res<EguiWantsInput>>,
    view: ViewCursor,
    session: Res<Session>,
    selection: Res<Selection>,
    mut posing: ResMut<Posing>,
    mut banner: ResMut<Banner>,
) {
    if posing.active.is_some() || egui_input.is_some_and(|e| e.wants_any_keyboard_input()) {
        return;
    }
    let kind = if keymap::just_pressed(Action::Move, &keys) {
        OpKind::Move
    } else if keymap::just_pressed(Action::Rotate, &keys) {
        OpKind::Rotate
    } else if keymap::just_pressed(Action::Look, &keys) {
        OpKind::Look
    } else {
        return;
    };
    if kind == OpKind::Look {
        let (Some(cursor), Some((eye, _))) = (view.position(), view.eye()) else {
            return;
        };
        posing.active = begin(&session, kind, Bone::Head, None, cursor, false).map(|mut op| {
            // The look point moves on a plane facing the camera half way to it: pointing at
            // the head looks at the viewer, pointing aside looks aside.
            op.start_position = op.start_position.lerp(eye, 0.5);
            op
        });
        return;
    }
    let Some(bone) = selection.0 else {
        banner.notice = Some(crate::tr!("view-select-bone-first"));
        return;
    };
    if kind == OpKind::Move && !movable(bone) {
        banner.notice = Some(crate::tr!(
            "view-move-not-movable",
            bone = crate::app::session::names::bone_label(bone)
        ));
        return;
    }
    if bone.is_eye() {
        banner.notice = Some(crate::tr!("view-eyes-not-posed"));
        return;
    }
    let Some(cursor) = view.position() else {
        return;
    };
    posing.active = begin(&session, kind, bone, None, cursor, false);
}

/// The gizmo handle under the cursor: an arrow (move along its axis) or a ring (rotate
/// about it). Shared by the drag that starts an operation and the hover highlight.
fn handle_under(
    view: &ViewCursor,
    session: &Session,
    bone: Bone,
    cursor: Vec2,
) -> Option<(OpKind, Vec3)> {
    let (eye, _) = view.eye()?;
    let (at, _) = session.editor.rig.world_pose(&session.editor.pose)[bone.index()]?;
    if bone.is_eye() {
        return None;
    }
    let size = gizmo_size(eye, at);
    let centre = view.to_screen(at)?;
    let near_segment = |a: Vec2, b: Vec2| {
        let ab = b - a;
        let t = ((cursor - a).dot(ab) / ab.length_squared().max(1e-6)).clamp(0.0, 1.0);
        (a + ab * t).distance(cursor)
    };
    if movable(bone) {
        for (axis, _) in AXES {
            let Some(tip) = view.to_screen(at + axis * size) else {
                continue;
            };
            // Skip the arrow's base so clicks on the marker itself still select.
            let base = centre + (tip - centre) * 0.25;
            if near_segment(base, tip) <= ARROW_PICK_PX {
                return Some((OpKind::Move, axis));
            }
        }
    }
    AXES.into_iter().find_map(|(axis, _)| {
        let (u, v) = axis.any_orthonormal_pair();
        let hit = (0..48).any(|i| {
            let a = i as f32 / 48.0 * std::f32::consts::TAU;
            let p = at + (u * a.cos() + v * a.sin()) * size * RING_RADIUS;
            view.to_screen(p)
                .is_some_and(|s| s.distance(cursor) <= RING_PICK_PX)
        });
        hit.then_some((OpKind::Rotate, axis))
    })
}

const ARROW_PICK_PX: f32 = 7.0;
const RING_PICK_PX: f32 = 6.0;
/// Ring radius as a share of the gizmo size.
const RING_RADIUS: f32 = 0.8;

/// Dragging a gizmo arrow moves along it; dragging a ring rotates about its axis.
fn start_from_gizmo(
    buttons: Res<ButtonInput<MouseButton>>,
    over_ui: Res<PointerOverUi>,
    view: ViewCursor,
    session: Res<Session>,
    selection: Res<Selection>,
    mut posing: ResMut<Posing>,
) {
    if posing.active.is_some() || over_ui.0 || !buttons.just_pressed(MouseButton::Left) {
        return;
    }
    let (Some(bone), Some(cursor)) = (selection.0, view.position()) else {
        return;
    };
    if let Some((kind, axis)) = handle_under(&view, &session, bone, cursor) {
        posing.active = begin(&session, kind, bone, Some(axis), cursor, true);
        posing.took_click = posing.active.is_some();
    }
}

fn update_op(
    keys: Res<ButtonInput<KeyCode>>,
    buttons: Res<ButtonInput<MouseButton>>,
    view: ViewCursor,
    session: Res<Session>,
    mut posing: ResMut<Posing>,
    mut edits: MessageWriter<EditRequest>,
    mut banner: ResMut<Banner>,
) {
    let Some(mut op) = posing.active else { return };
    if buttons.just_pressed(MouseButton::Left) {
        posing.took_click = true; // a click during G / R confirms it, it selects nothing
    }
    // Axis locks: press X / Y / Z, press the same again to release (a look has none).
    for (lock, axis) in [
        (Action::LockX, Vec3::X),
        (Action::LockY, Vec3::Y),
        (Action::LockZ, Vec3::Z),
    ] {
        if op.kind != OpKind::Look && keymap::just_pressed(lock, &keys) {
            op.axis = if op.axis == Some(axis) {
                None
            } else {
                Some(axis)
            };
        }
    }
    let cancel =
        keymap::just_pressed(Action::Cancel, &keys) || buttons.just_pressed(MouseButton::Right);
    let confirm = keymap::just_pressed(Action::Confirm, &keys)
        || if op.from_gizmo {
            buttons.just_released(MouseButton::Left)
        } else {
            buttons.just_pressed(MouseButton::Left)
        };
    if cancel {
        edits.write(EditRequest(Edit::Gesture(Gesture::Cancel)));
        posing.active = None;
        posing.look_target = None;
        banner.notice = Some(crate::tr!("view-cancelled"));
        return;
    }
    let Some((_, forward)) = view.eye() else {
        return;
    };
    if let Some((cursor, ray)) = view.ray() {
        let settings = session.editor.settings;
        let edit = match op.kind {
            OpKind::Move => {
                let start_ray = view.ray_at(op.start_cursor);
                let project = |origin: Vec3, dir: Vec3| match op.axis {
                    Some(axis) => ray_axis(origin, dir, op.start_position, axis),
                    None => ray_plane(origin, dir, op.start_position, forward),
                };
                let offset = start_ray
                    .and_then(|s| project(s.origin, *s.direction))
                    .zip(project(ray.origin, *ray.direction))
                    .map(|(a, b)| b - a);
                offset.and_then(|offset| {
                    PoseHandle::of(op.bone).move_to(op.start_position + offset, &settings)
                })
            }
            OpKind::Rotate => view.to_screen(op.start_position).map(|centre| {
                let angle = screen_angle(op.start_cursor - centre, cursor - centre);
                // About the locked axis, or the view axis (towards the viewer).
                let axis = op.axis.unwrap_or(-forward);
                let facing = if axis.dot(-forward) < 0.0 { -1.0 } else { 1.0 };
                let world = Quat::from_axis_angle(axis, angle * facing) * op.start_world_rotation;
                let local = (op.parent_world_rotation.inverse() * world).normalize();
                PoseHandle::of(op.bone).turn_to(local)
            }),
            OpKind::Look => {
                let target = ray_plane(ray.origin, *ray.direction, op.start_position, forward);
                posing.look_target = target;
                target.map(|target| PoseEdit::Look { target })
            }
        };
        if let Some(edit) = edit {
            edits.write(EditRequest(Edit::preview(edit)));
        }
    }
    // Message ids: the words are looked up where the line is put together.
    let axis_name = match op.axis {
        Some(a) if a == Vec3::X => "view-axis-x-locked",
        Some(a) if a == Vec3::Y => "view-axis-y-locked",
        Some(_) => "view-axis-z-locked",
        None => "view-axis-free",
    };
    let verb = match op.kind {
        OpKind::Move => "view-op-move",
        OpKind::Rotate => "view-op-rotate",
        OpKind::Look => "view-op-look",
    };
    let what = match (op.kind, PoseHandle::of(op.bone)) {
        (OpKind::Look, _) => "view-what-look",
        (OpKind::Move, PoseHandle::Reach(_)) => "view-what-ik",
        (OpKind::Move, PoseHandle::Pole(_)) => "view-what-pole",
        (OpKind::Move | OpKind::Rotate, PoseHandle::Hips)
            if session.editor.pins.covers(Pins::FEET) =>
        {
            "view-what-hips-feet-pinned"
        }
        (OpKind::Move | OpKind::Rotate, PoseHandle::Hips) => "view-what-hips",
        (OpKind::Rotate, _) | (OpKind::Move, PoseHandle::Turn(_) | PoseHandle::Curl(_)) => {
            "view-what-view-axis"
        }
    };
    let what = if op.kind == OpKind::Rotate && op.axis.is_some() && what == "view-what-view-axis" {
        "view-what-locked-axis"
    } else {
        what
    };
    let verb = crate::tr!(verb);
    banner.notice = Some(crate::tr!(
        if op.kind == OpKind::Look {
            "view-look-status"
        } else {
            "view-op-status"
        },
        verb = verb.as_str(),
        bone = crate::app::session::names::bone_label(op.bone),
        what = crate::tr!(what),
        axis = crate::tr!(axis_name),
        confirm = keymap::menu_keys(Action::Confirm),
        cancel = keymap::menu_keys(Action::Cancel),
    ));
    if confirm {
        edits.write(EditRequest(Edit::Gesture(Gesture::End)));
        posing.active = None;
        posing.look_target = None;
        banner.notice = Some(crate::tr!(
            "view-op-done",
            verb = verb.as_str(),
            bone = crate::app::session::names::bone_label(op.bone)
        ));
    } else {
        posing.active = Some(op);
    }
}

/// Where a look (L, or the eye-target handle with the head selected) is looking.
pub(super) const LOOK: Color = Color::srgb(0.85, 0.45, 1.0);

/// A handle under the pointer: what a drag would grab.
const HOVER: Color = Color::srgb(1.0, 0.95, 0.35);

fn draw_gizmo(
    session: Res<Session>,
    selection: Res<Selection>,
    posing: Res<Posing>,
    over_ui: Res<PointerOverUi>,
    visible: Res<MarkersVisible>,
    view: ViewCursor,
    mut gizmos: Gizmos<MarkerGizmos>,
) {
    if !visible.0 {
        return;
    }
    let Some(bone) = posing.active.map(|op| op.bone).or(selection.0) else {
        return;
    };
    let Some((at, _)) = session.editor.rig.world_pose(&session.editor.pose)[bone.index()] else {
        return;
    };
    let Some((eye, _)) = view.eye() else { return };
    let size = gizmo_size(eye, at);
    if let Some(op) = posing.active {
        if let Some(target) = posing.look_target.filter(|_| op.kind == OpKind::Look) {
            gizmos.sphere(Isometry3d::from_translation(target), size * 0.08, LOOK);
            gizmos.line(at, target, LOOK.with_alpha(0.6));
        }
        if let Some(axis) = op.axis {
            let colour = AXES
                .iter()
                .find(|(a, _)| *a == axis)
                .map_or(Color::WHITE, |(_, c)| *c);
            gizmos.line(
                op.start_position - axis * 50.0,
                op.start_position + axis * 50.0,
                colour,
            );
        }
        return;
    }
    if bone.is_eye() {
        return;
    }
    let hovered = (!over_ui.0)
        .then(|| view.position())
        .flatten()
        .and_then(|cursor| handle_under(&view, &session, bone, cursor));
    if movable(bone) {
        for (axis, colour) in AXES {
            let lit = hovered == Some((OpKind::Move, axis));
            let colour = if lit { HOVER } else { colour };
            gizmos.arrow(at + axis * size * 0.25, at + axis * size, colour);
            if lit {
                // Twice over, a hair apart: line gizmos have one width for the group.
                let nudge = axis.any_orthonormal_vector() * size * 0.01;
                gizmos.arrow(
                    at + axis * size * 0.25 + nudge,
                    at + axis * size + nudge,
                    colour,
                );
            }
        }
    }
    for (axis, colour) in AXES {
        let lit = hovered == Some((OpKind::Rotate, axis));
        let rotation = Quat::from_rotation_arc(Vec3::Z, axis);
        let radii: &[f32] = if lit { &[0.99, 1.0, 1.01] } else { &[1.0] };
        for radius in radii {
            gizmos
                .circle(
                    Isometry3d::new(at, rotation),
                    size * RING_RADIUS * radius,
                    if lit { HOVER } else { colour.with_alpha(0.7) },
                )
                .resolution(48);
        }
    }
}
