//! MToon as VRM players draw it: our MToon material (`mtoon_material`, after bevy_vrm1's:
//! lit and shade colours and textures, toony shading, normal maps, rim, matcap,
//! emission, world and screen outlines, UV animation) takes the place of Bevy's PBR
//! material on the avatar's meshes, in the view, stills, thumbnails and VR.
//! The core's display copy hands over one complete VRM 1.0 MToon per material (VRM 0.x
//! ones converted as three-vrm converts them), so nothing here reads the glTF again:
//! bevy_vrm1's own loader would parse it a second time and knows no VRM 0.x.

use bevy::gltf::{Gltf, GltfAssetLabel};
use bevy::prelude::*;
use bevy_vrm1::prelude::{UVAnimation, VrmcMaterialRegistry};

use super::mtoon_material::{
    MTOON_FRAGMENT, MTOON_TYPES, MTOON_VERTEX, MToon, Outline, OutlineMode, UvPhase,
};
use serde_json::Value;

/// The MToon material and its outline pass (apps that render).
pub(in crate::app) fn plugin(app: &mut App) {
    app.add_plugins((
        MaterialPlugin::<MToon>::default(),
        super::mtoon_outline::MToonOutlinePlugin,
    ))
    .init_resource::<UvAnimations>()
    .init_resource::<NormalScales>()
    .add_systems(
        PostUpdate,
        (
            convert_to_mtoon.after(super::texture_binds::tag_material_slots),
            run_uv_clock,
        )
            .chain(),
    );
    // three-vrm's lighting, outlines and UV animation (see the shaders' opening comments).
    bevy::asset::load_internal_asset!(app, MTOON_TYPES, "mtoon_types.wgsl", Shader::from_wgsl);
    bevy::asset::load_internal_asset!(
        app,
        MTOON_FRAGMENT,
        "mtoon_fragment.wgsl",
        Shader::from_wgsl
    );
    bevy::asset::load_internal_asset!(app, MTOON_VERTEX, "mtoon_vertex.wgsl", Shader::from_wgsl);
}

/// Each MToon material's normal map strength (glTF `normalTexture.scale`), by its
/// `StandardMaterial`: Bevy's material keeps the map, not its scale.
#[derive(Resource, Default)]
pub(super) struct NormalScales(std::collections::HashMap<AssetId<StandardMaterial>, f32>);

/// The MToon materials whose UVs scroll or turn, with their speeds: our shaders read the
/// scroll and phase reached (speed × time), so that a still is drawn at t = 0 while the
/// view animates.
#[derive(Resource, Default)]
pub(super) struct UvAnimations(Vec<(Handle<MToon>, UVAnimation)>);

