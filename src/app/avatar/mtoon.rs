//! MToon as VRM players draw it: bevy_vrm1's MToon material (lit and shade colours and
//! textures, toony shading, rim, matcap, emission, world-space outlines) takes the place
//! of Bevy's PBR material on the avatar's meshes, in the view, stills and thumbnails.
//! The core's display copy hands over one complete VRM 1.0 MToon per material (VRM 0.x
//! ones converted as three-vrm converts them), so nothing here reads the glTF again:
//! bevy_vrm1's own loader would parse it a second time and knows no VRM 0.x.

use bevy::gltf::{Gltf, GltfAssetLabel};
use bevy::prelude::*;
use bevy_vrm1::prelude::{MtoonMaterialPlugin, VrmcMaterialRegistry};
use serde_json::Value;

/// The MToon material and its outline pass (apps that render).
pub(in crate::app) fn plugin(app: &mut App) {
    app.add_plugins(MtoonMaterialPlugin);
}

/// The texture fields of a complete MToon object (`core::mtoon`).
const TEXTURE_FIELDS: [&str; 7] = [
    "shadeMultiplyTexture",
    "shadingShiftTexture",
    "matcapTexture",
    "rimMultiplyTexture",
    "outlineWidthMultiplyTexture",
    "uvAnimationMaskTexture",
    "emissiveTexture",
];

/// A model whose MToon waits for Bevy's glTF loader: the registry is made from the
/// loaded glTF's own handles, before its scene is spawned.
#[derive(Component)]
pub(super) struct MToonPending {
    pub mtoon: Vec<Option<Value>>,
    pub gltf: Handle<Gltf>,
}

/// The MToon materials' `StandardMaterial` handles, held on the avatar's root: the
/// registry names them by id only.
#[derive(Component)]
struct MToonSources(#[allow(dead_code)] Vec<Handle<StandardMaterial>>);

/// Once the glTF has loaded (its scene spawns after `Update`), puts on the avatar's root
/// what bevy_vrm1 converts by: each MToon material's Bevy `StandardMaterial` (by asset
/// id) with its MToon, and the model's textures by glTF index. Its conversion then swaps
/// the material of every mesh spawned under the root. Handles are looked up, never
/// loaded: a load by path with settings would read the whole model again.
pub(super) fn attach_registry(
    pending: Query<(Entity, &MToonPending)>,
    gltfs: Res<Assets<Gltf>>,
    assets: Res<AssetServer>,
    mut commands: Commands,
) {
    for (entity, p) in &pending {
        let Some(gltf) = gltfs.get(&p.gltf) else {
            continue;
        };
        let mut avatar = commands.entity(entity);
        avatar.remove::<MToonPending>();
        let Some(root) = p.gltf.path().cloned() else {
            continue;
        };
        let textures = p
            .mtoon
            .iter()
            .flatten()
            .flat_map(|m| TEXTURE_FIELDS.map(|field| m[field]["index"].as_u64()))
            .flatten()
            .max()
            .map_or(0, |max| max as usize + 1);
        let images = (0..textures)
            .map(|i| {
                let path = root
                    .clone()
                    .with_label(GltfAssetLabel::Texture(i).to_string());
                assets.get_handle::<Image>(&path).unwrap_or_default()
            })
            .collect();
        let mut sources = Vec::new();
        let mut materials = std::collections::HashMap::new();
        for (index, m) in p.mtoon.iter().enumerate() {
            let (Some(m), Some(material)) = (m, gltf.materials.get(index)) else {
                continue;
            };
            let Some(label) = material.path().and_then(|path| path.label()) else {
                continue;
            };
            let path = root.clone().with_label(format!("{label}/std"));
            let Some(standard) = assets.get_handle::<StandardMaterial>(&path) else {
                continue;
            };
            // The core made it complete; a value bevy_vrm1 still cannot read leaves the
            // material as Bevy's PBR one rather than failing the model.
            match serde_json::from_value(m.clone()) {
                Ok(parsed) => {
                    materials.insert(standard.id(), parsed);
                    sources.push(standard);
                }
                Err(e) => warn!("material {index}: MToon not drawn: {e}"),
            }
        }
        if !materials.is_empty() {
            avatar.insert((
                VrmcMaterialRegistry { images, materials },
                MToonSources(sources),
            ));
        }
    }
}
