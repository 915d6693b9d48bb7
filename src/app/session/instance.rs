//! A spawned avatar as the features see it: node index → entity, and how a pose is put
//! onto one instance (the avatar on screen, the hidden thumbnail instance, the onion
//! skin's ghosts).

use std::sync::Arc;

use bevy::prelude::*;

use crate::core::body::pose::Pose;
use crate::core::body::rig::Rig;
use crate::core::model::display::MorphRoutes;
use crate::core::model::expressions::morph_weights;

/// The glTF node index of a spawned node entity (set by a glTF loader hook).
#[derive(Component, Reflect, Clone, Copy, Debug)]
#[reflect(Component)]
pub struct GltfNodeIndex(pub usize);

/// The avatar on screen: node index → entity (for every node of the display copy), and
/// where each node's morph weights go in that copy.
#[derive(Component)]
pub struct Avatar {
    pub nodes: Vec<Option<Entity>>,
    pub routes: Arc<MorphRoutes>,
}

/// On an avatar whose own materials (MToon) are not in place yet: a still waits for them
/// (taken earlier, part of the avatar came out in the glTF's unlit fallback).
#[derive(Component)]
pub struct MaterialsPending;

/// Node index → spawned entity for one instance of a model's scene.
pub fn node_entities(
    root: Entity,
    node_count: usize,
    children: &Query<&Children>,
    indices: &Query<&GltfNodeIndex>,
) -> Vec<Option<Entity>> {
    let mut nodes = vec![None; node_count];
    for e in children.iter_descendants(root) {
        if let Ok(GltfNodeIndex(i)) = indices.get(e)
            && let Some(slot) = nodes.get_mut(*i)
        {
            *slot = Some(e);
        }
    }
    nodes
}

/// Once another instance of the avatar's scene has spawned under `root`: gives each of
/// its meshes `tag` (a render layer, a material) and maps its nodes. `None` while the
/// scene is not there yet.
pub fn adopt_instance(
    root: Entity,
    node_count: usize,
    children: &Query<&Children>,
    indices: &Query<&GltfNodeIndex>,
    meshes: &Query<(), With<Mesh3d>>,
    commands: &mut Commands,
    tag: impl Bundle + Clone,
) -> Option<Vec<Option<Entity>>> {
    let mut any = false;
    for e in children.iter_descendants(root) {
        any = true;
        if meshes.contains(e) {
            commands.entity(e).insert(tag.clone());
        }
    }
    any.then(|| node_entities(root, node_count, children, indices))
}

/// The pose as a player shows it: its authored gaze (if any) turned into the eyes or
/// `look*` weights, the camera where the viewer is (model space).
pub fn gazed_pose<'a>(rig: &Rig, pose: &'a Pose, camera: Vec3) -> std::borrow::Cow<'a, Pose> {
    match (&rig.model.look_at, &pose.look) {
        (Some(look_at), Some(_)) => std::borrow::Cow::Owned(look_at.with_gaze(rig, pose, camera)),
        _ => std::borrow::Cow::Borrowed(pose),
    }
}

/// Writes a pose's raw bone transforms and morph weights onto one spawned instance.
/// With `always` false only what changed is written, so change detection stays quiet
/// while nothing moves; a one-frame thumbnail render writes everything, so the skinned
/// meshes are refreshed for that frame even when the pose equals the last one.
pub fn pose_instance(
    rig: &Rig,
    pose: &Pose,
    nodes: &[Option<Entity>],
    routes: &MorphRoutes,
    transforms: &mut Query<&mut Transform>,
    morphs: &mut Query<&mut MorphWeights>,
    always: bool,
) {
    for local in rig.raw_locals(pose) {
        if let Some(Some(entity)) = nodes.get(local.node)
            && let Ok(mut t) = transforms.get_mut(*entity)
        {
            let next = Transform {
                translation: local.translation,
                rotation: local.rotation,
                scale: local.scale,
            };
            if always || *t != next {
                *t = next;
            }
        }
    }
    // Twist bones and aimed nodes follow the pose, as players evaluate them.
    for (node, rotation) in rig.model.constraints.rotations(rig, pose) {
        if let Some(Some(entity)) = nodes.get(node)
            && let Ok(mut t) = transforms.get_mut(*entity)
            && (always || t.rotation != rotation)
        {
            t.rotation = rotation;
        }
    }
    let mut write = |node: usize, w: &[f32]| {
        if let Some(Some(entity)) = nodes.get(node)
            && let Ok(mut mw) = morphs.get_mut(*entity)
            && mw.weights().len() == w.len()
            && (always || mw.weights() != w)
        {
            mw.weights_mut().copy_from_slice(w);
        }
    };
    for (node, w) in morph_weights(&rig.model, &pose.expressions) {
        match routes.get(&node) {
            // The display copy split this node's mesh: each part gets its own targets.
            Some(parts) => {
                for part in parts {
                    let subset: Vec<f32> = part
                        .targets
                        .iter()
                        .map(|&t| w.get(t).copied().unwrap_or(0.0))
                        .collect();
                    write(part.node, &subset);
                }
            }
            None => write(node, &w),
        }
    }
}

/// Sets the local rotations of some nodes of one instance (spring joints).
pub fn set_node_rotations(
    nodes: &[Option<Entity>],
    rotations: &[(usize, Quat)],
    transforms: &mut Query<&mut Transform>,
) {
    for &(node, rotation) in rotations {
        if let Some(Some(entity)) = nodes.get(node)
            && let Ok(mut t) = transforms.get_mut(*entity)
            && t.rotation != rotation
        {
            t.rotation = rotation;
        }
    }
}
