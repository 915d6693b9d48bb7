//! MToon for the renderer. In the display copy every MToon material carries one
//! complete VRM 1.0 `VRMC_materials_mtoon` object: a VRM 1.0 model's own, with the
//! schema's defaults filled in, or a VRM 0.x `materialProperties` entry converted as
//! three-vrm 3.5.5 converts it (`VRMMaterialsV0CompatPlugin`), the glTF core fields
//! (base colour, emission, normal map, alpha, culling) included. The renderer then has
//! one kind of MToon to draw, and draws it as three-vrm does.

use serde_json::{Map, Value, json};

/// The defaults of `VRMC_materials_mtoon.schema.json` (vrm-specification). Texture
/// references have none: absent means unused.
fn defaults() -> Value {
    json!({
        "specVersion": "1.0",
        "transparentWithZWrite": false,
        "renderQueueOffsetNumber": 0,
        "shadeColorFactor": [1.0, 1.0, 1.0],
        "shadingShiftFactor": 0.0,
        "shadingToonyFactor": 0.9,
        "giEqualizationFactor": 0.9,
        "matcapFactor": [1.0, 1.0, 1.0],
        "parametricRimColorFactor": [0.0, 0.0, 0.0],
        "rimLightingMixFactor": 1.0,
        "parametricRimFresnelPowerFactor": 5.0,
        "parametricRimLiftFactor": 0.0,
        "outlineWidthMode": "none",
        "outlineWidthFactor": 0.0,
        "outlineColorFactor": [0.0, 0.0, 0.0],
        "outlineLightingMixFactor": 1.0,
        "uvAnimationScrollXSpeedFactor": 0.0,
        "uvAnimationScrollYSpeedFactor": 0.0,
        "uvAnimationRotationSpeedFactor": 0.0
    })
}

/// The texture references of a complete MToon object.
pub const TEXTURES: [&str; 7] = [
    "shadeMultiplyTexture",
    "shadingShiftTexture",
    "matcapTexture",
    "rimMultiplyTexture",
    "outlineWidthMultiplyTexture",
    "uvAnimationMaskTexture",
    "emissiveTexture",
];

/// Makes every MToon material of a display copy complete (VRM 0.x ones converted
/// first). Returns, per glTF material, its complete `VRMC_materials_mtoon` or `None`.
pub fn normalize(root: &mut Value) -> Vec<Option<Value>> {
    if root["extensions"]["VRM"].is_object() {
        convert_v0(root);
    }
    let count = root["materials"].as_array().map_or(0, Vec::len);
    let textures = root["textures"].as_array().map_or(0, Vec::len);
    let mut mtoon: Vec<Option<Value>> = (0..count)
        .map(|m| {
            let given = root["materials"][m]["extensions"]["VRMC_materials_mtoon"].as_object()?;
            let mut full = defaults();
            for (key, value) in given {
                full[key] = value.clone();
            }
            complete(&mut full, textures);
            // The core normal map's strength, beside it for the renderer (Bevy's
            // material keeps the map, not its scale).
            let scale = root["materials"][m]["normalTexture"]["scale"]
                .as_f64()
                .filter(|s| s.is_finite())
                .map_or(1.0, |s| s.clamp(-10.0, 10.0));
            full[NORMAL_SCALE] = json!(scale);
            Some(full)
        })
        .collect();
    hold_mtoon_textures(root, &mut mtoon);
    for (m, full) in mtoon.iter().enumerate() {
        if let Some(full) = full {
            root["materials"][m]["extensions"]["VRMC_materials_mtoon"] = full.clone();
        }
    }
    mtoon
}

/// Key of the glTF `normalTexture.scale` in a complete MToon (the renderer's copy).
pub const NORMAL_SCALE: &str = "vrmaMakerNormalScale";

/// MToon's textures that three-vrm reads linear (numbers, not colours). It reads the
/// shading shift texture as a colour (sRGB), so that one is not here.
pub const LINEAR_TEXTURES: [&str; 2] = ["outlineWidthMultiplyTexture", "uvAnimationMaskTexture"];

/// Name of the materials that only hold MToon's textures for Bevy's glTF loader.
pub const TEXTURE_HOLDER: &str = "VRMA Maker: MToon textures";

