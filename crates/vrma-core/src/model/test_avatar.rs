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

use glam::{Mat4, Quat, Vec3};
use serde_json::{Value, json};

use crate::files::glb;
use crate::files::gltf_buffer::BufferBuilder;
use crate::model::humanoid::{ALL_BONES, Bone};
use crate::model::mannequin::{
    MannequinVariant, bone_position, upper_first, vrm0_extension_for, vrm0_preset_name,
    vrm1_extension_for,
};

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

/// The 57 face morph targets of a VRoid Studio export, in its order.
pub const FACE_TARGETS: [&str; 57] = [
    "Fcl_ALL_Neutral",
    "Fcl_ALL_Angry",
    "Fcl_ALL_Fun",
    "Fcl_ALL_Joy",
    "Fcl_ALL_Sorrow",
    "Fcl_ALL_Surprised",
    "Fcl_BRW_Angry",
    "Fcl_BRW_Fun",
    "Fcl_BRW_Joy",
    "Fcl_BRW_Sorrow",
    "Fcl_BRW_Surprised",
    "Fcl_EYE_Natural",
    "Fcl_EYE_Angry",
    "Fcl_EYE_Close",
    "Fcl_EYE_Close_R",
    "Fcl_EYE_Close_L",
    "Fcl_EYE_Fun",
    "Fcl_EYE_Joy",
    "Fcl_EYE_Joy_R",
    "Fcl_EYE_Joy_L",
    "Fcl_EYE_Sorrow",
    "Fcl_EYE_Surprised",
    "Fcl_EYE_Spread",
    "Fcl_EYE_Iris_Hide",
    "Fcl_EYE_Highlight_Hide",
    "Fcl_MTH_Close",
    "Fcl_MTH_Up",
    "Fcl_MTH_Down",
    "Fcl_MTH_Angry",
    "Fcl_MTH_Small",
    "Fcl_MTH_Large",
    "Fcl_MTH_Neutral",
    "Fcl_MTH_Fun",
    "Fcl_MTH_Joy",
    "Fcl_MTH_Sorrow",
    "Fcl_MTH_Surprised",
    "Fcl_MTH_SkinFung",
    "Fcl_MTH_SkinFung_R",
    "Fcl_MTH_SkinFung_L",
    "Fcl_MTH_A",
    "Fcl_MTH_I",
    "Fcl_MTH_U",
    "Fcl_MTH_E",
    "Fcl_MTH_O",
    "Fcl_HA_Hide",
    "Fcl_HA_Fung1",
    "Fcl_HA_Fung1_Low",
    "Fcl_HA_Fung1_Up",
    "Fcl_HA_Fung2",
    "Fcl_HA_Fung2_Low",
    "Fcl_HA_Fung2_Up",
    "Fcl_HA_Fung3",
    "Fcl_HA_Fung3_Up",
    "Fcl_HA_Fung3_Low",
    "Fcl_HA_Short",
    "Fcl_HA_Short_Up",
    "Fcl_HA_Short_Low",
];

/// VRM 1.0 preset expressions and the face target each binds (VRoid's mapping).
const EXPRESSION_BINDS: [(&str, &str); 14] = [
    ("neutral", "Fcl_ALL_Neutral"),
    ("happy", "Fcl_ALL_Joy"),
    ("angry", "Fcl_ALL_Angry"),
    ("sad", "Fcl_ALL_Sorrow"),
    ("relaxed", "Fcl_ALL_Fun"),
    ("surprised", "Fcl_ALL_Surprised"),
    ("aa", "Fcl_MTH_A"),
    ("ih", "Fcl_MTH_I"),
    ("ou", "Fcl_MTH_U"),
    ("ee", "Fcl_MTH_E"),
    ("oh", "Fcl_MTH_O"),
    ("blink", "Fcl_EYE_Close"),
    ("blinkLeft", "Fcl_EYE_Close_L"),
    ("blinkRight", "Fcl_EYE_Close_R"),
];

/// Hair: spring-bone chains hanging from the head.
const HAIR_CHAINS: usize = 16;
const HAIR_JOINTS: usize = 5;
/// The angle about the head the chains hang round, centred on the back.
const HAIR_SPAN: f32 = 0.7 * std::f32::consts::TAU;

/// The face's parts, one primitive each, all in one shared vertex buffer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum FacePart {
    Skin,
    EyeWhite,
    Iris,
    Highlight,
    Brow,
    Lash,
    Mouth,
    Teeth,
}

