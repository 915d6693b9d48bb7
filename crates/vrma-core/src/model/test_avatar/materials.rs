//! The MToon materials, as VRM 1.0 glTF materials and as VRM 0.x `materialProperties`,
//! with the features VRoid exports use (rim, matcap, emission, alpha, UV scroll).

use serde_json::{Value, json};

/// Material names; material `m` uses textures `2m` (base) and `2m + 1` (shade).
pub(super) const MATERIALS: [&str; 5] = [
    "Body_SKIN",
    "Tops_CLOTH",
    "Hair_HAIR",
    "Face_SKIN",
    "Eye_EYE",
];

pub(super) fn mtoon_material(
    name: &str,
    base: usize,
    shade: usize,
    shade_color: [f32; 3],
) -> Value {
    json!({
        "name": name,
        "pbrMetallicRoughness": {
            "baseColorTexture": {"index": base}, "baseColorFactor": [1.0, 1.0, 1.0, 1.0],
            "metallicFactor": 0.0, "roughnessFactor": 0.9
        },
        "alphaMode": "OPAQUE",
        "doubleSided": false,
        "extensions": {
            "KHR_materials_unlit": {},
            "VRMC_materials_mtoon": {
                "specVersion": "1.0", "transparentWithZWrite": false, "renderQueueOffsetNumber": 0,
                "shadeColorFactor": shade_color, "shadeMultiplyTexture": {"index": shade},
                "shadingShiftFactor": -0.05, "shadingToonyFactor": 0.95, "giEqualizationFactor": 0.9,
                "matcapFactor": [0.0, 0.0, 0.0], "parametricRimColorFactor": [0.0, 0.0, 0.0],
                "rimLightingMixFactor": 1.0, "parametricRimFresnelPowerFactor": 5.0,
                "parametricRimLiftFactor": 0.0, "outlineWidthMode": "worldCoordinates",
                "outlineWidthFactor": 0.002, "outlineColorFactor": [0.25, 0.15, 0.15],
                "outlineLightingMixFactor": 1.0, "uvAnimationScrollXSpeedFactor": 0.0,
                "uvAnimationScrollYSpeedFactor": 0.0, "uvAnimationRotationSpeedFactor": 0.0
            }
        }
    })
}

/// The same look as [`mtoon_material`] in VRM 0.x terms: the values three-vrm's
/// conversion (`core::mtoon`) turns back into that material's, as UniVRM's migration
/// would write them (colours in gamma space; toony 0.9 and shift 0 convert to 0.95 and
/// -0.05; a mixed outline colour keeps its lighting mix of 1).
pub(super) fn mtoon_properties(
    name: &str,
    base: usize,
    shade: usize,
    shade_color: [f32; 3],
) -> Value {
    let gamma = |c: f32| c.powf(1.0 / 2.2);
    let outline = [0.25f32, 0.15, 0.15].map(gamma);
    json!({
        "name": name, "shader": "VRM/MToon", "renderQueue": 2000,
        "floatProperties": {
            "_Cutoff": 0.5, "_BumpScale": 1.0, "_ShadeShift": 0.0, "_ShadeToony": 0.9,
            "_ReceiveShadowRate": 1.0, "_ShadingGradeRate": 1.0, "_LightColorAttenuation": 0.0,
            "_IndirectLightIntensity": 0.1, "_RimLightingMix": 1.0, "_RimFresnelPower": 5.0,
            "_RimLift": 0.0, "_OutlineWidth": 0.2, "_OutlineScaledMaxDistance": 1.0,
            "_OutlineLightingMix": 1.0, "_UvAnimScrollX": 0.0, "_UvAnimScrollY": 0.0,
            "_UvAnimRotation": 0.0, "_MToonVersion": 38.0, "_DebugMode": 0.0, "_BlendMode": 0.0,
            "_OutlineWidthMode": 1.0, "_OutlineColorMode": 1.0, "_CullMode": 2.0,
            "_OutlineCullMode": 1.0, "_SrcBlend": 1.0, "_DstBlend": 0.0, "_ZWrite": 1.0
        },
        "vectorProperties": {
            "_Color": [1.0, 1.0, 1.0, 1.0],
            "_ShadeColor": [gamma(shade_color[0]), gamma(shade_color[1]), gamma(shade_color[2]), 1.0],
            "_MainTex": [0.0, 0.0, 1.0, 1.0], "_ShadeTexture": [0.0, 0.0, 1.0, 1.0],
            "_EmissionColor": [0.0, 0.0, 0.0, 1.0],
            "_OutlineColor": [outline[0], outline[1], outline[2], 1.0],
            "_RimColor": [0.0, 0.0, 0.0, 1.0]
        },
        "textureProperties": {"_MainTex": base, "_ShadeTexture": shade},
        "keywordMap": {"MTOON_OUTLINE_WIDTH_WORLD": true, "MTOON_OUTLINE_COLOR_MIXED": true},
        "tagMap": {"RenderType": "Opaque"}
    })
}

