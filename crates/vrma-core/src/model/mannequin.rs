//! The built-in default avatar: a VRM 1.0 (or 0.x) GLB made entirely by this code, an
//! artist's mannequin: rounded, tapering segments with ball joints skinned rigidly to all
//! 55 humanoid bones, separate fingers, and an egg-shaped head whose face features (eyes,
//! brows, mouth) carry morph targets for the preset expressions. T-pose, metres, facing
//! +Z (VRM 1.0) or -Z (VRM 0.x, as that format requires).

use std::f32::consts::{FRAC_PI_2, TAU};

use glam::{Mat4, Vec3};
use serde_json::{Value, json};

use crate::files::glb;
use crate::files::gltf_buffer::BufferBuilder;
use crate::model::humanoid::{ALL_BONES, BONE_COUNT, Bone};

/// Which file format to write the mannequin as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MannequinVariant {
    Vrm1,
    Vrm0,
}

/// Title written into the model's meta.
pub const TITLE: &str = "VRMA Maker Mannequin";

/// Rest (T-pose) world position of every bone, VRM 1.0 frame.
pub(crate) fn bone_position(bone: Bone) -> Vec3 {
    use Bone::*;
    let v = Vec3::new;
    // Left side; right side mirrors x below.
    let left = match bone {
        Hips => v(0.0, 0.95, 0.0),
        Spine => v(0.0, 1.05, 0.0),
        Chest => v(0.0, 1.17, 0.0),
        UpperChest => v(0.0, 1.29, 0.0),
        Neck => v(0.0, 1.43, 0.0),
        Head => v(0.0, 1.50, 0.0),
        LeftEye | RightEye => v(0.04, 1.62, 0.085),
        Jaw => v(0.0, 1.545, 0.02),
        LeftUpperLeg | RightUpperLeg => v(0.09, 0.91, 0.0),
        LeftLowerLeg | RightLowerLeg => v(0.09, 0.51, 0.0),
        LeftFoot | RightFoot => v(0.09, 0.09, 0.0),
        LeftToes | RightToes => v(0.09, 0.02, 0.11),
        LeftShoulder | RightShoulder => v(0.02, 1.39, 0.0),
        LeftUpperArm | RightUpperArm => v(0.16, 1.39, 0.0),
        LeftLowerArm | RightLowerArm => v(0.43, 1.39, 0.0),
        LeftHand | RightHand => v(0.68, 1.39, 0.0),
        _ => finger_position(bone),
    };
    if bone.side() == Some(crate::model::humanoid::Side::Right) {
        v(-left.x, left.y, left.z)
    } else {
        left
    }
}

/// Finger joints along +X (left hand); `(row z, x of each joint, x of the tip)`.
fn finger_row(bone: Bone) -> (f32, [f32; 4], f32) {
    let name = bone.name();
    if name.contains("Thumb") {
        (0.045, [0.695, 0.725, 0.755, 0.78], 1.38)
    } else if name.contains("Index") {
        (0.025, [0.775, 0.815, 0.845, 0.87], 1.39)
    } else if name.contains("Middle") {
        (0.008, [0.78, 0.825, 0.857, 0.882], 1.39)
    } else if name.contains("Ring") {
        (-0.009, [0.775, 0.815, 0.845, 0.868], 1.39)
    } else {
        (-0.026, [0.768, 0.8, 0.823, 0.842], 1.39)
    }
}

fn finger_joint(bone: Bone) -> usize {
    let name = bone.name();
    if name.ends_with("Metacarpal") || (name.ends_with("Proximal") && !name.contains("Thumb")) {
        0
    } else if name.ends_with("Intermediate")
        || (name.ends_with("Proximal") && name.contains("Thumb"))
    {
        1
    } else {
        2
    }
}

fn finger_position(bone: Bone) -> Vec3 {
    let (z, xs, y) = finger_row(bone);
    Vec3::new(xs[finger_joint(bone)], y, z)
}

