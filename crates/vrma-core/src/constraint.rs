//! VRM 1.0 node constraints (`VRMC_node_constraint`: roll, aim, rotation), evaluated after
//! the pose and before the springs, as three-vrm 3.5.5 evaluates them: twist bones follow
//! the arm they belong to, an aimed node turns toward its source. Each constraint works
//! on raw node rotations against the rest rotations of the file, with a weight slerped
//! from rest. Constraints run in dependency order (a constraint whose source, or an
//! ancestor of its source, is another's destination runs after that one); a cycle is
//! left out with a warning instead of failing the model.

use glam::{Quat, Vec3};
use serde_json::Value;

use crate::rig::Rig;
use crate::spring::NodeWorlds;

/// Most constraints read (a hostile file cannot make every frame unbounded).
pub const MAX_CONSTRAINTS: usize = 4096;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// The source's rotation about `axis` (destination's rest space), alone.
    Roll { axis: Vec3 },
    /// `axis` (destination's rest space) pointed at the source's position.
    Aim { axis: Vec3 },
    /// The source's rotation from its rest, all of it.
    Rotation,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Constraint {
    pub destination: usize,
    pub source: usize,
    pub kind: Kind,
    pub weight: f32,
}

/// A model's constraints, in the order they run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Constraints {
    pub ordered: Vec<Constraint>,
    /// What was left out and why (a cycle, a bad entry), to tell the user.
    pub warnings: Vec<String>,
}

fn axis_of(name: &str) -> Option<Vec3> {
    Some(match name {
        "X" | "PositiveX" => Vec3::X,
        "Y" | "PositiveY" => Vec3::Y,
        "Z" | "PositiveZ" => Vec3::Z,
        "NegativeX" => Vec3::NEG_X,
        "NegativeY" => Vec3::NEG_Y,
        "NegativeZ" => Vec3::NEG_Z,
        _ => return None,
    })
}

impl Constraints {
    pub fn is_empty(&self) -> bool {
        self.ordered.is_empty()
    }

    /// Reads the constraints of a glTF's nodes (VRM 1.0; only when the extension is
    /// declared used, as three-vrm reads them). Bad entries are skipped.
    pub fn read(root: &Value, nodes: &[crate::vrm::RawNode]) -> Constraints {
        let mut out = Constraints::default();
        let used = root["extensionsUsed"]
            .as_array()
            .is_some_and(|u| u.iter().any(|e| e == "VRMC_node_constraint"));
        let Some(json_nodes) = root["nodes"].as_array().filter(|_| used) else {
            return out;
        };
        let mut found = Vec::new();
        for (destination, node) in json_nodes.iter().enumerate().take(nodes.len()) {
            let ext = &node["extensions"]["VRMC_node_constraint"];
            if !ext.is_object() {
                continue;
            }
            if !matches!(ext["specVersion"].as_str(), Some("1.0" | "1.0-beta")) {
                out.warnings.push(format!(
                    "node {destination}: constraint of unknown version left out"
                ));
                continue;
            }
            let def = &ext["constraint"];
            let (kind, body) = if def["roll"].is_object() {
                let axis = def["roll"]["rollAxis"]
                    .as_str()
                    .map_or(Some(Vec3::X), axis_of);
                (axis.map(|axis| Kind::Roll { axis }), &def["roll"])
            } else if def["aim"].is_object() {
                let axis = def["aim"]["aimAxis"]
                    .as_str()
                    .map_or(Some(Vec3::X), axis_of);
                (axis.map(|axis| Kind::Aim { axis }), &def["aim"])
            } else if def["rotation"].is_object() {
                (Some(Kind::Rotation), &def["rotation"])
            } else {
                continue;
            };
            let source = body["source"]
                .as_u64()
                .map(|s| s as usize)
                .filter(|&s| s < nodes.len() && s != destination);
            let weight = body["weight"].as_f64().unwrap_or(1.0);
            match (kind, source) {
                (Some(kind), Some(source)) if weight.is_finite() => found.push(Constraint {
                    destination,
                    source,
                    kind,
                    weight: weight.clamp(0.0, 1.0) as f32,
                }),
                _ => out.warnings.push(format!(
                    "node {destination}: constraint with a bad source, axis or weight left out"
                )),
            }
            if found.len() >= MAX_CONSTRAINTS {
                out.warnings.push(format!(
                    "only the first {MAX_CONSTRAINTS} constraints are used"
                ));
                break;
            }
        }
        out.order(found, nodes);
        out
    }

    /// Puts the constraints in three-vrm's order: before each, the constraints on any
    /// ancestor-or-self of what it depends on (its source; an aim also its parent).
    fn order(&mut self, found: Vec<Constraint>, nodes: &[crate::vrm::RawNode]) {
        let mut by_destination: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for (i, c) in found.iter().enumerate() {
            by_destination[c.destination].push(i);
        }
        // 0: not seen, 1: being placed, 2: placed, 3: left out (in a cycle).
        let mut state = vec![0u8; found.len()];
        for start in 0..found.len() {
            // An explicit stack: a long chain of constraints cannot overflow it.
            let mut stack = vec![(start, false)];
            while let Some((i, expanded)) = stack.pop() {
                if expanded {
                    if state[i] == 1 {
                        state[i] = 2;
                        self.ordered.push(found[i]);
                    }
                    continue;
                }
                match state[i] {
                    0 => {}
                    1 => {
                        state[i] = 3;
                        self.warnings.push(format!(
                            "node {}: constraints that depend on each other in a circle left out",
                            found[i].destination
                        ));
                        continue;
                    }
                    _ => continue,
                }
                state[i] = 1;
                stack.push((i, true));
                let c = found[i];
                let mut depends = vec![c.source];
                if matches!(c.kind, Kind::Aim { .. })
                    && let Some(parent) = nodes[c.destination].parent
                {
                    depends.push(parent);
                }
                for mut node in depends {
                    loop {
                        for &j in &by_destination[node] {
                            if state[j] == 1 {
                                // A cycle: this one is left out (the others go on).
                                state[i] = 3;
                                self.warnings.push(format!(
                                    "node {}: constraints that depend on each other in a circle left out",
                                    c.destination
                                ));
                            } else if state[j] == 0 {
                                stack.push((j, false));
                            }
                        }
                        match nodes[node].parent {
                            Some(p) => node = p,
                            None => break,
                        }
                    }
                }
            }
        }
        self.warnings.dedup();
    }

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
    pub fn rotations(&self, rig: &Rig, pose: &crate::pose::Pose) -> Vec<(usize, Quat)> {
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
    use crate::vrm::RawNode;
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