/// Puts every texture only MToon uses into a slot of a material no mesh uses (Bevy's glTF
/// loader knows no MToon), for two reasons:
/// - held: Bevy keeps a loaded texture only while something holds it, and one no
///   material of its own named was dropped as soon as it loaded, or not, as the frame
///   fell (about every other still drew the shade and matcap textures plain white);
/// - decoded right: Bevy decodes a texture as sRGB unless a material uses it as a
///   normal, occlusion or metallic-roughness map, so an outline width or UV mask texture
///   came out darker (a half-grey width mask drew outlines a fifth wide, not half).
///
/// Colour textures go in base colour and emissive slots (two to a holder), numeric ones
/// in normal, occlusion and metallic-roughness slots (three to one); `mtoon` grows by a
/// `None` for each holder. As in three-vrm, where one texture object serves every use
/// of it, a texture also used as a colour stays sRGB for all of them.
fn hold_mtoon_textures(root: &mut Value, mtoon: &mut Vec<Option<Value>>) {
    // Every MToon texture that is not a number is a colour.
    let colour_slots = TEXTURES
        .iter()
        .filter(|slot| !LINEAR_TEXTURES.contains(slot));
    let core_index = |m: &Value, path: &[&str]| {
        path.iter()
            .fold(m, |v, key| &v[*key])
            .get("index")
            .and_then(Value::as_u64)
    };
    let materials = root["materials"].as_array().cloned().unwrap_or_default();
    let core_colour: Vec<u64> = materials
        .iter()
        .flat_map(|m| {
            [
                core_index(m, &["pbrMetallicRoughness", "baseColorTexture"]),
                core_index(m, &["emissiveTexture"]),
            ]
        })
        .flatten()
        .collect();
    let core_numeric: Vec<u64> = materials
        .iter()
        .flat_map(|m| {
            [
                core_index(m, &["normalTexture"]),
                core_index(m, &["occlusionTexture"]),
                core_index(m, &["pbrMetallicRoughness", "metallicRoughnessTexture"]),
            ]
        })
        .flatten()
        .collect();
    let texture_count = root["textures"].as_array().map_or(0, Vec::len) as u64;
    let mut colour: Vec<u64> = Vec::new();
    let mut linear: Vec<u64> = Vec::new();
    let add = |list: &mut Vec<u64>, index: Option<u64>| {
        if let Some(index) = index.filter(|&i| i < texture_count)
            && !core_colour.contains(&index)
            && !core_numeric.contains(&index)
            && !list.contains(&index)
        {
            list.push(index);
        }
    };
    for full in mtoon.iter().flatten() {
        for slot in colour_slots.clone() {
            add(&mut colour, full[slot]["index"].as_u64());
        }
    }
    for full in mtoon.iter().flatten() {
        for slot in LINEAR_TEXTURES {
            let index = full[slot]["index"].as_u64();
            if index.is_some_and(|i| !colour.contains(&i)) {
                add(&mut linear, index);
            }
        }
    }
    let Some(materials) = root["materials"].as_array_mut() else {
        return;
    };
    for two in colour.chunks(2) {
        let mut holder = json!({"name": TEXTURE_HOLDER,
            "pbrMetallicRoughness": {"baseColorTexture": {"index": two[0]}}});
        if let Some(second) = two.get(1) {
            holder["emissiveTexture"] = json!({"index": second});
        }
        materials.push(holder);
        mtoon.push(None);
    }
    for three in linear.chunks(3) {
        let mut holder = json!({"name": TEXTURE_HOLDER, "normalTexture": {"index": three[0]}});
        if let Some(second) = three.get(1) {
            holder["occlusionTexture"] = json!({"index": second});
        }
        if let Some(third) = three.get(2) {
            holder["pbrMetallicRoughness"] = json!({"metallicRoughnessTexture": {"index": third}});
        }
        materials.push(holder);
        mtoon.push(None);
    }
}

