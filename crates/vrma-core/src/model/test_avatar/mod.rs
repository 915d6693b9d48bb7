//! A VRoid-scale test avatar, generated: what a real user's VRoid Studio / UniVRM export
//! looks like to a loader, without shipping anyone's model. ~80k vertices, ten 2048²
//! PNG textures (~30 MB file), a `Face` mesh of 8 primitives sharing one vertex buffer
//! and 57 `Fcl_*` morph targets, a body of 4 primitives sharing another, MToon materials,
//! spring-bone hair chains with a head collider (round the sides and back, so that the
//! face — skin-toned, dark eyes, brows and mouth — reads as a person to a pose detector),
//! and non-identity rest rotations on every bone (as Blender and some exporters leave
//! them). VRM 1.0 or 0.x.
//!
//! [`TestAvatarSpec`] also makes the crafted variants the robustness tests need: one
//! texture larger than any GPU allows, or a morph set far over the storage-buffer limit
//! (stored sparse, so the file stays small while the GPU data would not).

mod body;
mod extensions;
mod face;
mod materials;
mod mesh;
mod textures;

use glam::{Mat4, Quat, Vec3};
use serde_json::{Value, json};

use crate::files::glb;
use crate::files::gltf_buffer::BufferBuilder;
use crate::model::humanoid::{ALL_BONES, Bone};
use crate::model::mannequin::{MannequinVariant, bone_position, upper_first};
use body::{HAIR_CHAINS, HAIR_JOINTS, body_streams, hair_joint_position, hair_streams};
use extensions::{spring_bone_1, vrm0_extension, vrm1_extension};
pub use face::FACE_TARGETS;
use face::{FACE_PARTS, FacePart, face_geometry, face_target};
use materials::{MATERIALS, mtoon_features, mtoon_material, mtoon_properties, mtoon_v0_features};
use mesh::{shared_mesh, sparse_vec3};
use textures::{flat_png, texture_png};

/// Title written into the avatar's meta.
pub const TITLE: &str = "VRMA Maker VRoid-scale test avatar";

/// What to generate.
#[derive(Clone, Debug, PartialEq)]
pub struct TestAvatarSpec {
    pub variant: MannequinVariant,
    /// Side of each square texture (VRoid exports 2048).
    pub texture_size: u32,
    /// How many textures (each material has a base and a shade texture).
    pub textures: usize,
    /// Crafted: one extra texture of this side length (e.g. 20000, over every GPU's limit),
    /// stored as a tiny PNG (one flat colour compresses to almost nothing).
    pub oversized_texture: Option<u32>,
    /// Crafted: an extra mesh of this many vertices with 250 morph targets stored sparse,
    /// whose GPU morph data is `vertices × 250 × 48` bytes.
    pub crafted_morph_vertices: Option<u32>,
}

impl TestAvatarSpec {
    /// The realistic avatar: 2048² textures, ten of them.
    pub fn vroid(variant: MannequinVariant) -> TestAvatarSpec {
        TestAvatarSpec {
            variant,
            texture_size: 2048,
            textures: 10,
            oversized_texture: None,
            crafted_morph_vertices: None,
        }
    }
}

/// World rest orientation of each bone node: a different tilt per bone, as exporters
/// that keep bone rolls leave them. Positions stay the mannequin's, so the figure is the
/// same; only the frames differ.
fn rest_rotation(index: usize) -> Quat {
    let axis = Vec3::new((index as f32 * 1.7).sin(), (index as f32 * 0.9).cos(), 0.5).normalize();
    Quat::from_axis_angle(axis, 0.25 + 0.04 * (index % 9) as f32)
}

/// A node of the skeleton: name, world position, world rotation, parent node.
struct SkeletonNode {
    name: String,
    position: Vec3,
    rotation: Quat,
    parent: Option<usize>,
}