const FACE_PARTS: [FacePart; 8] = [
    FacePart::Skin,
    FacePart::EyeWhite,
    FacePart::Iris,
    FacePart::Highlight,
    FacePart::Brow,
    FacePart::Lash,
    FacePart::Mouth,
    FacePart::Teeth,
];

/// Vertex streams of one shared buffer, with per-primitive index lists.
#[derive(Default)]
struct Streams {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    uvs: Vec<[f32; 2]>,
    joints: Vec<[u16; 4]>,
    weights: Vec<[f32; 4]>,
    /// Which primitive each vertex belongs to.
    part: Vec<usize>,
    indices: Vec<Vec<u32>>,
}

impl Streams {
    fn with_parts(parts: usize) -> Streams {
        Streams {
            indices: vec![Vec::new(); parts],
            ..Default::default()
        }
    }

    /// A grid of `(rows + 1) × columns` vertices wrapped around in the column direction
    /// (a tube, sphere or disc depending on `at`), triangulated into primitive `part`.
    #[allow(clippy::too_many_arguments)]
    fn grid(
        &mut self,
        part: usize,
        rows: usize,
        columns: usize,
        at: &dyn Fn(f32, f32) -> (Vec3, Vec3),
        skin: &dyn Fn(f32) -> ([u16; 4], [f32; 4]),
    ) {
        let base = self.positions.len() as u32;
        for r in 0..=rows {
            let v = r as f32 / rows as f32;
            for c in 0..columns {
                let u = c as f32 / columns as f32;
                let (p, n) = at(u, v);
                self.positions.push(p);
                self.normals.push(n.normalize_or(Vec3::Y));
                self.uvs.push([u, v]);
                let (j, w) = skin(v);
                self.joints.push(j);
                self.weights.push(w);
                self.part.push(part);
            }
        }
        let cols = columns as u32;
        for r in 0..rows as u32 {
            for c in 0..cols {
                let a = base + r * cols + c;
                let b = base + r * cols + (c + 1) % cols;
                let d = a + cols;
                let e = b + cols;
                // Counter-clockwise seen from the side the normals face, as glTF's front
                // faces are (culling and MToon's outline hull rely on it), whichever
                // way `at` runs around.
                let p = |i: u32| self.positions[i as usize];
                let n = |i: u32| self.normals[i as usize];
                // The quad's normal from its diagonals (an edge may be a pole point).
                let facing = (p(e) - p(a))
                    .cross(p(d) - p(b))
                    .dot(n(a) + n(b) + n(d) + n(e));
                if facing < 0.0 {
                    self.indices[part].extend_from_slice(&[a, d, b, b, d, e]);
                } else {
                    self.indices[part].extend_from_slice(&[a, b, d, b, e, d]);
                }
            }
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

fn radius(bone: Bone) -> f32 {
    use Bone::*;
    match bone {
        Hips => 0.13,
        Spine | Chest | UpperChest => 0.12,
        Neck => 0.045,
        Head | Jaw | LeftEye | RightEye => 0.0,
        LeftShoulder | RightShoulder => 0.05,
        LeftUpperArm | RightUpperArm => 0.045,
        LeftLowerArm | RightLowerArm => 0.037,
        LeftHand | RightHand => 0.03,
        LeftUpperLeg | RightUpperLeg => 0.075,
        LeftLowerLeg | RightLowerLeg => 0.055,
        LeftFoot | RightFoot => 0.045,
        LeftToes | RightToes => 0.035,
        _ => 0.009,
    }
}

/// Which body primitive a segment belongs to: skin, top, bottom, shoes.
fn body_part(bone: Bone) -> usize {
    use Bone::*;
    match bone {
        Spine | Chest | UpperChest | LeftShoulder | RightShoulder | LeftUpperArm
        | RightUpperArm => 1,
        Hips | LeftUpperLeg | RightUpperLeg | LeftLowerLeg | RightLowerLeg => 2,
        LeftFoot | RightFoot | LeftToes | RightToes => 3,
        _ => 0,
    }
}

/// Tube of the segment that ends at `bone` (from its parent), skinned to the parent and
/// blended into the bone near the joint.
fn body_segment(streams: &mut Streams, bone: Bone, joint: u16, parent_joint: u16) {
    let Some(parent) = bone.spec_parent() else {
        return;
    };
    let (a, b) = (bone_position(parent), bone_position(bone));
    let r = radius(parent).max(0.008);
    let axis = (b - a).normalize_or(Vec3::Y);
    let side = axis.any_orthonormal_vector();
    let up = axis.cross(side);
    let at = move |u: f32, v: f32| {
        let angle = u * std::f32::consts::TAU;
        let radial = side * angle.cos() + up * angle.sin();
        // Slightly barrel-shaped so the silhouette reads as a limb.
        let bulge = 1.0 + 0.15 * (v * std::f32::consts::PI).sin();
        (a + (b - a) * v + radial * r * bulge, radial)
    };
    let skin = move |v: f32| blend(parent_joint, joint, ((v - 0.7) / 0.3).clamp(0.0, 1.0) * 0.5);
    streams.grid(body_part(parent), 32, 32, &at, &skin);
}

/// Skin weights `1 - w` on joint `a` and `w` on `b`; a joint with no weight is written
/// as joint 0, as glTF asks.
fn blend(a: u16, b: u16, w: f32) -> ([u16; 4], [f32; 4]) {
    if w <= 0.0 {
        ([a, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])
    } else if w >= 1.0 {
        ([b, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])
    } else {
        ([a, b, 0, 0], [1.0 - w, w, 0.0, 0.0])
    }
}

/// Hair chain `k`: joint positions hanging from the head.
fn hair_joint_position(k: usize, j: usize) -> Vec3 {
    use std::f32::consts::TAU;
    let head = bone_position(Bone::Head);
    // Round the sides and back, the face left open as VRoid's hair leaves it (a face
    // under a curtain of hair reads as a head seen from behind).
    let angle = (k as f32 + 0.5) / HAIR_CHAINS as f32 * HAIR_SPAN + (TAU - HAIR_SPAN) / 2.0;
    let out = Vec3::new(angle.sin(), 0.0, angle.cos());
    head + Vec3::new(0.0, 0.17, 0.0) + out * (0.07 + 0.02 * j as f32) - Vec3::Y * (0.06 * j as f32)
}

fn face_geometry(head_joint: u16, eye_joints: [u16; 2]) -> Streams {
    let mut s = Streams::with_parts(FACE_PARTS.len());
    let head = bone_position(Bone::Head);
    let centre = head + Vec3::new(0.0, 0.1, 0.0);
    let rigid = move |j: u16| move |_v: f32| ([j, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]);
    let sphere = |c: Vec3, r: Vec3| {
        move |u: f32, v: f32| {
            let (theta, phi) = (u * std::f32::consts::TAU, v * std::f32::consts::PI);
            let n = Vec3::new(phi.sin() * theta.sin(), phi.cos(), phi.sin() * theta.cos());
            (c + n * r, n)
        }
    };
    s.grid(
        0,
        60,
        80,
        &sphere(centre, Vec3::new(0.095, 0.115, 0.105)),
        &rigid(head_joint),
    );
    let part_of = |p: FacePart| FACE_PARTS.iter().position(|q| *q == p).unwrap_or(0);
    for (side, x) in [(0usize, 0.035f32), (1, -0.035)] {
        let eye = centre + Vec3::new(x, 0.0, 0.085);
        let joint = eye_joints[side];
        s.grid(
            part_of(FacePart::EyeWhite),
            16,
            24,
            &sphere(eye, Vec3::splat(0.018)),
            &rigid(joint),
        );
        let disc = |c: Vec3, r: f32| {
            move |u: f32, v: f32| {
                let angle = u * std::f32::consts::TAU;
                (
                    c + Vec3::new(angle.cos(), angle.sin(), 0.0) * r * v,
                    Vec3::Z,
                )
            }
        };
        s.grid(
            part_of(FacePart::Iris),
            8,
            32,
            &disc(eye + Vec3::Z * 0.019, 0.011),
            &rigid(joint),
        );
        s.grid(
            part_of(FacePart::Highlight),
            4,
            16,
            &disc(eye + Vec3::new(0.004, 0.004, 0.0195), 0.003),
            &rigid(joint),
        );
        let strip = |c: Vec3, w: f32, h: f32| {
            move |u: f32, v: f32| {
                let angle = (u - 0.5) * 1.2;
                (
                    c + Vec3::new(angle.sin() * w, v * h, (angle.cos() - 1.0) * 0.01),
                    Vec3::Z,
                )
            }
        };
        s.grid(
            part_of(FacePart::Brow),
            5,
            40,
            &strip(eye + Vec3::new(0.0, 0.03, 0.01), 0.025, 0.006),
            &rigid(head_joint),
        );
        s.grid(
            part_of(FacePart::Lash),
            5,
            40,
            &strip(eye + Vec3::new(0.0, 0.016, 0.012), 0.02, 0.004),
            &rigid(head_joint),
        );
    }
    let mouth = centre + Vec3::new(0.0, -0.055, 0.095);
    s.grid(
        part_of(FacePart::Mouth),
        10,
        48,
        &move |u: f32, v: f32| {
            let angle = u * std::f32::consts::TAU;
            (
                mouth + Vec3::new(angle.cos() * 0.022, angle.sin() * 0.008, 0.0) * v,
                Vec3::Z,
            )
        },
        &rigid(head_joint),
    );
    s.grid(
        part_of(FacePart::Teeth),
        4,
        60,
        &move |u: f32, v: f32| {
            let angle = (u - 0.5) * 1.4;
            (
                mouth + Vec3::new(angle.sin() * 0.02, 0.002 + v * 0.004, -0.004),
                Vec3::Z,
            )
        },
        &rigid(head_joint),
    );
    s
}

/// Where a face target acts: a centre, a radius and the parts it may move.
fn target_region(name: &str) -> (Vec3, f32, &'static [FacePart]) {
    use FacePart::*;
    let centre = bone_position(Bone::Head) + Vec3::new(0.0, 0.1, 0.0);
    let side = if name.ends_with("_R") {
        -1.0
    } else if name.ends_with("_L") {
        1.0
    } else {
        0.0
    };
    if name.contains("_BRW_") {
        (
            centre + Vec3::new(0.035 * side, 0.03, 0.095),
            0.06,
            &[Brow, Skin],
        )
    } else if name.contains("_EYE_") {
        (
            centre + Vec3::new(0.035 * side, 0.0, 0.09),
            if side == 0.0 { 0.08 } else { 0.035 },
            &[EyeWhite, Iris, Highlight, Lash, Skin],
        )
    } else if name.contains("_MTH_") {
        (
            centre + Vec3::new(0.02 * side, -0.055, 0.095),
            0.045,
            &[Mouth, Teeth, Skin],
        )
    } else if name.contains("_HA_") {
        (centre + Vec3::new(0.0, -0.055, 0.09), 0.03, &[Teeth])
    } else {
        (
            centre + Vec3::new(0.0, -0.01, 0.09),
            0.09,
            &[Brow, Lash, Mouth, Skin],
        )
    }
}

/// Position and normal deltas of one face target (exactly zero outside its region).
fn face_target(face: &Streams, index: usize, name: &str) -> (Vec<Vec3>, Vec<Vec3>) {
    let (centre, reach, parts) = target_region(name);
    let direction = Vec3::new(
        (index as f32 * 2.3).sin() * 0.3,
        (index as f32 * 1.1).cos(),
        (index as f32 * 0.7).sin() * 0.5,
    )
    .normalize();
    let mut positions = vec![Vec3::ZERO; face.positions.len()];
    let mut normals = vec![Vec3::ZERO; face.positions.len()];
    for (i, p) in face.positions.iter().enumerate() {
        if !parts.contains(&FACE_PARTS[face.part[i]]) {
            continue;
        }
        let d = p.distance(centre);
        if d >= reach {
            continue;
        }
        let falloff = 1.0 - d / reach;
        positions[i] = direction * 0.006 * falloff * falloff;
        normals[i] = direction.cross(Vec3::Z) * 0.05 * falloff;
    }
    (positions, normals)
}

/// A 2048² texture that compresses like a painted one: smooth colour, fine grain.
fn texture_png(size: u32, seed: u32) -> Vec<u8> {
    let mut pixels = Vec::with_capacity((size * size * 4) as usize);
    // Base textures (even seeds) in a VRoid avatar's colours, so that stills read as a
    // person (skin, a blue top, dark hair, a skin face, white eyes); shade textures
    // and any extra ones vary by seed.
    let base = match seed {
        0 | 6 => [236, 196, 170],
        2 => [84, 104, 168],
        4 => [78, 56, 44],
        8 => [236, 236, 240],
        _ => [
            150 + (seed * 37 % 100) as u8,
            120 + (seed * 53 % 120) as u8,
            110 + (seed * 71 % 130) as u8,
        ],
    };
    let mut state = 0x9E37_79B9u32 ^ seed.wrapping_mul(0x85EB_CA6B);
    for y in 0..size {
        for x in 0..size {
            // xorshift grain: a bit of noise per pixel, so it compresses like a painted texture.
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let band = (((x / 64) ^ (y / 64)) & 1) as u8 * 12;
            let grain = (state & 1) as u8;
            for b in base {
                pixels.push(b.saturating_sub(band).wrapping_add(grain));
            }
            pixels.push(255);
        }
    }
    encode_png(size, size, &pixels)
}

fn encode_png(width: u32, height: u32, rgba: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Balanced);
    let mut writer = encoder.write_header().expect("PNG header");
    writer.write_image_data(rgba).expect("PNG data");
    writer.finish().expect("PNG end");
    out
}

/// A flat-colour PNG of any size, streamed row by row so that a 20000² one costs no
/// more memory than a row.
fn flat_png(size: u32) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, size, size);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Balanced);
        let mut writer = encoder.write_header().expect("PNG header");
        let mut stream = writer.stream_writer().expect("PNG stream");
        let row = vec![200u8; size as usize * 3];
        for _ in 0..size {
            std::io::Write::write_all(&mut stream, &row).expect("PNG row");
        }
        stream.finish().expect("PNG data");
        writer.finish().expect("PNG end");
    }
    out
}