/// A rounded segment filling an axis-aligned box (a capsule along its longest side, or
/// an ellipsoid), skinned to one joint, with a vertex colour.
struct Part {
    min: Vec3,
    max: Vec3,
    joint: Bone,
    color: [f32; 4],
    feature: Feature,
    shape: Shape,
}

#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// Rounded ends on a straight middle; the far end (from the joint) is `taper` times
    /// as thick as the near one.
    Capsule {
        taper: f32,
    },
    Ellipsoid,
}

#[derive(Clone, Copy, PartialEq)]
enum Feature {
    None,
    Eye(f32),
    Brow(f32),
    Mouth,
}

fn mirror_x(side_right: bool, min: Vec3, max: Vec3) -> (Vec3, Vec3) {
    if side_right {
        (
            Vec3::new(-max.x, min.y, min.z),
            Vec3::new(-min.x, max.y, max.z),
        )
    } else {
        (min, max)
    }
}

/// Segments (the material's colour shows through) and the darker ball joints.
const BODY: [f32; 4] = [1.0, 1.0, 1.0, 1.0];
const JOINT: [f32; 4] = [0.70, 0.70, 0.74, 1.0];
/// Limbs thin toward the hand and foot like a wooden mannequin's.
const LIMB_TAPER: f32 = 0.8;
const STRAIGHT: Shape = Shape::Capsule { taper: 1.0 };

fn body_parts() -> Vec<Part> {
    use Bone::*;
    let v = Vec3::new;
    let torso = |min: Vec3, max: Vec3, joint: Bone| Part {
        min,
        max,
        joint,
        color: BODY,
        feature: Feature::None,
        shape: STRAIGHT,
    };
    let mut parts = vec![
        // Overlapping, so that the torso bends without gaps: pelvis, waist, ribs, chest.
        torso(v(-0.125, 0.84, -0.09), v(0.125, 1.04, 0.09), Hips),
        torso(v(-0.1, 0.98, -0.075), v(0.1, 1.2, 0.075), Spine),
        torso(v(-0.13, 1.12, -0.085), v(0.13, 1.33, 0.085), Chest),
        torso(v(-0.15, 1.25, -0.09), v(0.15, 1.44, 0.09), UpperChest),
        torso(v(-0.035, 1.39, -0.035), v(0.035, 1.53, 0.035), Neck),
    ];
    for right in [false, true] {
        let pick = |l: Bone| if right { l.mirror() } else { l };
        let mut add = |bone: Bone, min: Vec3, max: Vec3, color, shape| {
            let (min, max) = mirror_x(right, min, max);
            parts.push(Part {
                min,
                max,
                joint: pick(bone),
                color,
                feature: Feature::None,
                shape,
            });
        };
        let limb = Shape::Capsule { taper: LIMB_TAPER };
        add(
            LeftShoulder,
            v(0.03, 1.35, -0.045),
            v(0.17, 1.43, 0.045),
            BODY,
            STRAIGHT,
        );
        add(
            LeftUpperArm,
            v(0.17, 1.35, -0.045),
            v(0.43, 1.43, 0.045),
            BODY,
            limb,
        );
        add(
            LeftLowerArm,
            v(0.43, 1.355, -0.038),
            v(0.675, 1.425, 0.038),
            BODY,
            limb,
        );
        add(
            LeftHand,
            v(0.67, 1.372, -0.042),
            v(0.785, 1.408, 0.042),
            BODY,
            STRAIGHT,
        );
        add(
            LeftUpperLeg,
            v(0.02, 0.5, -0.07),
            v(0.16, 0.95, 0.07),
            BODY,
            limb,
        );
        add(
            LeftLowerLeg,
            v(0.035, 0.08, -0.055),
            v(0.145, 0.52, 0.055),
            BODY,
            limb,
        );
        add(
            LeftFoot,
            v(0.045, 0.0, -0.05),
            v(0.135, 0.1, 0.13),
            BODY,
            STRAIGHT,
        );
        add(
            LeftToes,
            v(0.05, 0.0, 0.1),
            v(0.13, 0.045, 0.18),
            BODY,
            STRAIGHT,
        );
        // Ball joints at the shoulder, elbow, wrist, hip, knee and ankle (each turns
        // with the bone below it, about its own centre).
        // A little thinner than the limb ends around them (coinciding surfaces would
        // show a ragged seam), so each shows in the gap between two segments.
        for (bone, radius) in [
            (LeftUpperArm, 0.042),
            (LeftLowerArm, 0.033),
            (LeftHand, 0.026),
            (LeftUpperLeg, 0.06),
            (LeftLowerLeg, 0.047),
            (LeftFoot, 0.04),
        ] {
            let at = bone_position(bone);
            add(bone, at - radius, at + radius, JOINT, Shape::Ellipsoid);
        }
        for &bone in crate::model::humanoid::finger_bones(crate::model::humanoid::Side::Left) {
            let (z, xs, y) = finger_row(bone);
            let j = finger_joint(bone);
            // Thinner than the rows are apart: the fingers stay separate.
            let t = if bone.is_thumb() { 0.0095 } else { 0.0078 };
            // Each segment overlaps the next a little so the finger reads as one.
            let (from, to) = (xs[j] - 0.004, xs[j + 1] + 0.002);
            add(
                bone,
                v(from, y - t, z - t),
                v(to, y + t, z + t),
                BODY,
                STRAIGHT,
            );
        }
    }
    parts
}

