//! Expressions that move textures (VRM 1.0 `textureTransformBinds`: a face atlas, a
//! meter): each frame the shown pose's expressions set the UV offset and scale of the
//! materials they bind, as three-vrm's binds set them (`core::model::expressions`).

use bevy::math::Affine2;
use bevy::prelude::*;

use super::mtoon_material::MToon;
use crate::app::session::{Avatar, Session, StillPose};

/// The glTF material index a mesh was given (kept when MToon replaces the material).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct MaterialSlot(pub usize);

/// The glTF loader labels material `i` `Material{i}`; its PBR form is `…/std`.
fn slot_of(label: &str) -> Option<usize> {
    label
        .strip_prefix("Material")?
        .split('/')
        .next()?
        .parse()
        .ok()
}

/// Tags each newly spawned mesh with its glTF material index (before MToon swaps the
/// material and the label is gone).
pub(super) fn tag_material_slots(
    meshes: Query<(Entity, &MeshMaterial3d<StandardMaterial>), Without<MaterialSlot>>,
    assets: Res<AssetServer>,
    mut commands: Commands,
) {
    for (entity, material) in &meshes {
        if let Some(slot) = assets
            .get_path(material.id())
            .and_then(|p| p.label().and_then(slot_of))
        {
            commands.entity(entity).insert(MaterialSlot(slot));
        }
    }
}

/// A mesh's material slot and whichever material it draws with.
type BoundMesh = (
    &'static MaterialSlot,
    Option<&'static MeshMaterial3d<StandardMaterial>>,
    Option<&'static MeshMaterial3d<MToon>>,
);

/// Writes the texture transforms of the shown pose's expressions onto the avatar's
/// materials (only when they change, so nothing is re-uploaded while the face rests).
pub(super) fn apply_texture_binds(
    (session, still_pose): (Res<Session>, Res<StillPose>),
    avatars: Query<Entity, With<Avatar>>,
    children: Query<&Children>,
    meshes: Query<BoundMesh>,
    mut standard: Option<ResMut<Assets<StandardMaterial>>>,
    mut mtoon: Option<ResMut<Assets<MToon>>>,
) {
    let model = &session.editor.rig.model;
    if model.material_uv.is_empty() {
        return;
    }
    let pose = still_pose.0.as_ref().unwrap_or(&session.editor.pose);
    let transforms = crate::core::model::expressions::texture_transforms(model, &pose.expressions);
    for root in &avatars {
        for entity in children.iter_descendants(root) {
            let Ok((slot, std_material, mtoon_material)) = meshes.get(entity) else {
                continue;
            };
            let Some(bind) = transforms.get(&slot.0) else {
                continue;
            };
            let uv = Affine2::from_scale_angle_translation(
                Vec2::from_array(bind.scale),
                0.0,
                Vec2::from_array(bind.offset),
            );
            if let (Some(handle), Some(assets)) = (std_material, standard.as_mut())
                && assets
                    .get(handle.id())
                    .is_some_and(|m| m.uv_transform != uv)
                && let Some(mut m) = assets.get_mut(handle.id())
            {
                m.uv_transform = uv;
            }
            if let (Some(handle), Some(assets)) = (mtoon_material, mtoon.as_mut())
                && assets
                    .get(handle.id())
                    .is_some_and(|m| m.uv_transform != uv)
                && let Some(mut m) = assets.get_mut(handle.id())
            {
                m.uv_transform = uv;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn material_labels_give_their_index() {
        assert_eq!(slot_of("Material3/std"), Some(3));
        assert_eq!(slot_of("Material12"), Some(12));
        assert_eq!(slot_of("Mesh0/Primitive0"), None);
    }
}