/// Material names; material `m` uses textures `2m` (base) and `2m + 1` (shade).
const MATERIALS: [&str; 5] = [
    "Body_SKIN",
    "Tops_CLOTH",
    "Hair_HAIR",
    "Face_SKIN",
    "Eye_EYE",
];

fn mtoon_material(name: &str, base: usize, shade: usize, shade_color: [f32; 3]) -> Value {
    json!({
        "name": name,
        "pbrMetallicRoughness": {
            "baseColorTexture": {"index": base}, "baseColorFactor": [1.0, 1.0, 1.0, 1.0],
            "metallicFactor": 0.0, "roughnessFactor": 0.9
        },
        "alphaMode": "OPAQUE",
        "doubleSided": false,
        "extensions": {
            "KHR_materials_unlit": {},
            "VRMC_materials_mtoon": {
                "specVersion": "1.0", "transparentWithZWrite": false, "renderQueueOffsetNumber": 0,
                "shadeColorFactor": shade_color, "shadeMultiplyTexture": {"index": shade},
                "shadingShiftFactor": -0.05, "shadingToonyFactor": 0.95, "giEqualizationFactor": 0.9,
                "matcapFactor": [0.0, 0.0, 0.0], "parametricRimColorFactor": [0.0, 0.0, 0.0],
                "rimLightingMixFactor": 1.0, "parametricRimFresnelPowerFactor": 5.0,
                "parametricRimLiftFactor": 0.0, "outlineWidthMode": "worldCoordinates",
                "outlineWidthFactor": 0.002, "outlineColorFactor": [0.25, 0.15, 0.15],
                "outlineLightingMixFactor": 1.0, "uvAnimationScrollXSpeedFactor": 0.0,
                "uvAnimationScrollYSpeedFactor": 0.0, "uvAnimationRotationSpeedFactor": 0.0
            }
        }
    })
}

