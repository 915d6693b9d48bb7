//! Retargeting by limb directions (seed 000's lesson, for every skeleton): raw rotations
//! are meaningless between rigs whose rest poses or bone rolls differ, directions are
//! not. Each mapped bone takes the source joint's turn from its own rest (so rolls
//! cancel), corrected once by the turn between the two rests' limb directions (an
//! A-pose arm is lifted to the T-pose), then swung so the limb points exactly where the
//! source's does. One fixed turn `A` takes the source's axes (Z-up, facing −Z, …) onto
//! the rig's body frame, and the hips path is scaled by the ratio of hips heights.

use glam::{Mat3, Quat, Vec3};

use super::{Local, Mapping, MotionSource, SourceJoint};
use crate::Refusal;
use crate::animation::timeline::FPS;
use crate::body::math::slerp_shortest;
use crate::body::pose::Pose;
use crate::body::rig::Rig;
use crate::model::humanoid::{BONE_COUNT, Bone};

/// One 1/30 s frame of the retargeted motion: normalized rotations and the hips.
#[derive(Clone, Debug, PartialEq)]
pub struct BakedFrame {
    pub bones: [Quat; BONE_COUNT],
    pub hips: Vec3,
    /// Weights of [`Baked::expressions`] (empty for sources without a face).
    pub expressions: Vec<f32>,
}

/// The motion on the rig's grid.
#[derive(Clone, Debug, Default)]
pub struct Baked {
    pub frames: Vec<BakedFrame>,
    /// The bones that move (the others stay at rest).
    pub moving: Vec<Bone>,
    /// The VRM expressions the source drives.
    pub expressions: Vec<String>,
}

/// The bone whose direction from `bone` says where `bone` points.
fn main_child(bone: Bone) -> Option<Bone> {
    use Bone::*;
    Some(match bone {
        Spine => Chest,
        Chest => UpperChest,
        UpperChest => Neck,
        Neck => Head,
        LeftShoulder => LeftUpperArm,
        LeftUpperArm => LeftLowerArm,
        LeftLowerArm => LeftHand,
        LeftHand => LeftMiddleProximal,
        RightShoulder => RightUpperArm,
        RightUpperArm => RightLowerArm,
        RightLowerArm => RightHand,
        RightHand => RightMiddleProximal,
        LeftUpperLeg => LeftLowerLeg,
        LeftLowerLeg => LeftFoot,
        LeftFoot => LeftToes,
        RightUpperLeg => RightLowerLeg,
        RightLowerLeg => RightFoot,
        RightFoot => RightToes,
        b if b.is_finger() => {
            let name = b.name();
            let next = if name.ends_with("Metacarpal") {
                name.replace("Metacarpal", "Proximal")
            } else if name.ends_with("Proximal") && b.is_thumb() {
                name.replace("Proximal", "Distal")
            } else if name.ends_with("Proximal") {
                name.replace("Proximal", "Intermediate")
            } else if name.ends_with("Intermediate") {
                name.replace("Intermediate", "Distal")
            } else {
                return None;
            };
            return Bone::from_name(&next);
        }
        _ => return None,
    })
}

/// World transforms of every joint from their locals (parents come first).
pub fn forward(joints: &[SourceJoint], locals: &[Local], world: &mut [(Vec3, Quat)]) {
    for (i, joint) in joints.iter().enumerate() {
        let local = locals[i];
        world[i] = match joint.parent {
            Some(p) => {
                let (pp, pr) = world[p];
                (
                    pp + pr * local.translation,
                    (pr * local.rotation).normalize(),
                )
            }
            None => (local.translation, local.rotation.normalize()),
        };
    }
}

/// A right-handed frame from an across (left → right) and an up direction.
fn body_frame(across: Vec3, up: Vec3) -> Option<Mat3> {
    let up = up.try_normalize()?;
    let across = (across - up * across.dot(up)).try_normalize()?;
    Some(Mat3::from_cols(across, up, across.cross(up)))
}

/// The rotation taking `from` onto `to` (identity when either has no length).
pub fn arc(from: Vec3, to: Vec3) -> Quat {
    match (from.try_normalize(), to.try_normalize()) {
        (Some(a), Some(b)) => Quat::from_rotation_arc(a, b),
        _ => Quat::IDENTITY,
    }
}

/// What each mapped bone needs, worked out once at rest.
struct BonePlan {
    bone: Bone,
    joint: usize,
    /// The source joint of the bone whose direction this one matches, and the rig's
    /// rest direction towards it.
    aim: Option<(usize, Vec3)>,
    /// The rest-to-rest turn (world, rig frame).
    correction: Quat,
}

