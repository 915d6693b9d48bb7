//! The raw nodes posed: every node's local and world transform for a pose (the rig's raw
//! locals on the humanoid bones, rest elsewhere), with the model's node constraints
//! applied after the pose and before the springs, as three-vrm 3.5.5 evaluates them:
//! twist bones follow the arm they belong to, an aimed node turns toward its source.

use glam::{Affine3A, Quat, Vec3};

use crate::body::rig::Rig;
use crate::model::constraint::{Constraints, Kind};

/// World transforms (model frame) of every raw node for a pose: the rig's raw locals on
/// the humanoid bones, rest transforms elsewhere, and `overrides` (spring rotations).
pub struct NodeWorlds {
    order: Vec<usize>,
    pub locals: Vec<(Vec3, Quat, Vec3)>,
    pub worlds: Vec<Affine3A>,
}

impl NodeWorlds {
    pub fn new(rig: &Rig) -> NodeWorlds {
        let nodes = &rig.model.nodes;
        // Parents before children (the core checked that the hierarchy is a forest).
        let mut order = Vec::with_capacity(nodes.len());
        let mut stack: Vec<usize> = (0..nodes.len())
            .filter(|&i| nodes[i].parent.is_none())
            .collect();
        while let Some(i) = stack.pop() {
            order.push(i);
            stack.extend(nodes[i].children.iter().copied());
        }
        NodeWorlds {
            order,
            locals: nodes
                .iter()
                .map(|n| (n.translation, n.rotation, n.scale))
                .collect(),
            worlds: vec![Affine3A::IDENTITY; nodes.len()],
        }
    }

    /// Whether these worlds are this rig's (as many nodes).
    pub fn fits(&self, rig: &Rig) -> bool {
        self.locals.len() == rig.model.nodes.len()
    }

    /// Sets the pose's raw locals (spring joints back at rest) and recomputes the worlds.
    pub fn pose(&mut self, rig: &Rig, pose: &crate::body::pose::Pose) {
        if !self.fits(rig) {
            *self = NodeWorlds::new(rig);
        }
        for (i, n) in rig.model.nodes.iter().enumerate() {
            self.locals[i] = (n.translation, n.rotation, n.scale);
        }
        for raw in rig.raw_locals(pose) {
            self.locals[raw.node] = (raw.translation, raw.rotation, raw.scale);
        }
        self.propagate(rig);
        // Constraints after the pose, before the springs (as three-vrm's update).
        rig.model.constraints.apply(rig, self);
    }

    fn local(&self, i: usize) -> Affine3A {
        let (t, r, s) = self.locals[i];
        Affine3A::from_scale_rotation_translation(s, r, t)
    }

    pub(crate) fn propagate(&mut self, rig: &Rig) {
        for &i in &self.order {
            let parent = rig.model.nodes[i]
                .parent
                .map_or(Affine3A::IDENTITY, |p| self.worlds[p]);
            self.worlds[i] = parent * self.local(i);
        }
    }

    /// A node's world from the locals as they stand, whatever `worlds` says (the
    /// hierarchy is at most `MAX_NODE_DEPTH` deep).
    pub(crate) fn world_now(&self, rig: &Rig, node: usize) -> Affine3A {
        let mut world = self.local(node);
        let mut up = rig.model.nodes[node].parent;
        while let Some(parent) = up {
            world = self.local(parent) * world;
            up = rig.model.nodes[parent].parent;
        }
        world
    }

    /// Recomputes one node's world from its parent's (its descendants are not).
    pub(super) fn refresh(&mut self, rig: &Rig, i: usize) {
        let parent = rig.model.nodes[i]
            .parent
            .map_or(Affine3A::IDENTITY, |p| self.worlds[p]);
        self.worlds[i] = parent * self.local(i);
    }
}

impl Constraints {
    /// Sets every destination's local rotation in `worlds` (posed raw locals in, their
    /// worlds brought up to date once at the end). An aim reads the worlds it needs
    /// from the locals as they stand (at most `MAX_NODE_DEPTH` products each), so a
    /// model's constraints cost their count, not their count times its nodes.
    pub fn apply(&self, rig: &Rig, worlds: &mut NodeWorlds) {
        if self.ordered.is_empty() {
            return;
        }
        let nodes = &rig.model.nodes;
        for c in &self.ordered {
            let destination_rest = nodes[c.destination].rotation;
            let source_rest = nodes[c.source].rotation;
            let source_now = worlds.locals[c.source].1;
            let target = match c.kind {
                Kind::Rotation => destination_rest * (source_rest.inverse() * source_now),
                Kind::Roll { axis } => {
                    let delta = destination_rest.inverse()
                        * source_now
                        * (source_rest.inverse() * destination_rest);
                    let turned = delta * axis;
                    destination_rest * Quat::from_rotation_arc(turned.normalize(), axis) * delta
                }
                Kind::Aim { axis } => {
                    let parent = nodes[c.destination].parent.map_or(Quat::IDENTITY, |p| {
                        worlds.world_now(rig, p).to_scale_rotation_translation().1
                    });
                    let from = parent * (destination_rest * axis);
                    let to = (Vec3::from(worlds.world_now(rig, c.source).translation)
                        - Vec3::from(worlds.world_now(rig, c.destination).translation))
                    .normalize_or_zero();
                    if to == Vec3::ZERO {
                        destination_rest // source on the destination: nothing to aim at
                    } else {
                        parent.inverse()
                            * Quat::from_rotation_arc(from.normalize(), to)
                            * parent
                            * destination_rest
                    }
                }
            };
            let rotation = destination_rest.slerp(target.normalize(), c.weight);
            worlds.locals[c.destination].1 = rotation;
        }
        worlds.propagate(rig);
    }

