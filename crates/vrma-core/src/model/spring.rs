//! Spring bones as a model's file gives them: hair, skirts and accessories read from
//! VRM 1.0 `VRMC_springBone` (joints, sphere and capsule colliders, collider groups, a
//! center) or VRM 0.x `secondaryAnimation` (bone groups whose every descendant swings),
//! bounded. Simulating them is the body's (`body::springs`).

use glam::Vec3;
use serde_json::Value;

/// A collider's shape in its node's space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    Sphere {
        offset: Vec3,
        radius: f32,
    },
    Capsule {
        offset: Vec3,
        radius: f32,
        tail: Vec3,
    },
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Collider {
    pub node: usize,
    pub shape: Shape,
}

/// One simulated joint: its node swings so that its tail (the next joint, or a point
/// past a leaf) trails behind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Joint {
    pub node: usize,
    /// The tail's position in the joint's space at rest.
    pub tail: Vec3,
    pub hit_radius: f32,
    pub stiffness: f32,
    pub gravity_power: f32,
    pub gravity_dir: Vec3,
    pub drag: f32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    pub joints: Vec<Joint>,
    /// Indices into [`Springs::colliders`].
    pub colliders: Vec<usize>,
    /// Inertia is reckoned in this node's space (it moving carries the chain along).
    pub center: Option<usize>,
}

/// A model's spring chains and colliders.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Springs {
    pub chains: Vec<Chain>,
    pub colliders: Vec<Collider>,
}

/// Most simulated joints read (a hostile file cannot make each frame unbounded).
pub const MAX_JOINTS: usize = 4096;
pub const MAX_COLLIDERS: usize = 1024;

fn vec3(v: &Value, default: Vec3) -> Vec3 {
    let part = |i: usize, d: f32| {
        v.get(i)
            .and_then(Value::as_f64)
            .filter(|x| x.is_finite() && x.abs() < 1e4)
            .map_or(d, |x| x as f32)
    };
    match v {
        Value::Array(_) => Vec3::new(part(0, default.x), part(1, default.y), part(2, default.z)),
        // VRM 0.x writes vectors as {x, y, z}.
        Value::Object(o) => {
            let get = |k: &str, d: f32| {
                o.get(k)
                    .and_then(Value::as_f64)
                    .filter(|x| x.is_finite() && x.abs() < 1e4)
                    .map_or(d, |x| x as f32)
            };
            Vec3::new(
                get("x", default.x),
                get("y", default.y),
                get("z", default.z),
            )
        }
        _ => default,
    }
}

fn number(v: &Value, default: f32, low: f32, high: f32) -> f32 {
    v.as_f64()
        .filter(|x| x.is_finite())
        .map_or(default, |x| (x as f32).clamp(low, high))
}

fn node_index(v: &Value, nodes: usize) -> Option<usize> {
    v.as_u64().map(|i| i as usize).filter(|i| *i < nodes)
}

impl Springs {
    /// Reads a model's springs; entries that do not make sense are skipped.
    pub fn read(root: &Value, nodes: &[crate::model::gltf::RawNode]) -> Springs {
        let n = nodes.len();
        if root["extensions"]["VRMC_springBone"].is_object() {
            read_v1(&root["extensions"]["VRMC_springBone"], nodes, n)
        } else if root["extensions"]["VRM"]["secondaryAnimation"].is_object() {
            read_v0(&root["extensions"]["VRM"]["secondaryAnimation"], nodes, n)
        } else {
            Springs::default()
        }
    }

    pub fn joint_count(&self) -> usize {
        self.chains.iter().map(|c| c.joints.len()).sum()
    }
}

