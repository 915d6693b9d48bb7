//! The inspector on the left: the model, whole-pose buttons, grip, the IK settings, the
//! selected bone's rotation and the bone list.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use super::menu::POSE_ACTIONS;
use super::slider_edit;
use crate::app::session::names::bone_label;
use crate::app::session::{EditRequest, Prefs, Selection, Session, UiSpace};
use crate::core::animation::edit::{Edit, GripSide, Pins, PoseEdit};
use crate::core::body::pose::is_identity;
use crate::core::model::humanoid::{ALL_BONES, Bone, Side};
use crate::tr;

/// How far the Grip buttons curl the fingers.
pub(super) struct GripAmount(f32);

impl Default for GripAmount {
    fn default() -> Self {
        GripAmount(1.0)
    }
}

/// What the inspector keeps between frames.
#[derive(Default)]
pub(super) struct InspectorMemory {
    grip: GripAmount,
    /// The selection the bone list last showed.
    shown_selection: Option<Bone>,
}

pub(super) fn draw(
    mut contexts: EguiContexts,
    mut space: ResMut<UiSpace>,
    session: Res<Session>,
    mut selection: ResMut<Selection>,
    mut local: Local<InspectorMemory>,
    mut prefs: ResMut<Prefs>,
    mut edits: MessageWriter<EditRequest>,
) -> Result {
    // A selection made elsewhere (a marker click) since the last frame is revealed in the
    // list; one made in the list itself is already in view.
    let InspectorMemory {
        grip,
        shown_selection,
    } = &mut *local;
    let newly_selected = selection.0.filter(|b| *shown_selection != Some(*b));
    let ctx = contexts.ctx_mut()?.clone();
    space.show(&ctx, "inspector-space", |root| {
        let panel = egui::Panel::left("inspector")
            .resizable(true)
            .default_size(prefs.values.inspector_width.unwrap_or(270.0))
            .show(root, |ui| {
                // The selected bone's controls stay in sight; only the bone list
                // scrolls (revealing a bone there must not scroll them away).
                egui::ScrollArea::vertical()
                    .id_salt("inspector-top")
                    .max_height(ui.available_height() * 0.6)
                    .show(ui, |ui| {
                        model_and_pose(ui, &session, grip, &mut edits);
                        ui.separator();
                        if let Some(bone) = selection.0.filter(|b| session.editor.rig.has(*b)) {
                            selected_bone(ui, &session, bone, &mut edits);
                        }
                    });
                ui.separator();
                egui::ScrollArea::vertical()
                    .id_salt("inspector-bones")
                    .show(ui, |ui| {
                        bone_list(ui, &session, &mut selection, newly_selected);
                    });
            });
        let width = panel.response.rect.width();
        if let Some(width) = super::chosen_panel_width(root, prefs.values.inspector_width, width) {
            prefs.values.inspector_width = Some(width);
        }
    });
    *shown_selection = selection.0;
    Ok(())
}