/// Builds the avatar as GLB bytes.
pub fn build(spec: &TestAvatarSpec) -> Vec<u8> {
    let vrm0 = spec.variant == MannequinVariant::Vrm0;
    // VRM 0.x models face -Z: the whole figure is turned 180° about Y.
    let turn = if vrm0 {
        Quat::from_rotation_y(std::f32::consts::PI)
    } else {
        Quat::IDENTITY
    };
    let frame = move |v: Vec3| turn * v;
    let mut buf = BufferBuilder::default();

    // Skeleton: node 0 the root, then the 55 bones, then the hair joints.
    let mut skeleton: Vec<SkeletonNode> = vec![SkeletonNode {
        name: "Root".into(),
        position: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        parent: None,
    }];
    for bone in ALL_BONES {
        skeleton.push(SkeletonNode {
            name: format!("J_Bip_{}", upper_first(bone.name())),
            position: bone_position(bone),
            rotation: rest_rotation(bone.index()),
            parent: Some(bone.spec_parent().map_or(0, |p| 1 + p.index())),
        });
    }
    let bone_node = |b: Bone| 1 + b.index();
    let mut hair_chains: Vec<Vec<usize>> = Vec::new();
    for k in 0..HAIR_CHAINS {
        let mut chain = Vec::new();
        for j in 0..HAIR_JOINTS {
            let parent = if j == 0 {
                bone_node(Bone::Head)
            } else {
                skeleton.len() - 1
            };
            chain.push(skeleton.len());
            skeleton.push(SkeletonNode {
                name: format!("J_Sec_Hair{}_{:02}", j + 1, k + 1),
                position: hair_joint_position(k, j),
                rotation: rest_rotation(60 + k * HAIR_JOINTS + j),
                parent: Some(parent),
            });
        }
        hair_chains.push(chain);
    }
    let joint_nodes: Vec<usize> = (1..skeleton.len()).collect();
    let joint_of = |node: usize| (node - 1) as u16;

    // World orientation of each node: the root stays unturned (the scene's frame); every
    // bone carries its rest tilt, turned with the figure for VRM 0.x.
    let world_rotation = |i: usize| {
        if skeleton[i].parent.is_none() {
            Quat::IDENTITY
        } else {
            turn * skeleton[i].rotation
        }
    };
    let mut nodes: Vec<Value> = (0..skeleton.len())
        .map(|i| {
            let n = &skeleton[i];
            let (parent_position, parent_world) = n
                .parent
                .map_or((Vec3::ZERO, Quat::IDENTITY), |p| (skeleton[p].position, world_rotation(p)));
            let translation = parent_world.inverse() * frame(n.position - parent_position);
            let rotation = (parent_world.inverse() * world_rotation(i)).normalize();
            json!({"name": n.name, "translation": translation.to_array(), "rotation": rotation.to_array()})
        })
        .collect();
    for (i, node) in nodes.iter_mut().enumerate() {
        let children: Vec<usize> = (0..skeleton.len())
            .filter(|c| skeleton[*c].parent == Some(i))
            .collect();
        if !children.is_empty() {
            node["children"] = json!(children);
        }
    }
    let ibms: Vec<Mat4> = joint_nodes
        .iter()
        .map(|&i| {
            let n = &skeleton[i];
            // An affine inverse keeps the last row exactly (0, 0, 0, 1), as glTF requires.
            Mat4::from(
                glam::Affine3A::from_rotation_translation(turn * n.rotation, frame(n.position))
                    .inverse(),
            )
        })
        .collect();
    let ibm = buf.mat4(&ibms);
    let skin = json!({"inverseBindMatrices": ibm, "joints": joint_nodes, "skeleton": bone_node(Bone::Hips)});

    let body = body_streams(&|bone: Bone| joint_of(bone_node(bone)));
    let hair = hair_streams(
        &hair_chains,
        &|node: usize| skeleton[node].position,
        &joint_of,
    );
    let face = face_geometry(
        joint_of(bone_node(Bone::Head)),
        [
            joint_of(bone_node(Bone::LeftEye)),
            joint_of(bone_node(Bone::RightEye)),
        ],
    );
    let mut face_targets = Vec::new();
    for (i, name) in FACE_TARGETS.iter().enumerate() {
        let (dp, dn) = face_target(&face, i, name);
        let dp: Vec<Vec3> = dp.into_iter().map(frame).collect();
        let dn: Vec<Vec3> = dn.into_iter().map(frame).collect();
        face_targets.push(
            json!({"POSITION": buf.vec3(&dp, Some(34962)), "NORMAL": buf.vec3(&dn, Some(34962))}),
        );
    }
    let face_materials: Vec<usize> = FACE_PARTS
        .iter()
        .map(|p| match p {
            // Dark irises, brows, lashes and mouth (the hair's material) and white eyes
            // and teeth on a skin face: a face a person detector reads as one.
            FacePart::EyeWhite | FacePart::Highlight | FacePart::Teeth => 4,
            FacePart::Iris | FacePart::Brow | FacePart::Lash | FacePart::Mouth => 2,
            FacePart::Skin => 3,
        })
        .collect();
    let mut meshes = vec![
        shared_mesh(&mut buf, "Body", &body, &[0, 1, 2, 2], &frame, &[]),
        shared_mesh(&mut buf, "Hair", &hair, &[2], &frame, &[]),
        shared_mesh(
            &mut buf,
            "Face",
            &face,
            &face_materials,
            &frame,
            &face_targets,
        ),
    ];
    meshes[2]["extras"] = json!({"targetNames": FACE_TARGETS.to_vec()});

    let root_node = 0;
    let body_node = nodes.len();
    let mut scene_nodes = vec![root_node];
    for (i, name) in ["Body", "Hair", "Face"].iter().enumerate() {
        scene_nodes.push(nodes.len());
        nodes.push(json!({"name": name, "mesh": i, "skin": 0}));
    }
    let face_node = body_node + 2;

    // Crafted: a mesh whose GPU morph data is far over any storage-buffer limit.
    if let Some(count) = spec.crafted_morph_vertices {
        let count = count as usize;
        let positions: Vec<Vec3> = (0..count)
            .map(|i| {
                frame(Vec3::new(
                    0.3 + (i % 100) as f32 * 1e-3,
                    0.05 + (i / 100 % 100) as f32 * 1e-3,
                    0.0,
                ))
            })
            .collect();
        let position = buf.vec3(&positions, Some(34962));
        let indices: Vec<u32> = (0..(count as u32 / 3) * 3).collect();
        let index = buf.indices_u32(&indices);
        let targets: Vec<Value> = (0..250)
            .map(|t| json!({"POSITION": sparse_vec3(&mut buf, count, (t * 7 % count) as u32, Vec3::Y * 1e-3)}))
            .collect();
        meshes.push(json!({"name": "Crafted", "weights": vec![0.0; 250],
            "primitives": [{"attributes": {"POSITION": position}, "indices": index, "targets": targets, "mode": 4}]}));
        scene_nodes.push(nodes.len());
        nodes.push(json!({"name": "Crafted", "mesh": meshes.len() - 1}));
    }

    // Textures: a base and a shade texture per material.
    let mut images = Vec::new();
    // Encoding is most of the time spent here: one thread per texture.
    let pngs: Vec<Vec<u8>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..spec.textures)
            .map(|t| scope.spawn(move || texture_png(spec.texture_size, t as u32)))
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("texture encoding does not panic"))
            .collect()
    });
    for (t, png) in pngs.iter().enumerate() {
        let view = buf.view(png, None);
        images.push(
            json!({"name": format!("Texture_{t}"), "bufferView": view, "mimeType": "image/png"}),
        );
    }
    if let Some(size) = spec.oversized_texture {
        let view = buf.view(&flat_png(size), None);
        images.push(json!({"name": "Oversized", "bufferView": view, "mimeType": "image/png"}));
    }
    let textures: Vec<Value> = (0..images.len())
        .map(|i| json!({"sampler": 0, "source": i}))
        .collect();
    let texture = |i: usize| i.min(images.len().saturating_sub(1));
    let shade_colors = [
        [0.9, 0.75, 0.75],
        [0.6, 0.6, 0.7],
        [0.5, 0.4, 0.45],
        [0.9, 0.75, 0.75],
        [0.8, 0.8, 0.85],
    ];
    let mut materials: Vec<Value> = MATERIALS
        .iter()
        .enumerate()
        .map(|(m, name)| mtoon_material(name, texture(2 * m), texture(2 * m + 1), shade_colors[m]))
        .collect();
    mtoon_features(&mut materials);
    if spec.oversized_texture.is_some() {
        // The body's skin wears the oversized texture, so a loader must upload it.
        materials[0]["pbrMetallicRoughness"]["baseColorTexture"]["index"] = json!(images.len() - 1);
    }
    if images.is_empty() {
        for m in &mut materials {
            m["pbrMetallicRoughness"]
                .as_object_mut()
                .map(|o| o.remove("baseColorTexture"));
            if let Some(mtoon) = m["extensions"]["VRMC_materials_mtoon"].as_object_mut() {
                mtoon.remove("shadeMultiplyTexture");
                mtoon.remove("matcapTexture");
            }
        }
    }

    let (extension_name, extension) = if vrm0 {
        let mut ext = vrm0_extension(&bone_node, &hair_chains);
        let properties: Vec<Value> = materials
            .iter()
            .enumerate()
            .map(|(m, _)| {
                mtoon_properties(
                    MATERIALS[m],
                    texture(2 * m),
                    texture(2 * m + 1),
                    shade_colors[m],
                )
            })
            .collect();
        let mut properties = properties;
        mtoon_v0_features(&mut properties);
        ext["materialProperties"] = json!(properties);
        ("VRM", ext)
    } else {
        ("VRMC_vrm", vrm1_extension(&bone_node, face_node))
    };
    let mut extensions = json!({ extension_name: extension });
    let mut used = vec![extension_name, "KHR_materials_unlit"];
    if vrm0 {
        // VRM 0.x keeps MToon in materialProperties, not on the glTF materials.
        for m in &mut materials {
            if let Some(ext) = m["extensions"].as_object_mut() {
                ext.remove("VRMC_materials_mtoon");
            }
        }
    } else {
        extensions["VRMC_springBone"] = spring_bone_1(&bone_node, &hair_chains);
        used.extend(["VRMC_materials_mtoon", "VRMC_springBone"]);
    }

    let mut root = json!({
        "asset": {"version": "2.0", "generator": concat!("VRMA Maker test avatar ", env!("CARGO_PKG_VERSION"))},
        "extensionsUsed": used,
        "scene": 0,
        "scenes": [{"name": "Scene", "nodes": scene_nodes}],
        "nodes": nodes,
        "skins": [skin],
        "meshes": meshes,
        "materials": materials,
        "samplers": [{"magFilter": 9729, "minFilter": 9729, "wrapS": 10497, "wrapT": 10497}],
        "extensions": extensions,
    });
    if !images.is_empty() {
        root["images"] = json!(images);
        root["textures"] = json!(textures);
    }
    let (bin, views, accessors, buffers) = buf.finish();
    root["bufferViews"] = json!(views);
    root["accessors"] = json!(accessors);
    root["buffers"] = buffers;
    glb::build(&serde_json::to_vec(&root).expect("JSON serialises"), &bin)
}

