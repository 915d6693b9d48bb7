//! The copy of a model that is handed to the renderer, made to fit the GPU it will run on.
//!
//! Real exports (VRoid Studio, UniVRM) give every primitive of a mesh the same vertex
//! buffer: a `Face` of 8 primitives over one 8k-vertex buffer with 57 morph targets.
//! Bevy 0.19 uploads each primitive on its own — every vertex of the accessor, and for
//! morphs `vertices × targets × 48` bytes into one storage buffer — so that face alone
//! became 179 MB, over the 128 MiB a storage binding may hold, and the app quit. Here
//! each such primitive gets accessors holding only the vertices its indices use (the
//! face drops to its real size), the morph data every part needs is checked against the
//! device's limits before anything is uploaded, and textures larger than the device
//! allows are downscaled (or, when even decoding them would cost too much, refused).
//!
//! Nothing here changes what the model *is*: node indices, mesh indices, morph target
//! indices and the VRM extension are untouched, so expressions and the rig read the
//! same. Only the bytes the renderer sees change.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::Refusal;
use crate::files::accessors::accessor_layout;
use crate::files::budget::{MORPH_BYTES_PER_VERTEX_TARGET, image_size, index_of, megabytes};
use crate::files::glb;
use crate::files::gltf_buffer::BufferBuilder;

/// The largest texture that is decoded to be downscaled (pixels). Decoding costs 4 bytes
/// a pixel at once; past this a texture is refused rather than risk running out of memory.
pub const MAX_DOWNSCALE_PIXELS: u64 = 80_000_000;

/// Vertices in one primitive: far above any real avatar's part (VRoid's largest are
/// ~60k), and what bounds the memory a hostile vertex count can make us allocate.
pub const MAX_PART_VERTICES: usize = 16 << 20;

/// What the GPU allows, read from the render device (or wgpu's defaults).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    pub max_texture_side: u32,
    /// The most bytes one storage-buffer binding may hold (morph targets live in one).
    pub max_storage_binding: u64,
}

impl DeviceLimits {
    /// wgpu's default limits, which every WebGPU-class device meets.
    pub const WGPU_DEFAULT: DeviceLimits = DeviceLimits {
        max_texture_side: 8192,
        max_storage_binding: 128 << 20,
    };
}

/// What preparing a model did, for the status line and benchmarks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DisplayReport {
    /// Primitives given accessors of their own used vertices.
    pub primitives_compacted: usize,
    /// Vertices the renderer would have uploaded, before and after.
    pub vertices_before: u64,
    pub vertices_after: u64,
    /// Morph-target bytes the renderer would have stored, before and after.
    pub morph_bytes_before: u64,
    pub morph_bytes_after: u64,
    /// The largest morph-target block of one primitive, after.
    pub largest_morph_part: u64,
    pub textures_downscaled: usize,
    /// (primitive, target) pairs left out because the target moves none of its vertices.
    pub targets_dropped: usize,
}

/// Where a node's morph weights go once its mesh is split by the targets each part
/// uses: display node, and for each of its targets the original target index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MorphRoute {
    pub node: usize,
    pub targets: Vec<usize>,
}

/// Original node index → its routes. Nodes not listed keep their weights as they are.
pub type MorphRoutes = std::collections::BTreeMap<usize, Vec<MorphRoute>>;

/// The renderer's copy of a model.
#[derive(Clone, Debug)]
pub struct DisplayModel {
    pub bytes: Vec<u8>,
    pub warnings: Vec<String>,
    pub report: DisplayReport,
    pub routes: MorphRoutes,
    /// Nodes in the display copy (split meshes add some after the model's own).
    pub node_count: usize,
    /// Per glTF material, its complete VRM 1.0 MToon (VRM 0.x ones converted), or
    /// `None` where the material is not MToon ([`crate::model::mtoon`]).
    pub mtoon: Vec<Option<Value>>,
}

/// Downscales an encoded image to fit `max_side` on its longer side; returns PNG bytes.
pub type Downscale<'a> = &'a mut dyn FnMut(&[u8], u32) -> Result<Vec<u8>, String>;

/// An attribute map's (semantic, accessor index) pairs.
fn accessors_of(attributes: &Value) -> Vec<(String, usize)> {
    attributes
        .as_object()
        .map(|a| {
            a.iter()
                .filter_map(|(k, v)| Some((k.clone(), index_of(v)?)))
                .collect()
        })
        .unwrap_or_default()
}

