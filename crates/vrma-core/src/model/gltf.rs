//! The glTF side of a VRM file: which VRM it is, its node tree (`RawNode`s, bounded in
//! count and depth, cycles refused), and the checks made before anything is allocated
//! for it (buffers and accessors inside their bytes, required extensions, the shown
//! scene and its skins).

use glam::{Mat4, Quat, Vec3};
use serde_json::Value;

use crate::Refusal;

/// The VRM specification a file follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VrmVersion {
    /// VRM 0.x: faces -Z, 0.x bone and expression names.
    V0,
    /// VRM 1.0: faces +Z.
    V1,
}

impl VrmVersion {
    /// "0" or "1", as `inspect` prints it.
    pub fn label(self) -> &'static str {
        match self {
            VrmVersion::V0 => "0",
            VrmVersion::V1 => "1",
        }
    }
}

/// One glTF node with its rest (file) transform.
#[derive(Clone, Debug)]
pub struct RawNode {
    pub name: String,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
    pub mesh: Option<usize>,
}

/// Checks that every buffer view lies inside its buffer and every accessor inside its
/// view, against the bytes actually present — before the renderer allocates anything.
pub(crate) fn check_buffers(root: &Value, bin: Option<&[u8]>) -> Result<(), Refusal> {
    let empty = Vec::new();
    let buffers = field(root, "buffers")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let mut sizes = Vec::with_capacity(buffers.len());
    for (i, buffer) in buffers.iter().enumerate() {
        let declared = field(buffer, "byteLength")
            .and_then(Value::as_u64)
            .unwrap_or(0) as usize;
        let present = match (i, field(buffer, "uri")) {
            (0, None) => bin.map_or(0, <[u8]>::len),
            (_, Some(_)) => {
                return Err(Refusal::new(format!(
                    "buffer {i}: external or embedded URIs are not supported in a .vrm"
                )));
            }
            _ => 0,
        };
        if declared > present {
            return Err(Refusal::new(format!(
                "buffer {i} declares {declared} bytes but the file holds {present}"
            )));
        }
        sizes.push(declared);
    }
    let views = field(root, "bufferViews")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    for i in 0..views {
        crate::files::accessors::view_range(root, i, &sizes)?;
    }
    let accessors = field(root, "accessors")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    for i in 0..accessors {
        crate::files::accessors::accessor_layout(root, i, &sizes)?;
    }
    Ok(())
}

/// Extensions a file may require that the renderer cannot read: refused with what to
/// do instead of a loader error later.
pub(crate) fn check_required_extensions(root: &Value) -> Result<(), Refusal> {
    let empty = Vec::new();
    let required = field(root, "extensionsRequired")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    for name in required.iter().filter_map(Value::as_str) {
        let instead = match name {
            "KHR_draco_mesh_compression" => "Draco-compressed meshes",
            "EXT_meshopt_compression" => "meshopt-compressed meshes",
            "EXT_texture_webp" => "WebP textures",
            "EXT_texture_avif" => "AVIF textures",
            _ => continue,
        };
        return Err(Refusal::new(format!(
            "the model uses {instead} ({name}), which cannot be read here; export it again without that compression"
        )));
    }
    Ok(())
}

/// The scene the renderer shows exists and lists only real nodes (three-vrm refuses
/// others too).
pub(crate) fn check_scenes(root: &Value, node_count: usize) -> Result<(), Refusal> {
    let empty = Vec::new();
    let scenes = field(root, "scenes")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    if scenes.is_empty() {
        return Err(Refusal::new("the glTF has no scene to show"));
    }
    if let Some(scene) = field(root, "scene") {
        index_field(root, "scene", "the glTF's default scene", scenes.len()).map_err(|_| {
            Refusal::new(format!(
                "the default scene {scene} does not exist (there are {})",
                scenes.len()
            ))
        })?;
    }
    for (s, scene) in scenes.iter().enumerate() {
        for node in field(scene, "nodes")
            .and_then(Value::as_array)
            .unwrap_or(&empty)
        {
            if node.as_u64().is_none_or(|n| n as usize >= node_count) {
                return Err(Refusal::new(format!(
                    "scene {s} lists node {node}, which does not exist (there are {node_count})"
                )));
            }
        }
    }
    Ok(())
}

