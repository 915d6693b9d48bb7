//! VRM 0.x (`VRM`) and VRM 1.0 (`VRMC_vrm`) files → one [`Model`]: the raw node tree,
//! the humanoid map in VRM 1.0 names, expressions with VRM 1.0 names, and meta.

use serde_json::Value;

use crate::Refusal;
use crate::files::glb;
use crate::model::gltf::{
    RawNode, VrmVersion, check_buffers, check_required_extensions, check_scenes,
    check_skins_in_scene, field, index_field, parse_nodes,
};
use crate::model::humanoid::{ALL_BONES, BONE_COUNT, Bone};

/// An expression's effect on one morph target of one mesh node.
#[derive(Clone, Debug, PartialEq)]
pub struct MorphBind {
    pub node: usize,
    pub index: usize,
    /// 0..1 (VRM 0.x stores 0..100; converted on load).
    pub weight: f32,
}

/// A preset or custom expression, by its VRM 1.0 name.
#[derive(Clone, Debug)]
pub struct ExpressionDef {
    pub name: String,
    pub preset: bool,
    pub is_binary: bool,
    /// How this expression, while on, holds back the blink, look and mouth expressions
    /// (VRM 1.0 `overrideBlink`, `overrideLookAt`, `overrideMouth`; 0.x has none).
    pub overrides: Overrides,
    pub binds: Vec<MorphBind>,
    /// UV offset and scale a material's textures take at full weight (VRM 1.0
    /// `textureTransformBinds`).
    pub texture_binds: Vec<TextureBind>,
}

/// A material's textures moved by an expression (an atlas of faces, a meter).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextureBind {
    pub material: usize,
    pub offset: [f32; 2],
    pub scale: [f32; 2],
}

/// How much an expression holds back a group of others while it is on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Override {
    #[default]
    None,
    /// Any weight above 0 blocks the group entirely.
    Block,
    /// The group is reduced by this expression's weight.
    Blend,
}

impl Override {
    fn read(value: Option<&Value>) -> Override {
        match value.and_then(Value::as_str) {
            Some("block") => Override::Block,
            Some("blend") => Override::Blend,
            _ => Override::None,
        }
    }
}

/// An expression's three overrides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    pub blink: Override,
    pub look_at: Override,
    pub mouth: Override,
}

/// The VRM 1.0 preset expression names.
pub const PRESET_EXPRESSIONS: [&str; 18] = [
    "happy",
    "angry",
    "sad",
    "relaxed",
    "surprised",
    "aa",
    "ih",
    "ou",
    "ee",
    "oh",
    "blink",
    "blinkLeft",
    "blinkRight",
    "lookUp",
    "lookDown",
    "lookLeft",
    "lookRight",
    "neutral",
];

/// Maps a VRM 0.x blend shape preset name to its VRM 1.0 expression name.
pub fn vrm0_preset_to_vrm1(preset: &str) -> Option<&'static str> {
    Some(match preset.to_ascii_lowercase().as_str() {
        "joy" => "happy",
        "angry" => "angry",
        "sorrow" => "sad",
        "fun" => "relaxed",
        "a" => "aa",
        "i" => "ih",
        "u" => "ou",
        "e" => "ee",
        "o" => "oh",
        "blink" => "blink",
        "blink_l" => "blinkLeft",
        "blink_r" => "blinkRight",
        "lookup" => "lookUp",
        "lookdown" => "lookDown",
        "lookleft" => "lookLeft",
        "lookright" => "lookRight",
        "neutral" => "neutral",
        _ => return None,
    })
}

/// A loaded VRM model: everything the core needs, nothing the renderer needs.
#[derive(Clone, Debug)]
pub struct Model {
    pub version: VrmVersion,
    pub title: String,
    pub nodes: Vec<RawNode>,
    /// glTF node index of each humanoid bone, indexed by [`Bone::index`].
    pub humanoid: [Option<usize>; BONE_COUNT],
    pub expressions: Vec<ExpressionDef>,
    /// Morph target count of each glTF mesh.
    pub mesh_morph_counts: Vec<usize>,
    /// Hair, skirts and accessories that swing (`core::spring`).
    pub springs: crate::model::spring::Springs,
    /// Twist bones and other nodes that follow another node (`core::constraint`).
    pub constraints: crate::model::constraint::Constraints,
    /// Where the eyes look, and what turns them (`core::look_at`); `None`: as posed.
    pub look_at: Option<crate::model::look_at::LookAt>,
    /// The own UV offset and scale of each material an expression's texture binds move
    /// (the material's base colour texture transform), by material index.
    pub material_uv: std::collections::BTreeMap<usize, TextureBind>,
}