const SKIN: [f32; 4] = [0.96, 0.86, 0.76, 1.0];
const DARK: [f32; 4] = [0.08, 0.08, 0.12, 1.0];
const BROW: [f32; 4] = [0.30, 0.20, 0.12, 1.0];
const LIPS: [f32; 4] = [0.65, 0.18, 0.20, 1.0];

/// The head: an egg a little taller than wide.
const HEAD_CENTRE: Vec3 = Vec3::new(0.0, 1.615, 0.0);
const HEAD_RADII: Vec3 = Vec3::new(0.088, 0.112, 0.1);

/// Where the head's front surface is at a point of the face (x, y).
fn face_surface_z(x: f32, y: f32) -> f32 {
    let (dx, dy) = (x / HEAD_RADII.x, (y - HEAD_CENTRE.y) / HEAD_RADII.y);
    HEAD_CENTRE.z + HEAD_RADII.z * (1.0 - dx * dx - dy * dy).max(0.0).sqrt()
}

fn face_parts() -> Vec<Part> {
    use Bone::*;
    let v = Vec3::new;
    // A feature sits on the face, half sunk into it, so that it follows the curve.
    let feature = |x: f32, y: f32, half: Vec3, joint, color, feature| {
        let c = v(x, y, face_surface_z(x, y) - half.z * 0.35);
        Part {
            min: c - half,
            max: c + half,
            joint,
            color,
            feature,
            shape: Shape::Ellipsoid,
        }
    };
    vec![
        Part {
            min: HEAD_CENTRE - HEAD_RADII,
            max: HEAD_CENTRE + HEAD_RADII,
            joint: Head,
            color: SKIN,
            feature: Feature::None,
            shape: Shape::Ellipsoid,
        },
        feature(
            0.038,
            1.62,
            v(0.017, 0.011, 0.012),
            LeftEye,
            DARK,
            Feature::Eye(1.0),
        ),
        feature(
            -0.038,
            1.62,
            v(0.017, 0.011, 0.012),
            RightEye,
            DARK,
            Feature::Eye(-1.0),
        ),
        feature(
            0.04,
            1.652,
            v(0.022, 0.0045, 0.01),
            Head,
            BROW,
            Feature::Brow(1.0),
        ),
        feature(
            -0.04,
            1.652,
            v(0.022, 0.0045, 0.01),
            Head,
            BROW,
            Feature::Brow(-1.0),
        ),
        // The chin, on the jaw bone.
        Part {
            min: v(-0.038, 1.50, 0.0),
            max: v(0.038, 1.55, 0.072),
            joint: Jaw,
            color: SKIN,
            feature: Feature::None,
            shape: Shape::Ellipsoid,
        },
        // The nose: no morphs, a landmark that shows which way the head faces.
        feature(
            0.0,
            1.592,
            v(0.011, 0.018, 0.016),
            Head,
            SKIN,
            Feature::None,
        ),
        feature(
            0.0,
            1.56,
            v(0.032, 0.0075, 0.01),
            Head,
            LIPS,
            Feature::Mouth,
        ),
    ]
}

