//! A rig's timeline as BVH: the model's humanoid skeleton (fingers included) with its
//! own rest offsets, Y-up and facing +Z (the VRM 1.0 frame), at the project's rate with
//! eases and planted feet baked. The normalized rig's rest rotations are the identity,
//! so each joint's BVH rotation is the pose's normalized rotation as it is, written as
//! Z·X·Y Euler angles (the order most readers expect) kept continuous from frame to
//! frame so no reader sees a 360° jump.

use std::fmt::Write as _;

use glam::{EulerRot, Quat, Vec3};

use crate::animation::timeline::Timeline;
use crate::body::pose::Pose;
use crate::body::rig::Rig;
use crate::formats::vrma::export::{export_fps, sample_frames};
use crate::model::humanoid::Bone;

/// Lengths in the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BvhUnit {
    #[default]
    Metres,
    Centimetres,
}

impl BvhUnit {
    pub fn scale(self) -> f32 {
        match self {
            BvhUnit::Metres => 1.0,
            BvhUnit::Centimetres => 100.0,
        }
    }

    pub fn from_name(name: &str) -> Option<BvhUnit> {
        match name {
            "m" => Some(BvhUnit::Metres),
            "cm" => Some(BvhUnit::Centimetres),
            _ => None,
        }
    }
}

/// What a BVH export wrote.
pub struct BvhExport {
    pub text: String,
    pub frames: usize,
    pub joints: usize,
    pub duration: f32,
}

/// The bones written: every humanoid bone the model has but the eyes (the gaze is not a
/// joint's motion).
fn written_bones(rig: &Rig) -> Vec<Bone> {
    rig.order()
        .iter()
        .copied()
        .filter(|b| !b.is_eye())
        .collect()
}

fn number(out: &mut String, v: f32) {
    // Six decimals, no "-0.000000".
    let v = if v.abs() < 5e-7 { 0.0 } else { v };
    let _ = write!(out, "{v:.6}");
}

fn write_vec(out: &mut String, v: Vec3) {
    number(out, v.x);
    out.push(' ');
    number(out, v.y);
    out.push(' ');
    number(out, v.z);
}

/// The hierarchy of `bone` and everything under it, indented `depth` tabs.
fn write_joint(out: &mut String, rig: &Rig, bones: &[Bone], bone: Bone, depth: usize, scale: f32) {
    let tabs = "\t".repeat(depth);
    let rig_bone = rig.bone(bone).expect("written bones are present");
    let (word, channels, offset) = if bone == Bone::Hips {
        (
            "ROOT",
            "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation",
            rig.hips_rest(),
        )
    } else {
        (
            "JOINT",
            "CHANNELS 3 Zrotation Xrotation Yrotation",
            rig_bone.rest_offset,
        )
    };
    let _ = writeln!(out, "{tabs}{word} {}", bone.name());
    let _ = writeln!(out, "{tabs}{{");
    out.push_str(&tabs);
    out.push_str("\tOFFSET ");
    write_vec(out, offset * scale);
    out.push('\n');
    let _ = writeln!(out, "{tabs}\t{channels}");
    let children: Vec<Bone> = bones
        .iter()
        .copied()
        .filter(|b| rig.bone(*b).and_then(|r| r.parent) == Some(bone))
        .collect();
    if children.is_empty() {
        // The tip continues the bone from its parent, half as long again (a head points
        // up, a fingertip on along the finger).
        let tip = if bone == Bone::Hips {
            Vec3::Y * 0.1
        } else {
            rig_bone.rest_offset * 0.5
        };
        let _ = writeln!(out, "{tabs}\tEnd Site");
        let _ = writeln!(out, "{tabs}\t{{");
        out.push_str(&tabs);
        out.push_str("\t\tOFFSET ");
        write_vec(out, tip * scale);
        out.push('\n');
        let _ = writeln!(out, "{tabs}\t}}");
    }
    for child in children {
        write_joint(out, rig, bones, child, depth + 1, scale);
    }
    let _ = writeln!(out, "{tabs}}}");
}

/// Z·X·Y Euler angles in degrees, each within 180° of the previous frame's.
fn euler_zxy(q: Quat, previous: Option<[f32; 3]>) -> [f32; 3] {
    let (z, x, y) = q.to_euler(EulerRot::ZXY);
    let mut angles = [z.to_degrees(), x.to_degrees(), y.to_degrees()];
    if let Some(prev) = previous {
        for (a, p) in angles.iter_mut().zip(prev) {
            *a += ((p - *a) / 360.0).round() * 360.0;
        }
    }
    angles
}