/// The same look as [`mtoon_material`] in VRM 0.x terms: the values three-vrm's
/// conversion (`core::mtoon`) turns back into that material's, as UniVRM's migration
/// would write them (colours in gamma space; toony 0.9 and shift 0 convert to 0.95 and
/// -0.05; a mixed outline colour keeps its lighting mix of 1).
fn mtoon_properties(name: &str, base: usize, shade: usize, shade_color: [f32; 3]) -> Value {
    let gamma = |c: f32| c.powf(1.0 / 2.2);
    let outline = [0.25f32, 0.15, 0.15].map(gamma);
    json!({
        "name": name, "shader": "VRM/MToon", "renderQueue": 2000,
        "floatProperties": {
            "_Cutoff": 0.5, "_BumpScale": 1.0, "_ShadeShift": 0.0, "_ShadeToony": 0.9,
            "_ReceiveShadowRate": 1.0, "_ShadingGradeRate": 1.0, "_LightColorAttenuation": 0.0,
            "_IndirectLightIntensity": 0.1, "_RimLightingMix": 1.0, "_RimFresnelPower": 5.0,
            "_RimLift": 0.0, "_OutlineWidth": 0.2, "_OutlineScaledMaxDistance": 1.0,
            "_OutlineLightingMix": 1.0, "_UvAnimScrollX": 0.0, "_UvAnimScrollY": 0.0,
            "_UvAnimRotation": 0.0, "_MToonVersion": 38.0, "_DebugMode": 0.0, "_BlendMode": 0.0,
            "_OutlineWidthMode": 1.0, "_OutlineColorMode": 1.0, "_CullMode": 2.0,
            "_OutlineCullMode": 1.0, "_SrcBlend": 1.0, "_DstBlend": 0.0, "_ZWrite": 1.0
        },
        "vectorProperties": {
            "_Color": [1.0, 1.0, 1.0, 1.0],
            "_ShadeColor": [gamma(shade_color[0]), gamma(shade_color[1]), gamma(shade_color[2]), 1.0],
            "_MainTex": [0.0, 0.0, 1.0, 1.0], "_ShadeTexture": [0.0, 0.0, 1.0, 1.0],
            "_EmissionColor": [0.0, 0.0, 0.0, 1.0],
            "_OutlineColor": [outline[0], outline[1], outline[2], 1.0],
            "_RimColor": [0.0, 0.0, 0.0, 1.0]
        },
        "textureProperties": {"_MainTex": base, "_ShadeTexture": shade},
        "keywordMap": {"MTOON_OUTLINE_WIDTH_WORLD": true, "MTOON_OUTLINE_COLOR_MIXED": true},
        "tagMap": {"RenderType": "Opaque"}
    })
}