/// The expressions the mannequin's face supports, in morph target order: the presets,
/// then one custom expression (`smirk`), so the custom path is exercised.
pub const EXPRESSIONS: [&str; 14] = [
    "blink",
    "blinkLeft",
    "blinkRight",
    "aa",
    "ih",
    "ou",
    "ee",
    "oh",
    "happy",
    "angry",
    "sad",
    "relaxed",
    "surprised",
    "smirk",
];

/// The mannequin's custom (non-preset) expressions.
pub const CUSTOM_EXPRESSIONS: [&str; 1] = ["smirk"];

/// Morph delta for one vertex of a face feature (`o` = offset from the feature centre,
/// `cx` = the feature centre's x).
fn morph_delta(expression: &str, feature: Feature, o: Vec3, cx: f32) -> Vec3 {
    let v = Vec3::new;
    let inner = |x: f32| (x.abs() - cx.abs()) * 0.5; // + toward the outer end
    match (expression, feature) {
        ("blink", Feature::Eye(_)) => v(0.0, -o.y * 0.9, 0.0),
        ("blinkLeft", Feature::Eye(s)) if s > 0.0 => v(0.0, -o.y * 0.9, 0.0),
        ("blinkRight", Feature::Eye(s)) if s < 0.0 => v(0.0, -o.y * 0.9, 0.0),
        ("aa", Feature::Mouth) => v(-o.x * 0.2, o.y * 3.0, 0.0),
        ("ih", Feature::Mouth) => v(o.x * 0.3, o.y * 1.0, 0.0),
        ("ou", Feature::Mouth) => v(-o.x * 0.5, o.y * 1.5, 0.0),
        ("ee", Feature::Mouth) => v(o.x * 0.5, o.y * 0.5, 0.0),
        ("oh", Feature::Mouth) => v(-o.x * 0.25, o.y * 2.2, 0.0),
        ("happy", Feature::Brow(_)) => v(0.0, 0.006, 0.0),
        ("happy", Feature::Eye(_)) => v(0.0, -o.y * 0.5, 0.0),
        ("happy", Feature::Mouth) => v(o.x * 0.3, o.x.abs() * 0.3, 0.0),
        ("angry", Feature::Brow(_)) => v(0.0, inner(o.x + cx) - 0.003, 0.0),
        ("sad", Feature::Brow(_)) => v(0.0, -inner(o.x + cx), 0.0),
        ("sad", Feature::Mouth) => v(0.0, -o.x.abs() * 0.3, 0.0),
        ("relaxed", Feature::Eye(_)) => v(0.0, -o.y * 0.6, 0.0),
        ("relaxed", Feature::Brow(_)) => v(0.0, -0.003, 0.0),
        ("surprised", Feature::Brow(_)) => v(0.0, 0.012, 0.0),
        ("surprised", Feature::Eye(_)) => v(0.0, o.y * 0.6, 0.0),
        ("surprised", Feature::Mouth) => v(-o.x * 0.3, o.y * 2.0, 0.0),
        // The model's left corner of the mouth (+x) rises.
        ("smirk", Feature::Mouth) => v(0.0, o.x.max(0.0) * 0.5, 0.0),
        _ => Vec3::ZERO,
    }
}

/// Vertex streams of one mesh.
#[derive(Default)]
struct MeshData {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    colors: Vec<[f32; 4]>,
    joints: Vec<[u16; 4]>,
    indices: Vec<u16>,
    /// Per vertex: which face feature and its centre (for morph targets).
    features: Vec<(Feature, Vec3)>,
}