/// Writes the timeline (or, without keys, `still` as one frame) as BVH.
pub fn export_bvh(
    rig: &Rig,
    timeline: &Timeline,
    still: &Pose,
    fps: f32,
    unit: BvhUnit,
    progress: &mut dyn FnMut(f32),
) -> BvhExport {
    let fps = export_fps(fps);
    let end = timeline.end();
    // BVH frames are evenly spaced: the grid only (a key between frames is sampled
    // by its neighbours, as every BVH reader would).
    let grid = (end as f64 * fps as f64 + 1e-6).floor() as usize;
    let times: Vec<f32> = (0..=grid).map(|f| (f as f64 / fps as f64) as f32).collect();
    let poses = sample_frames(rig, timeline, still, &times, &mut |p| progress(p * 0.5));
    let bones = written_bones(rig);
    let scale = unit.scale();
    let mut out = String::with_capacity(64 * bones.len() * (poses.len() + 4));
    out.push_str("HIERARCHY\n");
    write_joint(&mut out, rig, &bones, Bone::Hips, 0, scale);
    out.push_str("MOTION\n");
    let _ = writeln!(out, "Frames: {}", poses.len());
    let _ = writeln!(out, "Frame Time: {:.7}", 1.0 / fps);
    // The channel order of the hierarchy: depth first, as written.
    let mut order = Vec::with_capacity(bones.len());
    let mut stack = vec![Bone::Hips];
    while let Some(bone) = stack.pop() {
        order.push(bone);
        let children = bones
            .iter()
            .copied()
            .filter(|b| rig.bone(*b).and_then(|r| r.parent) == Some(bone));
        let mut children: Vec<Bone> = children.collect();
        children.reverse();
        stack.extend(children);
    }
    let mut previous: Vec<Option<[f32; 3]>> = vec![None; order.len()];
    let count = poses.len().max(1);
    for (f, pose) in poses.iter().enumerate() {
        for (j, &bone) in order.iter().enumerate() {
            if bone == Bone::Hips {
                write_vec(&mut out, pose.hips.unwrap_or(rig.hips_rest()) * scale);
                out.push(' ');
            }
            let angles = euler_zxy(pose.rotation(bone).normalize(), previous[j]);
            previous[j] = Some(angles);
            for (k, a) in angles.iter().enumerate() {
                number(&mut out, *a);
                out.push(if j + 1 == order.len() && k == 2 {
                    '\n'
                } else {
                    ' '
                });
            }
        }
        progress(0.5 + 0.5 * (f + 1) as f32 / count as f32);
    }
    BvhExport {
        text: out,
        frames: poses.len(),
        joints: order.len(),
        duration: end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::animation::timeline::{Ease, Key};
    use crate::body::math::angle_between;
    use crate::body::rig::rig_from_bytes;
    use crate::formats::bvh::read::parse;
    use crate::model::mannequin::{MannequinVariant, build};

    #[test]
    fn euler_angles_compose_in_the_order_the_channels_say() {
        let q = Quat::from_euler(EulerRot::YXZ, 0.4, -0.3, 1.1);
        let [z, x, y] = euler_zxy(q, None);
        let back = Quat::from_rotation_z(z.to_radians())
            * Quat::from_rotation_x(x.to_radians())
            * Quat::from_rotation_y(y.to_radians());
        assert!(angle_between(q, back) < 1e-5);
        let unwrapped = euler_zxy(Quat::from_rotation_z(179f32.to_radians()), None);
        let next = euler_zxy(Quat::from_rotation_z(-179f32.to_radians()), Some(unwrapped));
        assert!((next[0] - 181.0).abs() < 1e-3, "{next:?}");
    }

    #[test]
    fn the_file_reads_back_with_the_rigs_skeleton_and_every_frame() {
        let rig = rig_from_bytes(&build(MannequinVariant::Vrm0)).unwrap();
        let mut lifted = Pose::default();
        lifted.set_rotation(Bone::LeftUpperArm, Quat::from_rotation_z(0.7));
        lifted.set_rotation(Bone::RightIndexProximal, Quat::from_rotation_x(0.4));
        lifted.hips = Some(rig.hips_rest() + Vec3::new(0.1, -0.05, 0.3));
        let keys = vec![
            Key {
                id: 1,
                file_id: None,
                t: 0.0,
                ease: Ease::InOut,
                pose: Pose::default(),
            },
            Key {
                id: 2,
                file_id: None,
                t: 1.0,
                ease: Ease::Linear,
                pose: lifted.clone(),
            },
        ];
        let timeline = Timeline::from_keys(keys).unwrap();
        let export = export_bvh(
            &rig,
            &timeline,
            &Pose::default(),
            30.0,
            BvhUnit::Centimetres,
            &mut |_| {},
        );
        let bvh = parse(export.text.as_bytes()).unwrap();
        assert_eq!(bvh.frames, 31);
        assert_eq!(bvh.joints.len(), written_bones(&rig).len());
        assert!(bvh.joints.iter().any(|j| j.name == "rightIndexDistal"));
        let last = bvh.frame(30);
        assert!((Vec3::from_slice(&last[..3]) - lifted.hips.unwrap() * 100.0).length() < 1e-3);
        let arm = bvh
            .joints
            .iter()
            .find(|j| j.name == "leftUpperArm")
            .unwrap();
        let v = &last[arm.first_value..arm.first_value + 3];
        let q = Quat::from_rotation_z(v[0].to_radians())
            * Quat::from_rotation_x(v[1].to_radians())
            * Quat::from_rotation_y(v[2].to_radians());
        assert!(angle_between(q, lifted.rotation(Bone::LeftUpperArm)) < 1e-4);
    }
}
