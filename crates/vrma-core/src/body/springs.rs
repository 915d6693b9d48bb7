//! Spring bones: hair, skirts and accessories that swing and hang as VRM players move
//! them. Read from VRM 1.0 `VRMC_springBone` (joints, sphere and capsule colliders,
//! collider groups, a center) or VRM 0.x `secondaryAnimation` (bone groups whose every
//! descendant swings), and simulated as the VRM specification describes and three-vrm
//! implements it: Verlet integration of each joint's tail with inertia, stiffness back
//! towards the rest direction, gravity and drag, the length kept, pushed out of
//! colliders. Everything is in the model's own frame on its raw nodes, so a still can
//! settle a pose from rest deterministically, with no renderer involved.
use crate::model::spring::{Collider, Shape};
use glam::{Affine3A, Quat, Vec3};

use crate::body::nodes::NodeWorlds;
use crate::body::rig::Rig;
use crate::model::spring::Springs;

/// The running simulation: each joint's tail now and a step ago (in its chain's center
/// space, or the model's).
#[derive(Clone, Debug)]
pub struct SpringState {
    tails: Vec<Vec<(Vec3, Vec3)>>,
}

/// The rotation taking unit vector `from` onto unit vector `to`.
fn from_to(from: Vec3, to: Vec3) -> Quat {
    Quat::from_rotation_arc(from.normalize_or(Vec3::Y), to.normalize_or(Vec3::Y))
}

impl SpringState {
    /// Every tail at rest for the current worlds (velocity zero).
    pub fn reset(springs: &Springs, worlds: &NodeWorlds) -> SpringState {
        let tails = springs
            .chains
            .iter()
            .map(|chain| {
                let center = chain.center.map(|c| worlds.worlds[c].inverse());
                chain
                    .joints
                    .iter()
                    .map(|j| {
                        let tail = worlds.worlds[j.node].transform_point3(j.tail);
                        let local = center.map_or(tail, |c| c.transform_point3(tail));
                        (local, local)
                    })
                    .collect()
            })
            .collect();
        SpringState { tails }
    }

    /// Whether this state belongs to these springs (the same chains and joints).
    pub fn fits(&self, springs: &Springs) -> bool {
        self.tails.len() == springs.chains.len()
            && self
                .tails
                .iter()
                .zip(&springs.chains)
                .all(|(t, c)| t.len() == c.joints.len())
    }

    /// One step of `dt` seconds: moves each tail, turns each joint to follow it, and
    /// writes the joints' rotations into `worlds.locals` (and their worlds). Returns the
    /// largest distance a tail moved (metres): near zero once the springs are at rest.
    pub fn step(&mut self, springs: &Springs, rig: &Rig, worlds: &mut NodeWorlds, dt: f32) -> f32 {
        let dt = dt.clamp(0.0, 0.1);
        let mut moved = 0f32;
        if !self.fits(springs) || !worlds.fits(rig) {
            return moved; // another model's state: nothing to step
        }
        for (chain, tails) in springs.chains.iter().zip(&mut self.tails) {
            let center = chain.center.map(|c| worlds.worlds[c]);
            for (joint, (current, previous)) in chain.joints.iter().zip(tails.iter_mut()) {
                let node = &rig.model.nodes[joint.node];
                let rest_rotation = node.rotation;
                // The joint's head follows its (already updated) parent.
                worlds.locals[joint.node].1 = rest_rotation;
                worlds.refresh(rig, joint.node);
                let head_world = worlds.worlds[joint.node];
                let head: Vec3 = head_world.translation.into();
                let parent = node.parent.map_or(Affine3A::IDENTITY, |p| worlds.worlds[p]);
                let parent_rotation = parent.to_scale_rotation_translation().1.normalize();
                let to_world = |p: Vec3| center.map_or(p, |c| c.transform_point3(p));
                let (now, before) = (to_world(*current), to_world(*previous));
                let length = head_world.transform_vector3(joint.tail).length();
                let axis = joint.tail.normalize_or(Vec3::Y);
                let mut next = now
                    + (now - before) * (1.0 - joint.drag)
                    + parent_rotation * rest_rotation * axis * (joint.stiffness * dt)
                    + joint.gravity_dir * (joint.gravity_power * dt);
                next = head + (next - head).normalize_or(axis) * length;
                for &c in &chain.colliders {
                    if let Some(collider) = springs.colliders.get(c) {
                        next = push_out(next, head, length, joint.hit_radius, collider, worlds);
                    }
                }
                let from_center = |p: Vec3| center.map_or(p, |c| c.inverse().transform_point3(p));
                *previous = *current;
                *current = from_center(next);
                moved = moved.max(current.distance(*previous));
                // Turn the joint so its rest tail points at the new tail.
                let rest_dir = parent_rotation * rest_rotation * axis;
                let turned = from_to(rest_dir, next - head) * parent_rotation * rest_rotation;
                let local = (parent_rotation.inverse() * turned).normalize();
                if local.is_finite() {
                    worlds.locals[joint.node].1 = local;
                    worlds.refresh(rig, joint.node);
                }
            }
        }
        moved
    }
}