impl MeshData {
    /// Adds a part's surface: rings of vertices from one end of its long axis to the
    /// other, each an ellipse of the box's cross-section (tapered along a limb).
    fn add_part(&mut self, part: &Part) {
        let centre = (part.min + part.max) * 0.5;
        let half = (part.max - part.min) * 0.5;
        // The long axis `a`, and the two across it in cyclic order (b × d = a), so that
        // the triangles below face outward.
        let a = if half.x >= half.y && half.x >= half.z {
            0
        } else if half.y >= half.z {
            1
        } else {
            2
        };
        let (b, d) = ((a + 1) % 3, (a + 2) % 3);
        let unit = |i: usize| Vec3::AXES[i];
        let (ea, eb, ed) = (unit(a), unit(b), unit(d));
        let (ra, rb, rd) = (half[a], half[b], half[d]);
        let (cap, taper) = match part.shape {
            Shape::Ellipsoid => (ra, 1.0),
            Shape::Capsule { taper } => (ra.min(rb.max(rd)), taper),
        };
        let straight = ra - cap;
        // Which end of the long axis is at the joint (thick there, thinner away).
        let near = if (bone_position(part.joint) - centre)[a] >= 0.0 {
            1.0
        } else {
            -1.0
        };
        let thickness = |along: f32| {
            let away = (1.0 - near * along / ra.max(1e-6)) * 0.5;
            1.0 - (1.0 - taper) * away.clamp(0.0, 1.0)
        };
        // As few vertices as look round at the size drawn (an idle window redraws the
        // avatar now and then; on a CPU renderer every vertex costs).
        let girth = rb.max(rd);
        let around = if girth < 0.02 {
            6
        } else if girth < 0.05 {
            10
        } else {
            14
        };
        let per_cap = if cap < 0.02 {
            1
        } else if cap < 0.05 {
            2
        } else {
            3
        };
        let base = self.positions.len() as u16;
        let rings = 2 * (per_cap + 1);
        for ring in 0..rings {
            // The first half of the rings is the near-+a cap (pole to equator), the
            // second the other cap; between the two equators runs the straight part.
            let (phi, offset) = if ring <= per_cap {
                (ring as f32 / per_cap as f32 * FRAC_PI_2, straight)
            } else {
                let k = (ring - per_cap - 1) as f32 / per_cap as f32;
                (FRAC_PI_2 + k * FRAC_PI_2, -straight)
            };
            let along = offset + cap * phi.cos();
            let scale = thickness(along);
            for step in 0..=around {
                let theta = step as f32 / around as f32 * TAU;
                let across = eb * (rb * theta.cos()) + ed * (rd * theta.sin());
                self.positions
                    .push(centre + ea * along + across * (phi.sin() * scale));
                let normal = ea * (phi.cos() / cap.max(1e-6))
                    + (eb * (theta.cos() / rb.max(1e-6)) + ed * (theta.sin() / rd.max(1e-6)))
                        * phi.sin();
                self.normals.push(normal.normalize_or(ea));
                self.colors.push(part.color);
                self.joints.push([part.joint.index() as u16, 0, 0, 0]);
                self.features.push((part.feature, centre));
            }
        }
        let row = (around + 1) as u16;
        for ring in 0..(rings - 1) as u16 {
            for step in 0..around as u16 {
                let here = base + ring * row + step;
                let below = here + row;
                self.indices.extend_from_slice(&[
                    here,
                    below,
                    below + 1,
                    here,
                    below + 1,
                    here + 1,
                ]);
            }
        }
    }
}

/// VRM 0.x name of a bone (the thumbs were renamed in 1.0).
pub(crate) fn vrm0_bone_name(bone: Bone) -> String {
    let name = bone.name();
    if bone.is_thumb() {
        return name
            .replace("ThumbProximal", "ThumbIntermediate")
            .replace("ThumbMetacarpal", "ThumbProximal");
    }
    name.to_string()
}

