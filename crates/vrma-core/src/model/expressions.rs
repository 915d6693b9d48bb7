//! Expression weights → morph target weights per mesh node (what the renderer sets).

use std::collections::BTreeMap;

use crate::model::vrm::{ExpressionDef, Model, Override, TextureBind};

/// three-vrm's groups that other expressions' overrides hold back.
const BLINK: [&str; 3] = ["blink", "blinkLeft", "blinkRight"];
const LOOK: [&str; 4] = ["lookLeft", "lookRight", "lookUp", "lookDown"];
const MOUTH: [&str; 5] = ["aa", "ee", "ih", "oh", "ou"];

/// An expression's output weight: `isBinary` snaps to 0 or 1 above 0.5.
fn output_weight(def: &ExpressionDef, weight: f32) -> f32 {
    if def.is_binary {
        if weight > 0.5 { 1.0 } else { 0.0 }
    } else {
        weight
    }
}

fn override_amount(rule: Override, output: f32) -> f32 {
    match rule {
        Override::None => 0.0,
        Override::Block => {
            if output > 0.0 {
                1.0
            } else {
                0.0
            }
        }
        Override::Blend => output,
    }
}

/// The weight each of the model's expressions is applied with, as three-vrm 3.5.5's
/// `VRMExpressionManager.update` applies it: binary snapping, then the blink, look and
/// mouth groups multiplied by what the others' overrides leave (1 − their sum, at
/// least 0), and a binary expression held back below 1 turned off.
pub fn applied_weights(model: &Model, expressions: &BTreeMap<String, f32>) -> Vec<(usize, f32)> {
    let weight_of = |def: &ExpressionDef| {
        let w = expressions.get(&def.name).copied().unwrap_or(0.0);
        output_weight(
            def,
            if w.is_finite() {
                w.clamp(0.0, 1.0)
            } else {
                0.0
            },
        )
    };
    let (mut blink, mut look, mut mouth) = (1.0f32, 1.0f32, 1.0f32);
    for def in &model.expressions {
        let output = weight_of(def);
        blink -= override_amount(def.overrides.blink, output);
        look -= override_amount(def.overrides.look_at, output);
        mouth -= override_amount(def.overrides.mouth, output);
    }
    let (blink, look, mouth) = (blink.max(0.0), look.max(0.0), mouth.max(0.0));
    model
        .expressions
        .iter()
        .enumerate()
        .map(|(i, def)| {
            let name = def.name.as_str();
            let mut multiplier = 1.0;
            if BLINK.contains(&name) {
                multiplier *= blink;
            }
            if LOOK.contains(&name) {
                multiplier *= look;
            }
            if MOUTH.contains(&name) {
                multiplier *= mouth;
            }
            let mut applied = weight_of(def) * multiplier;
            if def.is_binary && applied < 1.0 {
                applied = 0.0;
            }
            (i, applied)
        })
        .collect()
}

/// Morph weights for every mesh node that has morph targets; nodes not driven by any
/// expression get zeros, so lowering a slider back to 0 resets the face. Binds add up
/// unclamped, as three.js morph influences do.
pub fn morph_weights(
    model: &Model,
    expressions: &BTreeMap<String, f32>,
) -> BTreeMap<usize, Vec<f32>> {
    let mut out: BTreeMap<usize, Vec<f32>> = BTreeMap::new();
    for (node, raw) in model.nodes.iter().enumerate() {
        if let Some(count) = raw
            .mesh
            .and_then(|m| model.mesh_morph_counts.get(m))
            .filter(|c| **c > 0)
        {
            out.insert(node, vec![0.0; *count]);
        }
    }
    for (i, value) in applied_weights(model, expressions) {
        if value == 0.0 {
            continue;
        }
        for bind in &model.expressions[i].binds {
            if let Some(slot) = out.get_mut(&bind.node).and_then(|w| w.get_mut(bind.index)) {
                *slot += value * bind.weight;
            }
        }
    }
    out
}

/// Each expression-moved material's UV offset and scale for these weights, as
/// three-vrm's texture transform binds set them: the material's own transform plus,
/// per bind, its applied weight times (the bind's value − the own one).
pub fn texture_transforms(
    model: &Model,
    expressions: &BTreeMap<String, f32>,
) -> BTreeMap<usize, TextureBind> {
    let mut out = model.material_uv.clone();
    for (i, value) in applied_weights(model, expressions) {
        for bind in &model.expressions[i].texture_binds {
            let Some(own) = model.material_uv.get(&bind.material) else {
                continue;
            };
            let slot = out
                .get_mut(&bind.material)
                .expect("bound materials are listed");
            for k in 0..2 {
                slot.offset[k] += (bind.offset[k] - own.offset[k]) * value;
                slot.scale[k] += (bind.scale[k] - own.scale[k]) * value;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::mannequin::{self, EXPRESSIONS, MannequinVariant};

    #[test]
    fn each_mannequin_expression_drives_its_own_morph_target() {
        for variant in [MannequinVariant::Vrm1, MannequinVariant::Vrm0] {
            let model = Model::from_bytes(&mannequin::build(variant)).unwrap();
            for (i, name) in EXPRESSIONS.iter().enumerate() {
                let weights = morph_weights(&model, &BTreeMap::from([(name.to_string(), 0.75)]));
                assert_eq!(weights.len(), 1, "one face node");
                let face = weights.values().next().unwrap();
                assert_eq!(face.len(), EXPRESSIONS.len());
                for (j, w) in face.iter().enumerate() {
                    assert_eq!(
                        *w,
                        if i == j { 0.75 } else { 0.0 },
                        "{variant:?} {name} target {j}"
                    );
                }
            }
        }
    }

    #[test]
    fn overrides_hold_back_their_groups_as_three_vrm_does() {
        use crate::model::vrm::{Override, Overrides};
        let mut model = Model::from_bytes(&mannequin::build(MannequinVariant::Vrm1)).unwrap();
        let happy = model
            .expressions
            .iter()
            .position(|e| e.name == "happy")
            .unwrap();
        let index = |name: &str| {
            model
                .expressions
                .iter()
                .position(|e| e.name == name)
                .unwrap()
        };
        let (blink, aa) = (index("blink"), index("aa"));
        let weights = |model: &Model, set: &[(&str, f32)]| {
            let set: BTreeMap<String, f32> = set.iter().map(|(n, w)| (n.to_string(), *w)).collect();
            applied_weights(model, &set)
        };
        model.expressions[happy].overrides = Overrides {
            blink: Override::Block,
            look_at: Override::None,
            mouth: Override::Blend,
        };
        let w = weights(&model, &[("happy", 0.3), ("blink", 1.0), ("aa", 1.0)]);
        assert_eq!(w[blink].1, 0.0, "blocked by any happiness");
        assert!((w[aa].1 - 0.7).abs() < 1e-6, "blended: {}", w[aa].1);
        let w = weights(&model, &[("happy", 0.0), ("blink", 1.0)]);
        assert_eq!(w[blink].1, 1.0);
        // A binary expression snaps, and held back below 1 it goes out.
        model.expressions[blink].is_binary = true;
        let w = weights(&model, &[("blink", 0.6)]);
        assert_eq!(w[blink].1, 1.0);
        model.expressions[happy].overrides.blink = Override::Blend;
        let w = weights(&model, &[("blink", 0.6), ("happy", 0.2)]);
        assert_eq!(w[blink].1, 0.0, "0.8 of a binary blink is no blink");
    }
}