#[cfg(test)]
mod tests {
    use super::extensions::EXPRESSION_BINDS;
    use super::*;
    use crate::{model::gltf::VrmVersion, model::vrm::Model};

    fn small(variant: MannequinVariant) -> TestAvatarSpec {
        TestAvatarSpec {
            texture_size: 64,
            ..TestAvatarSpec::vroid(variant)
        }
    }

    #[test]
    fn both_versions_parse_with_all_bones_and_the_vroid_expressions() {
        for (variant, version) in [
            (MannequinVariant::Vrm1, VrmVersion::V1),
            (MannequinVariant::Vrm0, VrmVersion::V0),
        ] {
            let model = Model::from_bytes(&build(&small(variant))).unwrap();
            assert_eq!(model.version, version);
            assert_eq!(model.title, TITLE);
            assert!(model.humanoid.iter().all(Option::is_some));
            let (preset, custom) = model.expression_names();
            assert_eq!(
                preset.len() + custom.len(),
                EXPRESSION_BINDS.len(),
                "{preset:?} {custom:?}"
            );
        }
    }

    /// A node's world translation, walking its parents in the file's own frame.
    fn world_position(json: &Value, node: usize) -> Vec3 {
        let nodes = json["nodes"].as_array().unwrap();
        let parent = |n: usize| {
            nodes.iter().position(|p| {
                p["children"]
                    .as_array()
                    .is_some_and(|c| c.contains(&json!(n)))
            })
        };
        let local = |n: usize| {
            let t = &nodes[n]["translation"];
            let r = &nodes[n]["rotation"];
            let f = |v: &Value, i: usize, d: f32| {
                v.get(i).and_then(Value::as_f64).map_or(d, |x| x as f32)
            };
            Mat4::from_rotation_translation(
                Quat::from_xyzw(f(r, 0, 0.0), f(r, 1, 0.0), f(r, 2, 0.0), f(r, 3, 1.0)),
                Vec3::new(f(t, 0, 0.0), f(t, 1, 0.0), f(t, 2, 0.0)),
            )
        };
        let mut m = local(node);
        let mut at = node;
        while let Some(p) = parent(at) {
            m = local(p) * m;
            at = p;
        }
        m.w_axis.truncate()
    }

