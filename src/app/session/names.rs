//! The names of core things as the user reads them: humanoid bones, body parts, fingers,
//! hand presets, preset expressions, camera presets and the export entries. The core
//! keeps stable English names; the message id is built from that name (kebab-case) and
//! looked up when the name is drawn. Every feature uses these (the foundation's).

use crate::app::session::language::tr_args;
use crate::core::body::framing::CameraPreset;
use crate::core::body::hand::{Finger, HandPreset};
use crate::core::body::pose::BodyMask;
use crate::core::formats::table::ExportFormat;
use crate::core::model::humanoid::Bone;
use crate::core::model::vrm::PRESET_EXPRESSIONS;

/// `leftUpperArm` → `left-upper-arm`, `thumbs_up` → `thumbs-up`.
fn kebab(name: &str) -> String {
    let mut id = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            id.push('-');
            id.push(c.to_ascii_lowercase());
        } else if c == '_' {
            id.push('-');
        } else {
            id.push(c);
        }
    }
    id
}

fn bone_id(bone: Bone) -> String {
    format!("name-bone-{}", kebab(bone.name()))
}

/// A humanoid bone's name (English: its VRM name, e.g. `leftUpperArm`).
pub fn bone_label(bone: Bone) -> String {
    tr_args(&bone_id(bone), None)
}

fn mask_id(mask: BodyMask) -> String {
    format!("name-mask-{}", kebab(mask.name()))
}

/// A body part a pose can be pasted onto ("Whole body", "Left arm", …).
pub fn mask_label(mask: BodyMask) -> String {
    tr_args(&mask_id(mask), None)
}

fn finger_id(finger: Finger) -> String {
    format!("name-finger-{}", kebab(finger.name()))
}

/// A finger's name ("Thumb", "Index", …).
pub fn finger_label(finger: Finger) -> String {
    tr_args(&finger_id(finger), None)
}

fn hand_preset_id(name: &str) -> String {
    format!("name-hand-preset-{}", kebab(name))
}

/// A hand preset's name; the table's own label for a preset without a message.
pub fn hand_preset_label(preset: &HandPreset) -> String {
    crate::app::session::language::lookup(
        crate::app::session::language::current(),
        &hand_preset_id(&preset.name),
        None,
    )
    .unwrap_or_else(|| preset.label.clone())
}

fn expression_id(name: &str) -> String {
    format!("name-expression-{}", kebab(name))
}

/// An expression's name: a VRM 1.0 preset's translated, a model's own as it is.
pub fn expression_label(name: &str) -> String {
    if PRESET_EXPRESSIONS.contains(&name) {
        tr_args(&expression_id(name), None)
    } else {
        name.to_string()
    }
}

fn camera_preset_id(preset: CameraPreset) -> &'static str {
    match preset {
        CameraPreset::Front => "name-camera-preset-front",
        CameraPreset::Side => "name-camera-preset-side",
        CameraPreset::ThreeQuarter => "name-camera-preset-three-quarter",
    }
}

/// A camera preset's name ("Front", "Side", "Three-quarter").
pub fn camera_preset_label(preset: CameraPreset) -> String {
    tr_args(camera_preset_id(preset), None)
}

fn export_id(format: &ExportFormat) -> String {
    format!("name-export-{}", kebab(format.extension))
}

/// An export format's File menu entry ("Export VRMA…").
pub fn export_menu_label(format: &ExportFormat) -> String {
    tr_args(&export_id(format), None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::session::language::{Language, lookup};
    use crate::core::formats::table::EXPORT_FORMATS;
    use crate::core::model::humanoid::ALL_BONES;

    /// The message exists in every language, with a text other than its id.
    fn named(id: &str) -> String {
        for language in Language::ALL {
            let text = lookup(language, id, None);
            assert!(
                text.as_deref()
                    .is_some_and(|t| t != id && !t.trim().is_empty()),
                "{id} in {}: {text:?}",
                language.tag()
            );
        }
        lookup(Language::English, id, None).unwrap()
    }

    #[test]
    fn ids_are_kebab_case() {
        assert_eq!(kebab("leftUpperArm"), "left-upper-arm");
        assert_eq!(kebab("thumbs_up"), "thumbs-up");
        assert_eq!(kebab("three-quarter"), "three-quarter");
        assert_eq!(bone_id(Bone::UpperChest), "name-bone-upper-chest");
    }

    /// A new bone, body part, finger, hand preset, preset expression, camera preset or
    /// export format fails here until both languages name it. English keeps the names
    /// the window always showed (the window tests compare its pixels).
    #[test]
    fn every_core_name_shown_has_a_message_in_both_languages() {
        for bone in ALL_BONES {
            assert_eq!(named(&bone_id(bone)), bone.name());
            assert_ne!(
                lookup(Language::Japanese, &bone_id(bone), None).unwrap(),
                bone.name()
            );
        }
        for mask in BodyMask::ALL {
            assert_eq!(named(&mask_id(mask)), mask.label());
        }
        for finger in Finger::ALL {
            assert_eq!(named(&finger_id(finger)), finger.label());
        }
        for preset in crate::core::body::hand::presets() {
            assert_eq!(named(&hand_preset_id(&preset.name)), preset.label);
        }
        for name in PRESET_EXPRESSIONS {
            assert_eq!(named(&expression_id(name)), name);
        }
        for preset in [
            CameraPreset::Front,
            CameraPreset::Side,
            CameraPreset::ThreeQuarter,
        ] {
            named(camera_preset_id(preset));
        }
        for format in &EXPORT_FORMATS {
            assert_eq!(named(&export_id(format)), format.menu);
        }
    }
}
