//! The eye-target handle: where a pose's gaze point is, drawn as a small ring with a
//! line from the eyes; a left drag moves it in the plane facing the camera (one undo
//! step when released, Esc or a right click puts it back). With the head selected the
//! handle is the look handle: a drag turns the head, the neck and a little of the chest
//! to face it as well, and a line joins it to the head.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::cursor::ViewCursor;
use super::markers::MarkerGizmos;
use super::posing::Posing;
use crate::app::session::{
    EditRequest, EditorSet, KeepAwake, MarkersVisible, ModalTool, PointerOverUi, Selection, Session,
};
use crate::core::animation::edit::{Edit, Gesture, PoseEdit};
use crate::core::body::math::ray_plane;
use crate::core::model::humanoid::Bone;
use crate::core::{body::look::LookTarget, model::look_at::LookAt};

/// How close (logical pixels) a press must be to the handle to take it.
const GRAB_RADIUS_PX: f32 = 14.0;
const HANDLE_COLOR: Color = Color::srgb(0.35, 0.85, 1.0);

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        (
            drag_gaze_target
                .in_set(EditorSet::Input)
                .after(super::posing::forget_click)
                .before(super::markers::pick_marker),
            draw_gaze_target.in_set(EditorSet::Drive),
        ),
    );
}

/// The pose's gaze point, if it looks at one.
fn gaze_point(session: &Session) -> Option<Vec3> {
    match session.editor.pose.look.map(|l| l.target()) {
        Some(LookTarget::Point(p)) => Some(p),
        _ => None,
    }
}

/// A drag of the handle in progress: the plane it moves in and where it was taken.
#[derive(Default)]
pub(super) struct GazeDrag {
    plane_normal: Option<Vec3>,
    grab_offset: Vec3,
    /// Taken with the head selected: the head turns to the point as well as the eyes.
    head_follows: bool,
}

/// Whether a press may take the handle: not with the pointer over the UI, the markers
/// hidden or a modal tool running.
#[derive(SystemParam)]
pub(super) struct GrabConditions<'w> {
    over_ui: Res<'w, PointerOverUi>,
    visible: Res<'w, MarkersVisible>,
    modal: Res<'w, ModalTool>,
    selection: Res<'w, Selection>,
}

/// What a drag of the handle sends: its gaze edits, and frames while it lasts.
#[derive(SystemParam)]
pub(super) struct GazeEdits<'w> {
    edits: MessageWriter<'w, EditRequest>,
    awake: ResMut<'w, KeepAwake>,
}

pub(super) fn drag_gaze_target(
    (buttons, keys): (Res<ButtonInput<MouseButton>>, Res<ButtonInput<KeyCode>>),
    conditions: GrabConditions,
    view: ViewCursor,
    session: Res<Session>,
    mut posing: ResMut<Posing>,
    mut drag: Local<GazeDrag>,
    mut out: GazeEdits,
) {
    let GrabConditions {
        over_ui,
        visible,
        modal,
        selection,
    } = &conditions;
    let GazeEdits { edits, awake } = &mut out;
    let Some(point) = gaze_point(&session) else {
        drag.plane_normal = None;
        return;
    };
    if let Some(normal) = drag.plane_normal {
        awake.now();
        if keys.just_pressed(KeyCode::Escape) || buttons.just_pressed(MouseButton::Right) {
            drag.plane_normal = None;
            edits.write(EditRequest::new(Gesture::Cancel));
            return;
        }
        if !buttons.pressed(MouseButton::Left) {
            drag.plane_normal = None;
            edits.write(EditRequest::new(Gesture::End));
            return;
        }
        if let Some((_, ray)) = view.ray()
            && let Some(hit) = ray_plane(ray.origin, *ray.direction, point, normal)
        {
            let to = hit + drag.grab_offset;
            if to.is_finite() && to.distance(point) > 1e-5 {
                let edit = if drag.head_follows {
                    PoseEdit::Look { target: to }
                } else {
                    PoseEdit::LookAt(Some(LookTarget::Point(to)))
                };
                edits.write(EditRequest(Edit::preview(edit)));
            }
        }
        return;
    }
    if !buttons.just_pressed(MouseButton::Left)
        || over_ui.0
        || !visible.0
        || modal.0
        || posing.active.is_some()
        || posing.took_click
    {
        return;
    }
    let (Some(cursor), Some(screen), Some((_, forward))) =
        (view.position(), view.to_screen(point), view.eye())
    else {
        return;
    };
    if cursor.distance(screen) > GRAB_RADIUS_PX {
        return;
    }
    let Some((_, ray)) = view.ray() else {
        return;
    };
    let hit = ray_plane(ray.origin, *ray.direction, point, forward).unwrap_or(point);
    drag.plane_normal = Some(forward);
    drag.grab_offset = point - hit;
    drag.head_follows = selection.0 == Some(Bone::Head);
    posing.took_click = true; // the click took the handle; it selects no bone
}

fn draw_gaze_target(
    session: Res<Session>,
    selection: Res<Selection>,
    visible: Res<MarkersVisible>,
    view: ViewCursor,
    mut gizmos: Gizmos<MarkerGizmos>,
) {
    let Some(point) = gaze_point(&session).filter(|_| visible.0) else {
        return;
    };
    let editor = &session.editor;
    let look = editor
        .rig
        .model
        .look_at
        .clone()
        .unwrap_or_else(LookAt::standard);
    let eyes = look.eyes(&editor.rig, &editor.pose).0;
    let facing = view
        .eye()
        .map_or(Dir3::Z, |(_, f)| Dir3::new(-f).unwrap_or(Dir3::Z));
    let size = view
        .eye()
        .map_or(0.03, |(eye, _)| eye.distance(point) * 0.012);
    gizmos.circle(
        Isometry3d::new(point, Quat::from_rotation_arc(Vec3::Z, *facing)),
        size,
        HANDLE_COLOR,
    );
    gizmos.sphere(
        Isometry3d::from_translation(point),
        size * 0.4,
        HANDLE_COLOR,
    );
    gizmos.line(eyes, point, HANDLE_COLOR.with_alpha(0.5));
    if selection.0 == Some(Bone::Head)
        && let Some((head, _)) = editor.rig.world_pose(&editor.pose)[Bone::Head.index()]
    {
        gizmos.line(head, point, super::posing::LOOK);
    }
}