/// Hair with a parametric rim, eyes with a matcap, emission, alpha blending and a UV
/// scroll, and a face drawn as a cutout: the MToon features VRoid exports use besides
/// toon shading and outlines, so that the avatar shows each of them.
const RIM: [f32; 3] = [0.2, 0.2, 0.25];
const EYE_EMISSION: [f32; 3] = [0.3, 0.25, 0.1];
const EYE_ALPHA: f32 = 0.9;
/// UV widths a second (stills are drawn at t = 0 of it).
const EYE_SCROLL: f32 = 0.5;
const HAIR: usize = 2;
const FACE: usize = 3;
const EYE: usize = 4;

pub(super) fn mtoon_features(materials: &mut [Value]) {
    let hair = &mut materials[HAIR]["extensions"]["VRMC_materials_mtoon"];
    hair["parametricRimColorFactor"] = json!(RIM);
    hair["parametricRimLiftFactor"] = json!(0.1);
    hair["parametricRimFresnelPowerFactor"] = json!(3.0);
    let face = &mut materials[FACE];
    face["alphaMode"] = json!("MASK");
    face["alphaCutoff"] = json!(0.5);
    let eye = &mut materials[EYE];
    eye["alphaMode"] = json!("BLEND");
    eye["pbrMetallicRoughness"]["baseColorFactor"] = json!([1.0, 1.0, 1.0, EYE_ALPHA]);
    eye["emissiveFactor"] = json!(EYE_EMISSION);
    let shade = eye["extensions"]["VRMC_materials_mtoon"]["shadeMultiplyTexture"].clone();
    let mtoon = &mut eye["extensions"]["VRMC_materials_mtoon"];
    if !shade.is_null() {
        mtoon["matcapTexture"] = json!({"index": shade["index"]});
        mtoon["matcapFactor"] = json!([1.0, 1.0, 1.0]);
    }
    mtoon["uvAnimationScrollXSpeedFactor"] = json!(EYE_SCROLL);
}

/// [`mtoon_features`] in VRM 0.x terms (colours in gamma space, as UniVRM writes them).
pub(super) fn mtoon_v0_features(properties: &mut [Value]) {
    let gamma = |c: [f32; 3]| c.map(|c| c.powf(1.0 / 2.2));
    let hair = &mut properties[HAIR];
    let rim = gamma(RIM);
    hair["vectorProperties"]["_RimColor"] = json!([rim[0], rim[1], rim[2], 1.0]);
    hair["floatProperties"]["_RimLift"] = json!(0.1);
    hair["floatProperties"]["_RimFresnelPower"] = json!(3.0);
    let face = &mut properties[FACE];
    face["renderQueue"] = json!(2450);
    face["floatProperties"]["_BlendMode"] = json!(1.0);
    face["floatProperties"]["_Cutoff"] = json!(0.5);
    face["keywordMap"]["_ALPHATEST_ON"] = json!(true);
    face["tagMap"]["RenderType"] = json!("TransparentCutout");
    let eye = &mut properties[EYE];
    eye["renderQueue"] = json!(3000);
    let floats = &mut eye["floatProperties"];
    floats["_BlendMode"] = json!(2.0);
    floats["_SrcBlend"] = json!(5.0);
    floats["_DstBlend"] = json!(10.0);
    floats["_ZWrite"] = json!(0.0);
    eye["vectorProperties"]["_Color"] = json!([1.0, 1.0, 1.0, EYE_ALPHA]);
    let emission = gamma(EYE_EMISSION);
    eye["vectorProperties"]["_EmissionColor"] = json!([emission[0], emission[1], emission[2], 1.0]);
    eye["keywordMap"]["_ALPHABLEND_ON"] = json!(true);
    eye["floatProperties"]["_UvAnimScrollX"] = json!(EYE_SCROLL);
    eye["tagMap"]["RenderType"] = json!("Transparent");
    if let Some(shade) = eye["textureProperties"]["_ShadeTexture"].as_u64() {
        eye["textureProperties"]["_SphereAdd"] = json!(shade);
    }
}