/// The longest model title kept (longer ones are cut).
pub const MAX_TITLE_CHARS: usize = 200;

fn parse_vrm1_humanoid(
    ext: &Value,
    node_count: usize,
) -> Result<[Option<usize>; BONE_COUNT], Refusal> {
    let mut map = [None; BONE_COUNT];
    let bones = field(ext, "humanoid")
        .and_then(|h| field(h, "humanBones"))
        .and_then(Value::as_object)
        .ok_or_else(|| Refusal::new("VRMC_vrm.humanoid.humanBones is missing"))?;
    for (name, entry) in bones {
        let Some(bone) = Bone::from_name(name) else {
            continue; // unknown names are ignored, as three-vrm does
        };
        let node = index_field(
            entry,
            "node",
            &format!("humanoid bone '{name}'"),
            node_count,
        )?;
        map[bone.index()] = Some(node);
    }
    Ok(map)
}

fn parse_vrm0_humanoid(
    ext: &Value,
    node_count: usize,
) -> Result<[Option<usize>; BONE_COUNT], Refusal> {
    let mut map = [None; BONE_COUNT];
    let bones = field(ext, "humanoid")
        .and_then(|h| field(h, "humanBones"))
        .and_then(Value::as_array)
        .ok_or_else(|| Refusal::new("VRM.humanoid.humanBones is missing"))?;
    for entry in bones {
        let Some(name) = field(entry, "bone").and_then(Value::as_str) else {
            continue;
        };
        let Some(bone) = Bone::from_vrm0_name(name) else {
            continue;
        };
        let node = index_field(
            entry,
            "node",
            &format!("humanoid bone '{name}'"),
            node_count,
        )?;
        if map[bone.index()].is_some() {
            return Err(Refusal::new(format!(
                "humanoid bone '{name}' is mapped twice"
            )));
        }
        map[bone.index()] = Some(node);
    }
    Ok(map)
}

fn parse_vrm1_expressions(ext: &Value, node_count: usize) -> Result<Vec<ExpressionDef>, Refusal> {
    let mut out = Vec::new();
    let mut total_binds = 0usize;
    let Some(expressions) = field(ext, "expressions") else {
        return Ok(out);
    };
    for (group, preset) in [("preset", true), ("custom", false)] {
        let Some(map) = field(expressions, group).and_then(Value::as_object) else {
            continue;
        };
        for (name, def) in map {
            if preset && !PRESET_EXPRESSIONS.contains(&name.as_str()) {
                continue;
            }
            let mut binds = Vec::new();
            if let Some(list) = field(def, "morphTargetBinds").and_then(Value::as_array) {
                total_binds += list.len();
                if total_binds > MAX_EXPRESSION_BINDS {
                    return Err(Refusal::new(format!(
                        "the expressions bind more than {MAX_EXPRESSION_BINDS} morph targets of nodes"
                    )));
                }
                for b in list {
                    let what = format!("expression '{name}' morph bind");
                    let node = index_field(b, "node", &what, node_count)?;
                    let index = field(b, "index").and_then(Value::as_u64).unwrap_or(0) as usize;
                    let weight = field(b, "weight").and_then(Value::as_f64).unwrap_or(1.0) as f32;
                    binds.push(MorphBind {
                        node,
                        index,
                        weight: clamp_weight(weight),
                    });
                }
            }
            let mut texture_binds = Vec::new();
            if let Some(list) = field(def, "textureTransformBinds").and_then(Value::as_array) {
                total_binds += list.len();
                if total_binds > MAX_EXPRESSION_BINDS {
                    return Err(Refusal::new(format!(
                        "the expressions bind more than {MAX_EXPRESSION_BINDS} morph targets or textures"
                    )));
                }
                for b in list {
                    let pair = |key: &str, default| read_pair(&b[key], default);
                    // A bind naming no material of the file is skipped, as three-vrm does.
                    if let Some(material) = field(b, "material").and_then(Value::as_u64) {
                        texture_binds.push(TextureBind {
                            material: material as usize,
                            offset: pair("offset", [0.0, 0.0]),
                            scale: pair("scale", [1.0, 1.0]),
                        });
                    }
                }
            }
            let is_binary = field(def, "isBinary")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let overrides = Overrides {
                blink: Override::read(field(def, "overrideBlink")),
                look_at: Override::read(field(def, "overrideLookAt")),
                mouth: Override::read(field(def, "overrideMouth")),
            };
            out.push(ExpressionDef {
                name: name.clone(),
                preset,
                is_binary,
                overrides,
                binds,
                texture_binds,
            });
        }
    }
    Ok(out)
}

