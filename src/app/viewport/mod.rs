//! The 3D view: the camera with orbit / pan / zoom, lights, the floor grid, framing the
//! avatar when it appears, the bone markers and click selection, and posing in the view
//! (modal G / R and the transform gizmo).

mod cursor;
mod gaze;
mod markers;
mod posing;

use std::f32::consts::FRAC_PI_2;

use bevy::camera::Viewport;
use bevy::camera::primitives::Aabb;
use bevy::camera::visibility::RenderLayers;
use bevy::input::mouse::{AccumulatedMouseScroll, MouseScrollUnit};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::{EguiGlobalSettings, PrimaryEguiContext};

use super::session::keymap::{self, Action};
use super::session::{
    Avatar, AvatarShown, EditorCamera, EditorSet, KeepAwake, ModalTool, ONION_LAYER, OVERLAY_LAYER,
    PointerOverUi, SCENE_LAYER, Selection, Session, UI_LAYER, ViewRect, spawn_lights,
};
use crate::core::body::pose::Pose;
use crate::core::model::humanoid::Bone;

/// Orbit camera state: looks at `focus` from `distance`, turned by `yaw` / `pitch`.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct OrbitCamera {
    pub focus: Vec3,
    pub yaw: f32,
    pub pitch: f32,
    pub distance: f32,
}

impl OrbitCamera {
    pub fn transform(&self) -> Transform {
        let rotation = Quat::from_euler(EulerRot::YXZ, self.yaw, -self.pitch, 0.0);
        let eye = self.focus + rotation * Vec3::new(0.0, 0.0, self.distance);
        Transform::from_translation(eye).looking_at(self.focus, Vec3::Y)
    }

    /// Frames a standing figure of the given height, seen from the front (+Z).
    pub fn framing(height: f32) -> OrbitCamera {
        let height = if height.is_finite() && height > 0.05 {
            height
        } else {
            1.7
        };
        let fov = 35f32.to_radians();
        OrbitCamera {
            focus: Vec3::new(0.0, height * 0.5, 0.0),
            yaw: 0.0,
            pitch: 0.08,
            distance: (height * 0.5 / (fov * 0.5).tan()) * 1.25,
        }
    }
}

pub(super) fn plugin(app: &mut App) {
    markers::plugin(app);
    posing::plugin(app);
    gaze::plugin(app);
    app.init_resource::<HomeView>()
        .insert_resource(ClearColor(Color::srgb(0.16, 0.17, 0.19)))
        .add_systems(Startup, spawn_camera_and_lights)
        .add_systems(Startup, put_overlays_on_their_layer)
        .add_systems(
            Update,
            (
                (fit_viewport, orbit_pan_zoom, view_presets).in_set(EditorSet::Input),
                (frame_new_avatar, draw_floor).in_set(EditorSet::Drive),
            ),
        );
}

fn spawn_camera_and_lights(mut commands: Commands, mut egui_settings: ResMut<EguiGlobalSettings>) {
    // egui draws through its own full-window camera (on an empty render layer), so the
    // 3D camera can be fitted to the area between the panels.
    egui_settings.auto_create_primary_context = false;
    commands.spawn((
        Camera3d::default(),
        Camera {
            order: 1,
            clear_color: ClearColorConfig::None,
            ..default()
        },
        RenderLayers::layer(UI_LAYER),
        PrimaryEguiContext,
    ));
    let orbit = OrbitCamera::framing(1.72);
    commands.spawn((
        Camera3d::default(),
        Projection::from(PerspectiveProjection {
            fov: 35f32.to_radians(),
            near: 0.02,
            ..default()
        }),
        orbit.transform(),
        orbit,
        EditorCamera,
        // The scene plus the editing overlays and ghosts; stills and thumbnails see the
        // scene only.
        RenderLayers::from_layers(&[SCENE_LAYER, OVERLAY_LAYER, ONION_LAYER]),
    ));
    spawn_lights(&mut commands);
}