/// Every colour has three parts, every number is a number, every texture reference is
/// whole (texCoord, scale and a texture transform): the renderer reads no optional part.
fn complete(mtoon: &mut Value, texture_count: usize) {
    let defaults = defaults();
    for (key, default) in defaults.as_object().into_iter().flatten() {
        match default {
            Value::Array(parts) => {
                let given = mtoon[key].as_array().cloned().unwrap_or_default();
                let whole: Vec<Value> = (0..parts.len())
                    .map(|i| {
                        json!(
                            given
                                .get(i)
                                .and_then(Value::as_f64)
                                .filter(|v| v.is_finite())
                                .unwrap_or_else(|| parts[i].as_f64().unwrap_or(0.0))
                        )
                    })
                    .collect();
                mtoon[key] = json!(whole);
            }
            Value::Number(_) if !mtoon[key].as_f64().is_some_and(f64::is_finite) => {
                mtoon[key] = default.clone();
            }
            Value::Bool(_) if !mtoon[key].is_boolean() => mtoon[key] = default.clone(),
            Value::String(_) if !mtoon[key].is_string() => mtoon[key] = default.clone(),
            _ => {}
        }
    }
    // The schema's ranges (and an outline of at most a metre: a hostile width would
    // inflate the hull over the whole view).
    for (key, low, high) in [
        ("renderQueueOffsetNumber", -9.0, 9.0),
        ("shadingToonyFactor", 0.0, 1.0),
        ("giEqualizationFactor", 0.0, 1.0),
        ("rimLightingMixFactor", 0.0, 1.0),
        ("outlineLightingMixFactor", 0.0, 1.0),
        ("parametricRimFresnelPowerFactor", 0.0, 1e3),
        ("outlineWidthFactor", 0.0, 1.0),
    ] {
        let value = mtoon[key].as_f64().unwrap_or(low).clamp(low, high);
        mtoon[key] = if key == "renderQueueOffsetNumber" {
            json!(value.round() as i64)
        } else {
            json!(value)
        };
    }
    for key in TEXTURES {
        let Some(index) = mtoon[key]["index"]
            .as_u64()
            .map(|i| i as usize)
            .filter(|i| *i < texture_count)
        else {
            if let Some(fields) = mtoon.as_object_mut() {
                fields.remove(key);
            }
            continue;
        };
        let transform = &mtoon[key]["extensions"]["KHR_texture_transform"];
        let pair = |name: &str, default: f64| {
            let given = transform[name].as_array();
            [0, 1].map(|i| {
                given
                    .and_then(|a| a.get(i))
                    .and_then(Value::as_f64)
                    .unwrap_or(default)
            })
        };
        let (offset, scale) = (pair("offset", 0.0), pair("scale", 1.0));
        let strength = mtoon[key]["scale"].as_f64().unwrap_or(1.0);
        let tex_coord = mtoon[key]["texCoord"].as_u64().unwrap_or(0);
        mtoon[key] = json!({
            "index": index,
            "texCoord": tex_coord,
            "scale": strength,
            "extensions": {"KHR_texture_transform": {"offset": offset, "scale": scale}}
        });
    }
}

/// three-vrm's `gammaEOTF`: a plain 2.2 power, not the sRGB curve (bounded, so that a
/// hostile factor stays a finite number).
fn gamma_eotf(v: f64) -> f64 {
    v.clamp(0.0, 1e4).powf(2.2)
}

/// VRM 0.x `materialProperties` to VRM 1.0 MToon, as three-vrm 3.5.5's
/// `VRMMaterialsV0CompatPlugin` converts them (`materialProperties[i]` is material `i`).
fn convert_v0(root: &mut Value) {
    let properties = root["extensions"]["VRM"]["materialProperties"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let count = root["materials"].as_array().map_or(0, Vec::len);
    let textures = root["textures"].as_array().map_or(0, Vec::len);
    let properties = &properties[..properties.len().min(count)];
    let offsets = render_queue_offsets(properties);
    for (m, props) in properties.iter().enumerate() {
        let shader = props["shader"].as_str().unwrap_or("");
        let props = &V0 { props, textures };
        let converted = match shader {
            "VRM/MToon" => Some(v0_mtoon(props, offsets[m])),
            s if s.starts_with("VRM/Unlit") => Some(v0_unlit(props, shader, offsets[m])),
            _ => None, // VRM_USE_GLTFSHADER, Standard: the glTF material as it is
        };
        let Some((core, mtoon)) = converted else {
            continue;
        };
        let material = &mut root["materials"][m];
        for (key, value) in core {
            if value.is_null() {
                if let Some(fields) = material.as_object_mut() {
                    fields.remove(&key);
                }
            } else {
                material[&key] = value;
            }
        }
        // three-vrm replaces the extensions (KHR_materials_unlit goes): MToon is lit.
        material["extensions"] = json!({"VRMC_materials_mtoon": mtoon});
    }
}

type Converted = (Map<String, Value>, Value);

/// One VRM 0.x material's properties, and how many textures the model has.
struct V0<'a> {
    props: &'a Value,
    textures: usize,
}