/// Hair with a parametric rim, eyes with a matcap, emission, alpha blending and a UV
/// scroll, and a face drawn as a cutout: the MToon features VRoid exports use besides
/// toon shading and outlines, so that the avatar shows each of them.
const RIM: [f32; 3] = [0.2, 0.2, 0.25];
const EYE_EMISSION: [f32; 3] = [0.3, 0.25, 0.1];
const EYE_ALPHA: f32 = 0.9;
/// UV widths a second (stills are drawn at t = 0 of it).
const EYE_SCROLL: f32 = 0.5;
const HAIR: usize = 2;
const FACE: usize = 3;
const EYE: usize = 4;

fn mtoon_features(materials: &mut [Value]) {
    let hair = &mut materials[HAIR]["extensions"]["VRMC_materials_mtoon"];
    hair["parametricRimColorFactor"] = json!(RIM);
    hair["parametricRimLiftFactor"] = json!(0.1);
    hair["parametricRimFresnelPowerFactor"] = json!(3.0);
    let face = &mut materials[FACE];
    face["alphaMode"] = json!("MASK");
    face["alphaCutoff"] = json!(0.5);
    let eye = &mut materials[EYE];
    eye["alphaMode"] = json!("BLEND");
    eye["pbrMetallicRoughness"]["baseColorFactor"] = json!([1.0, 1.0, 1.0, EYE_ALPHA]);
    eye["emissiveFactor"] = json!(EYE_EMISSION);
    let shade = eye["extensions"]["VRMC_materials_mtoon"]["shadeMultiplyTexture"].clone();
    let mtoon = &mut eye["extensions"]["VRMC_materials_mtoon"];
    if !shade.is_null() {
        mtoon["matcapTexture"] = json!({"index": shade["index"]});
        mtoon["matcapFactor"] = json!([1.0, 1.0, 1.0]);
    }
    mtoon["uvAnimationScrollXSpeedFactor"] = json!(EYE_SCROLL);
}

