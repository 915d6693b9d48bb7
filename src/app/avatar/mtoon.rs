//! MToon as VRM players draw it: bevy_vrm1's MToon material (lit and shade colours and
//! textures, toony shading, rim, matcap, emission, world-space outlines) takes the place
//! of Bevy's PBR material on the avatar's meshes, in the view, stills and thumbnails.
//! The core's display copy hands over one complete VRM 1.0 MToon per material (VRM 0.x
//! ones converted as three-vrm converts them), so nothing here reads the glTF again:
//! bevy_vrm1's own loader would parse it a second time and knows no VRM 0.x.

use bevy::asset::AssetPath;
use bevy::gltf::{GltfAssetLabel, GltfLoaderSettings};
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

/// The MToon materials' `StandardMaterial` handles, held on the avatar's root: the
/// registry names them by id only, and an id whose last handle went before the loader
/// filled it is handed out anew (the meshes then had materials the registry did not
/// know, and stayed PBR).
#[derive(Component)]
pub(super) struct MToonSources(#[allow(dead_code)] Vec<Handle<StandardMaterial>>);

/// What bevy_vrm1 converts by: on the avatar's root, each MToon material's Bevy
/// `StandardMaterial` (by asset id) with its MToon, and the model's textures by glTF
/// index. Its conversion then swaps the material of every mesh spawned under the root.
pub(super) fn registry(
    mtoon: &[Option<Value>],
    url: &str,
    assets: &AssetServer,
    settings: impl Fn(&mut GltfLoaderSettings) + Copy + Send + Sync + 'static,
) -> Option<(VrmcMaterialRegistry, MToonSources)> {
    let textures = mtoon
        .iter()
        .flatten()
        .flat_map(|m| TEXTURE_FIELDS.map(|field| m[field]["index"].as_u64()))
        .flatten()
        .max()
        .map_or(0, |max| max as usize + 1);
    let images = (0..textures)
        .map(|i| {
            assets
                .load_builder()
                .with_settings(settings)
                .load(GltfAssetLabel::Texture(i).from_asset(url.to_string()))
        })
        .collect();
    let mut sources = Vec::new();
    let materials: std::collections::HashMap<_, _> = mtoon
        .iter()
        .enumerate()
        .filter_map(|(index, m)| {
            let m = m.clone()?;
            let label = GltfAssetLabel::Material {
                index,
                is_scale_inverted: false,
            };
            let path = AssetPath::parse(url)
                .clone_owned()
                .with_label(format!("{label}/std"));
            let standard: Handle<StandardMaterial> =
                assets.load_builder().with_settings(settings).load(path);
            // The core made it complete; a value bevy_vrm1 still cannot read leaves the
            // material as Bevy's PBR one rather than failing the model.
            let id = standard.id();
            sources.push(standard);
            match serde_json::from_value(m) {
                Ok(parsed) => Some((id, parsed)),
                Err(e) => {
                    warn!("material {index}: MToon not drawn: {e}");
                    None
                }
            }
        })
        .collect();
    (!materials.is_empty()).then_some((
        VrmcMaterialRegistry { images, materials },
        MToonSources(sources),
    ))
}
