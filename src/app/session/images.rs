//! Helpers for off-screen images that stills and thumbnails share.

use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;

use crate::core::body::framing::{CameraPreset, figure_points, fit};
use crate::core::body::pose::Pose;
use crate::core::body::rig::Rig;

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
        .map_err(|e| crate::tr!("app-png-encode-failed", reason = e.to_string()))?;
    crate::core::write_atomic(path, &bytes).map_err(|e| {
        crate::tr!(
            "app-png-write-failed",
            path = path.display().to_string(),
            reason = e.to_string()
        )
    })
}

/// Where the key light shines from (toward the model's origin): above, in front, to
/// the avatar's left.
pub const KEY_LIGHT_FROM: Vec3 = Vec3::new(1.5, 3.0, 2.5);
/// The ambient light, as the fraction of a surface's colour it adds (three.js: an
/// `AmbientLight` of intensity π × this).
pub const AMBIENT_FRACTION: f32 = 0.25;

/// Lux that give a radiance of 1 after the cameras' (default) exposure: MToon's lit
/// colour as stored, a white PBR surface facing the light white (three.js: a light of
/// intensity π). VRM players light an avatar so; a brighter light washes MToon out.
fn unit_illuminance() -> f32 {
    std::f32::consts::PI / bevy::camera::Exposure::default().exposure()
}

/// One key light, as VRM players light an avatar (MToon shades by one light: a second
/// one from behind lit the shaded side), and the ambient term (the window's view, stills
/// and thumbnails).
pub fn spawn_lights(commands: &mut Commands) {
    commands.insert_resource(GlobalAmbientLight {
        brightness: AMBIENT_FRACTION / bevy::camera::Exposure::default().exposure(),
        ..default()
    });
    commands.spawn((
        DirectionalLight {
            illuminance: unit_illuminance(),
            shadow_maps_enabled: false,
            ..default()
        },
        Transform::from_translation(KEY_LIGHT_FROM).looking_at(Vec3::ZERO, Vec3::Y),
        // Lights reach only their layers: the thumbnails' hidden avatar is lit alike.
        bevy::camera::visibility::RenderLayers::from_layers(&[
            super::SCENE_LAYER,
            super::THUMBNAIL_LAYER,
        ]),
    ));
}

/// Colours as VRM players write them: no tone mapping on any 3D camera (Bevy's default
/// one darkens and desaturates MToon's flat colours).
pub fn without_tone_mapping(cameras: Query<Entity, Added<Camera3d>>, mut commands: Commands) {
    for camera in &cameras {
        commands
            .entity(camera)
            .insert(bevy::core_pipeline::tonemapping::Tonemapping::None);
    }
}