impl V0<'_> {
    fn float(&self, name: &str) -> Option<f64> {
        self.props["floatProperties"][name]
            .as_f64()
            .filter(|v| v.is_finite())
    }
    fn vector(&self, name: &str) -> Option<Vec<f64>> {
        let v = self.props["vectorProperties"][name].as_array()?;
        Some(
            v.iter()
                .take(4)
                .map(|x| x.as_f64().filter(|x| x.is_finite()).unwrap_or(0.0))
                .collect(),
        )
    }
    /// A texture the model has (a reference to none would fail the loader).
    fn texture(&self, name: &str) -> Option<u64> {
        self.props["textureProperties"][name]
            .as_u64()
            .filter(|i| (*i as usize) < self.textures)
    }
    fn keyword(&self, name: &str) -> bool {
        self.props["keywordMap"][name].as_bool().unwrap_or(false)
    }
    /// `_MainTex`'s tiling and offset as a `KHR_texture_transform` (v0 flips V).
    fn transform(&self) -> Value {
        let Some(st) = self.vector("_MainTex") else {
            return json!({});
        };
        let get = |i: usize, default: f64| st.get(i).copied().unwrap_or(default);
        let (scale, offset_x, offset_y) = ([get(2, 1.0), get(3, 1.0)], get(0, 0.0), get(1, 0.0));
        json!({"KHR_texture_transform": {
            "offset": [offset_x, 1.0 - scale[1] - offset_y], "scale": scale}})
    }
    fn texture_ref(&self, name: &str) -> Value {
        match self.texture(name) {
            Some(index) => json!({"index": index, "extensions": self.transform()}),
            None => Value::Null,
        }
    }
    fn colour(&self, name: &str, default: [f64; 4], alpha_too: bool) -> Vec<f64> {
        let v = self.vector(name).unwrap_or_else(|| default.to_vec());
        (0..4)
            .map(|i| {
                let x = v.get(i).copied().unwrap_or(default[i]);
                if i == 3 && !alpha_too {
                    x
                } else {
                    gamma_eotf(x)
                }
            })
            .collect()
    }
}

fn rgb(v: &[f64]) -> Value {
    json!(&v[..3])
}

fn v0_mtoon(p: &V0, queue_offset: i64) -> Converted {
    let transparent = p.keyword("_ALPHABLEND_ON");
    let z_write = p.float("_ZWrite") == Some(1.0);
    let cutoff = p.keyword("_ALPHATEST_ON");
    let alpha_mode = if transparent {
        "BLEND"
    } else if cutoff {
        "MASK"
    } else {
        "OPAQUE"
    };
    let cull = p.float("_CullMode").unwrap_or(2.0);
    let base = p.colour("_Color", [1.0; 4], false);
    let shade = p.colour("_ShadeColor", [0.97, 0.81, 0.86, 1.0], true);
    let emission = p.colour("_EmissionColor", [0.0, 0.0, 0.0, 1.0], true);
    let rim = p.colour("_RimColor", [0.0, 0.0, 0.0, 1.0], true);
    let outline = p.colour("_OutlineColor", [0.0, 0.0, 0.0, 1.0], true);
    let shift = p.float("_ShadeShift").unwrap_or(0.0);
    let toony = p.float("_ShadeToony").unwrap_or(0.9);
    let toony = toony + (1.0 - toony) * (0.5 + 0.5 * shift);
    let shift = -shift - (1.0 - toony);
    let gi_intensity = p.float("_IndirectLightIntensity").unwrap_or(0.1);
    let outline_mode = match p.float("_OutlineWidthMode").unwrap_or(0.0) as i64 {
        1 => "worldCoordinates",
        2 => "screenCoordinates",
        _ => "none",
    };
    let outline_mixed = p.float("_OutlineColorMode").unwrap_or(0.0) as i64 == 1;
    let mut core = Map::new();
    core.insert(
        "pbrMetallicRoughness".into(),
        json!({"baseColorFactor": base, "baseColorTexture": p.texture_ref("_MainTex")}),
    );
    if p.texture("_MainTex").is_none() {
        core["pbrMetallicRoughness"]
            .as_object_mut()
            .map(|o| o.remove("baseColorTexture"));
    }
    core.insert(
        "normalTexture".into(),
        match p.texture("_BumpMap") {
            Some(index) => json!({"index": index, "scale": p.float("_BumpScale").unwrap_or(1.0),
                "extensions": p.transform()}),
            None => Value::Null,
        },
    );
    core.insert("emissiveFactor".into(), rgb(&emission));
    core.insert("emissiveTexture".into(), p.texture_ref("_EmissionMap"));
    core.insert("alphaMode".into(), json!(alpha_mode));
    core.insert(
        "alphaCutoff".into(),
        if cutoff {
            json!(p.float("_Cutoff").unwrap_or(0.5))
        } else {
            Value::Null
        },
    );
    core.insert("doubleSided".into(), json!(cull == 0.0));
    let mut mtoon = json!({
        "specVersion": "1.0",
        "transparentWithZWrite": z_write && transparent,
        "renderQueueOffsetNumber": queue_offset,
        "shadeColorFactor": rgb(&shade),
        "shadingShiftFactor": shift,
        "shadingToonyFactor": toony,
        "parametricRimColorFactor": rgb(&rim),
        "rimLightingMixFactor": p.float("_RimLightingMix").unwrap_or(0.0),
        "parametricRimFresnelPowerFactor": p.float("_RimFresnelPower").unwrap_or(1.0),
        "parametricRimLiftFactor": p.float("_RimLift").unwrap_or(0.0),
        "outlineWidthMode": outline_mode,
        // v0 widths are in centimetres, in both modes.
        "outlineWidthFactor": 0.01 * p.float("_OutlineWidth").unwrap_or(0.0),
        "outlineColorFactor": rgb(&outline),
        "outlineLightingMixFactor": if outline_mixed {
            p.float("_OutlineLightingMix").unwrap_or(1.0)
        } else {
            0.0
        },
        "uvAnimationScrollXSpeedFactor": p.float("_UvAnimScrollX").unwrap_or(0.0),
        // V runs the other way in VRM 1.0.
        "uvAnimationScrollYSpeedFactor": -p.float("_UvAnimScrollY").unwrap_or(0.0),
        "uvAnimationRotationSpeedFactor": p.float("_UvAnimRotation").unwrap_or(0.0),
    });
    // An intensity of 0 leaves the default (three-vrm tests it for truth).
    if gi_intensity != 0.0 {
        mtoon["giEqualizationFactor"] = json!(1.0 - gi_intensity);
    }
    for (field, property) in [
        ("shadeMultiplyTexture", "_ShadeTexture"),
        ("rimMultiplyTexture", "_RimTexture"),
        ("outlineWidthMultiplyTexture", "_OutlineWidthTexture"),
        ("uvAnimationMaskTexture", "_UvAnimMaskTexture"),
    ] {
        let reference = p.texture_ref(property);
        if !reference.is_null() {
            mtoon[field] = reference;
        }
    }
    if let Some(index) = p.texture("_SphereAdd") {
        mtoon["matcapFactor"] = json!([1.0, 1.0, 1.0]);
        mtoon["matcapTexture"] = json!({"index": index}); // no texture transform
    } else {
        mtoon["matcapFactor"] = json!([0.0, 0.0, 0.0]);
    }
    (core, mtoon)
}