/// Sets each animated material's scroll and phase for this frame: the app's time, or
/// t = 0 while a still renders (a player's first frame; the same still every time).
fn run_uv_clock(
    animations: Res<UvAnimations>,
    time: Res<Time<Real>>,
    still: Option<Res<crate::app::session::StillPose>>,
    mut materials: ResMut<Assets<MToon>>,
) {
    let t = if still.is_some_and(|s| s.0.is_some()) {
        0.0
    } else {
        time.elapsed_secs_f64()
    };
    for (handle, speeds) in &animations.0 {
        // Turns wrapped in f64 first: hours of f32 time would lose the phase.
        let phase = (f64::from(speeds.rotation_speed) * t).rem_euclid(std::f64::consts::TAU);
        let reached = UvPhase {
            rotation: phase as f32,
            scroll: (speeds.scroll_speed.as_dvec2() * t).as_vec2(),
        };
        let unchanged = materials.get(handle).is_none_or(|m| m.uv_phase == reached);
        if !unchanged && let Some(mut material) = materials.get_mut(handle) {
            material.uv_phase = reached;
        }
    }
}

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
    // Absent in the headless app (no renderer, no MToon): nothing to keep then.
    mut normal_scales: Option<ResMut<NormalScales>>,
    mut commands: Commands,
) {
    for (entity, p) in &pending {
        let Some(gltf) = gltfs.get(&p.gltf) else {
            continue;
        };
        let Some(root) = p.gltf.path().cloned() else {
            commands
                .entity(entity)
                .remove::<(MToonPending, crate::app::session::MaterialsPending)>();
            continue;
        };
        let textures = p
            .mtoon
            .iter()
            .flatten()
            .flat_map(|m| {
                crate::core::model::mtoon::TEXTURES.map(|field| m[field]["index"].as_u64())
            })
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
        let mut avatar = commands.entity(entity);
        avatar.remove::<(MToonPending, crate::app::session::MaterialsPending)>();
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
                    let scale = m[crate::core::model::mtoon::NORMAL_SCALE]
                        .as_f64()
                        .unwrap_or(1.0);
                    if let Some(scales) = normal_scales.as_mut() {
                        scales.0.insert(standard.id(), scale as f32);
                    }
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

/// Swaps Bevy's PBR material for MToon on every mesh under an avatar root whose
/// registry knows its material, whenever that mesh got there. bevy_vrm1's own swap
/// looks only at meshes spawned in the frame it runs, so a scene spawned before the
/// registry was in place kept its PBR materials (it did, now and then). One MToon per
/// glTF material, made in the order of the materials' labels: the renderer draws in
/// material order, and where a model's surfaces lie on each other (a face's layers) a
/// varying order gave varying pixels. The fields are bevy_vrm1's own conversion's.
pub(super) fn convert_to_mtoon(
    meshes: Query<(Entity, &MeshMaterial3d<StandardMaterial>)>,
    parents: Query<&ChildOf>,
    registries: Query<&VrmcMaterialRegistry>,
    (standard, assets): (Res<Assets<StandardMaterial>>, Res<AssetServer>),
    (mut mtoon, mut animations, normal_scales): (
        ResMut<Assets<MToon>>,
        ResMut<UvAnimations>,
        Res<NormalScales>,
    ),
    mut made: Local<std::collections::HashMap<AssetId<StandardMaterial>, Handle<MToon>>>,
    mut commands: Commands,
) {
    use bevy_vrm1::prelude::{RimLighting, Shade};
    if registries.is_empty() {
        made.clear(); // no avatar with MToon: nothing to keep
        animations.0.clear();
        return;
    }
    let mut pending: Vec<(String, Entity, AssetId<StandardMaterial>, Entity)> = meshes
        .iter()
        .filter_map(|(entity, material)| {
            let root = parents.root_ancestor(entity);
            let registry = registries.get(root).ok()?;
            registry.materials.contains_key(&material.id()).then(|| {
                let label = assets
                    .get_path(material.id())
                    .map(|p| p.to_string())
                    .unwrap_or_default();
                (label, entity, material.id(), root)
            })
        })
        .collect();
    pending.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    for (_, entity, id, root) in pending {
        let Ok(registry) = registries.get(root) else {
            continue;
        };
        let (Some(ext), Some(base)) = (registry.materials.get(&id), standard.get(id)) else {
            continue;
        };
        let handle = made.entry(id).or_insert_with(|| {
            let image = |index: Option<usize>| index.and_then(|i| registry.images.get(i)).cloned();
            let colour = ext.outline_color_factor;
            let outline = Outline {
                mode: match ext.outline_width_mode.as_str() {
                    "worldCoordinates" => OutlineMode::World,
                    "screenCoordinates" => OutlineMode::Screen,
                    _ => OutlineMode::None,
                },
                width: ext.outline_width_factor.unwrap_or_default(),
                color: LinearRgba::rgb(colour[0], colour[1], colour[2]),
                lighting_mix: ext.outline_lighting_mix_factor,
            };
            let speeds = UVAnimation::from(ext);
            let handle = mtoon.add(MToon {
                base_color_texture: base.base_color_texture.clone(),
                uv_animation_mask_texture: image(ext.uv_animation_mask_texture.map(|t| t.index)),
                shade_multiply_texture: image(ext.shade_multiply_texture.map(|t| t.index)),
                shading_shift_texture: image(ext.shading_shift_texture.map(|t| t.index)),
                matcap_texture: image(ext.matcap_texture.map(|t| t.index)),
                rim_multiply_texture: image(ext.rim_multiply_texture.map(|t| t.index)),
                outline_width_multiply_texture: image(
                    ext.outline_width_multiply_texture.map(|t| t.index),
                ),
                shade: Shade::from(ext),
                outline,
                rim_lighting: RimLighting::from(ext),
                // t = 0 until the UV clock runs.
                uv_phase: UvPhase::default(),
                normal_map_texture: base.normal_map_texture.clone(),
                normal_scale: normal_scales.0.get(&id).copied().unwrap_or(1.0),
                gi_equalization_factor: ext.gi_equalization_factor,
                double_sided: base.double_sided,
                alpha_mode: base.alpha_mode,
                depth_bias: base.depth_bias,
                render_queue_offset: ext.render_queue_offset_number,
                transparent_with_z_write: ext.transparent_with_z_write,
                opaque_renderer_method: base.opaque_render_method,
                base_color: base.base_color,
                cull_mode: base.cull_mode,
                emissive: base.emissive,
                emissive_texture: base.emissive_texture.clone(),
                uv_transform: base.uv_transform,
            });
            if speeds.rotation_speed != 0.0 || speeds.scroll_speed != Vec2::ZERO {
                animations.0.push((handle.clone(), speeds));
            }
            handle
        });
        commands
            .entity(entity)
            .remove::<MeshMaterial3d<StandardMaterial>>()
            .insert(MeshMaterial3d(handle.clone()));
    }
}