/// [`mtoon_features`] in VRM 0.x terms (colours in gamma space, as UniVRM writes them).
fn mtoon_v0_features(properties: &mut [Value]) {
    let gamma = |c: [f32; 3]| c.map(|c| c.powf(1.0 / 2.2));
    let hair = &mut properties[HAIR];
    let rim = gamma(RIM);
    hair["vectorProperties"]["_RimColor"] = json!([rim[0], rim[1], rim[2], 1.0]);
    hair["floatProperties"]["_RimLift"] = json!(0.1);
    hair["floatProperties"]["_RimFresnelPower"] = json!(3.0);
    let face = &mut properties[FACE];
    face["renderQueue"] = json!(2450);
    face["floatProperties"]["_BlendMode"] = json!(1.0);
    face["floatProperties"]["_Cutoff"] = json!(0.5);
    face["keywordMap"]["_ALPHATEST_ON"] = json!(true);
    face["tagMap"]["RenderType"] = json!("TransparentCutout");
    let eye = &mut properties[EYE];
    eye["renderQueue"] = json!(3000);
    let floats = &mut eye["floatProperties"];
    floats["_BlendMode"] = json!(2.0);
    floats["_SrcBlend"] = json!(5.0);
    floats["_DstBlend"] = json!(10.0);
    floats["_ZWrite"] = json!(0.0);
    eye["vectorProperties"]["_Color"] = json!([1.0, 1.0, 1.0, EYE_ALPHA]);
    let emission = gamma(EYE_EMISSION);
    eye["vectorProperties"]["_EmissionColor"] = json!([emission[0], emission[1], emission[2], 1.0]);
    eye["keywordMap"]["_ALPHABLEND_ON"] = json!(true);
    eye["floatProperties"]["_UvAnimScrollX"] = json!(EYE_SCROLL);
    eye["tagMap"]["RenderType"] = json!("Transparent");
    if let Some(shade) = eye["textureProperties"]["_ShadeTexture"].as_u64() {
        eye["textureProperties"]["_SphereAdd"] = json!(shade);
    }
}