/// A UV offset or scale `[u, v]` (finite, within ±1e4), or `default`.
fn read_pair(value: &Value, default: [f32; 2]) -> [f32; 2] {
    let at = |i: usize| {
        value[i]
            .as_f64()
            .map(|x| x as f32)
            .filter(|x| x.is_finite() && x.abs() <= 1e4)
    };
    match (at(0), at(1)) {
        (Some(x), Some(y)) => [x, y],
        _ => default,
    }
}

fn clamp_weight(w: f32) -> f32 {
    if w.is_finite() {
        w.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Morph-target binds of all expressions together (each node a 0.x bind reaches counts):
/// VRoid exports have a few hundred; every frame applies them all.
pub const MAX_EXPRESSION_BINDS: usize = 100_000;

fn parse_vrm0_expressions(
    ext: &Value,
    nodes: &[RawNode],
    mesh_count: usize,
) -> Result<Vec<ExpressionDef>, Refusal> {
    let mut out: Vec<ExpressionDef> = Vec::new();
    let Some(groups) = field(ext, "blendShapeMaster")
        .and_then(|m| field(m, "blendShapeGroups"))
        .and_then(Value::as_array)
    else {
        return Ok(out);
    };
    // A 0.x bind names a mesh; it applies to every node that uses that mesh.
    let mut nodes_of_mesh: Vec<Vec<usize>> = vec![Vec::new(); mesh_count];
    for (i, n) in nodes.iter().enumerate() {
        if let Some(m) = n.mesh.filter(|&m| m < mesh_count) {
            nodes_of_mesh[m].push(i);
        }
    }
    let mut names = std::collections::HashSet::new();
    let mut total_binds = 0usize;
    for group in groups {
        let preset_name = field(group, "presetName")
            .and_then(Value::as_str)
            .unwrap_or("unknown");
        let raw_name = field(group, "name").and_then(Value::as_str).unwrap_or("");
        let (name, preset) = match vrm0_preset_to_vrm1(preset_name) {
            Some(n) => (n.to_string(), true),
            // A custom group whose name is a 1.0 preset name (e.g. "surprised", which
            // 0.x lacks) is that preset, as three-vrm treats it.
            None if !raw_name.is_empty() => {
                (raw_name.to_string(), PRESET_EXPRESSIONS.contains(&raw_name))
            }
            None => continue,
        };
        if !names.insert(name.clone()) {
            continue; // three-vrm keeps the first group of a name
        }
        let mut binds = Vec::new();
        if let Some(list) = field(group, "binds").and_then(Value::as_array) {
            for b in list {
                let what = format!("blend shape group '{name}' bind");
                let mesh = index_field(b, "mesh", &what, mesh_count)?;
                let index = field(b, "index").and_then(Value::as_u64).unwrap_or(0) as usize;
                let weight =
                    field(b, "weight").and_then(Value::as_f64).unwrap_or(100.0) as f32 / 100.0;
                total_binds += nodes_of_mesh[mesh].len();
                if total_binds > MAX_EXPRESSION_BINDS {
                    return Err(Refusal::new(format!(
                        "the expressions bind more than {MAX_EXPRESSION_BINDS} morph targets of nodes"
                    )));
                }
                for &node in &nodes_of_mesh[mesh] {
                    binds.push(MorphBind {
                        node,
                        index,
                        weight: clamp_weight(weight),
                    });
                }
            }
        }
        let is_binary = field(group, "isBinary")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        out.push(ExpressionDef {
            name,
            preset,
            is_binary,
            overrides: Overrides::default(),
            binds,
            texture_binds: Vec::new(),
        });
    }
    Ok(out)
}

fn mesh_morph_counts(root: &Value) -> Vec<usize> {
    let empty = Vec::new();
    field(root, "meshes")
        .and_then(Value::as_array)
        .unwrap_or(&empty)
        .iter()
        .map(|mesh| {
            field(mesh, "primitives")
                .and_then(Value::as_array)
                .and_then(|p| p.first())
                .and_then(|p| field(p, "targets"))
                .and_then(Value::as_array)
                .map_or(0, Vec::len)
        })
        .collect()
}

impl Model {
    /// Parses a `.vrm` (GLB) file. Errors say what is wrong in one line.
    pub fn from_bytes(bytes: &[u8]) -> Result<Model, Refusal> {
        let glb = glb::split(bytes)?;
        let root: Value = serde_json::from_slice(glb.json)
            .map_err(|e| Refusal::new(format!("the glTF JSON is invalid: {e}")))?;
        check_required_extensions(&root)?;
        let model = Model::from_json(&root)?;
        check_scenes(&root, model.nodes.len())?;
        check_buffers(&root, glb.bin)?;
        crate::files::budget::check(&root, glb.bin.unwrap_or(&[]))?;
        check_skins_in_scene(&root, &model.nodes)?;
        Ok(model)
    }

    /// Builds a model from parsed glTF JSON.
    pub fn from_json(root: &Value) -> Result<Model, Refusal> {
        if !root.is_object() {
            return Err(Refusal::new("the glTF JSON is not an object"));
        }
        let mesh_counts = mesh_morph_counts(root);
        let nodes = parse_nodes(root, mesh_counts.len())?;
        let extensions = field(root, "extensions");
        let vrm1 = extensions.and_then(|e| field(e, "VRMC_vrm"));
        let vrm0 = extensions.and_then(|e| field(e, "VRM"));
        let (version, humanoid, expressions, title) = if let Some(ext) = vrm1 {
            let title = field(ext, "meta")
                .and_then(|m| field(m, "name"))
                .and_then(Value::as_str);
            (
                VrmVersion::V1,
                parse_vrm1_humanoid(ext, nodes.len())?,
                parse_vrm1_expressions(ext, nodes.len())?,
                title,
            )
        } else if let Some(ext) = vrm0 {
            let title = field(ext, "meta")
                .and_then(|m| field(m, "title"))
                .and_then(Value::as_str);
            (
                VrmVersion::V0,
                parse_vrm0_humanoid(ext, nodes.len())?,
                parse_vrm0_expressions(ext, &nodes, mesh_counts.len())?,
                title,
            )
        } else {
            return Err(Refusal::new(
                "not a VRM: the glTF has neither a VRMC_vrm (VRM 1.0) nor a VRM (VRM 0.x) extension",
            ));
        };
        for bone in ALL_BONES {
            if bone.is_required() && humanoid[bone.index()].is_none() {
                return Err(Refusal::new(format!(
                    "missing required humanoid bone '{bone}'"
                )));
            }
        }
        for bone in ALL_BONES {
            let Some(node) = humanoid[bone.index()] else {
                continue;
            };
            let scale = nodes[node].scale;
            if scale.min_element() <= 0.0 {
                return Err(Refusal::new(format!(
                    "humanoid bone '{bone}' (node {node}) has scale {:?}; a bone's scale must be positive",
                    scale.to_array()
                )));
            }
        }
        for (i, a) in ALL_BONES.iter().enumerate() {
            for b in &ALL_BONES[i + 1..] {
                if humanoid[a.index()].is_some() && humanoid[a.index()] == humanoid[b.index()] {
                    return Err(Refusal::new(format!(
                        "humanoid bones '{a}' and '{b}' are mapped to the same node"
                    )));
                }
            }
        }
        let springs = crate::model::spring::Springs::read(root, &nodes);
        let constraints = crate::model::constraint::Constraints::read(root, &nodes);
        let look_at = crate::model::look_at::LookAt::read(root, version);
        // The base colour texture's own transform of each material an expression moves
        // (what its binds move from).
        let bound: std::collections::BTreeSet<usize> = expressions
            .iter()
            .flat_map(|e| e.texture_binds.iter().map(|b| b.material))
            .collect();
        let material_uv = bound
            .into_iter()
            .filter_map(|m| {
                let material = field(root, "materials")?.as_array()?.get(m)?;
                let transform = &material["pbrMetallicRoughness"]["baseColorTexture"]["extensions"]
                    ["KHR_texture_transform"];
                let pair = |key: &str, default| read_pair(&transform[key], default);
                Some((
                    m,
                    TextureBind {
                        material: m,
                        offset: pair("offset", [0.0, 0.0]),
                        scale: pair("scale", [1.0, 1.0]),
                    },
                ))
            })
            .collect();
        Ok(Model {
            version,
            // Every still, project and pose names the model: a title is a line, not a book.
            title: title.unwrap_or("").chars().take(MAX_TITLE_CHARS).collect(),
            nodes,
            humanoid,
            expressions,
            mesh_morph_counts: mesh_counts,
            springs,
            constraints,
            look_at,
            material_uv,
        })
    }

    /// The node a humanoid bone is mapped to.
    pub fn bone_node(&self, bone: Bone) -> Option<usize> {
        self.humanoid[bone.index()]
    }

    /// Expression names split into presets and customs, each sorted.
    pub fn expression_names(&self) -> (Vec<String>, Vec<String>) {
        let mut preset: Vec<String> = self
            .expressions
            .iter()
            .filter(|e| e.preset)
            .map(|e| e.name.clone())
            .collect();
        let mut custom: Vec<String> = self
            .expressions
            .iter()
            .filter(|e| !e.preset)
            .map(|e| e.name.clone())
            .collect();
        preset.sort();
        custom.sort();
        (preset, custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn minimal_vrm1(bones: &[(&str, usize)]) -> Value {
        let nodes: Vec<Value> = (0..bones.len())
            .map(|i| json!({"name": format!("n{i}")}))
            .collect();
        let mut human = serde_json::Map::new();
        for (name, node) in bones {
            human.insert(name.to_string(), json!({ "node": node }));
        }
        json!({"asset": {"version": "2.0"}, "nodes": nodes,
               "extensions": {"VRMC_vrm": {"specVersion": "1.0", "meta": {"name": "t"},
                 "humanoid": {"humanBones": human}}}})
    }

    #[test]
    fn a_title_is_cut_to_a_line() {
        let long = "é".repeat(1_000_000);
        let model = crate::model::mannequin::build(crate::model::mannequin::MannequinVariant::Vrm1);
        let split = crate::files::glb::split(&model).unwrap();
        let mut j: Value = serde_json::from_slice(split.json).unwrap();
        j["extensions"]["VRMC_vrm"]["meta"]["name"] = json!(long);
        let bytes = crate::files::glb::replace_json(&model, j.to_string().as_bytes()).unwrap();
        let parsed = Model::from_bytes(&bytes).unwrap();
        assert_eq!(parsed.title, "é".repeat(MAX_TITLE_CHARS));
    }

    #[test]
    fn plain_gltf_without_vrm_is_refused() {
        let err = Model::from_json(&json!({"asset": {"version": "2.0"}})).unwrap_err();
        assert!(err.to_string().contains("not a VRM"));
    }

    #[test]
    fn missing_hips_is_refused() {
        let err = Model::from_json(&minimal_vrm1(&[("spine", 0)])).unwrap_err();
        assert!(err.to_string().contains("'hips'"), "{err}");
    }

    #[test]
    fn nan_and_cycles_are_refused() {
        let root = json!({"nodes": [{"translation": [0.0, "x", 0.0]}],
                          "extensions": {"VRMC_vrm": {}}});
        assert!(Model::from_json(&root).is_err());
        let root = json!({"nodes": [{"children": [1]}, {"children": [0]}],
                          "extensions": {"VRMC_vrm": {}}});
        let err = Model::from_json(&root).unwrap_err().to_string();
        assert!(err.contains("parent") || err.contains("cycle"), "{err}");
        let root = json!({"nodes": [{"children": [7]}], "extensions": {"VRMC_vrm": {}}});
        assert!(
            Model::from_json(&root)
                .unwrap_err()
                .to_string()
                .contains("out of range")
        );
    }

    #[test]
    fn vrm0_presets_map_to_vrm1_names() {
        assert_eq!(vrm0_preset_to_vrm1("joy"), Some("happy"));
        assert_eq!(vrm0_preset_to_vrm1("sorrow"), Some("sad"));
        assert_eq!(vrm0_preset_to_vrm1("fun"), Some("relaxed"));
        assert_eq!(vrm0_preset_to_vrm1("blink_l"), Some("blinkLeft"));
        assert_eq!(vrm0_preset_to_vrm1("lookup"), Some("lookUp"));
        assert_eq!(vrm0_preset_to_vrm1("unknown"), None);
    }
}