pub(crate) fn vrm0_preset_name(expression: &str) -> (&'static str, &str) {
    match expression {
        "blink" => ("blink", "Blink"),
        "blinkLeft" => ("blink_l", "Blink_L"),
        "blinkRight" => ("blink_r", "Blink_R"),
        "aa" => ("a", "A"),
        "ih" => ("i", "I"),
        "ou" => ("u", "U"),
        "ee" => ("e", "E"),
        "oh" => ("o", "O"),
        "happy" => ("joy", "Joy"),
        "angry" => ("angry", "Angry"),
        "sad" => ("sorrow", "Sorrow"),
        "relaxed" => ("fun", "Fun"),
        // VRM 0.x has no "surprised" preset: a custom group keeps the 1.0 name.
        other => ("unknown", other),
    }
}

/// Builds the mannequin as GLB bytes.
pub fn build(variant: MannequinVariant) -> Vec<u8> {
    let frame = |v: Vec3| match variant {
        MannequinVariant::Vrm1 => v,
        MannequinVariant::Vrm0 => Vec3::new(-v.x, v.y, -v.z),
    };
    let mut buf = BufferBuilder::default();

    // Nodes: 0 = root, 1 + bone index = bones, then the two mesh nodes.
    let bone_node = |b: Bone| 1 + b.index();
    let body_node = 1 + BONE_COUNT;
    let face_node = body_node + 1;
    let mut nodes = vec![json!({"name": "Root", "children": [bone_node(Bone::Hips)]})];
    for bone in ALL_BONES {
        let parent_pos = bone.spec_parent().map_or(Vec3::ZERO, bone_position);
        let t = frame(bone_position(bone) - parent_pos);
        let children: Vec<usize> = ALL_BONES
            .iter()
            .filter(|c| c.spec_parent() == Some(bone))
            .map(|c| bone_node(*c))
            .collect();
        let mut node = json!({"name": upper_first(bone.name()), "translation": t.to_array()});
        if !children.is_empty() {
            node["children"] = json!(children);
        }
        nodes.push(node);
    }
    nodes.push(json!({"name": "Body", "mesh": 0, "skin": 0}));
    nodes.push(json!({"name": "Face", "mesh": 1, "skin": 0}));

    let ibms: Vec<Mat4> = ALL_BONES
        .iter()
        .map(|b| Mat4::from_translation(-frame(bone_position(*b))))
        .collect();
    let ibm = buf.mat4(&ibms);
    let skin = json!({"inverseBindMatrices": ibm, "joints": ALL_BONES.map(bone_node).to_vec(), "skeleton": bone_node(Bone::Hips)});

    let mut meshes = Vec::new();
    for (name, parts, material, with_morphs) in [
        ("Body", body_parts(), 0, false),
        ("Face", face_parts(), 1, true),
    ] {
        let mut data = MeshData::default();
        for part in &parts {
            data.add_part(part);
        }
        let positions: Vec<Vec3> = data.positions.iter().map(|p| frame(*p)).collect();
        let normals: Vec<Vec3> = data.normals.iter().map(|n| frame(*n)).collect();
        let weights: Vec<[f32; 4]> = vec![[1.0, 0.0, 0.0, 0.0]; positions.len()];
        let mut attributes = json!({
            "POSITION": buf.vec3(&positions, Some(34962)),
            "NORMAL": buf.vec3(&normals, Some(34962)),
            "JOINTS_0": buf.joints(&data.joints),
            "WEIGHTS_0": buf.vec4_f32(&weights),
        });
        attributes["COLOR_0"] = json!(buf.vec4_f32(&data.colors));
        let mut primitive = json!({"attributes": attributes, "indices": buf.indices(&data.indices), "material": material, "mode": 4});
        let mut mesh = json!({"name": name});
        if with_morphs {
            let mut targets = Vec::new();
            for expression in EXPRESSIONS {
                let deltas: Vec<Vec3> = data
                    .positions
                    .iter()
                    .zip(&data.features)
                    .map(|(p, (feature, centre))| {
                        frame(morph_delta(expression, *feature, *p - *centre, centre.x))
                    })
                    .collect();
                targets.push(json!({"POSITION": buf.vec3(&deltas, Some(34962))}));
            }
            primitive["targets"] = json!(targets);
            mesh["weights"] = json!(vec![0.0; EXPRESSIONS.len()]);
            mesh["extras"] = json!({"targetNames": EXPRESSIONS});
        }
        mesh["primitives"] = json!([primitive]);
        meshes.push(mesh);
    }

    let materials = json!([
        {"name": "Body", "pbrMetallicRoughness": {"baseColorFactor": [0.56, 0.62, 0.72, 1.0], "metallicFactor": 0.0, "roughnessFactor": 0.7}},
        {"name": "Face", "pbrMetallicRoughness": {"baseColorFactor": [1.0, 1.0, 1.0, 1.0], "metallicFactor": 0.0, "roughnessFactor": 0.8}},
    ]);

    let (extension_name, extension) = match variant {
        MannequinVariant::Vrm1 => ("VRMC_vrm", vrm1_extension(&bone_node, face_node)),
        MannequinVariant::Vrm0 => ("VRM", vrm0_extension(&bone_node)),
    };
    let root = json!({
        "asset": {"version": "2.0", "generator": concat!("VRMA Maker ", env!("CARGO_PKG_VERSION"))},
        "extensionsUsed": [extension_name],
        "scene": 0,
        "scenes": [{"name": "Mannequin", "nodes": [0, body_node, face_node]}],
        "nodes": nodes,
        "skins": [skin],
        "meshes": meshes,
        "materials": materials,
        "accessors": buf.accessors,
        "bufferViews": buf.views,
        "buffers": [{"byteLength": buf.bin.len().next_multiple_of(4)}],
        "extensions": { extension_name: extension },
    });
    let mut bin = buf.bin;
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    glb::build(&serde_json::to_vec(&root).expect("JSON serialises"), &bin)
}

