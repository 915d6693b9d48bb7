//! A marker on every humanoid bone, drawn over the model, and click-to-select by
//! screen distance (mesh picking would test the un-skinned bind pose).

use bevy::prelude::*;

use super::cursor::ViewCursor;
use super::posing::Posing;
use crate::app::session::{
    EditorSet, MarkersVisible, PIN_COLOUR, PointerOverUi, PreviewPose, Selection, Session,
};
use crate::core::animation::handle::PoseHandle;
use crate::core::model::humanoid::{ALL_BONES, Bone};

/// Gizmos drawn on top of the model.
#[derive(Default, Reflect, GizmoConfigGroup)]
pub(super) struct MarkerGizmos;

/// How close (in logical pixels) a click must be to a marker to select it.
const PICK_RADIUS_PX: f32 = 14.0;

pub(super) fn plugin(app: &mut App) {
    app.insert_gizmo_config(
        MarkerGizmos,
        GizmoConfig {
            depth_bias: -1.0,
            line: GizmoLineConfig {
                width: 2.0,
                ..default()
            },
            ..default()
        },
    )
    .add_systems(
        Update,
        (
            pick_marker.in_set(EditorSet::Input),
            draw_markers.in_set(EditorSet::Drive),
        ),
    );
}

/// A marker's colour: the handle table's, or magenta when selected (no handle and no
/// gizmo axis is that colour; the old gold was the elbows' and knees' own).
fn marker_colour(bone: Bone, selected: bool) -> Color {
    if selected {
        return Color::srgb(1.0, 0.3, 0.85);
    }
    let [r, g, b] = PoseHandle::of(bone).colour();
    Color::srgb(r, g, b)
}

/// Draws every marker; the one a click would select is drawn larger and brighter.
fn draw_markers(
    session: Res<Session>,
    selection: Res<Selection>,
    visible: Res<MarkersVisible>,
    over_ui: Res<PointerOverUi>,
    (posing, preview): (Res<Posing>, Res<PreviewPose>),
    view: ViewCursor,
    mut gizmos: Gizmos<MarkerGizmos>,
) {
    if !visible.0 {
        return;
    }
    let hovered = view
        .position()
        .filter(|_| !over_ui.0 && posing.active.is_none())
        .and_then(|cursor| bone_under_cursor(&session, &view, cursor));
    let rig = &session.editor.rig;
    // An import dialog's preview stands in for the editor's pose, as the avatar does.
    let world = rig.world_pose(preview.0.as_ref().unwrap_or(&session.editor.pose));
    for bone in ALL_BONES {
        let Some((pos, _)) = world[bone.index()] else {
            continue;
        };
        let selected = selection.0 == Some(bone);
        let radius = PoseHandle::of(bone).marker_radius();
        let mut colour = marker_colour(bone, selected);
        let radius = if hovered == Some(bone) {
            colour = colour.lighter(0.15);
            radius * 2.0
        } else if selected {
            radius * 1.6
        } else {
            radius
        };
        gizmos.sphere(pos, radius, colour).resolution(10);
        // A pinned hand, foot or head: an orange box round its marker.
        if session.editor.pins.contains(bone) {
            let pin_box = Transform::from_translation(pos).with_scale(Vec3::splat(radius * 3.2));
            gizmos.cube(pin_box, PIN_COLOUR);
        }
        if let Some(parent) = rig.bone(bone).and_then(|b| b.parent)
            && let Some((ppos, _)) = world[parent.index()]
        {
            gizmos.line(ppos, pos, Color::srgba(0.9, 0.9, 1.0, 0.35));
        }
    }
}

/// The bone whose marker is nearest to `cursor` on screen, within the pick radius.
fn bone_under_cursor(session: &Session, view: &ViewCursor, cursor: Vec2) -> Option<Bone> {
    let world = session.editor.rig.world_pose(&session.editor.pose);
    ALL_BONES
        .iter()
        .filter_map(|&bone| {
            let (pos, _) = world[bone.index()]?;
            let d = view.to_screen(pos)?.distance(cursor);
            (d <= PICK_RADIUS_PX).then_some((d, bone))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, b)| b)
}

/// A left click near a marker selects its bone; a click on empty view deselects
/// (unless a gizmo drag or a modal operation took the click; they run first).
pub(super) fn pick_marker(
    buttons: Res<ButtonInput<MouseButton>>,
    over_ui: Res<PointerOverUi>,
    view: ViewCursor,
    session: Res<Session>,
    visible: Res<MarkersVisible>,
    mut selection: ResMut<Selection>,
    posing: Res<Posing>,
) {
    if !buttons.just_pressed(MouseButton::Left)
        || over_ui.0
        || !visible.0
        || posing.active.is_some()
        || posing.took_click
    {
        return;
    }
    if let Some(cursor) = view.position() {
        let picked = bone_under_cursor(&session, &view, cursor);
        if selection.0 != picked {
            selection.0 = picked;
        }
    }
}
