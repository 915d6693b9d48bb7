//! The cursor over the 3D view and the ray through it: one `SystemParam` that marker
//! picking, modal G / R and the gizmo share.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;

use super::OrbitCamera;

#[derive(SystemParam)]
pub struct ViewCursor<'w, 's> {
    window: Single<'w, 's, &'static Window, With<PrimaryWindow>>,
    cameras: Query<'w, 's, (&'static Camera, &'static GlobalTransform), With<OrbitCamera>>,
}

impl ViewCursor<'_, '_> {
    /// The cursor in window coordinates (logical pixels).
    pub fn position(&self) -> Option<Vec2> {
        self.window.cursor_position()
    }

    /// The editor camera.
    pub fn camera(&self) -> Option<(&Camera, &GlobalTransform)> {
        self.cameras.single().ok()
    }

    /// The view ray through a window position. Bevy 0.19's viewport conversions take and
    /// give window coordinates already (they add and remove the viewport's corner).
    pub fn ray_at(&self, at: Vec2) -> Option<Ray3d> {
        let (camera, transform) = self.camera()?;
        camera.viewport_to_world(transform, at).ok()
    }

    /// The cursor and the view ray through it.
    pub fn ray(&self) -> Option<(Vec2, Ray3d)> {
        let cursor = self.position()?;
        Some((cursor, self.ray_at(cursor)?))
    }

    /// Where a world point lands in window coordinates.
    pub fn to_screen(&self, p: Vec3) -> Option<Vec2> {
        let (camera, transform) = self.camera()?;
        camera.world_to_viewport(transform, p).ok()
    }

    /// The camera's position and its forward direction.
    pub fn eye(&self) -> Option<(Vec3, Vec3)> {
        let (_, transform) = self.camera()?;
        Some((transform.translation(), *transform.forward()))
    }
}