/// Keeps a tail out of a collider (and at its length from the head).
fn push_out(
    tail: Vec3,
    head: Vec3,
    length: f32,
    hit_radius: f32,
    collider: &Collider,
    worlds: &NodeWorlds,
) -> Vec3 {
    let world = worlds.worlds[collider.node];
    let scale = world.transform_vector3(Vec3::X).length().max(1e-6);
    let (centre, radius) = match collider.shape {
        Shape::Sphere { offset, radius } => (world.transform_point3(offset), radius * scale),
        Shape::Capsule {
            offset,
            radius,
            tail: end,
        } => {
            let (a, b) = (world.transform_point3(offset), world.transform_point3(end));
            let ab = b - a;
            let t = ((tail - a).dot(ab) / ab.length_squared().max(1e-12)).clamp(0.0, 1.0);
            (a + ab * t, radius * scale)
        }
    };
    let reach = radius + hit_radius;
    let away = tail - centre;
    let distance = away.length();
    if distance >= reach || distance < 1e-9 {
        return tail;
    }
    let pushed = centre + away / distance * reach;
    head + (pushed - head).normalize_or(away) * length
}

/// How long a still's springs hold its pose from rest before it is drawn (and a film's
/// before its first frame).
pub const SETTLE_SECONDS: f32 = 1.5;

/// A pose's spring joint rotations after holding it for `seconds` from rest at 60 Hz:
/// what a still shows (hair hanging as it would in a player), the same every time.
pub fn settle(
    springs: &Springs,
    rig: &Rig,
    pose: &crate::body::pose::Pose,
    seconds: f32,
) -> Vec<(usize, Quat)> {
    joint_rotations(springs, &settled_worlds(springs, rig, pose, seconds))
}

/// The node worlds after [`settle`]'s simulation.
fn settled_worlds(
    springs: &Springs,
    rig: &Rig,
    pose: &crate::body::pose::Pose,
    seconds: f32,
) -> NodeWorlds {
    let mut worlds = NodeWorlds::new(rig);
    worlds.pose(rig, pose);
    let mut state = SpringState::reset(springs, &worlds);
    let steps = (seconds.clamp(0.0, 10.0) * 60.0).round() as usize;
    for _ in 0..steps {
        state.step(springs, rig, &mut worlds, 1.0 / 60.0);
    }
    worlds.propagate(rig);
    worlds
}

/// Each spring joint's node, its position and its tail's in the model's file frame
/// after [`settle`]: where a player's settled hair is, to compare with one.
pub fn settled_positions(
    springs: &Springs,
    rig: &Rig,
    pose: &crate::body::pose::Pose,
    seconds: f32,
) -> Vec<(usize, Vec3, Vec3)> {
    let worlds = settled_worlds(springs, rig, pose, seconds);
    springs
        .chains
        .iter()
        .flat_map(|c| c.joints.iter())
        .map(|j| {
            let world = worlds.worlds[j.node];
            (
                j.node,
                world.translation.into(),
                world.transform_point3(j.tail),
            )
        })
        .collect()
}

