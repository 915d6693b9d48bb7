//! The face: one vertex buffer shared by eight primitives (skin, eyes, brows, lashes,
//! mouth, teeth), skinned rigidly to the head and eyes, and its 57 `Fcl_*` morph targets.

use glam::Vec3;

use super::mesh::Streams;
use crate::model::humanoid::Bone;
use crate::model::mannequin::bone_position;

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

/// The face's parts, one primitive each, all in one shared vertex buffer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum FacePart {
    Skin,
    EyeWhite,
    Iris,
    Highlight,
    Brow,
    Lash,
    Mouth,
    Teeth,
}

pub(super) const FACE_PARTS: [FacePart; 8] = [
    FacePart::Skin,
    FacePart::EyeWhite,
    FacePart::Iris,
    FacePart::Highlight,
    FacePart::Brow,
    FacePart::Lash,
    FacePart::Mouth,
    FacePart::Teeth,
];

pub(super) fn face_geometry(head_joint: u16, eye_joints: [u16; 2]) -> Streams {
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
pub(super) fn face_target(face: &Streams, index: usize, name: &str) -> (Vec<Vec3>, Vec<Vec3>) {
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
