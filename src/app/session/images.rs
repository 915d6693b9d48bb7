//! Helpers for off-screen images that stills and thumbnails share.

use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;

use crate::core::framing::{CameraPreset, figure_points, fit};
use crate::core::pose::Pose;
use crate::core::rig::Rig;

/// A camera transform that fits a posed figure into an image of `size`, seen from a
/// preset with a vertical field of view of `fov_degrees`.
pub fn framed_view(
    rig: &Rig,
    pose: &Pose,
    preset: CameraPreset,
    fov_degrees: f32,
    size: UVec2,
) -> Transform {
    let aspect = size.x as f32 / size.y.max(1) as f32;
    let (eye, target) = fit(
        &figure_points(rig, pose),
        preset.direction(),
        fov_degrees.to_radians(),
        aspect,
    );
    Transform::from_translation(eye).looking_at(target, Vec3::Y)
}

/// A new image an off-screen camera can render into.
pub fn render_target(images: &mut Assets<Image>, size: UVec2) -> Handle<Image> {
    images.add(Image::new_target_texture(
        size.x,
        size.y,
        TextureFormat::Rgba8UnormSrgb,
        None,
    ))
}

/// A captured image as straight RGBA pixels.
pub fn captured_rgba(image: &Image) -> Result<image::RgbaImage, String> {
    image
        .clone()
        .try_into_dynamic()
        .map(|d| d.to_rgba8())
        .map_err(|e| e.to_string())
}

/// Writes an RGBA PNG atomically.
pub fn save_png(image: &image::RgbaImage, path: &std::path::Path) -> Result<(), String> {
    let mut bytes = Vec::new();
    image::DynamicImage::ImageRgba8(image.clone())
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .map_err(|e| format!("cannot encode the PNG: {e}"))?;
    crate::core::write_atomic(path, &bytes)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// A key light and a fill light (the window's view and the windowless renderer).
pub fn spawn_lights(commands: &mut Commands) {
    commands.spawn((
        DirectionalLight {
            illuminance: 6000.0,
            shadow_maps_enabled: false,
            ..default()
        },
        Transform::from_xyz(1.5, 3.0, 2.5).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 1500.0,
            shadow_maps_enabled: false,
            ..default()
        },
        Transform::from_xyz(-2.0, 1.0, -2.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
}
