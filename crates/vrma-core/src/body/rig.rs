//! The normalized humanoid rig (SPEC §2): identity rest rotations, rest offsets from the
//! nearest humanoid ancestor in model space, and the conversion that drives raw bones.
//! Everything here is in the VRM 1.0 frame (faces +Z); a VRM 0.x model's own frame is
//! reached through [`Rig::to_model_frame_quat`] / [`Rig::to_model_frame_vec`].

use crate::body::pose::PoseDirections;
use crate::model::humanoid::Side;
use glam::{Affine3A, Quat, Vec3};
use std::path::Path;

use crate::Refusal;
use crate::body::pose::Pose;
use crate::model::humanoid::{ALL_BONES, BONE_COUNT, Bone};
use crate::{model::gltf::VrmVersion, model::vrm::Model};

/// One humanoid bone as the normalized rig sees it.
#[derive(Clone, Debug)]
pub struct RigBone {
    pub node: usize,
    /// Nearest humanoid ancestor (None only for hips).
    pub parent: Option<Bone>,
    /// Rest offset from the parent bone (for hips: the rest hips position), VRM 1.0 frame.
    pub rest_offset: Vec3,
    /// `P_b`: world rest rotation of the raw parent node, in the model's own frame.
    parent_world_rest_rotation: Quat,
    /// `L_b`: rest local rotation of the raw node.
    rest_local_rotation: Quat,
    /// The raw parent's world rest transform (to bring hips into the parent's space).
    parent_world_rest: Affine3A,
}

/// A raw node's local transform as the renderer should set it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RawLocal {
    pub node: usize,
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
}

/// World (model-space, VRM 1.0 frame) position and rotation of each present bone.
pub type WorldPose = [Option<(Vec3, Quat)>; BONE_COUNT];

/// The normalized skeleton of one model.
#[derive(Clone, Debug)]
pub struct Rig {
    pub model: Model,
    bones: [Option<RigBone>; BONE_COUNT],
    /// Present bones, parents before children.
    order: Vec<Bone>,
    /// World rest transform of every raw node, model's own frame.
    node_world_rest: Vec<Affine3A>,
}

fn flip_vec(v: Vec3) -> Vec3 {
    Vec3::new(-v.x, v.y, -v.z)
}

fn flip_quat(q: Quat) -> Quat {
    Quat::from_xyzw(-q.x, q.y, -q.z, q.w)
}

impl Rig {
    /// Builds the rig; fails when a humanoid bone is not under the hips.
    pub fn new(model: Model) -> Result<Rig, Refusal> {
        let nodes = &model.nodes;
        let mut node_world_rest = vec![Affine3A::IDENTITY; nodes.len()];
        let mut done = vec![false; nodes.len()];
        // Depth-first from the roots: the hierarchy was checked to be a forest.
        let mut stack: Vec<usize> = (0..nodes.len())
            .filter(|&i| nodes[i].parent.is_none())
            .collect();
        while let Some(i) = stack.pop() {
            let n = &nodes[i];
            let local =
                Affine3A::from_scale_rotation_translation(n.scale, n.rotation, n.translation);
            node_world_rest[i] = match n.parent {
                Some(p) => node_world_rest[p] * local,
                None => local,
            };
            done[i] = true;
            stack.extend(n.children.iter().copied());
        }
        debug_assert!(done.iter().all(|d| *d));

        let mut bone_of_node = vec![None; nodes.len()];
        for bone in ALL_BONES {
            if let Some(node) = model.humanoid[bone.index()] {
                bone_of_node[node] = Some(bone);
            }
        }
        let flip = model.version == VrmVersion::V0;
        let to_rig = |v: Vec3| if flip { flip_vec(v) } else { v };
        let depth = |mut i: usize| {
            let mut d = 0;
            while let Some(p) = nodes[i].parent {
                d += 1;
                i = p;
            }
            d
        };

        let mut bones: [Option<RigBone>; BONE_COUNT] = std::array::from_fn(|_| None);
        let mut order = Vec::new();
        for bone in ALL_BONES {
            let Some(node) = model.humanoid[bone.index()] else {
                continue;
            };
            let mut parent = None;
            let mut at = nodes[node].parent;
            while let Some(p) = at {
                if let Some(b) = bone_of_node[p] {
                    parent = Some(b);
                    break;
                }
                at = nodes[p].parent;
            }
            if bone != Bone::Hips && parent.is_none() {
                return Err(Refusal::new(format!(
                    "humanoid bone '{bone}' is not a descendant of 'hips'"
                )));
            }
            if bone == Bone::Hips && parent.is_some() {
                return Err(Refusal::new("'hips' is below another humanoid bone"));
            }
            let world_pos = node_world_rest[node].translation.into();
            let rest_offset = match parent {
                Some(p) => {
                    let pn = model.humanoid[p.index()].expect("parent is present");
                    to_rig(world_pos - Vec3::from(node_world_rest[pn].translation))
                }
                None => to_rig(world_pos),
            };
            let parent_world_rest = nodes[node]
                .parent
                .map_or(Affine3A::IDENTITY, |p| node_world_rest[p]);
            let (_, parent_rot, _) = parent_world_rest.to_scale_rotation_translation();
            bones[bone.index()] = Some(RigBone {
                node,
                parent,
                rest_offset,
                parent_world_rest_rotation: parent_rot.normalize(),
                rest_local_rotation: nodes[node].rotation,
                parent_world_rest,
            });
            order.push((depth(node), bone));
        }
        order.sort_by_key(|(d, b)| (*d, *b));
        let order = order.into_iter().map(|(_, b)| b).collect();
        Ok(Rig {
            model,
            bones,
            order,
            node_world_rest,
        })
    }

