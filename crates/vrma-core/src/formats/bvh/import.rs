//! A BVH file as a motion source: offsets as rest translations (rest rotations are the
//! identity in BVH), each frame's channels applied in the file's order — position
//! channels replace the offset's components, rotation channels (degrees) compose in the
//! order listed — and `End Site`s as the chains' tips.

use glam::{Quat, Vec3};

use super::read::{Bvh, Channel};
use crate::Refusal;
use crate::body::rig::Rig;
use crate::formats::imported::Imported;
use crate::formats::motion::{Local, MotionOptions, MotionSource, SourceJoint, import_motion};

/// A parsed BVH with its joints in the motion's shape.
pub struct BvhMotion {
    bvh: Bvh,
    joints: Vec<SourceJoint>,
}

impl BvhMotion {
    pub fn new(bvh: Bvh) -> BvhMotion {
        let joints = bvh
            .joints
            .iter()
            .enumerate()
            .map(|(i, j)| SourceJoint {
                name: j.name.clone(),
                parent: j.parent,
                rest_translation: j.offset,
                rest_rotation: Quat::IDENTITY,
                // The End Site, or else the first child's offset.
                tip: j.end.or_else(|| {
                    bvh.joints
                        .iter()
                        .skip(i + 1)
                        .find(|c| c.parent == Some(i))
                        .map(|c| c.offset)
                }),
            })
            .collect();
        BvhMotion { bvh, joints }
    }
}

impl MotionSource for BvhMotion {
    fn joints(&self) -> &[SourceJoint] {
        &self.joints
    }

    fn frame_count(&self) -> usize {
        self.bvh.frames
    }

    fn frame_time(&self) -> f32 {
        self.bvh.frame_time
    }

    fn frame(&self, frame: usize, out: &mut [Local]) {
        let values = self.bvh.frame(frame);
        for (joint, local) in self.bvh.joints.iter().zip(out.iter_mut()) {
            let mut translation = joint.offset;
            let mut rotation = Quat::IDENTITY;
            for (k, channel) in joint.channels.iter().enumerate() {
                let v = values[joint.first_value + k];
                match channel {
                    Channel::XPosition => translation.x = v,
                    Channel::YPosition => translation.y = v,
                    Channel::ZPosition => translation.z = v,
                    Channel::XRotation => {
                        rotation *= Quat::from_axis_angle(Vec3::X, v.to_radians())
                    }
                    Channel::YRotation => {
                        rotation *= Quat::from_axis_angle(Vec3::Y, v.to_radians())
                    }
                    Channel::ZRotation => {
                        rotation *= Quat::from_axis_angle(Vec3::Z, v.to_radians())
                    }
                }
            }
            *local = Local {
                translation,
                rotation: rotation.normalize(),
            };
        }
    }
}

