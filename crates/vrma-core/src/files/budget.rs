//! What Bevy's glTF loader will allocate for a model, added up from the JSON before the
//! loader sees the file. The loader sizes its arrays from accessor counts and decodes
//! every texture whole; a small hostile file (an accessor of two billion elements with no
//! data, one accessor reused by thousands of primitives, a PNG that says 40000×40000, a
//! zstd level that inflates a thousandfold) would otherwise take the process down.
//! Everything here is linear in the size of the JSON.

use serde_json::Value;

use crate::Refusal;
use crate::files::glb::read_u32;

/// Decoded vertex, index, morph, skin and animation data of the copy of a model that
/// Bevy loads (targets that move nothing already dropped); past this it is refused.
pub const MAX_MESH_BYTES: u64 = 512 << 20;

/// The same sum over the file as it was opened: what preparing the display copy reads.
/// Larger, because many files carry targets that move no vertex of most parts.
pub const MAX_SOURCE_MESH_BYTES: u64 = 2 << 30;

/// Decoded texture pixels of one model (RGBA). Twenty 4096² textures fit; a file of
/// tiny PNGs that each claim 8192² does not.
pub const MAX_TEXTURE_BYTES: u64 = 2 << 30;

/// Bevy's limit of morph targets on one mesh (`MAX_MORPH_WEIGHTS`).
pub const MAX_MORPH_TARGETS: usize = 256;

/// The widest or tallest texture in KTX2 form (it cannot be downscaled before upload).
pub const MAX_KTX2_SIDE: u32 = 8192;

/// What a model will cost once decoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    pub mesh_bytes: u64,
    pub texture_bytes: u64,
}

/// An accessor's element count and components, or why it cannot be used.
fn accessor_shape(root: &Value, index: Option<usize>, what: &str) -> Result<(u64, u64), Refusal> {
    let accessor = index
        .and_then(|i| root["accessors"].get(i))
        .ok_or_else(|| Refusal::new(format!("{what} uses an accessor that does not exist")))?;
    let count = accessor["count"]
        .as_u64()
        .ok_or_else(|| Refusal::new(format!("{what}: its accessor has no 'count'")))?;
    let kind = accessor["type"].as_str().unwrap_or("");
    let components = crate::files::accessors::component_count(kind)
        .ok_or_else(|| Refusal::new(format!("{what}: its accessor has unknown type '{kind}'")))?;
    Ok((count, components as u64))
}

/// Bytes of an accessor once decoded (every component widened to 4 bytes, as Bevy does
/// for positions, normals, UVs, colours and weights).
fn decoded(count: u64, components: u64) -> u64 {
    count.saturating_mul(components).saturating_mul(4)
}

fn mesh_label(root: &Value, m: usize) -> String {
    match root["meshes"][m]["name"].as_str() {
        Some(name) if !name.is_empty() => format!("mesh '{name}'"),
        _ => format!("mesh {m}"),
    }
}