pub(crate) fn upper_first(name: &str) -> String {
    let mut chars = name.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

fn vrm1_extension(bone_node: &dyn Fn(Bone) -> usize, face_node: usize) -> Value {
    let group = |custom: bool| -> serde_json::Map<String, Value> {
        EXPRESSIONS
            .iter()
            .enumerate()
            .filter(|(_, name)| CUSTOM_EXPRESSIONS.contains(name) == custom)
            .map(|(i, name)| {
                (name.to_string(), json!({
                    "morphTargetBinds": [{"node": face_node, "index": i, "weight": 1.0}],
                    "isBinary": false, "overrideBlink": "none", "overrideLookAt": "none", "overrideMouth": "none"
                }))
            })
            .collect()
    };
    let mut extension = vrm1_extension_for(TITLE, bone_node, group(false));
    extension["expressions"]["custom"] = Value::Object(group(true));
    // The eyes turn as the 0.x variant's do (between the eyes, 90° → 10°).
    let range = json!({"inputMaxValue": 90.0, "outputScale": 10.0});
    extension["lookAt"] = json!({
        "type": "bone", "offsetFromHeadBone": [0.0, 0.1, 0.0],
        "rangeMapHorizontalInner": range, "rangeMapHorizontalOuter": range,
        "rangeMapVerticalDown": range, "rangeMapVerticalUp": range
    });
    extension
}

/// A `VRMC_vrm` extension of our own models: open licence, all 55 bones, these presets.
pub(crate) fn vrm1_extension_for(
    title: &str,
    bone_node: &dyn Fn(Bone) -> usize,
    preset: serde_json::Map<String, Value>,
) -> Value {
    let human: serde_json::Map<String, Value> = ALL_BONES
        .iter()
        .map(|b| (b.name().to_string(), json!({"node": bone_node(*b)})))
        .collect();
    json!({
        "specVersion": "1.0",
        "meta": {
            "name": title, "version": env!("CARGO_PKG_VERSION"), "authors": ["VRMA Maker contributors"],
            "licenseUrl": "https://vrm.dev/licenses/1.0/",
            "avatarPermission": "everyone", "allowExcessivelyViolentUsage": true,
            "allowExcessivelySexualUsage": false, "commercialUsage": "corporation",
            "allowPoliticalOrReligiousUsage": true, "allowAntisocialOrHateUsage": false,
            "creditNotation": "unnecessary", "allowRedistribution": true,
            "modification": "allowModificationRedistribution"
        },
        "humanoid": {"humanBones": human},
        "expressions": {"preset": preset}
    })
}

fn vrm0_extension(bone_node: &dyn Fn(Bone) -> usize) -> Value {
    let groups: Vec<Value> = EXPRESSIONS
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let (preset, group_name) = vrm0_preset_name(name);
            json!({"name": group_name, "presetName": preset,
                   "binds": [{"mesh": 1, "index": i, "weight": 100}], "materialValues": [], "isBinary": false})
        })
        .collect();
    vrm0_extension_for(TITLE, bone_node, groups, 0.1)
}