/// Frames a new avatar once its meshes have world transforms: by the top of its mesh
/// bounds (bind pose), or the head height when there are none.
fn frame_new_avatar(
    mut shown: MessageReader<AvatarShown>,
    (mut home, mut awake): (ResMut<HomeView>, ResMut<KeepAwake>),
    mut wait: Local<u8>,
    session: Res<Session>,
    avatars: Query<Entity, With<Avatar>>,
    (children, bounds): (Query<&Children>, Query<(&Aabb, &GlobalTransform)>),
    mut cameras: Query<(&mut OrbitCamera, &mut Transform)>,
) {
    if shown.read().last().is_some() {
        *wait = 2; // transforms propagate in PostUpdate; read them a frame later
    }
    if *wait == 0 {
        return;
    }
    awake.now();
    *wait -= 1;
    if *wait > 0 {
        return;
    }
    let head = session
        .editor
        .rig
        .world_position(&Pose::default(), Bone::Head)
        .map_or(1.5, |p| p.y);
    let mut top = head * 1.15;
    for avatar in &avatars {
        for e in children.iter_descendants(avatar) {
            if let Ok((aabb, transform)) = bounds.get(e) {
                let (centre, half) = (Vec3::from(aabb.center), Vec3::from(aabb.half_extents));
                for corner in [Vec3::new(1.0, 1.0, 1.0), Vec3::new(-1.0, 1.0, -1.0)] {
                    let y = transform.transform_point(centre + half * corner).y;
                    if y.is_finite() && y < head * 4.0 {
                        top = top.max(y);
                    }
                }
            }
        }
    }
    home.0 = Some(OrbitCamera::framing(top * 1.04));
    for (mut orbit, mut transform) in &mut cameras {
        *orbit = OrbitCamera::framing(top * 1.04);
        *transform = orbit.transform();
    }
}

/// The framing the avatar opened with (Home returns to it).
#[derive(Resource, Default)]
struct HomeView(Option<OrbitCamera>);

/// Blender's view keys: numpad 1 / 3 / 7 front, right, top (with Ctrl the opposite
/// side), F or numpad . frames the selected bone, Home frames the whole avatar.
fn view_presets(
    keys: Res<ButtonInput<KeyCode>>,
    egui_input: Option<Res<bevy_egui::input::EguiWantsInput>>,
    modal: Res<ModalTool>,
    session: Res<Session>,
    selection: Res<Selection>,
    home: Res<HomeView>,
    mut cameras: Query<(&mut OrbitCamera, &mut Transform)>,
) {
    if modal.0 || egui_input.is_some_and(|e| e.wants_any_keyboard_input()) {
        return;
    }
    use std::f32::consts::PI;
    let side = [
        (Action::ViewFront, 0.0, 0.0),
        (Action::ViewBack, PI, 0.0),
        (Action::ViewRight, FRAC_PI_2, 0.0),
        (Action::ViewLeft, -FRAC_PI_2, 0.0),
        (Action::ViewTop, 0.0, FRAC_PI_2 - 0.05),
        (Action::ViewBottom, 0.0, -FRAC_PI_2 + 0.05),
    ]
    .into_iter()
    .find(|(action, _, _)| keymap::just_pressed(*action, &keys));
    let frame_selection = keymap::just_pressed(Action::FrameSelection, &keys);
    let frame_all = keymap::just_pressed(Action::FrameAll, &keys);
    if side.is_none() && !frame_selection && !frame_all {
        return;
    }
    let selected = selection.0.and_then(|bone| {
        session.editor.rig.world_pose(&session.editor.pose)[bone.index()].map(|(p, _)| p)
    });
    for (mut orbit, mut transform) in &mut cameras {
        if let Some((_, yaw, pitch)) = side {
            orbit.yaw = yaw;
            orbit.pitch = pitch;
        }
        if frame_selection && let Some(at) = selected {
            orbit.focus = at;
            orbit.distance = 0.6;
        }
        if frame_all && let Some(framed) = home.0 {
            *orbit = framed;
        }
        *transform = orbit.transform();
    }
}

/// A right or middle drag that began in the 3D view, and where the cursor was last frame.
#[derive(Default)]
struct ViewDrag {
    active: bool,
    last_cursor: Option<Vec2>,
}