fn mesh_bytes(root: &Value, limit: u64) -> Result<u64, Refusal> {
    let mut total = 0u64;
    let empty = Vec::new();
    let meshes = root["meshes"].as_array().unwrap_or(&empty);
    for (m, mesh) in meshes.iter().enumerate() {
        let primitives = mesh["primitives"].as_array().unwrap_or(&empty);
        for (p, primitive) in primitives.iter().enumerate() {
            let what = format!("{} primitive {p}", mesh_label(root, m));
            let attributes = primitive["attributes"].as_object();
            let vertices = match primitive["attributes"].get("POSITION") {
                Some(a) => accessor_shape(root, index_of(a), &format!("{what} POSITION"))?.0,
                None => 0,
            };
            for (name, accessor) in attributes.into_iter().flatten() {
                let (count, components) =
                    accessor_shape(root, index_of(accessor), &format!("{what} {name}"))?;
                if count != vertices {
                    return Err(Refusal::new(format!(
                        "{what}: attribute {name} has {count} elements but POSITION has {vertices}"
                    )));
                }
                total = total.saturating_add(decoded(count, components));
            }
            if let Some(indices) = primitive.get("indices") {
                let (count, _) =
                    accessor_shape(root, index_of(indices), &format!("{what} indices"))?;
                total = total.saturating_add(decoded(count, 1));
            }
            let targets = primitive["targets"].as_array().unwrap_or(&empty);
            if targets.len() > MAX_MORPH_TARGETS {
                return Err(Refusal::new(format!(
                    "{what} has {} morph targets; at most {MAX_MORPH_TARGETS} can be drawn",
                    targets.len()
                )));
            }
            for (t, target) in targets.iter().enumerate() {
                for (name, accessor) in target.as_object().into_iter().flatten() {
                    // Bevy streams target attributes into one morph image (counted below).
                    let (count, _) = accessor_shape(
                        root,
                        index_of(accessor),
                        &format!("{what} morph target {t} {name}"),
                    )?;
                    if count != vertices {
                        return Err(Refusal::new(format!(
                            "{what}: morph target {t} {name} has {count} elements but POSITION has {vertices}"
                        )));
                    }
                }
                total =
                    total.saturating_add(vertices.saturating_mul(MORPH_BYTES_PER_VERTEX_TARGET));
            }
            if total > limit {
                return Ok(total); // enough to refuse; the rest need not be read
            }
        }
    }
    let node_count = root["nodes"].as_array().map_or(0, Vec::len);
    for (s, skin) in root["skins"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .enumerate()
    {
        if let Some(ibm) = skin.get("inverseBindMatrices") {
            let (count, components) = accessor_shape(
                root,
                index_of(ibm),
                &format!("skin {s} inverseBindMatrices"),
            )?;
            total = total.saturating_add(decoded(count, components));
        }
        for joint in skin["joints"].as_array().unwrap_or(&empty) {
            if index_of(joint).is_none_or(|j| j >= node_count) {
                return Err(Refusal::new(format!(
                    "skin {s}: joint {joint} is not a node (there are {node_count})"
                )));
            }
        }
    }
    for (a, animation) in root["animations"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .enumerate()
    {
        let samplers = animation["samplers"].as_array().unwrap_or(&empty);
        for channel in animation["channels"].as_array().unwrap_or(&empty) {
            let Some(sampler) = index_of(&channel["sampler"]).and_then(|s| samplers.get(s)) else {
                continue; // the loader refuses these itself
            };
            for key in ["input", "output"] {
                let (count, components) = accessor_shape(
                    root,
                    index_of(&sampler[key]),
                    &format!("animation {a} sampler {key}"),
                )?;
                total = total.saturating_add(decoded(count, components));
            }
        }
    }
    Ok(total)
}

const KTX2_MAGIC: &[u8; 12] = b"\xABKTX 20\xBB\r\n\x1A\n";

fn read_u64(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

/// Width and height from a KTX2 header; `None` for anything else.
pub fn ktx2_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if !bytes.starts_with(KTX2_MAGIC) {
        return None;
    }
    Some((read_u32(bytes, 20)?, read_u32(bytes, 24)?.max(1)))
}

/// The most bytes one zstd frame can inflate to, from its block headers (a raw or RLE
/// block says its size; a compressed block yields at most 128 KiB). `None`: not a frame.
fn zstd_frame_bound(data: &[u8]) -> Option<u64> {
    if data.get(0..4)? != [0x28, 0xB5, 0x2F, 0xFD] {
        return None;
    }
    let descriptor = *data.get(4)?;
    let single_segment = descriptor & 0x20 != 0;
    let dictionary = [0, 1, 2, 4][(descriptor & 3) as usize];
    let content_size = match descriptor >> 6 {
        0 if single_segment => 1,
        0 => 0,
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let mut at = 5 + usize::from(!single_segment) + dictionary + content_size;
    let mut bound = 0u64;
    loop {
        let header = data.get(at..at + 3)?;
        let header = u32::from(header[0]) | u32::from(header[1]) << 8 | u32::from(header[2]) << 16;
        let last = header & 1 != 0;
        let size = u64::from(header >> 3);
        at += 3;
        let (stored, yields) = match (header >> 1) & 3 {
            0 => (size, size),
            1 => (1, size),
            2 => (size, 128 << 10),
            _ => return None,
        };
        bound = bound.saturating_add(yields);
        at = at.checked_add(usize::try_from(stored).ok()?)?;
        if at > data.len() {
            return None;
        }
        if last {
            return Some(bound);
        }
    }
}

/// Width, height and the bytes a KTX2 texture decodes to, checked against its own level
/// index and, for zstd, against what its blocks can inflate to.
fn ktx2_cost(bytes: &[u8], what: &str) -> Result<(u32, u32, u64), Refusal> {
    let unreadable = || Refusal::new(format!("{what}: its KTX2 header cannot be read"));
    let width = read_u32(bytes, 20).ok_or_else(unreadable)?;
    let height = read_u32(bytes, 24).ok_or_else(unreadable)?.max(1);
    let depth = read_u32(bytes, 28).ok_or_else(unreadable)?;
    let layers = read_u32(bytes, 32).ok_or_else(unreadable)?;
    let faces = read_u32(bytes, 36).ok_or_else(unreadable)?;
    let levels = read_u32(bytes, 40).ok_or_else(unreadable)?.max(1);
    let scheme = read_u32(bytes, 44).ok_or_else(unreadable)?;
    if width > MAX_KTX2_SIDE || height > MAX_KTX2_SIDE {
        return Err(Refusal::new(format!(
            "{what} is a {width}×{height} KTX2 texture; at most {MAX_KTX2_SIDE}×{MAX_KTX2_SIDE} can be shown"
        )));
    }
    if depth > 1 || layers > 1 || !matches!(faces, 0 | 1) || levels > 16 {
        return Err(Refusal::new(format!(
            "{what}: a KTX2 texture with {depth} depth, {layers} layers, {faces} faces and {levels} levels is not a 2D texture"
        )));
    }
    let mut total = 0u64;
    for level in 0..levels as usize {
        let entry = 80 + level * 24;
        let offset = read_u64(bytes, entry).ok_or_else(unreadable)?;
        let length = read_u64(bytes, entry + 8).ok_or_else(unreadable)?;
        let declared = read_u64(bytes, entry + 16).ok_or_else(unreadable)?;
        let data = usize::try_from(offset)
            .ok()
            .zip(usize::try_from(length).ok())
            .and_then(|(o, l)| bytes.get(o..o.checked_add(l)?))
            .ok_or_else(|| {
                Refusal::new(format!("{what}: KTX2 level {level} lies outside the image"))
            })?;
        total = total.saturating_add(match scheme {
            0 => data.len() as u64,
            2 => zstd_frame_bound(data)
                .ok_or_else(|| {
                    Refusal::new(format!("{what}: KTX2 level {level} is not a zstd frame"))
                })?
                .max(declared.min(data.len() as u64)),
            other => {
                return Err(Refusal::new(format!(
                    "{what}: KTX2 supercompression scheme {other} is not supported (only none or zstd)"
                )));
            }
        });
    }
    Ok((width, height, total))
}

fn texture_bytes(root: &Value, bin: &[u8]) -> Result<u64, Refusal> {
    let mut total = 0u64;
    let empty = Vec::new();
    for (i, image) in root["images"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .enumerate()
    {
        let what = match image["name"].as_str() {
            Some(name) if !name.is_empty() => format!("texture '{name}'"),
            _ => format!("image {i}"),
        };
        if image.get("uri").is_some() {
            return Err(Refusal::new(format!(
                "{what} is stored outside the file (a URI); a .vrm must hold its textures"
            )));
        }
        let Some(view) = index_of(&image["bufferView"]) else {
            return Err(Refusal::new(format!("{what} has no data")));
        };
        let (_, offset, length) = crate::files::accessors::view_range(root, view, &[bin.len()])
            .map_err(|e| e.context(&what))?;
        let encoded = &bin[offset..offset + length];
        let cost = if encoded.starts_with(KTX2_MAGIC) {
            ktx2_cost(encoded, &what)?.2
        } else {
            let (w, h) = image_size(encoded).ok_or_else(|| {
                Refusal::new(format!(
                    "{what} is not a PNG, JPEG or KTX2 image that can be read"
                ))
            })?;
            // A 16-bit PNG decodes to 8 bytes a pixel.
            let wide = encoded.starts_with(b"\x89PNG") && encoded.get(24) == Some(&16);
            u64::from(w) * u64::from(h) * if wide { 8 } else { 4 }
        };
        total = total.saturating_add(cost);
    }
    Ok(total)
}

/// Adds up what reading a model as opened will cost, and refuses one over the budgets
/// (or with more morph targets than can be drawn) before anything is decoded.
pub fn check(root: &Value, bin: &[u8]) -> Result<Budget, Refusal> {
    check_within(root, bin, MAX_SOURCE_MESH_BYTES, "read")
}

/// The same for the display copy that Bevy's loader will decode.
pub fn check_display(root: &Value, bin: &[u8]) -> Result<Budget, Refusal> {
    check_within(root, bin, MAX_MESH_BYTES, "drawn")
}

fn check_within(root: &Value, bin: &[u8], mesh_limit: u64, verb: &str) -> Result<Budget, Refusal> {
    let mesh_bytes = mesh_bytes(root, mesh_limit)?;
    if mesh_bytes > mesh_limit {
        // Adding up stops once over the limit: the sum so far is a lower bound.
        return Err(Refusal::new(format!(
            "the model's meshes need at least {} once decoded; at most {} can be {verb}",
            megabytes(mesh_bytes),
            megabytes(mesh_limit)
        )));
    }
    let texture_bytes = texture_bytes(root, bin)?;
    if texture_bytes > MAX_TEXTURE_BYTES {
        return Err(Refusal::new(format!(
            "the model's textures need {} once decoded; at most {} can be drawn",
            megabytes(texture_bytes),
            megabytes(MAX_TEXTURE_BYTES)
        )));
    }
    Ok(Budget {
        mesh_bytes,
        texture_bytes,
    })
}

/// Bytes Bevy 0.19 stores per vertex per morph target (`MorphAttributes`: position,
/// normal and tangent displacements, each padded to 16 bytes).
pub const MORPH_BYTES_PER_VERTEX_TARGET: u64 = 48;

/// Width and height from a PNG or JPEG header, without decoding.
pub fn image_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.len() >= 24 && bytes.starts_with(b"\x89PNG\r\n\x1a\n") && &bytes[12..16] == b"IHDR" {
        let w = u32::from_be_bytes(bytes[16..20].try_into().ok()?);
        let h = u32::from_be_bytes(bytes[20..24].try_into().ok()?);
        return Some((w, h));
    }
    if bytes.starts_with(&[0xFF, 0xD8]) {
        let mut at = 2;
        while at + 9 < bytes.len() {
            if bytes[at] != 0xFF {
                return None;
            }
            if bytes[at + 1] == 0xFF {
                at += 1; // a fill byte before the marker
                continue;
            }
            let marker = bytes[at + 1];
            let length = u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]) as usize;
            let is_frame = matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC);
            if is_frame {
                let h = u16::from_be_bytes([bytes[at + 5], bytes[at + 6]]) as u32;
                let w = u16::from_be_bytes([bytes[at + 7], bytes[at + 8]]) as u32;
                return Some((w, h));
            }
            at += 2 + length;
        }
    }
    None
}