/// Element `i` of an accessor as raw bytes, whether dense, sparse or implicit zeros.
struct ElementReader<'a> {
    bin: &'a [u8],
    dense: Option<crate::files::accessors::AccessorLayout>,
    sparse: HashMap<usize, usize>,
    sparse_values: Option<(usize, usize)>,
    element: usize,
    count: usize,
}

impl<'a> ElementReader<'a> {
    fn new(root: &Value, index: usize, bin: &'a [u8]) -> Result<ElementReader<'a>, Refusal> {
        let what = format!("accessor {index}");
        let lengths = [bin.len()];
        let accessor = &root["accessors"][index];
        let components = match accessor["type"].as_str().unwrap_or("") {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            other => {
                return Err(Refusal::new(format!(
                    "{what}: vertex data of type '{other}'"
                )));
            }
        };
        let size = match accessor["componentType"].as_u64() {
            Some(5120 | 5121) => 1,
            Some(5122 | 5123) => 2,
            Some(5125 | 5126) => 4,
            other => return Err(Refusal::new(format!("{what}: component type {other:?}"))),
        };
        let element = components * size;
        let count = accessor["count"].as_u64().unwrap_or(0) as usize;
        let dense = accessor_layout(root, index, &lengths)?;
        let mut sparse = HashMap::new();
        let mut sparse_values = None;
        if let Some(s) = accessor.get("sparse") {
            let n = s["count"].as_u64().unwrap_or(0) as usize;
            let index_size = match s["indices"]["componentType"].as_u64() {
                Some(5121) => 1,
                Some(5123) => 2,
                Some(5125) => 4,
                other => {
                    return Err(Refusal::new(format!("{what}: sparse index type {other:?}")));
                }
            };
            let view = |v: &Value, need: usize| -> Result<usize, Refusal> {
                let view = index_of(&v["bufferView"])
                    .ok_or_else(|| Refusal::new(format!("{what}: sparse bufferView missing")))?;
                let (_, offset, length) =
                    crate::files::accessors::view_range(root, view, &lengths)?;
                let start =
                    offset + v.get("byteOffset").and_then(Value::as_u64).unwrap_or(0) as usize;
                if start
                    .checked_add(need)
                    .is_none_or(|end| end > offset + length)
                {
                    return Err(Refusal::new(format!(
                        "{what}: sparse data runs past its view"
                    )));
                }
                Ok(start)
            };
            let indices_at = view(&s["indices"], n.saturating_mul(index_size))?;
            let values_at = view(&s["values"], n.saturating_mul(element))?;
            for k in 0..n {
                let b = &bin[indices_at + k * index_size..];
                let i = match index_size {
                    1 => b[0] as usize,
                    2 => u16::from_le_bytes([b[0], b[1]]) as usize,
                    _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize,
                };
                if i >= count {
                    return Err(Refusal::new(format!(
                        "{what}: sparse index {i} ≥ count {count}"
                    )));
                }
                sparse.insert(i, k);
            }
            sparse_values = Some((values_at, element));
        }
        Ok(ElementReader {
            bin,
            dense,
            sparse,
            sparse_values,
            element,
            count,
        })
    }

    fn push(&self, i: usize, out: &mut Vec<u8>) {
        if let (Some(k), Some((at, element))) = (self.sparse.get(&i), self.sparse_values) {
            out.extend_from_slice(&self.bin[at + k * element..at + (k + 1) * element]);
        } else if let Some(d) = &self.dense {
            let at = d.start + i * d.stride;
            out.extend_from_slice(&self.bin[at..at + self.element]);
        } else {
            out.extend(std::iter::repeat_n(0u8, self.element));
        }
    }
}

/// Index values of a primitive, bounds-checked against its vertex count.
fn read_indices(
    root: &Value,
    index: usize,
    bin: &[u8],
    vertices: usize,
) -> Result<Vec<u32>, Refusal> {
    let what = format!("accessor {index}");
    let layout = accessor_layout(root, index, &[bin.len()])?
        .ok_or_else(|| Refusal::new(format!("{what}: indices without a bufferView")))?;
    if root["accessors"][index].get("sparse").is_some() || layout.components != 1 {
        return Err(Refusal::new(format!("{what}: not a plain index list")));
    }
    let mut out = Vec::with_capacity(layout.count);
    for k in 0..layout.count {
        let b = &bin[layout.start + k * layout.stride..];
        let i = match layout.component_type {
            5121 => b[0] as u32,
            5123 => u16::from_le_bytes([b[0], b[1]]) as u32,
            5125 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            other => return Err(Refusal::new(format!("{what}: index type {other}"))),
        };
        if i as usize >= vertices {
            return Err(Refusal::new(format!(
                "{what}: index {i} is past the {vertices} vertices"
            )));
        }
        out.push(i);
    }
    Ok(out)
}

/// Appends a dense copy of accessor `source` holding only the elements `used` lists, in
/// that order; returns the new accessor's index.
fn compact(
    out: &mut BufferBuilder,
    root: &Value,
    source: usize,
    used: &[u32],
    is_position: bool,
) -> Result<usize, Refusal> {
    let reader = ElementReader::new(root, source, &out.bin)?;
    let mut bytes = Vec::with_capacity(used.len() * reader.element);
    for &i in used {
        if i as usize >= reader.count {
            return Err(Refusal::new(format!(
                "accessor {source}: vertex {i} is past its count"
            )));
        }
        reader.push(i as usize, &mut bytes);
    }
    let original = &root["accessors"][source];
    let mut accessor = json!({
        "componentType": original["componentType"], "count": used.len(), "type": original["type"],
    });
    if let Some(n) = original.get("normalized") {
        accessor["normalized"] = n.clone();
    }
    if is_position {
        // glTF wants bounds on positions; recompute them for the subset.
        let (min, max) = float3_bounds(&bytes);
        accessor["min"] = json!(min);
        accessor["max"] = json!(max);
    }
    let view = out.view(&bytes, Some(34962));
    accessor["bufferView"] = json!(view);
    out.accessors.push(accessor);
    Ok(out.accessors.len() - 1)
}

fn float3_bounds(bytes: &[u8]) -> ([f32; 3], [f32; 3]) {
    let mut min = [f32::MAX; 3];
    let mut max = [f32::MIN; 3];
    for chunk in bytes.chunks_exact(12) {
        for c in 0..3 {
            let x = f32::from_le_bytes(chunk[c * 4..c * 4 + 4].try_into().unwrap_or([0; 4]));
            min[c] = min[c].min(x);
            max[c] = max[c].max(x);
        }
    }
    if bytes.is_empty() {
        return ([0.0; 3], [0.0; 3]);
    }
    (min, max)
}

/// Whether a morph target moves any of a part's vertices (any attribute non-zero).
fn target_moves(
    root: &Value,
    target: &Value,
    bin: &[u8],
    used: Option<&[u32]>,
    vertices: usize,
) -> Result<bool, Refusal> {
    let Some(attributes) = target.as_object() else {
        return Ok(false);
    };
    let mut element = Vec::new();
    for accessor in attributes.values().filter_map(index_of) {
        let reader = ElementReader::new(root, accessor, bin)?;
        let float = root["accessors"][accessor]["componentType"].as_u64() == Some(5126);
        let mut check = |i: usize| -> Result<bool, Refusal> {
            if i >= reader.count {
                return Err(Refusal::new(format!(
                    "accessor {accessor}: vertex {i} is past its count"
                )));
            }
            element.clear();
            reader.push(i, &mut element);
            Ok(if float {
                element
                    .chunks_exact(4)
                    .any(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) != 0.0)
            } else {
                element.iter().any(|b| *b != 0)
            })
        };
        match used {
            Some(used) => {
                for &i in used {
                    if check(i as usize)? {
                        return Ok(true);
                    }
                }
            }
            None => {
                for i in 0..vertices {
                    if check(i)? {
                        return Ok(true);
                    }
                }
            }
        }
    }
    Ok(false)
}