/// Every joint of a skin used in the scene that is shown (the first) is in that scene:
/// Bevy's loader binds joints to the entities it spawned and panics on one it did not.
pub(crate) fn check_skins_in_scene(root: &Value, nodes: &[RawNode]) -> Result<(), Refusal> {
    let empty = Vec::new();
    let mut in_scene = vec![false; nodes.len()];
    let mut stack: Vec<usize> = root["scenes"][0]["nodes"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .filter_map(|n| n.as_u64().map(|n| n as usize))
        .collect();
    while let Some(at) = stack.pop() {
        if !std::mem::replace(&mut in_scene[at], true) {
            stack.extend(&nodes[at].children);
        }
    }
    for (i, node) in root["nodes"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .enumerate()
    {
        let Some(skin) = node
            .get("skin")
            .and_then(Value::as_u64)
            .filter(|_| in_scene[i])
        else {
            continue;
        };
        for joint in root["skins"][skin as usize]["joints"]
            .as_array()
            .unwrap_or(&empty)
        {
            let j = joint.as_u64().unwrap_or(u64::MAX) as usize;
            if j >= nodes.len() || !in_scene[j] {
                return Err(Refusal::new(format!(
                    "node {i} uses skin {skin}, whose joint {joint} is not in the scene"
                )));
            }
        }
    }
    Ok(())
}

pub(crate) fn field<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    value.get(key).filter(|v| !v.is_null())
}

pub(crate) fn index_field(
    value: &Value,
    key: &str,
    what: &str,
    len: usize,
) -> Result<usize, Refusal> {
    let raw =
        field(value, key).ok_or_else(|| Refusal::new(format!("{what}: '{key}' is missing")))?;
    let index = raw
        .as_u64()
        .ok_or_else(|| Refusal::new(format!("{what}: '{key}' must be a non-negative integer")))?;
    if index as usize >= len || index > u32::MAX as u64 {
        return Err(Refusal::new(format!(
            "{what}: '{key}' {index} is out of range (there are {len})"
        )));
    }
    Ok(index as usize)
}

/// Reads N finite numbers; magnitudes beyond 1e12 are refused as unusable.
pub(crate) fn floats<const N: usize>(value: &Value, what: &str) -> Result<[f32; N], Refusal> {
    let out = crate::read_floats::<N>(value, what)?;
    if out.iter().any(|x| x.abs() > 1e12) {
        return Err(Refusal::new(format!(
            "{what}: value is not a usable number (too large)"
        )));
    }
    Ok(out)
}

pub(crate) fn parse_node(
    index: usize,
    node: &Value,
    mesh_count: usize,
) -> Result<RawNode, Refusal> {
    let what = format!("node {index}");
    let name = field(node, "name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let (mut translation, mut rotation, mut scale) = (Vec3::ZERO, Quat::IDENTITY, Vec3::ONE);
    if let Some(m) = field(node, "matrix") {
        let m = floats::<16>(m, &format!("{what} matrix"))?;
        let (s, r, t) = Mat4::from_cols_array(&m).to_scale_rotation_translation();
        if !(s.is_finite() && r.is_finite() && t.is_finite()) {
            return Err(Refusal::new(format!("{what}: matrix cannot be decomposed")));
        }
        (translation, rotation, scale) = (t, r.normalize(), s);
    }
    if let Some(t) = field(node, "translation") {
        translation = Vec3::from_array(floats(t, &format!("{what} translation"))?);
    }
    if let Some(r) = field(node, "rotation") {
        let q = Quat::from_array(floats(r, &format!("{what} rotation"))?);
        if q.length() < 1e-6 {
            return Err(Refusal::new(format!("{what}: rotation has zero length")));
        }
        rotation = q.normalize();
    }
    if let Some(s) = field(node, "scale") {
        scale = Vec3::from_array(floats(s, &format!("{what} scale"))?);
    }
    let mesh = match field(node, "mesh") {
        Some(_) => Some(index_field(node, "mesh", &what, mesh_count)?),
        None => None,
    };
    Ok(RawNode {
        name,
        parent: None,
        children: Vec::new(),
        translation,
        rotation,
        scale,
        mesh,
    })
}

pub(crate) fn parse_nodes(root: &Value, mesh_count: usize) -> Result<Vec<RawNode>, Refusal> {
    let empty = Vec::new();
    let list = field(root, "nodes")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    if list.len() > MAX_NODES {
        return Err(Refusal::new(format!(
            "the model has {} nodes; at most {MAX_NODES} are supported",
            list.len()
        )));
    }
    let mut nodes = list
        .iter()
        .enumerate()
        .map(|(i, n)| parse_node(i, n, mesh_count))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, node) in list.iter().enumerate() {
        let Some(children) = field(node, "children") else {
            continue;
        };
        let children = children
            .as_array()
            .ok_or_else(|| Refusal::new(format!("node {i}: 'children' must be an array")))?;
        for c in children {
            let c = c
                .as_u64()
                .map(|c| c as usize)
                .filter(|&c| c < nodes.len())
                .ok_or_else(|| {
                    Refusal::new(format!(
                        "node {i}: child {c} is out of range (there are {} nodes)",
                        nodes.len()
                    ))
                })?;
            if c == i || nodes[c].parent.is_some() {
                return Err(Refusal::new(format!(
                    "node {c} has more than one parent (node hierarchy is not a tree)"
                )));
            }
            nodes[c].parent = Some(i);
            nodes[i].children.push(c);
        }
    }
    check_tree_depth(&nodes)?;
    Ok(nodes)
}

/// Nodes in one model: far above any avatar (VRoid exports have a few hundred), and what
/// bounds the per-node work and memory of a hostile file.
pub const MAX_NODES: usize = 100_000;

/// Levels of the node tree: real avatars reach ~40 with long hair chains. Bevy's glTF
/// loader walks the tree recursively, so a deeper chain could overflow its stack.
pub const MAX_NODE_DEPTH: usize = 128;

/// With single parents, a cycle is a loop no root reaches: one pass down from the roots
/// finds every node's depth, and a node it never reaches lies on (or under) a cycle.
pub(crate) fn check_tree_depth(nodes: &[RawNode]) -> Result<(), Refusal> {
    let mut depth = vec![usize::MAX; nodes.len()];
    let mut stack: Vec<usize> = (0..nodes.len())
        .filter(|&i| nodes[i].parent.is_none())
        .collect();
    for &root in &stack {
        depth[root] = 1;
    }
    while let Some(at) = stack.pop() {
        if depth[at] > MAX_NODE_DEPTH {
            return Err(Refusal::new(format!(
                "node {at} is {} levels deep; at most {MAX_NODE_DEPTH} levels are supported",
                depth[at]
            )));
        }
        for &child in &nodes[at].children {
            depth[child] = depth[at] + 1;
            stack.push(child);
        }
    }
    match depth.iter().position(|&d| d == usize::MAX) {
        Some(start) => Err(Refusal::new(format!(
            "node {start} is its own ancestor (cycle in children)"
        ))),
        None => Ok(()),
    }
}