/// Samples the source on the rig's 1/30 s grid over `range` and retargets every frame.
pub fn bake(
    source: &dyn MotionSource,
    mapping: &Mapping,
    rig: &Rig,
    range: Option<(f32, f32)>,
    duration: f32,
) -> Result<Baked, Refusal> {
    let joints = source.joints();
    let rest_locals: Vec<Local> = joints
        .iter()
        .map(|j| Local {
            translation: j.rest_translation,
            rotation: j.rest_rotation,
        })
        .collect();
    let mut rest = vec![(Vec3::ZERO, Quat::IDENTITY); joints.len()];
    forward(joints, &rest_locals, &mut rest);
    let target = rig.world_pose(&Pose::default());
    let target_at = |b: Bone| target[b.index()].map(|(p, _)| p);
    let source_at = |b: Bone| mapping.bones.get(&b).map(|&j| rest[j].0);

    // The body frames: hips → neck up, left → right thigh across (arms when no legs).
    let body_frame_of = |at: &dyn Fn(Bone) -> Option<Vec3>| -> Option<Mat3> {
        let hips = at(Bone::Hips)?;
        let top = [
            Bone::Neck,
            Bone::Head,
            Bone::UpperChest,
            Bone::Chest,
            Bone::Spine,
        ]
        .into_iter()
        .find_map(at)?;
        let across = [
            (Bone::LeftUpperLeg, Bone::RightUpperLeg),
            (Bone::LeftUpperArm, Bone::RightUpperArm),
            (Bone::LeftShoulder, Bone::RightShoulder),
        ]
        .into_iter()
        .find_map(|(l, r)| Some(at(r)? - at(l)?))?;
        body_frame(across, top - hips)
    };
    let turn = match (body_frame_of(&source_at), body_frame_of(&target_at)) {
        (Some(s), Some(t)) => Quat::from_mat3(&(t * s.transpose())).normalize(),
        _ => {
            return Err(Refusal::new(
                "the source has no hips-to-neck line and no pair of legs or arms to find its up and facing from",
            ));
        }
    };

    // Hips heights: the rest hips above the lowest point of the skeleton.
    let source_up = turn.inverse() * Vec3::Y;
    let hips_joint = mapping.bones[&Bone::Hips];
    let lowest = rest
        .iter()
        .zip(joints)
        .flat_map(|(&(p, r), j)| [Some(p), j.tip.map(|t| p + r * t)])
        .flatten()
        .map(|p| p.dot(source_up))
        .fold(f32::INFINITY, f32::min);
    let source_height = rest[hips_joint].0.dot(source_up) - lowest;
    let target_height = rig.hips_rest().y;
    if !(source_height.is_finite() && source_height > 1e-6) {
        return Err(Refusal::new(
            "the source's hips are not above its feet: its rest pose cannot be measured",
        ));
    }
    let scale = target_height / source_height;

    // Each bone's plan, parents before children.
    let mut plans: Vec<BonePlan> = Vec::new();
    let mut corrections = [None::<Quat>; BONE_COUNT];
    for &bone in rig.order() {
        let Some(&joint) = mapping.bones.get(&bone) else {
            continue;
        };
        if bone.is_eye() {
            continue;
        }
        let mut child = main_child(bone);
        while let Some(c) = child {
            if rig.has(c) && mapping.bones.contains_key(&c) {
                break;
            }
            child = main_child(c);
        }
        let aim = child.and_then(|c| {
            let rest_dir = target_at(c)? - target_at(bone)?;
            Some((mapping.bones[&c], rest_dir))
        });
        let correction = match aim {
            Some((child_joint, rest_dir)) if bone != Bone::Hips => {
                arc(rest_dir, turn * (rest[child_joint].0 - rest[joint].0))
            }
            // A tip takes its parent's correction (a hand without fingers follows the
            // forearm's), the hips none: their turn is the body's.
            _ => {
                let mut up = rig.bone(bone).and_then(|b| b.parent);
                loop {
                    match up {
                        Some(p) if corrections[p.index()].is_none() => {
                            up = rig.bone(p).and_then(|b| b.parent);
                        }
                        Some(p) => break corrections[p.index()].unwrap_or(Quat::IDENTITY),
                        None => break Quat::IDENTITY,
                    }
                }
            }
        };
        corrections[bone.index()] = Some(correction);
        plans.push(BonePlan {
            bone,
            joint,
            aim: if bone == Bone::Hips { None } else { aim },
            correction,
        });
    }
    let rest_inverse: Vec<Quat> = rest.iter().map(|(_, r)| r.inverse()).collect();

    // The grid over the range.
    let (start, end) = match range {
        Some((a, b)) if a.is_finite() && b.is_finite() => {
            (a.clamp(0.0, duration), b.clamp(0.0, duration))
        }
        _ => (0.0, duration),
    };
    if end < start {
        return Err(Refusal::new(format!(
            "the range ends ({end:.2} s) before it starts ({start:.2} s)"
        )));
    }
    // A frame time written as 0.033333 must not lose the last frame to rounding.
    let count = ((end - start) as f64 * FPS as f64 + 1e-3).floor() as usize + 1;
    let frame_time = source.frame_time();
    let last = source.frame_count() - 1;
    let mut a = vec![rest_locals[0]; joints.len()];
    let mut b = a.clone();
    let mut locals = a.clone();
    let mut world = rest.clone();
    // A root without positions (or with them relative to its rest) would sink into the
    // floor: such a source is taken to stand on it at rest.
    source.frame(0, &mut a);
    forward(joints, &a, &mut world);
    let first_height = world[hips_joint].0.dot(source_up);
    let lift = if first_height < 0.5 * source_height {
        source_up * (source_height - rest[hips_joint].0.dot(source_up))
    } else {
        Vec3::ZERO
    };
    let mut frames = Vec::with_capacity(count);
    let mut loaded = (usize::MAX, usize::MAX);
    let expressions = source.expression_names().to_vec();
    let (mut faces_a, mut faces_b) = (vec![0.0; expressions.len()], vec![0.0; expressions.len()]);
    for k in 0..count {
        let t = start as f64 + k as f64 / FPS as f64;
        let at = (t / frame_time as f64).max(0.0);
        let f0 = (at.floor() as usize).min(last);
        let f1 = (f0 + 1).min(last);
        let w = (at - f0 as f64).clamp(0.0, 1.0) as f32;
        if loaded != (f0, f1) {
            source.frame(f0, &mut a);
            source.frame(f1, &mut b);
            source.expressions(f0, &mut faces_a);
            source.expressions(f1, &mut faces_b);
            loaded = (f0, f1);
        }
        for i in 0..joints.len() {
            locals[i] = Local {
                translation: a[i].translation.lerp(b[i].translation, w),
                rotation: slerp_shortest(a[i].rotation, b[i].rotation, w),
            };
        }
        forward(joints, &locals, &mut world);
        let mut out_world = [None::<Quat>; BONE_COUNT];
        let mut bones = [Quat::IDENTITY; BONE_COUNT];
        for plan in &plans {
            let delta = turn * world[plan.joint].1 * rest_inverse[plan.joint] * turn.inverse();
            let mut rotation = delta * plan.correction;
            if let Some((child_joint, rest_dir)) = plan.aim {
                let now = turn * (world[child_joint].0 - world[plan.joint].0);
                rotation = arc(rotation * rest_dir, now) * rotation;
            }
            out_world[plan.bone.index()] = Some(rotation.normalize());
        }
        // Locals from worlds; bones the source lacks follow their parent.
        for &bone in rig.order() {
            let parent_world = rig
                .bone(bone)
                .and_then(|b| b.parent)
                .and_then(|p| out_world[p.index()])
                .unwrap_or(Quat::IDENTITY);
            match out_world[bone.index()] {
                Some(w) => bones[bone.index()] = (parent_world.inverse() * w).normalize(),
                None => out_world[bone.index()] = Some(parent_world),
            }
        }
        let hips = turn * (world[hips_joint].0 + lift) * scale;
        if !(hips.is_finite() && bones.iter().all(|q| q.is_finite())) {
            return Err(Refusal::new(format!(
                "frame {f0} does not give a usable pose (values out of range)"
            )));
        }
        if hips.abs().max_element() > 1e4 {
            return Err(Refusal::new(format!(
                "frame {f0} puts the hips further than 10 km away: the units or the rest pose are unusable"
            )));
        }
        let faces = faces_a
            .iter()
            .zip(&faces_b)
            .map(|(a, b)| a + (b - a) * w)
            .collect();
        frames.push(BakedFrame {
            bones,
            hips,
            expressions: faces,
        });
    }
    let moving = plans.iter().map(|p| p.bone).collect();
    Ok(Baked {
        frames,
        moving,
        expressions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_chain_leads_down_the_limb() {
        assert_eq!(
            main_child(Bone::LeftThumbMetacarpal),
            Some(Bone::LeftThumbProximal)
        );
        assert_eq!(
            main_child(Bone::LeftThumbProximal),
            Some(Bone::LeftThumbDistal)
        );
        assert_eq!(
            main_child(Bone::RightIndexProximal),
            Some(Bone::RightIndexIntermediate)
        );
        assert_eq!(
            main_child(Bone::RightIndexIntermediate),
            Some(Bone::RightIndexDistal)
        );
        assert_eq!(main_child(Bone::RightIndexDistal), None);
        assert_eq!(main_child(Bone::Head), None);
    }
}