fn targets_of(root: &Value, mesh: usize) -> usize {
    root["meshes"][mesh]["primitives"][0]["targets"]
        .as_array()
        .map_or(0, Vec::len)
}

/// Splits mesh `m` into one mesh per set of targets its parts use (glTF gives every
/// primitive of a mesh the same targets), each on its own node beside the original,
/// and records where each node's weights now go.
fn split_by_targets(
    root: &mut Value,
    m: usize,
    parts: &[(usize, Vec<usize>)],
    routes: &mut MorphRoutes,
) {
    let original = root["meshes"][m].clone();
    let mut groups: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    for (p, moving) in parts {
        match groups.iter_mut().find(|(targets, _)| targets == moving) {
            Some((_, primitives)) => primitives.push(*p),
            None => groups.push((moving.clone(), vec![*p])),
        }
    }
    let make = |targets: &[usize], primitives: &[usize]| {
        let mut mesh = original.clone();
        let subset =
            |list: &Value| json!(targets.iter().map(|&t| list[t].clone()).collect::<Vec<_>>());
        mesh["primitives"] = json!(
            primitives
                .iter()
                .map(|&p| {
                    let mut primitive = original["primitives"][p].clone();
                    if let Some(object) = primitive.as_object_mut() {
                        if targets.is_empty() {
                            object.remove("targets");
                        } else {
                            let kept = subset(&object["targets"]);
                            object.insert("targets".into(), kept);
                        }
                    }
                    primitive
                })
                .collect::<Vec<_>>()
        );
        if let Some(object) = mesh.as_object_mut() {
            if targets.is_empty() {
                object.remove("weights");
            } else if let Some(weights) = original.get("weights") {
                object.insert("weights".into(), subset(weights));
            }
        }
        if let Some(names) = original["extras"].get("targetNames") {
            mesh["extras"]["targetNames"] = subset(names);
        }
        mesh
    };
    let mut meshes = vec![m];
    root["meshes"][m] = make(&groups[0].0, &groups[0].1);
    for (targets, primitives) in &groups[1..] {
        let mesh = make(targets, primitives);
        if let Some(list) = root["meshes"].as_array_mut() {
            list.push(mesh);
            meshes.push(list.len() - 1);
        }
    }
    let node_count = root["nodes"].as_array().map_or(0, Vec::len);
    for n in 0..node_count {
        if root["nodes"][n]["mesh"].as_u64() != Some(m as u64) {
            continue;
        }
        let mut node_routes = Vec::new();
        for (k, ((targets, _), &mesh)) in groups.iter().zip(&meshes).enumerate() {
            let node = if k == 0 {
                n
            } else {
                let mut part = json!({"name": format!("{} (part {k})", root["nodes"][n]["name"].as_str().unwrap_or("mesh")), "mesh": mesh});
                if let Some(skin) = root["nodes"][n].get("skin") {
                    part["skin"] = skin.clone();
                }
                let Some(nodes) = root["nodes"].as_array_mut() else {
                    continue;
                };
                nodes.push(part);
                let index = nodes.len() - 1;
                match root["nodes"][n]["children"].as_array_mut() {
                    Some(children) => children.push(json!(index)),
                    None => root["nodes"][n]["children"] = json!([index]),
                }
                index
            };
            if !targets.is_empty() {
                node_routes.push(MorphRoute {
                    node,
                    targets: targets.clone(),
                });
            }
        }
        routes.insert(n, node_routes);
    }
}