fn model_and_pose(
    ui: &mut egui::Ui,
    session: &Session,
    grip: &mut GripAmount,
    edits: &mut MessageWriter<EditRequest>,
) {
    let editor = &session.editor;
    ui.heading(if editor.rig.model.title.is_empty() {
        tr!("ui-inspector-untitled-model")
    } else {
        editor.rig.model.title.clone()
    });
    // The file name on one line (a long path must not push the controls below it
    // about); the whole path on hover.
    let (name, path) =
        session
            .model_path
            .as_ref()
            .map_or((tr!("ui-inspector-mannequin"), String::new()), |p| {
                let name = p.file_name().map_or_else(
                    || p.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                );
                (name, p.display().to_string())
            });
    let label = ui.add(
        egui::Label::new(format!("VRM {}.x · {name}", editor.rig.version().label())).truncate(),
    );
    if !path.is_empty() {
        label.on_hover_text(path);
    }
    ui.separator();
    ui.horizontal_wrapped(|ui| {
        for (_, label, edit) in POSE_ACTIONS {
            if ui.button(tr!(label)).clicked() {
                edits.write(EditRequest::new(edit));
            }
        }
    });
    ui.horizontal(|ui| {
        ui.label(tr!("ui-inspector-grip"));
        ui.add(egui::Slider::new(&mut grip.0, 0.0..=1.0));
    });
    ui.horizontal(|ui| {
        for (label, side) in [
            ("ui-side-left", GripSide::One(Side::Left)),
            ("ui-side-right", GripSide::One(Side::Right)),
            ("ui-side-both", GripSide::Both),
        ] {
            if ui.button(tr!(label)).clicked() {
                edits.write(EditRequest::new(PoseEdit::Grip {
                    side,
                    amount: grip.0,
                }));
            }
        }
    });
    let mut settings = editor.settings;
    let mut feet_pinned = editor.pins.covers(Pins::FEET);
    // Two toggles a row, so the panel below keeps its place.
    let follows = ui
        .horizontal(|ui| {
            if ui
                .checkbox(&mut feet_pinned, tr!("ui-inspector-pin-feet"))
                .on_hover_text(tr!("ui-inspector-pin-feet.tooltip"))
                .changed()
            {
                edits.write(EditRequest(Edit::Pin {
                    ends: Pins::FEET,
                    on: feet_pinned,
                }));
            }
            ui.checkbox(&mut settings.body_follows, tr!("ui-inspector-body-follows"))
                .on_hover_text(tr!("ui-inspector-body-follows.tooltip"))
        })
        .inner;
    let (keep, limits) = ui
        .horizontal(|ui| {
            let keep = ui
                .checkbox(&mut settings.keep_angle, tr!("ui-inspector-keep-angle"))
                .on_hover_text(tr!("ui-inspector-keep-angle.tooltip"));
            let limits = ui
                .checkbox(&mut settings.limits, tr!("ui-inspector-limits"))
                .on_hover_text(tr!("ui-inspector-limits.tooltip"));
            (keep, limits)
        })
        .inner;
    if follows.changed() || keep.changed() || limits.changed() {
        edits.write(EditRequest(Edit::ChangeSettings(settings)));
    }
}

fn selected_bone(
    ui: &mut egui::Ui,
    session: &Session,
    bone: Bone,
    edits: &mut MessageWriter<EditRequest>,
) {
    ui.horizontal(|ui| {
        ui.strong(tr!("ui-inspector-selected", bone = bone_label(bone)));
        // A hand, foot or the head: its pin, as P toggles it.
        if let Ok(ends) = Pins::of(bone) {
            let mut pinned = session.editor.pins.contains(bone);
            if ui
                .checkbox(&mut pinned, tr!("ui-inspector-pinned"))
                .on_hover_text(tr!("ui-inspector-pinned.tooltip"))
                .changed()
            {
                edits.write(EditRequest(Edit::Pin { ends, on: pinned }));
            }
        }
    });
    if bone.is_eye() {
        ui.label(tr!("ui-inspector-eyes"));
        return;
    }
    let q = session.editor.pose.rotation(bone);
    let (x, y, z) = q.to_euler(EulerRot::XYZ);
    let mut angles = [x.to_degrees(), y.to_degrees(), z.to_degrees()];
    for i in 0..3 {
        ui.horizontal(|ui| {
            ui.label(["X", "Y", "Z"][i]);
            let response = ui.add(
                egui::Slider::new(&mut angles[i], -180.0..=180.0)
                    .suffix("°")
                    .update_while_editing(false),
            );
            let edit = response.changed().then(|| PoseEdit::Rotate {
                bone,
                rotation: Quat::from_euler(
                    EulerRot::XYZ,
                    angles[0].to_radians(),
                    angles[1].to_radians(),
                    angles[2].to_radians(),
                ),
            });
            slider_edit(&response, edit, edits);
        });
    }
    if ui.button(tr!("ui-inspector-reset-bone")).clicked() {
        edits.write(EditRequest::new(PoseEdit::ResetBone(bone)));
    }
}

/// The bone list's sections, in the order they are shown, and whether each starts open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BoneGroup {
    Torso,
    Head,
    LeftArm,
    RightArm,
    LeftHand,
    RightHand,
    Legs,
}