/// Every spring joint's rest rotation (the hair as the file has it, not simulated).
pub fn rest_rotations(rig: &Rig) -> Vec<(usize, Quat)> {
    rig.model
        .springs
        .chains
        .iter()
        .flat_map(|chain| &chain.joints)
        .map(|joint| (joint.node, rig.model.nodes[joint.node].rotation))
        .collect()
}

/// The spring joints' local rotations as they stand.
pub fn joint_rotations(springs: &Springs, worlds: &NodeWorlds) -> Vec<(usize, Quat)> {
    springs
        .chains
        .iter()
        .flat_map(|c| c.joints.iter())
        .map(|j| (j.node, worlds.locals[j.node].1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::pose::Pose;
    use crate::model::mannequin::MannequinVariant;
    use crate::model::spring::MAX_JOINTS;
    use crate::model::test_avatar::{TestAvatarSpec, build};
    use crate::model::vrm::Model;
    use serde_json::Value;

    /// The generated avatar, its springs' JSON changed first.
    fn avatar(variant: MannequinVariant, change: impl Fn(&mut Value)) -> Rig {
        let bytes = build(&TestAvatarSpec {
            texture_size: 8,
            ..TestAvatarSpec::vroid(variant)
        });
        let split = crate::files::glb::split(&bytes).unwrap();
        let mut root: Value = serde_json::from_slice(split.json).unwrap();
        change(&mut root);
        Rig::new(Model::from_json(&root).unwrap()).unwrap()
    }

    /// Soft hair that gravity pulls on, in each version's own terms.
    fn soft(root: &mut Value) {
        let extensions = root["extensions"].as_object_mut().unwrap();
        if let Some(v1) = extensions.get_mut("VRMC_springBone") {
            soften_v1(v1);
        }
        if let Some(v0) = extensions.get_mut("VRM") {
            soften_v0(&mut v0["secondaryAnimation"]);
        }
    }

    fn soften_v1(ext: &mut Value) {
        for spring in ext["springs"].as_array_mut().into_iter().flatten() {
            for joint in spring["joints"].as_array_mut().unwrap() {
                joint["stiffness"] = serde_json::json!(0.05);
                joint["gravityPower"] = serde_json::json!(1.0);
            }
        }
    }

    fn soften_v0(ext: &mut Value) {
        for group in ext["boneGroups"].as_array_mut().into_iter().flatten() {
            group["stiffiness"] = serde_json::json!(0.05);
            group["gravityPower"] = serde_json::json!(1.0);
        }
    }

    /// Each chain's last tail in the model frame.
    fn tips(rig: &Rig, pose: &Pose, rotations: &[(usize, Quat)]) -> Vec<Vec3> {
        let mut worlds = NodeWorlds::new(rig);
        worlds.pose(rig, pose);
        for &(node, r) in rotations {
            worlds.locals[node].1 = r;
        }
        worlds.propagate(rig);
        rig.model
            .springs
            .chains
            .iter()
            .map(|c| {
                let last = c.joints.last().unwrap();
                worlds.worlds[last.node].transform_point3(last.tail)
            })
            .collect()
    }

    #[test]
    fn both_versions_read_the_hair_chains() {
        for variant in [MannequinVariant::Vrm1, MannequinVariant::Vrm0] {
            let rig = avatar(variant, |_| {});
            let springs = &rig.model.springs;
            assert!(
                springs.chains.len() >= 8,
                "{variant:?}: {} chains",
                springs.chains.len()
            );
            assert!(springs.joint_count() >= 2 * springs.chains.len());
            assert_eq!(springs.colliders.len(), 1, "the head's sphere");
            assert!(springs.chains.iter().all(|c| c.colliders == vec![0]));
        }
    }

    #[test]
    fn stiff_hair_stays_at_rest_and_soft_hair_hangs_the_same_way_every_time() {
        for variant in [MannequinVariant::Vrm1, MannequinVariant::Vrm0] {
            // (The generated hair starts inside the head's collider, which pushes it out
            // at once, as players do: the stiff case goes without it.)
            let mut stiff = avatar(variant, |_| {});
            for chain in &mut stiff.model.springs.chains {
                chain.colliders.clear();
            }
            let rest_pose = Pose::default();
            let rest = tips(&stiff, &rest_pose, &[]);
            let held = settle(&stiff.model.springs, &stiff, &rest_pose, 2.0);
            for (a, b) in rest.iter().zip(tips(&stiff, &rest_pose, &held)) {
                assert!(
                    a.distance(b) < 0.005,
                    "{variant:?}: stiff hair moved {a} → {b}"
                );
            }
            // Bowing the head turns the hair forward: stiff hair keeps that direction,
            // soft hair hangs down from it under gravity.
            let mut bow = Pose::default();
            bow.set_rotation(
                crate::model::humanoid::Bone::Head,
                Quat::from_rotation_x(1.2),
            );
            let stiff = avatar(variant, |_| {});
            let soft = avatar(variant, soft);
            let kept = settle(&stiff.model.springs, &stiff, &bow, 2.0);
            let hung = settle(&soft.model.springs, &soft, &bow, 2.0);
            let again = settle(&soft.model.springs, &soft, &bow, 2.0);
            assert_eq!(hung, again, "deterministic");
            let mean_y = |p: Vec<Vec3>| p.iter().map(|v| v.y).sum::<f32>() / p.len() as f32;
            let (kept_y, hung_y) = (
                mean_y(tips(&stiff, &bow, &kept)),
                mean_y(tips(&soft, &bow, &hung)),
            );
            assert!(
                hung_y < kept_y - 0.02,
                "{variant:?}: soft tips hang at {hung_y:.3} m, stiff ones stay at {kept_y:.3} m"
            );
            // No tail ends up inside the head's sphere (its radius plus the hit radius).
            let mut worlds = NodeWorlds::new(&soft);
            worlds.pose(&soft, &bow);
            let collider = soft.model.springs.colliders[0];
            let Shape::Sphere { offset, radius } = collider.shape else {
                panic!("a sphere")
            };
            let centre = worlds.worlds[collider.node].transform_point3(offset);
            for &(node, r) in &hung {
                worlds.locals[node].1 = r;
            }
            worlds.propagate(&soft);
            for chain in &soft.model.springs.chains {
                for joint in &chain.joints {
                    let tail = worlds.worlds[joint.node].transform_point3(joint.tail);
                    assert!(
                        tail.distance(centre) >= radius + joint.hit_radius - 0.01,
                        "{variant:?}: a tail inside the head"
                    );
                }
            }
        }
    }

    #[test]
    fn hostile_springs_are_bounded_and_skipped() {
        let joints: Vec<Value> = (0..100_000)
            .map(|_| serde_json::json!({"node": 0, "stiffness": "x", "gravityDir": [1e30, 0, 0]}))
            .collect();
        let root = serde_json::json!({"extensions": {"VRMC_springBone": {
            "colliders": [{"node": 99, "shape": {"sphere": {"radius": 1}}}],
            "springs": [{"joints": joints, "colliderGroups": [7]}]}}});
        let nodes = vec![
            crate::model::gltf::RawNode {
                name: "a".into(),
                parent: None,
                children: vec![],
                translation: Vec3::ZERO,
                rotation: Quat::IDENTITY,
                scale: Vec3::ONE,
                mesh: None,
            };
            2
        ];
        let springs = Springs::read(&root, &nodes);
        assert!(springs.colliders.is_empty(), "a collider on no node");
        assert!(springs.joint_count() <= MAX_JOINTS);
        assert!(springs.chains.is_empty(), "node 0 is not its own child");
    }
}