/// `VRM/Unlit*` becomes MToon shaded with its own colour (three-vrm: "there might be
/// VRM0.0 specific features that are not supported by gltf").
fn v0_unlit(p: &V0, shader: &str, queue_offset: i64) -> Converted {
    let transparent = matches!(
        shader,
        "VRM/UnlitTransparent" | "VRM/UnlitTransparentZWrite"
    );
    let cutout = shader == "VRM/UnlitCutout";
    let base = p.colour("_Color", [1.0; 4], true);
    let mut core = Map::new();
    let texture = p.texture_ref("_MainTex");
    let mut pbr = json!({"baseColorFactor": base});
    if !texture.is_null() {
        pbr["baseColorTexture"] = texture.clone();
    }
    core.insert("pbrMetallicRoughness".into(), pbr);
    core.insert(
        "alphaMode".into(),
        json!(if transparent {
            "BLEND"
        } else if cutout {
            "MASK"
        } else {
            "OPAQUE"
        }),
    );
    if cutout {
        core.insert(
            "alphaCutoff".into(),
            json!(p.float("_Cutoff").unwrap_or(0.5)),
        );
    }
    let mut mtoon = json!({
        "specVersion": "1.0",
        "transparentWithZWrite": shader == "VRM/UnlitTransparentZWrite",
        "renderQueueOffsetNumber": queue_offset,
        "shadeColorFactor": rgb(&base),
    });
    if !texture.is_null() {
        mtoon["shadeMultiplyTexture"] = texture;
    }
    (core, mtoon)
}