/// One mesh: shared attribute accessors, one primitive per index list.
fn shared_mesh(
    buf: &mut BufferBuilder,
    name: &str,
    streams: &Streams,
    materials: &[usize],
    frame: &dyn Fn(Vec3) -> Vec3,
    targets: &[Value],
) -> Value {
    let positions: Vec<Vec3> = streams.positions.iter().map(|p| frame(*p)).collect();
    let normals: Vec<Vec3> = streams.normals.iter().map(|n| frame(*n)).collect();
    let attributes = json!({
        "POSITION": buf.vec3(&positions, Some(34962)),
        "NORMAL": buf.vec3(&normals, Some(34962)),
        "TEXCOORD_0": buf.vec2(&streams.uvs),
        "JOINTS_0": buf.joints(&streams.joints),
        "WEIGHTS_0": buf.vec4_f32(&streams.weights),
    });
    let primitives: Vec<Value> = streams
        .indices
        .iter()
        .zip(materials)
        .filter(|(indices, _)| !indices.is_empty())
        .map(|(indices, material)| {
            let mut primitive = json!({
                "attributes": attributes, "indices": buf.indices_u32(indices),
                "material": material, "mode": 4
            });
            if !targets.is_empty() {
                primitive["targets"] = json!(targets);
            }
            primitive
        })
        .collect();
    let mut mesh = json!({"name": name, "primitives": primitives});
    if !targets.is_empty() {
        mesh["weights"] = json!(vec![0.0; targets.len()]);
    }
    mesh
}

