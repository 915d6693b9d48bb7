//! A marker on every humanoid bone, drawn over the model, and click-to-select by
//! screen distance (mesh picking would test the un-skinned bind pose).

use bevy::prelude::*;
use bevy::window::PrimaryWindow;

use super::panels::PointerOverUi;
use super::session::{Selection, Session};
use crate::core::humanoid::{ALL_BONES, Bone};

/// Gizmos drawn on top of the model.
#[derive(Default, Reflect, GizmoConfigGroup)]
pub struct MarkerGizmos;

/// Whether bone markers are shown (hidden in VR and in stills).
#[derive(Resource, Debug, Clone, Copy)]
pub struct MarkersVisible(pub bool);

/// How close (in logical pixels) a click must be to a marker to select it.
const PICK_RADIUS_PX: f32 = 14.0;

pub fn plugin(app: &mut App) {
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
    .insert_resource(MarkersVisible(true))
    .add_systems(Update, (draw_markers, pick_marker));
}

fn marker_colour(bone: Bone, selected: bool) -> Color {
    if selected {
        Color::srgb(1.0, 0.85, 0.1)
    } else if matches!(bone, Bone::Hips) {
        Color::srgb(0.3, 0.95, 0.4)
    } else if matches!(
        bone,
        Bone::LeftHand | Bone::RightHand | Bone::LeftFoot | Bone::RightFoot
    ) {
        Color::srgb(0.2, 0.9, 0.95)
    } else if matches!(
        bone,
        Bone::LeftLowerArm | Bone::RightLowerArm | Bone::LeftLowerLeg | Bone::RightLowerLeg
    ) {
        Color::srgb(0.95, 0.85, 0.2)
    } else {
        Color::srgb(0.85, 0.85, 0.9)
    }
}

fn draw_markers(
    session: Res<Session>,
    selection: Res<Selection>,
    visible: Res<MarkersVisible>,
    mut gizmos: Gizmos<MarkerGizmos>,
) {
    if !visible.0 {
        return;
    }
    let rig = &session.editor.rig;
    let world = rig.world_pose(&session.editor.pose);
    for bone in ALL_BONES {
        let Some((pos, _)) = world[bone.index()] else {
            continue;
        };
        let selected = selection.0 == Some(bone);
        let radius = if bone.is_finger() { 0.006 } else { 0.014 };
        let radius = if selected { radius * 1.6 } else { radius };
        gizmos
            .sphere(pos, radius, marker_colour(bone, selected))
            .resolution(10);
        if let Some(parent) = rig.bone(bone).and_then(|b| b.parent)
            && let Some((ppos, _)) = world[parent.index()]
        {
            gizmos.line(ppos, pos, Color::srgba(0.9, 0.9, 1.0, 0.35));
        }
    }
}

/// The bone whose marker is nearest to `cursor` on screen, within the pick radius.
pub fn bone_under_cursor(
    session: &Session,
    camera: &Camera,
    camera_transform: &GlobalTransform,
    cursor: Vec2,
) -> Option<Bone> {
    let world = session.editor.rig.world_pose(&session.editor.pose);
    ALL_BONES
        .iter()
        .filter_map(|&bone| {
            let (pos, _) = world[bone.index()]?;
            // Window coordinates, like the cursor: Bevy 0.19 adds the viewport's corner.
            let screen = camera.world_to_viewport(camera_transform, pos).ok()?;
            let d = screen.distance(cursor);
            (d <= PICK_RADIUS_PX).then_some((d, bone))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, b)| b)
}

#[allow(clippy::too_many_arguments)]
pub fn pick_marker(
    buttons: Res<ButtonInput<MouseButton>>,
    over_ui: Res<PointerOverUi>,
    window: Single<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform), With<super::viewport::OrbitCamera>>,
    session: Res<Session>,
    visible: Res<MarkersVisible>,
    mut selection: ResMut<Selection>,
    posing: Res<super::posing::Posing>,
) {
    // A gizmo drag or a modal operation owns the click.
    if !buttons.just_pressed(MouseButton::Left)
        || over_ui.0
        || !visible.0
        || posing.active.is_some()
    {
        return;
    }
    let Some(cursor) = window.cursor_position() else {
        return;
    };
    for (camera, transform) in &cameras {
        if let Some(bone) = bone_under_cursor(&session, camera, transform, cursor) {
            selection.0 = Some(bone);
            return;
        }
    }
}