/// Right drag orbits, middle drag (or Shift + right drag) pans, the wheel zooms. Drags
/// follow the cursor's movement in the window, not raw device motion, which synthetic
/// input, remote desktops and many tablets never send; a drag that began on a panel
/// does not move the camera.
fn orbit_pan_zoom(
    (buttons, keys): (Res<ButtonInput<MouseButton>>, Res<ButtonInput<KeyCode>>),
    window: Single<&Window, With<PrimaryWindow>>,
    scroll: Res<AccumulatedMouseScroll>,
    over_ui: Res<PointerOverUi>,
    modal: Res<ModalTool>,
    mut drag: Local<ViewDrag>,
    mut cameras: Query<(&mut OrbitCamera, &mut Transform)>,
) {
    let cursor = window.cursor_position();
    let drag_buttons = [MouseButton::Right, MouseButton::Middle];
    if modal.0 {
        *drag = ViewDrag::default(); // the right button cancels a modal operation instead
        return;
    }
    if buttons.any_just_pressed(drag_buttons) && !over_ui.0 {
        drag.active = true;
    }
    if !buttons.any_pressed(drag_buttons) {
        drag.active = false;
    }
    let delta = match (drag.last_cursor, cursor) {
        (Some(last), Some(now)) if drag.active => now - last,
        _ => Vec2::ZERO,
    };
    drag.last_cursor = cursor;
    let shift = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
    let orbiting = drag.active && buttons.pressed(MouseButton::Right) && !shift;
    let panning = drag.active && !orbiting;
    let zoom = if over_ui.0 {
        0.0
    } else {
        match scroll.unit {
            MouseScrollUnit::Line => scroll.delta.y,
            MouseScrollUnit::Pixel => scroll.delta.y / 40.0,
        }
    };
    if delta == Vec2::ZERO && zoom == 0.0 {
        return;
    }
    for (mut orbit, mut transform) in &mut cameras {
        if orbiting {
            orbit.yaw -= delta.x * 0.006;
            orbit.pitch =
                (orbit.pitch + delta.y * 0.006).clamp(-FRAC_PI_2 + 0.05, FRAC_PI_2 - 0.05);
        } else if panning {
            let scale = orbit.distance * 0.0015;
            let right = transform.right();
            let up = transform.up();
            orbit.focus += (-delta.x * scale) * *right + (delta.y * scale) * *up;
        }
        if zoom != 0.0 {
            orbit.distance = (orbit.distance * (1.0 - zoom * 0.1)).clamp(0.15, 50.0);
        }
        *transform = orbit.transform();
    }
}

fn draw_floor(mut gizmos: Gizmos) {
    gizmos
        .grid(
            Isometry3d::from_rotation(Quat::from_rotation_x(FRAC_PI_2)),
            UVec2::splat(16),
            Vec2::splat(0.25),
            LinearRgba::gray(0.42),
        )
        .outer_edges();
    gizmos.line(Vec3::ZERO, Vec3::X * 0.3, Color::srgb(0.8, 0.25, 0.25));
    gizmos.line(Vec3::ZERO, Vec3::Z * 0.3, Color::srgb(0.25, 0.4, 0.85));
}

/// Renders the 3D view only into the area the panels leave free, so framing and the
/// centre of the view are where the user looks.
fn fit_viewport(
    view: Res<ViewRect>,
    window: Single<&Window, With<PrimaryWindow>>,
    mut cameras: Query<&mut Camera, With<OrbitCamera>>,
) {
    let Some(rect) = view.0 else { return };
    let scale = window.scale_factor();
    let size = UVec2::new(window.physical_width(), window.physical_height());
    let min = (rect.min * scale).round().as_uvec2().min(size);
    let max = (rect.max * scale).round().as_uvec2().min(size);
    if max.x <= min.x + 8 || max.y <= min.y + 8 {
        return;
    }
    let wanted = Viewport {
        physical_position: min,
        physical_size: max - min,
        ..default()
    };
    for mut camera in &mut cameras {
        let same = camera.viewport.as_ref().is_some_and(|v| {
            v.physical_position == wanted.physical_position
                && v.physical_size == wanted.physical_size
        });
        if !same {
            camera.viewport = Some(wanted.clone());
        }
    }
}

/// Floor grid and markers draw on the overlay layer, which off-screen stills never see.
fn put_overlays_on_their_layer(mut store: ResMut<GizmoConfigStore>) {
    let layers = RenderLayers::layer(OVERLAY_LAYER);
    store
        .config_mut::<DefaultGizmoConfigGroup>()
        .0
        .render_layers = layers.clone();
    store.config_mut::<markers::MarkerGizmos>().0.render_layers = layers;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_framing_looks_at_the_front_of_the_avatar() {
        let orbit = OrbitCamera::framing(1.7);
        let t = orbit.transform();
        assert!(
            t.translation.z > 1.0,
            "camera in front (+Z): {}",
            t.translation
        );
        assert!((t.translation.x).abs() < 1e-5);
        assert!(t.forward().z < 0.0);
    }
}
