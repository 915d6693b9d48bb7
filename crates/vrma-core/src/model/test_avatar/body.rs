//! The body, hair and clothes meshes: a tube per bone segment (skin, top, bottom and
//! shoes as four primitives of one buffer) and a strand along each spring-bone hair chain.

use glam::Vec3;

use super::mesh::{Streams, blend};
use crate::model::humanoid::{ALL_BONES, Bone};
use crate::model::mannequin::bone_position;

/// Hair: spring-bone chains hanging from the head.
pub(super) const HAIR_CHAINS: usize = 16;
pub(super) const HAIR_JOINTS: usize = 5;
/// The angle about the head the chains hang round, centred on the back.
const HAIR_SPAN: f32 = 0.7 * std::f32::consts::TAU;

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

/// Hair chain `k`: joint positions hanging from the head.
pub(super) fn hair_joint_position(k: usize, j: usize) -> Vec3 {
    use std::f32::consts::TAU;
    let head = bone_position(Bone::Head);
    // Round the sides and back, the face left open as VRoid's hair leaves it (a face
    // under a curtain of hair reads as a head seen from behind).
    let angle = (k as f32 + 0.5) / HAIR_CHAINS as f32 * HAIR_SPAN + (TAU - HAIR_SPAN) / 2.0;
    let out = Vec3::new(angle.sin(), 0.0, angle.cos());
    head + Vec3::new(0.0, 0.17, 0.0) + out * (0.07 + 0.02 * j as f32) - Vec3::Y * (0.06 * j as f32)
}

/// Body: one tube per bone segment, four primitives in one shared buffer.
pub(super) fn body_streams(bone_joint: &dyn Fn(Bone) -> u16) -> Streams {
    let mut body = Streams::with_parts(4);
    for bone in ALL_BONES {
        if let Some(parent) = bone.spec_parent()
            && radius(parent) > 0.0
        {
            body_segment(&mut body, bone, bone_joint(bone), bone_joint(parent));
        }
    }
    body
}

/// Hair: a strand along each chain.
pub(super) fn hair_streams(
    chains: &[Vec<usize>],
    position: &dyn Fn(usize) -> Vec3,
    joint_of: &dyn Fn(usize) -> u16,
) -> Streams {
    let mut hair = Streams::with_parts(1);
    for chain in chains {
        for pair in chain.windows(2) {
            let (a, b) = (position(pair[0]), position(pair[1]));
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
    hair
}