fn read_v1(ext: &Value, nodes: &[crate::model::gltf::RawNode], n: usize) -> Springs {
    let mut springs = Springs::default();
    let mut collider_ids = Vec::new();
    for c in ext["colliders"].as_array().into_iter().flatten() {
        if springs.colliders.len() >= MAX_COLLIDERS {
            break;
        }
        let Some(node) = node_index(&c["node"], n) else {
            collider_ids.push(None);
            continue;
        };
        let shape = &c["shape"];
        let shape = if shape["sphere"].is_object() {
            let s = &shape["sphere"];
            Shape::Sphere {
                offset: vec3(&s["offset"], Vec3::ZERO),
                radius: number(&s["radius"], 0.0, 0.0, 100.0),
            }
        } else if shape["capsule"].is_object() {
            let s = &shape["capsule"];
            Shape::Capsule {
                offset: vec3(&s["offset"], Vec3::ZERO),
                radius: number(&s["radius"], 0.0, 0.0, 100.0),
                tail: vec3(&s["tail"], Vec3::ZERO),
            }
        } else {
            collider_ids.push(None);
            continue;
        };
        collider_ids.push(Some(springs.colliders.len()));
        springs.colliders.push(Collider { node, shape });
    }
    let groups: Vec<Vec<usize>> = ext["colliderGroups"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|g| {
            g["colliders"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| {
                    c.as_u64()
                        .and_then(|i| collider_ids.get(i as usize))
                        .copied()
                })
                .flatten()
                .collect()
        })
        .collect();
    let mut total = 0;
    for spring in ext["springs"].as_array().into_iter().flatten() {
        let joints: Vec<&Value> = spring["joints"].as_array().into_iter().flatten().collect();
        let mut chain = Chain {
            joints: Vec::new(),
            colliders: colliders_of(&spring["colliderGroups"], &groups),
            center: node_index(&spring["center"], n),
        };
        for (i, joint) in joints.iter().enumerate() {
            let Some(node) = node_index(&joint["node"], n) else {
                break;
            };
            // Each joint swings towards the next; the last is only a tail.
            let next = joints.get(i + 1).and_then(|j| node_index(&j["node"], n));
            let tail = match next {
                Some(t) if nodes[t].parent == Some(node) => nodes[t].translation,
                // Not a parent and its child, or the last joint (only a tail): the chain
                // ends here.
                _ => break,
            };
            if total >= MAX_JOINTS {
                break;
            }
            total += 1;
            chain.joints.push(Joint {
                node,
                tail,
                hit_radius: number(&joint["hitRadius"], 0.0, 0.0, 100.0),
                stiffness: number(&joint["stiffness"], 1.0, 0.0, 1e4),
                gravity_power: number(&joint["gravityPower"], 0.0, 0.0, 1e4),
                gravity_dir: vec3(&joint["gravityDir"], Vec3::NEG_Y).normalize_or(Vec3::NEG_Y),
                drag: number(&joint["dragForce"], 0.5, 0.0, 1.0),
            });
        }
        if !chain.joints.is_empty() {
            springs.chains.push(chain);
        }
    }
    springs
}

fn colliders_of(groups_used: &Value, groups: &[Vec<usize>]) -> Vec<usize> {
    let mut out: Vec<usize> = groups_used
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|g| g.as_u64().and_then(|i| groups.get(i as usize)))
        .flatten()
        .copied()
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Past a leaf: 7 cm along the bone's translation, taken as is in the bone's own space
/// (three-vrm 3.5.5's virtual tail; UniVRM turns it into the bone's space first, which
/// differs where the leaf is rotated: we draw as three-vrm does).
fn leaf_tail(nodes: &[crate::model::gltf::RawNode], node: usize) -> Vec3 {
    nodes[node].translation.normalize_or(Vec3::Y) * 0.07
}

fn read_v0(ext: &Value, nodes: &[crate::model::gltf::RawNode], n: usize) -> Springs {
    let mut springs = Springs::default();
    let mut groups = Vec::new();
    for g in ext["colliderGroups"].as_array().into_iter().flatten() {
        let mut ids = Vec::new();
        if let Some(node) = node_index(&g["node"], n) {
            for c in g["colliders"].as_array().into_iter().flatten() {
                if springs.colliders.len() >= MAX_COLLIDERS {
                    break;
                }
                ids.push(springs.colliders.len());
                springs.colliders.push(Collider {
                    node,
                    shape: Shape::Sphere {
                        // VRM 0.x offsets are in Unity's frame: x mirrored.
                        offset: vec3(&c["offset"], Vec3::ZERO) * Vec3::new(-1.0, 1.0, 1.0),
                        radius: number(&c["radius"], 0.0, 0.0, 100.0),
                    },
                });
            }
        }
        groups.push(ids);
    }
    let mut total = 0;
    for group in ext["boneGroups"].as_array().into_iter().flatten() {
        let colliders = colliders_of(&group["colliderGroups"], &groups);
        let center = node_index(&group["center"], n);
        let props = |tail| Joint {
            node: 0,
            tail,
            hit_radius: number(&group["hitRadius"], 0.02, 0.0, 100.0),
            stiffness: number(&group["stiffiness"], 1.0, 0.0, 1e4),
            gravity_power: number(&group["gravityPower"], 0.0, 0.0, 1e4),
            gravity_dir: vec3(&group["gravityDir"], Vec3::NEG_Y).normalize_or(Vec3::NEG_Y),
            drag: number(&group["dragForce"], 0.4, 0.0, 1.0),
        };
        // Every root's descendants swing, each a chain of its own along the first child.
        for root in group["bones"].as_array().into_iter().flatten() {
            let Some(root) = node_index(root, n) else {
                continue;
            };
            let mut stack = vec![root];
            let mut seen = 0;
            while let Some(node) = stack.pop() {
                seen += 1;
                if seen > n || total >= MAX_JOINTS {
                    break;
                }
                let mut chain = Chain {
                    joints: Vec::new(),
                    colliders: colliders.clone(),
                    center,
                };
                let mut at = node;
                loop {
                    let children = &nodes[at].children;
                    let tail = match children.first() {
                        Some(&child) => nodes[child].translation,
                        None => leaf_tail(nodes, at),
                    };
                    total += 1;
                    chain.joints.push(Joint {
                        node: at,
                        ..props(tail)
                    });
                    // Other children start chains of their own.
                    stack.extend(children.iter().skip(1).copied());
                    match children.first() {
                        Some(&child) if total < MAX_JOINTS && chain.joints.len() < n => at = child,
                        _ => break,
                    }
                }
                springs.chains.push(chain);
            }
        }
    }
    springs
}
