//! VRM 1.0 node constraints (`VRMC_node_constraint`: roll, aim, rotation), evaluated after
//! the pose and before the springs, as three-vrm 3.5.5 evaluates them: twist bones follow
//! the arm they belong to, an aimed node turns toward its source. Each constraint works
//! on raw node rotations against the rest rotations of the file, with a weight slerped
//! from rest. Constraints run in dependency order (a constraint whose source, or an
//! ancestor of its source, is another's destination runs after that one); a cycle is
//! left out with a warning instead of failing the model.

use glam::Vec3;
use serde_json::Value;

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
    pub fn read(root: &Value, nodes: &[crate::model::gltf::RawNode]) -> Constraints {
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
    fn order(&mut self, found: Vec<Constraint>, nodes: &[crate::model::gltf::RawNode]) {
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
}