    pub fn version(&self) -> VrmVersion {
        self.model.version
    }

    pub fn bone(&self, bone: Bone) -> Option<&RigBone> {
        self.bones[bone.index()].as_ref()
    }

    pub fn has(&self, bone: Bone) -> bool {
        self.bones[bone.index()].is_some()
    }

    /// Present bones, parents before children.
    pub fn order(&self) -> &[Bone] {
        &self.order
    }

    /// Rest hips position in model space (VRM 1.0 frame).
    pub fn hips_rest(&self) -> Vec3 {
        self.bones[Bone::Hips.index()]
            .as_ref()
            .map_or(Vec3::ZERO, |b| b.rest_offset)
    }

    /// World rest transform of a raw node in the model's own frame.
    pub fn node_world_rest(&self, node: usize) -> Affine3A {
        self.node_world_rest[node]
    }

    /// A VRM 1.0-convention rotation in the model's own frame (VRM 0.x: `(-x,y,-z,w)`).
    pub fn to_model_frame_quat(&self, q: Quat) -> Quat {
        if self.version() == VrmVersion::V0 {
            flip_quat(q)
        } else {
            q
        }
    }

    /// A VRM 1.0-frame position in the model's own frame (VRM 0.x: `(-x,y,-z)`).
    pub fn to_model_frame_vec(&self, v: Vec3) -> Vec3 {
        if self.version() == VrmVersion::V0 {
            flip_vec(v)
        } else {
            v
        }
    }

    /// `raw_local_rotation(b) = P_b⁻¹ · n_b · P_b · L_b` with `n_b` in the model's frame.
    pub fn raw_local_rotation(&self, bone: Bone, normalized: Quat) -> Option<Quat> {
        let b = self.bone(bone)?;
        let n = self.to_model_frame_quat(normalized);
        let p = b.parent_world_rest_rotation;
        Some((p.inverse() * n * p * b.rest_local_rotation).normalize())
    }

    /// The inverse of [`Rig::raw_local_rotation`]: `n_b = P_b · raw · L_b⁻¹ · P_b⁻¹`,
    /// returned in the VRM 1.0 convention.
    pub fn normalized_rotation(&self, bone: Bone, raw_local: Quat) -> Option<Quat> {
        let b = self.bone(bone)?;
        let p = b.parent_world_rest_rotation;
        let n = (p * raw_local * b.rest_local_rotation.inverse() * p.inverse()).normalize();
        Some(self.to_model_frame_quat(n))
    }

    /// The raw local transforms of every humanoid bone for a pose. Non-humanoid nodes
    /// keep their rest transforms.
    pub fn raw_locals(&self, pose: &Pose) -> Vec<RawLocal> {
        let mut out = Vec::with_capacity(self.order.len());
        for &bone in &self.order {
            let b = self.bone(bone).expect("ordered bones are present");
            let node = &self.model.nodes[b.node];
            let rotation = self
                .raw_local_rotation(bone, pose.rotation(bone))
                .unwrap_or(node.rotation);
            let translation = if bone == Bone::Hips {
                let hips = self.to_model_frame_vec(pose.hips.unwrap_or(self.hips_rest()));
                b.parent_world_rest.inverse().transform_point3(hips)
            } else {
                node.translation
            };
            out.push(RawLocal {
                node: b.node,
                translation,
                rotation,
                scale: node.scale,
            });
        }
        out
    }