/// Each section's message id (also its stable egui id).
const GROUPS: [(BoneGroup, &str, bool); 7] = [
    (BoneGroup::Torso, "ui-bone-group-torso", true),
    (BoneGroup::Head, "ui-bone-group-head", true),
    (BoneGroup::LeftArm, "ui-bone-group-left-arm", true),
    (BoneGroup::RightArm, "ui-bone-group-right-arm", true),
    (BoneGroup::LeftHand, "ui-bone-group-left-hand", false),
    (BoneGroup::RightHand, "ui-bone-group-right-hand", false),
    (BoneGroup::Legs, "ui-bone-group-legs", true),
];

fn group_of(bone: Bone) -> BoneGroup {
    let name = bone.name();
    let left = bone.side() == Some(Side::Left);
    if bone.is_finger() {
        return if left {
            BoneGroup::LeftHand
        } else {
            BoneGroup::RightHand
        };
    }
    if ["Leg", "Foot", "Toes"]
        .iter()
        .any(|part| name.contains(part))
    {
        return BoneGroup::Legs;
    }
    if ["Shoulder", "Arm", "Hand"]
        .iter()
        .any(|part| name.contains(part))
    {
        return if left {
            BoneGroup::LeftArm
        } else {
            BoneGroup::RightArm
        };
    }
    match bone {
        Bone::Neck | Bone::Head | Bone::LeftEye | Bone::RightEye | Bone::Jaw => BoneGroup::Head,
        _ => BoneGroup::Torso,
    }
}

/// The bones by body part, in collapsible sections. A bone selected elsewhere (a marker
/// click) opens its section and scrolls into view.
fn bone_list(
    ui: &mut egui::Ui,
    session: &Session,
    selection: &mut Selection,
    newly_selected: Option<Bone>,
) {
    let editor = &session.editor;
    ui.strong(tr!("ui-inspector-bones"));
    for (group, title, open) in GROUPS {
        let bones: Vec<Bone> = ALL_BONES
            .into_iter()
            .filter(|b| editor.rig.has(*b) && group_of(*b) == group)
            .collect();
        if bones.is_empty() {
            continue;
        }
        let reveal = newly_selected.is_some_and(|b| group_of(b) == group);
        egui::CollapsingHeader::new(tr!(title))
            .id_salt(("bone-group", title))
            .default_open(open)
            .open(reveal.then_some(true))
            .show(ui, |ui| {
                for bone in bones {
                    let rotated = !is_identity(editor.pose.rotation(bone));
                    let text = if rotated {
                        format!("{} •", bone_label(bone))
                    } else {
                        bone_label(bone)
                    };
                    let row = ui.selectable_label(selection.0 == Some(bone), text);
                    if newly_selected == Some(bone) {
                        row.scroll_to_me(Some(egui::Align::Center));
                    }
                    if row.clicked() {
                        selection.0 = Some(bone);
                    }
                }
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bone_is_in_one_section_that_matches_its_side() {
        for bone in ALL_BONES {
            let group = group_of(bone);
            assert!(GROUPS.iter().any(|(g, _, _)| *g == group));
            let sided = matches!(
                group,
                BoneGroup::LeftArm
                    | BoneGroup::RightArm
                    | BoneGroup::LeftHand
                    | BoneGroup::RightHand
            );
            if sided {
                let left = matches!(group, BoneGroup::LeftArm | BoneGroup::LeftHand);
                assert_eq!(bone.side() == Some(Side::Left), left, "{bone}");
            }
        }
        assert_eq!(group_of(Bone::LeftHand), BoneGroup::LeftArm);
        assert_eq!(group_of(Bone::RightIndexDistal), BoneGroup::RightHand);
        assert_eq!(group_of(Bone::LeftToes), BoneGroup::Legs);
        assert_eq!(group_of(Bone::UpperChest), BoneGroup::Torso);
        assert_eq!(group_of(Bone::Jaw), BoneGroup::Head);
    }

    #[test]
    fn every_section_has_a_title_in_both_languages() {
        use crate::app::session::language::{Language, lookup};
        for (_, id, _) in GROUPS {
            for language in Language::ALL {
                assert!(
                    lookup(language, id, None).is_some_and(|t| t != id),
                    "{id} in {}",
                    language.tag()
                );
            }
        }
    }
}