/// A `VRM` (0.x) extension of our own models: CC0, all 55 bones, these blend shape
/// groups, a bone look-at; no spring bones or material properties.
pub(crate) fn vrm0_extension_for(
    title: &str,
    bone_node: &dyn Fn(Bone) -> usize,
    groups: Vec<Value>,
    first_person_y: f32,
) -> Value {
    let human: Vec<Value> = ALL_BONES
        .iter()
        .map(|b| json!({"bone": vrm0_bone_name(*b), "node": bone_node(*b), "useDefaultValues": true}))
        .collect();
    let curve = json!({"curve": [0, 0, 0, 1, 1, 1, 1, 0], "xRange": 90, "yRange": 10});
    json!({
        "exporterVersion": concat!("VRMA Maker ", env!("CARGO_PKG_VERSION")),
        "specVersion": "0.0",
        "meta": {
            "title": title, "version": env!("CARGO_PKG_VERSION"), "author": "VRMA Maker contributors",
            "contactInformation": "", "reference": "", "allowedUserName": "Everyone",
            "violentUssageName": "Allow", "sexualUssageName": "Disallow", "commercialUssageName": "Allow",
            "otherPermissionUrl": "", "licenseName": "CC0", "otherLicenseUrl": ""
        },
        "humanoid": {
            "humanBones": human, "armStretch": 0.05, "legStretch": 0.05, "upperArmTwist": 0.5,
            "lowerArmTwist": 0.5, "upperLegTwist": 0.5, "lowerLegTwist": 0.5, "feetSpacing": 0.0,
            "hasTranslationDoF": false
        },
        "firstPerson": {
            "firstPersonBone": bone_node(Bone::Head), "firstPersonBoneOffset": {"x": 0, "y": first_person_y, "z": 0},
            "meshAnnotations": [], "lookAtTypeName": "Bone",
            "lookAtHorizontalInner": curve, "lookAtHorizontalOuter": curve,
            "lookAtVerticalDown": curve, "lookAtVerticalUp": curve
        },
        "blendShapeMaster": {"blendShapeGroups": groups},
        "secondaryAnimation": {"boneGroups": [], "colliderGroups": []},
        "materialProperties": []
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{model::gltf::VrmVersion, model::vrm::Model};

    #[test]
    fn both_variants_load_with_all_55_bones_and_14_expressions() {
        for (variant, version) in [
            (MannequinVariant::Vrm1, VrmVersion::V1),
            (MannequinVariant::Vrm0, VrmVersion::V0),
        ] {
            let model = Model::from_bytes(&build(variant)).unwrap();
            assert_eq!(model.version, version);
            assert_eq!(model.title, TITLE);
            assert!(model.humanoid.iter().all(Option::is_some));
            let (preset, custom) = model.expression_names();
            assert_eq!(preset.len() + custom.len(), EXPRESSIONS.len());
            assert!(custom.iter().any(|c| c == "smirk"), "{custom:?}");
        }
    }

    #[test]
    fn every_bone_has_geometry() {
        let mut parts = body_parts();
        parts.extend(face_parts());
        for bone in ALL_BONES {
            assert!(
                parts.iter().any(|p| p.joint == bone),
                "{bone} has no segment"
            );
        }
    }
}