    /// Forward kinematics on the normalized skeleton: model-space position and rotation
    /// of every present bone, VRM 1.0 frame.
    pub fn world_pose(&self, pose: &Pose) -> WorldPose {
        let mut world: WorldPose = [None; BONE_COUNT];
        for &bone in &self.order {
            let b = self.bone(bone).expect("ordered bones are present");
            let local = pose.rotation(bone);
            world[bone.index()] = Some(match b.parent.and_then(|p| world[p.index()]) {
                Some((ppos, prot)) => (ppos + prot * b.rest_offset, prot * local),
                None => (pose.hips.unwrap_or(b.rest_offset), local),
            });
        }
        world
    }

    /// World position of one bone after a pose (convenience for tests and measures).
    pub fn world_position(&self, pose: &Pose, bone: Bone) -> Option<Vec3> {
        self.world_pose(pose)[bone.index()].map(|(p, _)| p)
    }
}

/// Reads and parses a VRM file into its normalized rig.
pub fn load_rig(path: &Path) -> Result<Rig, Refusal> {
    let bytes = crate::read_bounded(path, crate::MAX_FILE_BYTES)?;
    rig_from_bytes(&bytes).map_err(|e| e.context(path.display()))
}

/// Parses VRM bytes into the normalized rig.
pub fn rig_from_bytes(bytes: &[u8]) -> Result<Rig, Refusal> {
    Rig::new(Model::from_bytes(bytes)?)
}

impl PoseDirections {
    /// Rotates each upper arm and index proximal a little about local Z from the rest
    /// pose and records which sign moves the hand / finger tip down.
    pub fn measure(rig: &Rig) -> PoseDirections {
        let probe = |rotated: Bone, watched: &[Bone]| -> f32 {
            let Some(&tip) = watched.iter().rev().find(|b| rig.has(**b)) else {
                return 1.0;
            };
            if !rig.has(rotated) {
                return 1.0;
            }
            let rest = Pose::default();
            let y0 = rig.world_position(&rest, tip).map_or(0.0, |p| p.y);
            let mut moved = Pose::default();
            moved.set_rotation(rotated, Quat::from_rotation_z(0.5));
            let y1 = rig.world_position(&moved, tip).map_or(0.0, |p| p.y);
            if y1 < y0 { 1.0 } else { -1.0 }
        };
        let mut dirs = PoseDirections {
            arm_down: [1.0; 2],
            finger_curl: [1.0; 2],
        };
        for side in Side::BOTH {
            let (upper, hand, index) = match side {
                Side::Left => (
                    Bone::LeftUpperArm,
                    Bone::LeftHand,
                    [Bone::LeftIndexIntermediate, Bone::LeftIndexDistal],
                ),
                Side::Right => (
                    Bone::RightUpperArm,
                    Bone::RightHand,
                    [Bone::RightIndexIntermediate, Bone::RightIndexDistal],
                ),
            };
            dirs.arm_down[side.index()] = probe(upper, &[hand]);
            let proximal = if side == Side::Left {
                Bone::LeftIndexProximal
            } else {
                Bone::RightIndexProximal
            };
            dirs.finger_curl[side.index()] = probe(proximal, &index);
        }
        dirs
    }
}

/// Rigs for the body's tests.
#[cfg(test)]
pub mod testing {
    use super::Rig;
    use crate::model::mannequin::{self, MannequinVariant};

    /// Both mannequins' rigs, VRM 1.0 and 0.x.
    pub fn mannequin_rigs() -> Vec<Rig> {
        [MannequinVariant::Vrm1, MannequinVariant::Vrm0]
            .into_iter()
            .map(|v| super::rig_from_bytes(&mannequin::build(v)).unwrap())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::math::testing::arb_quat;
    use proptest::prelude::*;

    use super::testing::mannequin_rigs as rigs;

    proptest! {
        #[test]
        fn normalized_to_raw_to_normalized_round_trips(q in arb_quat(), bone_i in 0usize..BONE_COUNT) {
            for rig in rigs() {
                let bone = ALL_BONES[bone_i];
                if let Some(raw) = rig.raw_local_rotation(bone, q) {
                    let back = rig.normalized_rotation(bone, raw).unwrap();
                    prop_assert!(back.dot(q).abs() > 1.0 - 1e-5, "{bone}: {q:?} -> {back:?}");
                }
            }
        }
    }

    #[test]
    fn the_mannequin_faces_plus_z_in_both_variants() {
        for rig in rigs() {
            let rest = Pose::default();
            let left = rig.world_position(&rest, Bone::LeftHand).unwrap();
            let right = rig.world_position(&rest, Bone::RightHand).unwrap();
            let toes = rig.world_position(&rest, Bone::LeftToes).unwrap();
            let foot = rig.world_position(&rest, Bone::LeftFoot).unwrap();
            assert!(
                left.x > 0.5 && right.x < -0.5,
                "{:?}: left {left} right {right}",
                rig.version()
            );
            assert!(toes.z > foot.z, "toes point forward (+Z)");
        }
    }
}