/// three-vrm's render queue offsets: the distinct queues of the transparent materials
/// map to -9..=0 (the highest is 0), those of the z-writing ones to 0..=9; opaque and
/// cutout materials get 0. Queues sort as strings, as JavaScript's default sort does.
fn render_queue_offsets(properties: &[Value]) -> Vec<i64> {
    let kind = |p: &Value| {
        let shader = p["shader"].as_str().unwrap_or("");
        let unlit_z_write = shader == "VRM/UnlitTransparentZWrite";
        let z_write = p["floatProperties"]["_ZWrite"].as_f64() == Some(1.0) || unlit_z_write;
        // An opaque material writes depth too: only blending makes it transparent.
        let transparent = !p["keywordMap"]["_ALPHABLEND_ON"].is_null()
            || shader == "VRM/UnlitTransparent"
            || unlit_z_write;
        (transparent, z_write)
    };
    let queue = |p: &Value| p["renderQueue"].as_i64().map(|q| q.to_string());
    // BTreeSets of strings: distinct, in JavaScript's default (string) order.
    let mut transparent = std::collections::BTreeSet::new();
    let mut z_writing = std::collections::BTreeSet::new();
    for p in properties {
        let (is_transparent, z_write) = kind(p);
        let Some(q) = queue(p).filter(|_| is_transparent) else {
            continue;
        };
        if z_write {
            z_writing.insert(q);
        } else {
            transparent.insert(q);
        }
    }
    let ranks =
        |set: &std::collections::BTreeSet<String>| -> std::collections::HashMap<String, i64> {
            set.iter()
                .enumerate()
                .map(|(i, q)| (q.clone(), i as i64))
                .collect()
        };
    let (transparent_rank, z_writing_rank) = (ranks(&transparent), ranks(&z_writing));
    properties
        .iter()
        .map(|p| {
            let (is_transparent, z_write) = kind(p);
            let Some(q) = queue(p) else {
                return 0;
            };
            if !is_transparent {
                0
            } else if z_write {
                z_writing_rank[&q].clamp(0, 9)
            } else {
                (transparent_rank[&q] - transparent.len() as i64 + 1).clamp(-9, 0)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v0_model(properties: Vec<Value>) -> Value {
        let materials: Vec<Value> = properties
            .iter()
            .map(|_| json!({"extensions": {"KHR_materials_unlit": {}}}))
            .collect();
        json!({
            "materials": materials,
            "textures": [{"source": 0}, {"source": 0}, {"source": 0}],
            "extensions": {"VRM": {"materialProperties": properties}}
        })
    }

    #[test]
    fn a_vrm0_mtoon_converts_as_three_vrm_does() {
        let mut root = v0_model(vec![json!({
            "shader": "VRM/MToon", "renderQueue": 2000,
            "floatProperties": {"_ShadeShift": -0.2, "_ShadeToony": 0.8, "_OutlineWidth": 0.25,
                "_OutlineWidthMode": 1.0, "_OutlineColorMode": 0.0, "_CullMode": 2.0,
                "_IndirectLightIntensity": 0.3, "_UvAnimScrollY": 0.5},
            "vectorProperties": {"_Color": [0.5, 1.0, 1.0, 0.8], "_ShadeColor": [0.5, 0.5, 0.5, 1.0],
                "_MainTex": [0.0, 0.0, 1.0, 1.0]},
            "textureProperties": {"_MainTex": 0, "_ShadeTexture": 1},
            "keywordMap": {}
        })]);
        let mtoon = normalize(&mut root)[0].clone().expect("MToon");
        let material = &root["materials"][0];
        let close = |a: &Value, b: f64| (a.as_f64().unwrap() - b).abs() < 1e-9;
        // Colours are 2.2-power linear; the base alpha stays.
        let base = &material["pbrMetallicRoughness"]["baseColorFactor"];
        assert!(close(&base[0], 0.5f64.powf(2.2)) && close(&base[3], 0.8));
        assert!(close(&mtoon["shadeColorFactor"][0], 0.5f64.powf(2.2)));
        // toony' = toony + (1 - toony)(0.5 + 0.5 shift); shift' = -shift - (1 - toony').
        let toony = 0.8 + 0.2 * (0.5 - 0.1);
        assert!(close(&mtoon["shadingToonyFactor"], toony));
        assert!(close(&mtoon["shadingShiftFactor"], 0.2 - (1.0 - toony)));
        assert!(close(&mtoon["giEqualizationFactor"], 0.7));
        assert_eq!(mtoon["outlineWidthMode"], "worldCoordinates");
        assert!(close(&mtoon["outlineWidthFactor"], 0.0025), "centimetres");
        assert!(
            close(&mtoon["outlineLightingMixFactor"], 0.0),
            "fixed colour"
        );
        assert!(close(&mtoon["uvAnimationScrollYSpeedFactor"], -0.5));
        assert_eq!(mtoon["shadeMultiplyTexture"]["index"], 1);
        // V is flipped into glTF's convention: offset.y = 1 - scale.y - offset.y.
        assert_eq!(
            mtoon["shadeMultiplyTexture"]["extensions"]["KHR_texture_transform"]["offset"],
            json!([0.0, 0.0])
        );
        assert_eq!(material["alphaMode"], "OPAQUE");
        assert_eq!(material["doubleSided"], false);
        assert!(material["extensions"]["KHR_materials_unlit"].is_null());
        assert_eq!(material["extensions"]["VRMC_materials_mtoon"], mtoon);
        // Everything the schema defaults is present.
        for key in defaults().as_object().unwrap().keys() {
            assert!(!mtoon[key].is_null(), "{key}");
        }
    }

    #[test]
    fn transparent_queues_count_down_to_zero_and_z_writing_ones_up_from_it() {
        let transparent = |queue: i64| {
            json!({"shader": "VRM/MToon", "renderQueue": queue,
                "keywordMap": {"_ALPHABLEND_ON": true}, "floatProperties": {"_ZWrite": 0.0}})
        };
        let z_write = |queue: i64| {
            json!({"shader": "VRM/MToon", "renderQueue": queue,
                "keywordMap": {"_ALPHABLEND_ON": true}, "floatProperties": {"_ZWrite": 1.0}})
        };
        let opaque = json!({"shader": "VRM/MToon", "renderQueue": 2000, "keywordMap": {}});
        // Opaque and cutout materials write depth too, and are not transparent for that.
        let cutout = json!({"shader": "VRM/MToon", "renderQueue": 2450,
            "keywordMap": {"_ALPHATEST_ON": true}, "floatProperties": {"_ZWrite": 1.0}});
        let offsets = render_queue_offsets(&[
            transparent(3000),
            transparent(3002),
            z_write(2501),
            z_write(2502),
            opaque,
            cutout,
        ]);
        assert_eq!(offsets, vec![-1, 0, 0, 1, 0, 0]);
        let mut root = v0_model(vec![transparent(3000), z_write(2502)]);
        let mtoon = normalize(&mut root);
        assert_eq!(root["materials"][0]["alphaMode"], "BLEND");
        assert_eq!(mtoon[0].as_ref().unwrap()["transparentWithZWrite"], false);
        assert_eq!(mtoon[1].as_ref().unwrap()["transparentWithZWrite"], true);
    }

    #[test]
    fn unlit_vrm0_shaders_become_mtoon_shaded_with_their_own_colour() {
        let mut root = v0_model(vec![json!({
            "shader": "VRM/UnlitCutout", "renderQueue": 2450,
            "floatProperties": {"_Cutoff": 0.3},
            "vectorProperties": {"_Color": [1.0, 0.5, 0.5, 1.0]},
            "textureProperties": {"_MainTex": 2}
        })]);
        let mtoon = normalize(&mut root)[0].clone().unwrap();
        assert_eq!(root["materials"][0]["alphaMode"], "MASK");
        assert_eq!(root["materials"][0]["alphaCutoff"], 0.3);
        assert_eq!(
            mtoon["shadeColorFactor"],
            root["materials"][0]["pbrMetallicRoughness"]["baseColorFactor"]
                .as_array()
                .map(|c| json!(&c[..3]))
                .unwrap()
        );
        assert_eq!(mtoon["shadeMultiplyTexture"]["index"], 2);
    }

    #[test]
    fn textures_only_mtoon_uses_are_held_numeric_ones_linear_unless_also_a_colour() {
        let mtoon = |extra: Value| {
            let mut m = json!({"specVersion": "1.0"});
            for (k, v) in extra.as_object().unwrap() {
                m[k] = v.clone();
            }
            json!({"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}},
                   "extensions": {"VRMC_materials_mtoon": m}})
        };
        let textures: Vec<Value> = (0..7).map(|i| json!({"source": i})).collect();
        let mut root = json!({
            "textures": textures,
            "materials": [
                // The colour texture doubles as a width mask: sRGB for both, as in three-vrm.
                mtoon(json!({"outlineWidthMultiplyTexture": {"index": 0},
                             "uvAnimationMaskTexture": {"index": 1},
                             "shadeMultiplyTexture": {"index": 5}})),
                mtoon(json!({"outlineWidthMultiplyTexture": {"index": 2},
                             "uvAnimationMaskTexture": {"index": 3},
                             "shadingShiftTexture": {"index": 4},
                             "matcapTexture": {"index": 6}})),
                mtoon(json!({"outlineWidthMultiplyTexture": {"index": 99}})),
                {"name": "plain"}
            ]
        });
        let out = normalize(&mut root);
        let materials = root["materials"].as_array().unwrap();
        assert_eq!(out.len(), materials.len());
        assert_eq!(out.len(), 4 + 2 + 1, "two colour holders, one numeric");
        assert!(out[4..].iter().all(Option::is_none));
        let slot =
            |m: &Value, path: &[&str]| path.iter().fold(m, |v, key| &v[*key])["index"].as_u64();
        let base = |m: &Value| slot(m, &["pbrMetallicRoughness", "baseColorTexture"]);
        assert!(materials[4..].iter().all(|m| m["name"] == TEXTURE_HOLDER));
        // Colour textures only MToon uses, in sRGB slots, in the order first used.
        assert_eq!(
            (
                base(&materials[4]),
                slot(&materials[4], &["emissiveTexture"])
            ),
            (Some(5), Some(4))
        );
        assert_eq!(base(&materials[5]), Some(6));
        // Numeric ones in linear slots; texture 0 is a base colour already.
        let linear = &materials[6];
        assert_eq!(
            [
                slot(linear, &["normalTexture"]),
                slot(linear, &["occlusionTexture"]),
                slot(
                    linear,
                    &["pbrMetallicRoughness", "metallicRoughnessTexture"]
                ),
            ],
            [Some(1), Some(2), Some(3)]
        );
    }

    #[test]
    fn a_vrm1_mtoon_gets_the_schema_defaults_and_bad_parts_are_replaced() {
        let mut root = json!({
            "textures": [{"source": 0}],
            "materials": [
                {"extensions": {"VRMC_materials_mtoon": {"specVersion": "1.0",
                    "shadeColorFactor": [0.2, "x"], "outlineWidthFactor": "wide",
                    "matcapTexture": {"index": 7}, "rimMultiplyTexture": {"index": 0}}}},
                {"pbrMetallicRoughness": {}}
            ]
        });
        let mtoon = normalize(&mut root);
        let first = mtoon[0].as_ref().unwrap();
        assert_eq!(first["shadeColorFactor"], json!([0.2, 1.0, 1.0]));
        assert_eq!(first["outlineWidthFactor"], json!(0.0));
        assert_eq!(first["shadingToonyFactor"], json!(0.9));
        assert!(
            first["matcapTexture"].is_null(),
            "a texture that is not there"
        );
        assert_eq!(
            first["rimMultiplyTexture"]["extensions"]["KHR_texture_transform"]["scale"],
            json!([1.0, 1.0])
        );
        assert!(mtoon[1].is_none(), "not MToon");
    }

    #[test]
    fn the_test_avatars_vrm0_materials_convert_to_its_vrm1_ones() {
        use crate::model::mannequin::MannequinVariant;
        use crate::model::test_avatar::{TestAvatarSpec, build};
        let mtoon_of = |variant| {
            let bytes = build(&TestAvatarSpec {
                texture_size: 8,
                ..TestAvatarSpec::vroid(variant)
            });
            let split = crate::files::glb::split(&bytes).unwrap();
            let mut root: Value = serde_json::from_slice(split.json).unwrap();
            normalize(&mut root)
        };
        let (v0, v1) = (
            mtoon_of(MannequinVariant::Vrm0),
            mtoon_of(MannequinVariant::Vrm1),
        );
        assert_eq!(v0.len(), v1.len());
        // Every material of the avatar is MToon; the texture holders after them are not.
        let own = v1.iter().take_while(|m| m.is_some()).count();
        assert!(own >= 5 && v1[own..].iter().all(Option::is_none), "{own}");
        for (a, b) in v0.iter().zip(&v1).take(own) {
            let (a, b) = (a.as_ref().unwrap(), b.as_ref().unwrap());
            for (key, value) in b.as_object().unwrap() {
                match (value.as_f64(), value.as_array()) {
                    (Some(x), _) => assert!(
                        (a[key].as_f64().unwrap() - x).abs() < 1e-4,
                        "{key}: {} vs {x}",
                        a[key]
                    ),
                    (_, Some(parts)) => {
                        for (i, part) in parts.iter().enumerate() {
                            let (p, q) = (a[key][i].as_f64().unwrap(), part.as_f64().unwrap());
                            assert!((p - q).abs() < 1e-4, "{key}[{i}]: {p} vs {q}");
                        }
                    }
                    _ => assert_eq!(&a[key], value, "{key}"),
                }
            }
        }
    }

    #[test]
    fn hostile_vrm0_properties_reference_only_real_textures_and_finite_numbers() {
        let properties: Vec<Value> = (0..50_000)
            .map(|i| {
                json!({"shader": "VRM/MToon", "renderQueue": 3000 + i,
                    "keywordMap": {"_ALPHABLEND_ON": true},
                    "vectorProperties": {"_Color": [1e308, -1, "x"]},
                    "textureProperties": {"_MainTex": 9999, "_ShadeTexture": 0}})
            })
            .collect();
        let mut root = v0_model(properties);
        let mtoon = normalize(&mut root);
        let material = &root["materials"][0];
        assert!(material["pbrMetallicRoughness"]["baseColorTexture"].is_null());
        assert_eq!(
            mtoon[0].as_ref().unwrap()["shadeMultiplyTexture"]["index"],
            0
        );
        // Queues order as strings, as three-vrm's sort does: "9999" is the highest.
        assert_eq!(mtoon[6999].as_ref().unwrap()["renderQueueOffsetNumber"], 0);
        assert_eq!(mtoon[0].as_ref().unwrap()["renderQueueOffsetNumber"], -9);
        for c in material["pbrMetallicRoughness"]["baseColorFactor"]
            .as_array()
            .unwrap()
        {
            assert!(c.as_f64().is_some_and(f64::is_finite), "{c}");
        }
    }
}