/// A sparse VEC3 accessor of `count` zeros with one non-zero element: costs a few bytes
/// in the file, `count × 12` bytes once a loader expands it.
fn sparse_vec3(buf: &mut BufferBuilder, count: usize, at: u32, value: Vec3) -> usize {
    let index_view = buf.view(&at.to_le_bytes(), None);
    let value_bytes: Vec<u8> = value
        .to_array()
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let value_view = buf.view(&value_bytes, None);
    buf.accessors.push(json!({
        "componentType": 5126, "count": count, "type": "VEC3",
        "sparse": {"count": 1,
            "indices": {"bufferView": index_view, "componentType": 5125},
            "values": {"bufferView": value_view}},
        "min": value.min(Vec3::ZERO).to_array(), "max": value.max(Vec3::ZERO).to_array()
    }));
    buf.accessors.len() - 1
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

    // Body: one tube per bone segment, four primitives in one shared buffer.
    let mut body = Streams::with_parts(4);
    for bone in ALL_BONES {
        if let Some(parent) = bone.spec_parent()
            && radius(parent) > 0.0
        {
            body_segment(
                &mut body,
                bone,
                joint_of(bone_node(bone)),
                joint_of(bone_node(parent)),
            );
        }
    }
    // Hair: a strand along each chain.
    let mut hair = Streams::with_parts(1);
    for chain in &hair_chains {
        for pair in chain.windows(2) {
            let (a, b) = (skeleton[pair[0]].position, skeleton[pair[1]].position);
            let axis = (b - a).normalize_or(Vec3::NEG_Y);
            let side = axis.any_orthonormal_vector();
            let up = axis.cross(side);
            let (ja, jb) = (joint_of(pair[0]), joint_of(pair[1]));
            hair.grid(
                0,
                16,
                20,
                &move |u: f32, v: f32| {
                    let angle = u * std::f32::consts::TAU;
                    let radial = side * angle.cos() + up * angle.sin();
                    (a + (b - a) * v + radial * 0.012 * (1.0 - 0.4 * v), radial)
                },
                &move |v: f32| blend(ja, jb, v),
            );
        }
    }
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

fn target_index(name: &str) -> usize {
    FACE_TARGETS.iter().position(|t| *t == name).unwrap_or(0)
}

fn vrm1_extension(bone_node: &dyn Fn(Bone) -> usize, face_node: usize) -> Value {
    let preset: serde_json::Map<String, Value> = EXPRESSION_BINDS
        .iter()
        .map(|(name, target)| {
            (name.to_string(), json!({
                "morphTargetBinds": [{"node": face_node, "index": target_index(target), "weight": 1.0}],
                "isBinary": name.starts_with("blink"), "overrideBlink": "none", "overrideLookAt": "none", "overrideMouth": "none"
            }))
        })
        .collect();
    let mut extension = vrm1_extension_for(TITLE, bone_node, preset);
    let range = json!({"inputMaxValue": 90.0, "outputScale": 10.0});
    extension["lookAt"] = json!({"type": "bone", "offsetFromHeadBone": [0.0, 0.06, 0.0],
        "rangeMapHorizontalInner": range, "rangeMapHorizontalOuter": range,
        "rangeMapVerticalDown": range, "rangeMapVerticalUp": range});
    extension
}

fn spring_bone_1(bone_node: &dyn Fn(Bone) -> usize, chains: &[Vec<usize>]) -> Value {
    let springs: Vec<Value> = chains
        .iter()
        .enumerate()
        .map(|(k, chain)| {
            let joints: Vec<Value> = chain
                .iter()
                .map(|n| {
                    json!({"node": n, "hitRadius": 0.02, "stiffness": 1.0, "gravityPower": 0.0,
                    "gravityDir": [0.0, -1.0, 0.0], "dragForce": 0.4})
                })
                .collect();
            json!({"name": format!("Hair{:02}", k + 1), "joints": joints, "colliderGroups": [0]})
        })
        .collect();
    json!({
        "specVersion": "1.0",
        // Inside the hair's roots, as an exporter fits it: hair that starts inside a
        // collider is thrown out of it at the first step.
        "colliders": [{"node": bone_node(Bone::Head), "shape": {"sphere": {"offset": [0.0, 0.06, 0.0], "radius": 0.06}}}],
        "colliderGroups": [{"name": "Head", "colliders": [0]}],
        "springs": springs
    })
}

fn vrm0_extension(bone_node: &dyn Fn(Bone) -> usize, chains: &[Vec<usize>]) -> Value {
    let groups: Vec<Value> = EXPRESSION_BINDS
        .iter()
        .map(|(name, target)| {
            let (preset, group_name) = match *name {
                "neutral" => ("neutral", "Neutral"),
                other => vrm0_preset_name(other),
            };
            json!({"name": group_name, "presetName": preset,
                   "binds": [{"mesh": 2, "index": target_index(target), "weight": 100}],
                   "materialValues": [], "isBinary": false})
        })
        .collect();
    let mut extension = vrm0_extension_for(TITLE, bone_node, groups, 0.06);
    extension["exporterVersion"] = json!("UniVRM-0.99.0");
    let first_joints: Vec<usize> = chains.iter().map(|c| c[0]).collect();
    extension["secondaryAnimation"] = json!({
        "boneGroups": [{"comment": "Hair", "stiffiness": 1.0, "gravityPower": 0.0,
            "gravityDir": {"x": 0.0, "y": -1.0, "z": 0.0}, "dragForce": 0.4, "center": -1,
            "hitRadius": 0.02, "bones": first_joints, "colliderGroups": [0]}],
        "colliderGroups": [{"node": bone_node(Bone::Head),
            "colliders": [{"offset": {"x": 0.0, "y": 0.06, "z": 0.0}, "radius": 0.06}]}]
    });
    extension
}

#[cfg(test)]
mod tests {
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