/// Reads a BVH file's bytes and retargets its motion onto `rig`.
pub fn import_bvh(bytes: &[u8], rig: &Rig, options: &MotionOptions) -> Result<Imported, Refusal> {
    let motion = BvhMotion::new(super::read::parse(bytes)?);
    import_motion(&motion, rig, options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::math::angle_between;
    use crate::body::rig::rig_from_bytes;
    use crate::model::humanoid::Bone;
    use crate::model::mannequin::{MannequinVariant, build};

    /// A small Z-up skeleton in centimetres with its arms 40° down (an A-pose), facing
    /// −Y; frame 0 is its rest, frame 1 lifts the left arm to the horizontal.
    fn a_pose_bvh() -> String {
        let (s, c) = (40f32.to_radians().sin(), 40f32.to_radians().cos());
        let arm = |x: f32| format!("{:.4} 0 {:.4}", x * c, -x * s);
        let rest = format!("0 0 95 0 0 0{}", " 0 0 0".repeat(10));
        // Frame 1: the left arm (the fourth joint after the hips) turned −40° about Y.
        let lifted = format!(
            "0 0 95 0 0 0{} 0 0 -40{}",
            " 0 0 0".repeat(3),
            " 0 0 0".repeat(6)
        );
        format!(
            "HIERARCHY\nROOT Hips\n{{\n OFFSET 0 0 95\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n\
             JOINT Spine\n {{\n  OFFSET 0 0 20\n  CHANNELS 3 Zrotation Xrotation Yrotation\n\
              JOINT Neck\n  {{\n   OFFSET 0 0 30\n   CHANNELS 3 Zrotation Xrotation Yrotation\n\
               JOINT Head\n   {{\n    OFFSET 0 0 10\n    CHANNELS 3 Zrotation Xrotation Yrotation\n    End Site\n    {{\n     OFFSET 0 0 20\n    }}\n   }}\n  }}\n\
              JOINT LeftArm\n  {{\n   OFFSET 15 0 25\n   CHANNELS 3 Zrotation Xrotation Yrotation\n\
               JOINT LeftForeArm\n   {{\n    OFFSET {}\n    CHANNELS 3 Zrotation Xrotation Yrotation\n\
                JOINT LeftHand\n    {{\n     OFFSET {}\n     CHANNELS 3 Zrotation Xrotation Yrotation\n     End Site\n     {{\n      OFFSET {}\n     }}\n    }}\n   }}\n  }}\n }}\n\
             JOINT LeftUpLeg\n {{\n  OFFSET 10 0 -5\n  CHANNELS 3 Zrotation Xrotation Yrotation\n\
              JOINT LeftLeg\n  {{\n   OFFSET 0 0 -45\n   CHANNELS 3 Zrotation Xrotation Yrotation\n\
               JOINT LeftFoot\n   {{\n    OFFSET 0 0 -45\n    CHANNELS 3 Zrotation Xrotation Yrotation\n    End Site\n    {{\n     OFFSET 0 -10 0\n    }}\n   }}\n  }}\n }}\n\
             JOINT RightUpLeg\n {{\n  OFFSET -10 0 -5\n  CHANNELS 3 Zrotation Xrotation Yrotation\n  End Site\n  {{\n   OFFSET 0 0 -90\n  }}\n }}\n}}\n\
             MOTION\nFrames: 2\nFrame Time: 0.0333333\n",
            arm(25.0),
            arm(25.0),
            arm(8.0),
        ) + &format!("{rest}\n{lifted}\n")
    }

    #[test]
    fn a_z_up_centimetre_a_pose_moves_the_rig_in_the_same_directions() {
        for variant in [MannequinVariant::Vrm1, MannequinVariant::Vrm0] {
            let rig = rig_from_bytes(&build(variant)).unwrap();
            let options = MotionOptions {
                keys: crate::formats::motion::KeyPolicy::EveryFrame,
                ..Default::default()
            };
            let imported = import_bvh(a_pose_bvh().as_bytes(), &rig, &options).unwrap();
            let keys = imported.timeline.keys();
            assert_eq!(keys.len(), 2);
            // Frame 0 is the source's rest, an A-pose: the rig's arm points 40° down as
            // the source's does, and the rest of the body stays at the rig's rest with
            // the hips at its height (95 cm of source scaled to the rig).
            let elevation = |pose: &crate::body::pose::Pose| {
                let world = rig.world_pose(pose);
                let shoulder = world[Bone::LeftUpperArm.index()].unwrap().0;
                let elbow = world[Bone::LeftLowerArm.index()].unwrap().0;
                (elbow - shoulder).normalize().y.asin().to_degrees()
            };
            let rest = &keys[0].pose;
            assert!(
                (elevation(rest) + 40.0).abs() < 0.05,
                "{variant:?}: {}°",
                elevation(rest)
            );
            for bone in [
                Bone::Spine,
                Bone::Neck,
                Bone::LeftUpperLeg,
                Bone::LeftLowerArm,
            ] {
                let angle = angle_between(rest.rotation(bone), Quat::IDENTITY).to_degrees();
                assert!(angle < 0.01, "{variant:?} {bone:?}: {angle}°");
            }
            let hips = rest.hips.unwrap();
            assert!(
                (hips.y - rig.hips_rest().y).abs() < 1e-4,
                "{hips} vs {}",
                rig.hips_rest()
            );
            // Frame 1 lifts the arm level: the rig's T-pose, whatever its bone axes.
            let lifted = &keys[1].pose;
            assert!(
                elevation(lifted).abs() < 0.05,
                "{variant:?}: {}°",
                elevation(lifted)
            );
            let arm = angle_between(lifted.rotation(Bone::LeftUpperArm), Quat::IDENTITY);
            assert!(
                arm.to_degrees() < 0.05,
                "{variant:?}: {}°",
                arm.to_degrees()
            );
            assert!(imported.warnings.iter().any(|w| w.contains("the fingers")));
        }
    }
}