/// Makes the renderer's copy of a validated VRM/glTF binary: compacts shared-vertex
/// primitives, checks morph data against the storage limit and fits textures to the
/// texture limit. Refuses (changing nothing) what this device cannot draw.
pub fn prepare(
    bytes: &[u8],
    limits: &DeviceLimits,
    downscale: Downscale<'_>,
) -> Result<DisplayModel, Refusal> {
    let split = glb::split(bytes)?;
    let mut root: Value = serde_json::from_slice(split.json)
        .map_err(|e| Refusal::new(format!("the model's JSON is not valid: {e}")))?;
    let bin = split.bin.unwrap_or(&[]);
    // What follows reads every primitive and target: bounded by the same budget.
    crate::files::budget::check(&root, bin)?;
    let own_bin = root["buffers"][0].get("uri").is_none() && split.bin.is_some();
    // One kind of MToon for the renderer, written into the copy's materials.
    let mtoon = crate::model::mtoon::normalize(&mut root);
    let materials_rewritten = mtoon.iter().any(Option::is_some);
    let mut out = BufferBuilder {
        bin: bin.to_vec(),
        views: root["bufferViews"].as_array().cloned().unwrap_or_default(),
        accessors: root["accessors"].as_array().cloned().unwrap_or_default(),
    };
    let mut report = DisplayReport::default();
    let mut warnings = Vec::new();

    let mut routes = MorphRoutes::new();
    let mesh_count = root["meshes"].as_array().map_or(0, Vec::len);
    for m in 0..mesh_count {
        let mesh_name = root["meshes"][m]["name"].as_str().unwrap_or("").to_string();
        let mut part_targets: Vec<(usize, Vec<usize>)> = Vec::new();
        let primitive_count = root["meshes"][m]["primitives"]
            .as_array()
            .map_or(0, Vec::len);
        for p in 0..primitive_count {
            let primitive = root["meshes"][m]["primitives"][p].clone();
            let Some(position) = index_of(&primitive["attributes"]["POSITION"]) else {
                let all = (0..primitive["targets"].as_array().map_or(0, Vec::len)).collect();
                part_targets.push((p, all));
                continue;
            };
            let vertices = root["accessors"][position]["count"].as_u64().unwrap_or(0) as usize;
            if vertices > MAX_PART_VERTICES {
                return Err(Refusal::new(format!(
                    "mesh '{mesh_name}' has a part of {vertices} vertices; at most {MAX_PART_VERTICES} can be drawn"
                )));
            }
            let targets = primitive["targets"].as_array().map_or(0, Vec::len) as u64;
            report.vertices_before += vertices as u64;
            report.morph_bytes_before += vertices as u64 * targets * MORPH_BYTES_PER_VERTEX_TARGET;
            let mut kept = vertices as u64;
            let indexed = match index_of(&primitive["indices"]) {
                Some(indices) => {
                    let values = read_indices(&root, indices, bin, vertices)
                        .map_err(|e| e.context(format!("mesh '{mesh_name}' primitive {p}")))?;
                    let mut used: Vec<u32> = values.clone();
                    used.sort_unstable();
                    used.dedup();
                    Some((values, used))
                }
                None => None,
            };
            let used = indexed.as_ref().map(|(_, used)| used.as_slice());
            // Targets that move none of this part's vertices cost GPU memory for nothing.
            let mut moving = Vec::new();
            for t in 0..targets as usize {
                if target_moves(&root, &primitive["targets"][t], bin, used, vertices)? {
                    moving.push(t);
                }
            }
            if let (Some((values, used)), true) = (&indexed, own_bin) {
                // Worth a copy only when a good part of the buffer belongs to others.
                if (used.len() as u64) * 10 < vertices as u64 * 9 {
                    let mut remap = vec![u32::MAX; vertices];
                    for (new, &old) in used.iter().enumerate() {
                        remap[old as usize] = new as u32;
                    }
                    let mut new_primitive = primitive.clone();
                    for (name, accessor) in accessors_of(&primitive["attributes"]) {
                        let compacted =
                            compact(&mut out, &root, accessor, used, name == "POSITION")?;
                        new_primitive["attributes"][&name] = json!(compacted);
                    }
                    for &t in &moving {
                        for (name, accessor) in accessors_of(&primitive["targets"][t]) {
                            let compacted =
                                compact(&mut out, &root, accessor, used, name == "POSITION")?;
                            new_primitive["targets"][t][&name] = json!(compacted);
                        }
                    }
                    let remapped: Vec<u8> = values
                        .iter()
                        .flat_map(|&i| remap[i as usize].to_le_bytes())
                        .collect();
                    let view = out.view(&remapped, Some(34963));
                    out.accessors.push(json!({"bufferView": view, "componentType": 5125, "count": values.len(), "type": "SCALAR"}));
                    new_primitive["indices"] = json!(out.accessors.len() - 1);
                    root["meshes"][m]["primitives"][p] = new_primitive;
                    report.primitives_compacted += 1;
                    kept = used.len() as u64;
                }
            }
            report.vertices_after += kept;
            let morph = kept * moving.len() as u64 * MORPH_BYTES_PER_VERTEX_TARGET;
            report.morph_bytes_after += morph;
            report.largest_morph_part = report.largest_morph_part.max(morph);
            if morph > limits.max_storage_binding {
                let name = if mesh_name.is_empty() {
                    format!("mesh {m}")
                } else {
                    format!("mesh '{mesh_name}'")
                };
                return Err(Refusal::new(format!(
                    "{name} needs {} of morph-target data ({kept} vertices × {} targets) in one \
                     part; this GPU allows {} per buffer, so the model cannot be drawn here",
                    megabytes(morph),
                    moving.len(),
                    megabytes(limits.max_storage_binding)
                )));
            }
            report.targets_dropped += targets as usize - moving.len();
            part_targets.push((p, moving));
        }
        if part_targets
            .iter()
            .any(|(_, moving)| moving.len() != targets_of(&root, m))
        {
            split_by_targets(&mut root, m, &part_targets, &mut routes);
        }
    }

    let image_count = root["images"].as_array().map_or(0, Vec::len);
    for i in 0..image_count {
        let Some(view) = index_of(&root["images"][i]["bufferView"]) else {
            continue;
        };
        let Ok((_, offset, length)) =
            crate::files::accessors::view_range(&root, view, &[bin.len()])
        else {
            continue;
        };
        let encoded = &bin[offset..offset + length];
        let side = limits.max_texture_side;
        let name = root["images"][i]["name"]
            .as_str()
            .map_or(format!("image {i}"), |n| format!("'{n}'"));
        let Some((w, h)) = image_size(encoded) else {
            // A KTX2 texture is block-compressed: it cannot be downscaled here.
            if let Some((w, h)) = crate::files::budget::ktx2_size(encoded)
                && (w > side || h > side)
            {
                return Err(Refusal::new(format!(
                    "KTX2 texture {name} is {w}×{h}, larger than this GPU allows ({side}×{side}); the model cannot be drawn here"
                )));
            }
            continue;
        };
        if w <= side && h <= side {
            continue;
        }
        if w as u64 * h as u64 > MAX_DOWNSCALE_PIXELS {
            return Err(Refusal::new(format!(
                "texture {name} is {w}×{h}, larger than this GPU allows ({side}×{side}) and too \
                 large to downscale safely; the model cannot be drawn here"
            )));
        }
        let smaller = downscale(encoded, side).map_err(|e| {
            Refusal::new(format!(
                "texture {name} ({w}×{h}) could not be downscaled: {e}"
            ))
        })?;
        let (nw, nh) = image_size(&smaller).unwrap_or((side, side));
        let new_view = out.view(&smaller, None);
        root["images"][i]["bufferView"] = json!(new_view);
        root["images"][i]["mimeType"] = json!("image/png");
        report.textures_downscaled += 1;
        warnings.push(format!(
            "texture {name} is {w}×{h}, larger than this GPU allows ({side}); it is shown at {nw}×{nh}"
        ));
    }

    let node_count = root["nodes"].as_array().map_or(0, Vec::len);
    if report.primitives_compacted == 0 && report.textures_downscaled == 0 && routes.is_empty() {
        crate::files::budget::check_display(&root, bin)?;
        let bytes = if materials_rewritten {
            let json = serde_json::to_vec(&root).map_err(|e| Refusal::new(e.to_string()))?;
            glb::build(&json, bin)
        } else {
            bytes.to_vec()
        };
        return Ok(DisplayModel {
            bytes,
            warnings,
            report,
            routes,
            node_count,
            mtoon,
        });
    }
    while !out.bin.len().is_multiple_of(4) {
        out.bin.push(0);
    }
    root["bufferViews"] = json!(out.views);
    root["accessors"] = json!(out.accessors);
    root["buffers"][0]["byteLength"] = json!(out.bin.len());
    crate::files::budget::check_display(&root, &out.bin)?;
    let json = serde_json::to_vec(&root).map_err(|e| Refusal::new(e.to_string()))?;
    Ok(DisplayModel {
        bytes: glb::build(&json, &out.bin),
        warnings,
        report,
        routes,
        node_count,
        mtoon,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::mannequin::MannequinVariant;
    use crate::model::test_avatar::{TestAvatarSpec, build};

    fn no_downscale(_: &[u8], _: u32) -> Result<Vec<u8>, String> {
        Err("not expected".into())
    }

    fn small_avatar(variant: MannequinVariant) -> TestAvatarSpec {
        TestAvatarSpec {
            texture_size: 32,
            ..TestAvatarSpec::vroid(variant)
        }
    }

    fn read_vec3(root: &Value, bin: &[u8], accessor: usize, i: usize) -> [f32; 3] {
        let reader = ElementReader::new(root, accessor, bin).unwrap();
        let mut b = Vec::new();
        reader.push(i, &mut b);
        [0, 1, 2].map(|c| f32::from_le_bytes(b[c * 4..c * 4 + 4].try_into().unwrap()))
    }

    /// Corners at rest (as bits, to match parts however meshes were split) and with
    /// morph weights applied, for one primitive.
    type Drawn = (Vec<[u32; 3]>, Vec<[f32; 3]>);

    /// Every drawn primitive's triangle corners with each morph target at `weight(t)`
    /// (routed as the app routes weights), sorted by the corners at rest.
    fn drawn(bytes: &[u8], routes: &MorphRoutes, weight: &dyn Fn(usize) -> f32) -> Vec<Drawn> {
        let split = glb::split(bytes).unwrap();
        let root: Value = serde_json::from_slice(split.json).unwrap();
        let bin = split.bin.unwrap();
        // Display node → original target index of each of its mesh's targets.
        let mut routed: HashMap<usize, Vec<usize>> = HashMap::new();
        for list in routes.values() {
            for r in list {
                routed.insert(r.node, r.targets.clone());
            }
        }
        let mut out = Vec::new();
        for (n, node) in root["nodes"].as_array().unwrap().iter().enumerate() {
            let Some(mesh) = node["mesh"].as_u64() else {
                continue;
            };
            for p in root["meshes"][mesh as usize]["primitives"]
                .as_array()
                .unwrap()
            {
                let position = p["attributes"]["POSITION"].as_u64().unwrap() as usize;
                let count = root["accessors"][position]["count"].as_u64().unwrap() as usize;
                let indices =
                    read_indices(&root, p["indices"].as_u64().unwrap() as usize, bin, count)
                        .unwrap();
                let targets = p["targets"].as_array().cloned().unwrap_or_default();
                let original = |k: usize| routed.get(&n).map_or(k, |list| list[k]);
                let (mut rest, mut moved) = (Vec::new(), Vec::new());
                for i in indices {
                    let at = read_vec3(&root, bin, position, i as usize);
                    rest.push(at.map(f32::to_bits));
                    let mut v = at;
                    for (k, t) in targets.iter().enumerate() {
                        let d = read_vec3(
                            &root,
                            bin,
                            t["POSITION"].as_u64().unwrap() as usize,
                            i as usize,
                        );
                        for c in 0..3 {
                            v[c] += weight(original(k)) * d[c];
                        }
                    }
                    moved.push(v);
                }
                out.push((rest, moved));
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    #[test]
    fn shared_vertex_primitives_keep_only_their_vertices_and_draw_the_same() {
        let bytes = build(&small_avatar(MannequinVariant::Vrm1));
        let display = prepare(&bytes, &DeviceLimits::WGPU_DEFAULT, &mut no_downscale).unwrap();
        let r = &display.report;
        // Face (8) and body (4) primitives share buffers; hair has one primitive.
        assert_eq!(r.primitives_compacted, 12, "{r:?}");
        assert!(r.morph_bytes_before > 150_000_000, "{r:?}");
        assert!(r.morph_bytes_after * 10 < r.morph_bytes_before, "{r:?}");
        assert!(r.morph_bytes_after < 16_000_000, "{r:?}");
        assert!(r.targets_dropped > 100, "{r:?}");
        let rest = |_: usize| 0.0;
        assert_eq!(
            drawn(&display.bytes, &display.routes, &rest),
            drawn(&bytes, &MorphRoutes::new(), &rest)
        );
        // The model itself reads the same: same rig, same expressions.
        let (before, after) = (
            crate::model::vrm::Model::from_bytes(&bytes).unwrap(),
            crate::model::vrm::Model::from_bytes(&display.bytes).unwrap(),
        );
        assert_eq!(before.expression_names(), after.expression_names());
        assert!(
            display.node_count > before.nodes.len(),
            "the face is split over extra nodes"
        );
    }

    #[test]
    fn every_morph_target_deforms_the_same_vertices_by_the_same_amounts() {
        for variant in [MannequinVariant::Vrm1, MannequinVariant::Vrm0] {
            let bytes = build(&small_avatar(variant));
            let display = prepare(&bytes, &DeviceLimits::WGPU_DEFAULT, &mut no_downscale).unwrap();
            // Every target at a different weight at once: a target routed to the wrong
            // slot, or dropped while it moves something, shows.
            let weight = |t: usize| 0.3 + (t % 7) as f32 * 0.1;
            let theirs = drawn(&bytes, &MorphRoutes::new(), &weight);
            let ours = drawn(&display.bytes, &display.routes, &weight);
            assert_eq!(theirs.len(), ours.len());
            let mut moved = 0;
            for ((key_a, a), (key_b, b)) in theirs.iter().zip(&ours) {
                assert_eq!(key_a, key_b);
                for (p, q) in a.iter().zip(b) {
                    for c in 0..3 {
                        assert!((p[c] - q[c]).abs() < 1e-6, "{p:?} vs {q:?}");
                    }
                }
                moved += key_a
                    .iter()
                    .zip(a)
                    .filter(|(r, m)| r.map(f32::from_bits) != **m)
                    .count();
            }
            assert!(moved > 1000, "the weights moved {moved} corners");
        }
    }

    #[test]
    fn a_morph_set_over_the_storage_limit_is_refused_with_the_sizes() {
        let spec = TestAvatarSpec {
            crafted_morph_vertices: Some(20_000),
            ..small_avatar(MannequinVariant::Vrm1)
        };
        let bytes = build(&spec);
        assert!(
            bytes.len() < 40_000_000,
            "sparse targets keep the file small"
        );
        let err = prepare(&bytes, &DeviceLimits::WGPU_DEFAULT, &mut no_downscale).unwrap_err();
        assert!(
            err.0.contains("'Crafted'") && err.0.contains("240 MB") && err.0.contains("134 MB"),
            "{err}"
        );
    }

    #[test]
    fn a_ktx2_texture_over_the_device_limit_is_refused_not_uploaded() {
        let mut ktx2 = b"\xABKTX 20\xBB\r\n\x1A\n".to_vec();
        for v in [37u32, 1, 4096, 4096, 0, 0, 1, 1, 0] {
            ktx2.extend(v.to_le_bytes());
        }
        ktx2.resize(80, 0);
        for v in [104u64, 16, 16] {
            ktx2.extend(v.to_le_bytes()); // one level of 16 bytes, right after the index
        }
        ktx2.extend([0u8; 16]);
        let bytes = crate::model::mannequin::build(MannequinVariant::Vrm1);
        let split = glb::split(&bytes).unwrap();
        let mut root: Value = serde_json::from_slice(split.json).unwrap();
        let mut bin = split.bin.unwrap().to_vec();
        root["bufferViews"]
            .as_array_mut()
            .unwrap()
            .push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": ktx2.len()}));
        root["images"] = json!([{"bufferView": root["bufferViews"].as_array().unwrap().len() - 1, "name": "Body"}]);
        bin.extend_from_slice(&ktx2);
        root["buffers"][0]["byteLength"] = json!(bin.len());
        let model = glb::build(root.to_string().as_bytes(), &bin);
        let small = DeviceLimits {
            max_texture_side: 2048,
            ..DeviceLimits::WGPU_DEFAULT
        };
        let e = prepare(&model, &small, &mut no_downscale)
            .unwrap_err()
            .to_string();
        assert!(e.contains("KTX2 texture 'Body' is 4096×4096"), "{e}");
        assert!(prepare(&model, &DeviceLimits::WGPU_DEFAULT, &mut no_downscale).is_ok());
    }

    #[test]
    fn textures_over_the_limit_are_downscaled_or_refused() {
        let mut spec = small_avatar(MannequinVariant::Vrm1);
        spec.oversized_texture = Some(300);
        let bytes = build(&spec);
        let limits = DeviceLimits {
            max_texture_side: 256,
            ..DeviceLimits::WGPU_DEFAULT
        };
        let mut asked = Vec::new();
        let mut fake = |encoded: &[u8], side: u32| {
            asked.push((image_size(encoded), side));
            Ok(build_png_header(side, side))
        };
        let display = prepare(&bytes, &limits, &mut fake).unwrap();
        assert_eq!(asked, vec![(Some((300, 300)), 256)]);
        assert_eq!(display.report.textures_downscaled, 1);
        assert!(
            display.warnings[0].contains("300×300") && display.warnings[0].contains("256×256"),
            "{:?}",
            display.warnings
        );

        spec.oversized_texture = Some(9000);
        let err = prepare(
            &build(&spec),
            &DeviceLimits::WGPU_DEFAULT,
            &mut no_downscale,
        )
        .unwrap_err();
        assert!(
            err.0.contains("9000×9000") && err.0.contains("8192"),
            "{err}"
        );
    }

    fn build_png_header(w: u32, h: u32) -> Vec<u8> {
        let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        b.extend_from_slice(&w.to_be_bytes());
        b.extend_from_slice(&h.to_be_bytes());
        b
    }

    #[test]
    fn a_model_that_needs_nothing_is_passed_through() {
        let bytes = crate::model::mannequin::build(MannequinVariant::Vrm1);
        let display = prepare(&bytes, &DeviceLimits::WGPU_DEFAULT, &mut no_downscale).unwrap();
        assert_eq!(display.bytes, bytes);
        assert!(display.warnings.is_empty());
    }

    #[test]
    fn jpeg_and_png_sizes_are_read_from_headers() {
        assert_eq!(image_size(&build_png_header(7, 9)), Some((7, 9)));
        let jpeg = [
            0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0, 0xFF, 0xC0, 0, 17, 8, 0, 30, 0, 40, 3, 0, 0,
        ];
        assert_eq!(image_size(&jpeg), Some((40, 30)));
        assert_eq!(image_size(b"nonsense"), None);
    }
}