    /// The destinations' local rotations for a pose (what the renderer sets on them).
    pub fn rotations(&self, rig: &Rig, pose: &crate::body::pose::Pose) -> Vec<(usize, Quat)> {
        if self.is_empty() {
            return Vec::new();
        }
        let mut worlds = NodeWorlds::new(rig);
        worlds.pose(rig, pose);
        self.ordered
            .iter()
            .map(|c| (c.destination, worlds.locals[c.destination].1))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::gltf::RawNode;
    use serde_json::Value;
    use serde_json::json;

    /// A root (0) with three children (1, 2, 3) and the glTF JSON of their constraints.
    fn chain(constraints: &[(usize, Value)], used: bool) -> (Value, Vec<RawNode>) {
        let nodes: Vec<RawNode> = (0..4)
            .map(|i: usize| RawNode {
                name: format!("n{i}"),
                parent: (i > 0).then_some(0),
                children: if i == 0 { vec![1, 2, 3] } else { vec![] },
                translation: Vec3::Y * 0.1,
                rotation: Quat::IDENTITY,
                scale: Vec3::ONE,
                mesh: None,
            })
            .collect();
        let mut json_nodes = vec![json!({}); 4];
        for (node, constraint) in constraints {
            json_nodes[*node] = json!({"extensions": {"VRMC_node_constraint":
                {"specVersion": "1.0", "constraint": constraint}}});
        }
        let used: Vec<&str> = if used {
            vec!["VRMC_node_constraint"]
        } else {
            vec![]
        };
        (json!({"nodes": json_nodes, "extensionsUsed": used}), nodes)
    }

    #[test]
    fn a_constraint_runs_after_the_ones_on_its_source_and_its_ancestors() {
        // n1 follows n3; n3 rolls with n0 (n3's constraint moves n1's source): n3 first.
        let (root, nodes) = chain(
            &[
                (1, json!({"rotation": {"source": 3}})),
                (
                    3,
                    json!({"roll": {"source": 0, "rollAxis": "Y", "weight": 0.5}}),
                ),
            ],
            true,
        );
        let c = Constraints::read(&root, &nodes);
        let order: Vec<usize> = c.ordered.iter().map(|c| c.destination).collect();
        assert_eq!(order, [3, 1]);
        assert_eq!(c.ordered[0].kind, Kind::Roll { axis: Vec3::Y });
        assert!(c.warnings.is_empty());
    }

    #[test]
    fn circles_bad_entries_and_undeclared_extensions_are_left_out_with_a_word() {
        let (root, nodes) = chain(
            &[
                (1, json!({"rotation": {"source": 2}})),
                (2, json!({"rotation": {"source": 1}})),
                (3, json!({"aim": {"source": 9}})),
            ],
            true,
        );
        let c = Constraints::read(&root, &nodes);
        assert!(c.ordered.len() <= 1, "{:?}", c.ordered);
        assert!(
            c.warnings.iter().any(|w| w.contains("circle")),
            "{:?}",
            c.warnings
        );
        assert!(
            c.warnings.iter().any(|w| w.contains("bad source")),
            "{:?}",
            c.warnings
        );
        let (root, nodes) = chain(&[(1, json!({"rotation": {"source": 2}}))], false);
        assert!(Constraints::read(&root, &nodes).is_empty());
    }

    #[test]
    fn weights_outside_zero_to_one_are_clamped_and_axes_read_by_name() {
        let (root, nodes) = chain(
            &[
                (
                    1,
                    json!({"aim": {"source": 3, "aimAxis": "NegativeZ", "weight": 7}}),
                ),
                (2, json!({"roll": {"source": 0, "rollAxis": "W"}})),
            ],
            true,
        );
        let c = Constraints::read(&root, &nodes);
        assert_eq!(c.ordered.len(), 1);
        assert_eq!(c.ordered[0].kind, Kind::Aim { axis: Vec3::NEG_Z });
        assert_eq!(c.ordered[0].weight, 1.0);
        assert_eq!(c.warnings.len(), 1);
    }
}