    #[test]
    fn the_face_looks_along_plus_z_in_vrm1_and_minus_z_in_vrm0_files() {
        for (variant, sign) in [
            (MannequinVariant::Vrm1, 1.0),
            (MannequinVariant::Vrm0, -1.0),
        ] {
            let bytes = build(&small(variant));
            let json: Value = serde_json::from_slice(glb::split(&bytes).unwrap().json).unwrap();
            let eye = world_position(&json, 1 + Bone::LeftEye.index());
            let head = world_position(&json, 1 + Bone::Head.index());
            assert!(
                (eye.z - head.z) * sign > 0.05,
                "{variant:?}: eye {eye} head {head}"
            );
            // The left side is +X in VRM 1.0 and −X in 0.x files.
            let hand = world_position(&json, 1 + Bone::LeftHand.index());
            assert!(hand.x * sign > 0.5, "{variant:?}: left hand {hand}");
        }
    }

    #[test]
    fn has_the_shape_of_a_vroid_export() {
        let bytes = build(&small(MannequinVariant::Vrm1));
        let glb = glb::split(&bytes).unwrap();
        let json: Value = serde_json::from_slice(glb.json).unwrap();
        let face = &json["meshes"][2];
        let primitives = face["primitives"].as_array().unwrap();
        assert_eq!(primitives.len(), 8);
        // One shared vertex buffer: every primitive names the same POSITION accessor.
        let position = &primitives[0]["attributes"]["POSITION"];
        assert!(
            primitives
                .iter()
                .all(|p| &p["attributes"]["POSITION"] == position)
        );
        assert_eq!(primitives[0]["targets"].as_array().unwrap().len(), 57);
        let vertices: u64 = json["meshes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                json["accessors"][m["primitives"][0]["attributes"]["POSITION"]
                    .as_u64()
                    .unwrap() as usize]["count"]
                    .as_u64()
                    .unwrap()
            })
            .sum();
        assert!(vertices >= 80_000, "{vertices} vertices");
        assert_eq!(json["images"].as_array().unwrap().len(), 10);
        let rotations = json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| {
                n.get("rotation")
                    .is_some_and(|r| r[3].as_f64().unwrap() < 0.9999)
            })
            .count();
        assert!(rotations > 50, "{rotations} nodes with a rest rotation");
    }
}