pub(crate) fn index_of(value: &Value) -> Option<usize> {
    value.as_u64().map(|v| v as usize)
}

pub(crate) fn megabytes(bytes: u64) -> String {
    format!("{:.0} MB", bytes as f64 / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn vroid_scale_avatars_and_the_fixtures_are_well_inside_the_budgets() {
        use crate::model::mannequin::MannequinVariant;
        use crate::model::test_avatar::{TestAvatarSpec, build};
        for variant in [MannequinVariant::Vrm0, MannequinVariant::Vrm1] {
            let bytes = build(&TestAvatarSpec {
                texture_size: 64,
                ..TestAvatarSpec::vroid(variant)
            });
            let split = crate::files::glb::split(&bytes).unwrap();
            let root: Value = serde_json::from_slice(split.json).unwrap();
            let budget = check(&root, split.bin.unwrap()).unwrap();
            let display = crate::model::display::prepare(
                &bytes,
                &crate::model::display::DeviceLimits::WGPU_DEFAULT,
                &mut |_, _| Err("not needed".into()),
            )
            .unwrap();
            let split = crate::files::glb::split(&display.bytes).unwrap();
            let copy: Value = serde_json::from_slice(split.json).unwrap();
            let shown = check_display(&copy, split.bin.unwrap()).unwrap();
            eprintln!(
                "{variant:?}: meshes {} as opened, {} as drawn",
                megabytes(budget.mesh_bytes),
                megabytes(shown.mesh_bytes)
            );
            assert!(budget.mesh_bytes < MAX_SOURCE_MESH_BYTES / 4, "{budget:?}");
            assert!(shown.mesh_bytes < MAX_MESH_BYTES / 4, "{shown:?}");
        }
        let fixtures =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures");
        let mut checked = 0;
        let folders = ["vrm0", "vrm1"].map(|f| fixtures.join(f));
        for entry in folders
            .iter()
            .flat_map(std::fs::read_dir)
            .flatten()
            .flatten()
        {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "vrm") {
                let model = crate::model::vrm::Model::from_bytes(&std::fs::read(&path).unwrap());
                assert!(model.is_ok(), "{}: {model:?}", path.display());
                checked += 1;
            }
        }
        assert!(
            checked > 0 || !fixtures.exists(),
            "no fixtures read from {}",
            fixtures.display()
        );
    }

    fn mesh_with(accessors: Value, primitive: Value) -> Value {
        json!({"accessors": accessors, "meshes": [{"name": "Face", "primitives": [primitive]}]})
    }

    #[test]
    fn an_accessor_of_two_billion_elements_without_data_is_refused() {
        let root = mesh_with(
            json!([{"count": 2_000_000_000u64, "type": "VEC3", "componentType": 5126}]),
            json!({"attributes": {"POSITION": 0}}),
        );
        let e = check(&root, &[]).unwrap_err().to_string();
        assert!(e.contains("meshes need at least 24000 MB"), "{e}");
    }

    #[test]
    fn one_accessor_shared_by_many_targets_counts_each_use() {
        let vertices = 20_000u64;
        let targets: Vec<Value> = (0..200).map(|_| json!({"POSITION": 0})).collect();
        let mut root = mesh_with(
            json!([{"count": vertices, "type": "VEC3", "componentType": 5126}]),
            json!({"attributes": {"POSITION": 0}, "targets": targets}),
        );
        let one = check(&root, &[]).unwrap().mesh_bytes;
        assert_eq!(one, vertices * 12 + vertices * 48 * 200);
        // The same primitive 8 times over is 8 times the cost: too much to draw, not
        // to read; 300 times is too much to read.
        let primitive = root["meshes"][0]["primitives"][0].clone();
        root["meshes"][0]["primitives"] = json!(vec![primitive.clone(); 8]);
        assert!(check_display(&root, &[]).is_err());
        assert_eq!(check(&root, &[]).unwrap().mesh_bytes, one * 8);
        root["meshes"][0]["primitives"] = json!(vec![primitive; 300]);
        assert!(check(&root, &[]).is_err());
    }

    #[test]
    fn more_targets_than_bevy_draws_are_refused_by_count() {
        let targets: Vec<Value> = (0..100_000).map(|_| json!({"POSITION": 0})).collect();
        let root = mesh_with(
            json!([{"count": 3, "type": "VEC3", "componentType": 5126}]),
            json!({"attributes": {"POSITION": 0}, "targets": targets}),
        );
        let e = check(&root, &[]).unwrap_err().to_string();
        assert!(e.contains("100000 morph targets"), "{e}");
    }

    #[test]
    fn attributes_of_different_lengths_and_missing_accessors_are_refused() {
        let root = mesh_with(
            json!([{"count": 3, "type": "VEC3", "componentType": 5126},
                   {"count": 4, "type": "VEC3", "componentType": 5126}]),
            json!({"attributes": {"POSITION": 0, "NORMAL": 1}}),
        );
        assert!(
            check(&root, &[])
                .unwrap_err()
                .to_string()
                .contains("NORMAL has 4")
        );
        let root = mesh_with(json!([]), json!({"attributes": {"POSITION": 7}}));
        assert!(
            check(&root, &[])
                .unwrap_err()
                .to_string()
                .contains("does not exist")
        );
    }

    #[test]
    fn skin_joints_must_be_nodes() {
        let root = json!({"nodes": [{}], "skins": [{"joints": [0, 9999]}]});
        let e = check(&root, &[]).unwrap_err().to_string();
        assert!(e.contains("joint 9999"), "{e}");
    }

    fn png_header(w: u32, h: u32) -> Vec<u8> {
        let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        b.extend(w.to_be_bytes());
        b.extend(h.to_be_bytes());
        b.extend([8, 6, 0, 0, 0]);
        b
    }

    fn with_images(images: &[Vec<u8>]) -> (Value, Vec<u8>) {
        let mut bin = Vec::new();
        let mut views = Vec::new();
        let mut list = Vec::new();
        for (i, bytes) in images.iter().enumerate() {
            views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len()}));
            list.push(json!({"bufferView": i}));
            bin.extend_from_slice(bytes);
        }
        let root =
            json!({"buffers": [{"byteLength": bin.len()}], "bufferViews": views, "images": list});
        (root, bin)
    }

    #[test]
    fn many_small_pngs_that_claim_to_be_huge_are_refused_from_their_headers() {
        let (root, bin) = with_images(&vec![png_header(8192, 8192); 40]);
        let e = check(&root, &bin).unwrap_err().to_string();
        assert!(e.contains("textures need 10737 MB"), "{e}");
        let (root, bin) = with_images(&vec![png_header(2048, 2048); 10]);
        assert_eq!(
            check(&root, &bin).unwrap().texture_bytes,
            10 * 2048 * 2048 * 4
        );
    }

    #[test]
    fn images_outside_the_file_or_of_unknown_format_are_refused() {
        let root = json!({"images": [{"uri": "/dev/zero"}]});
        assert!(
            check(&root, &[])
                .unwrap_err()
                .to_string()
                .contains("outside the file")
        );
        let (root, bin) = with_images(&[b"RIFF\0\0\0\0WEBP".to_vec()]);
        assert!(
            check(&root, &bin)
                .unwrap_err()
                .to_string()
                .contains("not a PNG")
        );
    }

    fn ktx2(width: u32, scheme: u32, level: &[u8], declared: u64) -> Vec<u8> {
        let mut b = KTX2_MAGIC.to_vec();
        for v in [37u32, 1, width, width, 0, 0, 1, 1, scheme] {
            b.extend(v.to_le_bytes());
        }
        b.resize(80, 0);
        let offset = 104u64;
        b.extend(offset.to_le_bytes());
        b.extend((level.len() as u64).to_le_bytes());
        b.extend(declared.to_le_bytes());
        b.extend_from_slice(level);
        b
    }

    /// A zstd frame of `blocks` RLE blocks, each inflating to 128 KiB.
    fn rle_bomb(blocks: usize) -> Vec<u8> {
        let mut f = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x58];
        for i in 0..blocks {
            let last = u32::from(i + 1 == blocks);
            let header = last | 1 << 1 | (128 << 10) << 3;
            f.extend(&header.to_le_bytes()[..3]);
            f.push(0xAB);
        }
        f
    }

    #[test]
    fn a_zstd_ktx2_level_is_costed_by_what_its_blocks_can_inflate_to() {
        let bomb = rle_bomb(20_000); // 80 KB that inflates to 2.6 GB
        let (root, bin) = with_images(&[ktx2(1024, 2, &bomb, 4 << 20)]);
        let e = check(&root, &bin).unwrap_err().to_string();
        assert!(e.contains("textures need 2621 MB"), "{e}");
        let honest = rle_bomb(32); // 4 MiB: one 1024² RGBA level
        let (root, bin) = with_images(&[ktx2(1024, 2, &honest, 4 << 20)]);
        assert_eq!(check(&root, &bin).unwrap().texture_bytes, 4 << 20);
        let (root, bin) = with_images(&[ktx2(40_000, 0, &[0; 16], 16)]);
        assert!(
            check(&root, &bin)
                .unwrap_err()
                .to_string()
                .contains("40000×40000")
        );
        let (root, bin) = with_images(&[ktx2(64, 2, b"not zstd", 16)]);
        assert!(
            check(&root, &bin)
                .unwrap_err()
                .to_string()
                .contains("not a zstd frame")
        );
    }
}
