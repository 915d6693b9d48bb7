//! Expression weights → morph target weights per mesh node (what the renderer sets).

use std::collections::BTreeMap;

use super::vrm::Model;

/// Morph weights for every mesh node that has morph targets; nodes not driven by any
/// expression get zeros, so lowering a slider back to 0 resets the face.
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
    for def in &model.expressions {
        let Some(&value) = expressions.get(&def.name) else {
            continue;
        };
        // isBinary expressions snap: above 0.5 is fully on (VRM 1.0 spec).
        let value = if def.is_binary {
            if value > 0.5 { 1.0 } else { 0.0 }
        } else {
            value
        };
        for bind in &def.binds {
            if let Some(slot) = out.get_mut(&bind.node).and_then(|w| w.get_mut(bind.index)) {
                *slot += value * bind.weight;
            }
        }
    }
    for weights in out.values_mut() {
        for w in weights {
            *w = w.clamp(0.0, 1.0);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mannequin::{self, EXPRESSIONS, MannequinVariant};

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
}
