//! The inspector on the left: the model, whole-pose buttons, grip, the IK settings, the
//! selected bone's rotation and the bone list.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use super::menu::POSE_ACTIONS;
use super::slider_edit;
use crate::app::session::{EditRequest, Selection, Session, UiSpace};
use crate::core::edit::{Edit, GripSide, PoseEdit};
use crate::core::humanoid::{ALL_BONES, Bone, Side};
use crate::core::pose::is_identity;

/// How far the Grip buttons curl the fingers.
pub(super) struct GripAmount(f32);

impl Default for GripAmount {
    fn default() -> Self {
        GripAmount(1.0)
    }
}

pub(super) fn draw(
    mut contexts: EguiContexts,
    mut space: ResMut<UiSpace>,
    session: Res<Session>,
    mut selection: ResMut<Selection>,
    mut grip: Local<GripAmount>,
    mut edits: MessageWriter<EditRequest>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    space.show(&ctx, "inspector-space", |root| {
        egui::Panel::left("inspector")
            .resizable(true)
            .default_size(270.0)
            .show(root, |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("inspector-scroll")
                    .show(ui, |ui| {
                        model_and_pose(ui, &session, &mut grip, &mut edits);
                        ui.separator();
                        if let Some(bone) = selection.0.filter(|b| session.editor.rig.has(*b)) {
                            selected_bone(ui, &session, bone, &mut edits);
                            ui.separator();
                        }
                        bone_list(ui, &session, &mut selection);
                    });
            });
    });
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
        "Untitled model"
    } else {
        &editor.rig.model.title
    });
    let source = session
        .model_path
        .as_ref()
        .map_or("built-in mannequin".to_string(), |p| {
            p.display().to_string()
        });
    ui.label(format!(
        "VRM {}.x · {}",
        editor.rig.version().label(),
        source
    ));
    ui.separator();
    ui.horizontal_wrapped(|ui| {
        for (_, label, edit) in POSE_ACTIONS {
            if ui.button(label).clicked() {
                edits.write(EditRequest::new(edit));
            }
        }
    });
    ui.horizontal(|ui| {
        ui.label("Grip");
        ui.add(egui::Slider::new(&mut grip.0, 0.0..=1.0));
    });
    ui.horizontal(|ui| {
        for (label, side) in [
            ("Left", GripSide::One(Side::Left)),
            ("Right", GripSide::One(Side::Right)),
            ("Both", GripSide::Both),
        ] {
            if ui.button(label).clicked() {
                edits.write(EditRequest::new(PoseEdit::Grip {
                    side,
                    amount: grip.0,
                }));
            }
        }
    });
    let mut settings = editor.settings;
    let pin = ui
        .checkbox(&mut settings.pin_feet, "Pin feet")
        .on_hover_text("Moving the hips keeps the feet in place");
    let keep = ui
        .checkbox(&mut settings.keep_angle, "Keep hand/foot angle")
        .on_hover_text("IK keeps the hand's or foot's world rotation");
    if pin.changed() || keep.changed() {
        edits.write(EditRequest(Edit::ChangeSettings(settings)));
    }
}

fn selected_bone(
    ui: &mut egui::Ui,
    session: &Session,
    bone: Bone,
    edits: &mut MessageWriter<EditRequest>,
) {
    ui.strong(format!("Selected: {bone}"));
    if bone.is_eye() {
        ui.label("Eyes follow the gaze (look-at); they are not posed as bones.");
        return;
    }
    let q = session.editor.pose.rotation(bone);
    let (x, y, z) = q.to_euler(EulerRot::XYZ);
    let mut angles = [x.to_degrees(), y.to_degrees(), z.to_degrees()];
    for i in 0..3 {
        ui.horizontal(|ui| {
            ui.label(["X", "Y", "Z"][i]);
            let response = ui.add(egui::Slider::new(&mut angles[i], -180.0..=180.0).suffix("°"));
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
    if ui.button("Reset bone").clicked() {
        edits.write(EditRequest::new(PoseEdit::ResetBone(bone)));
    }
}

fn bone_list(ui: &mut egui::Ui, session: &Session, selection: &mut Selection) {
    let editor = &session.editor;
    ui.strong("Bones");
    for bone in ALL_BONES.into_iter().filter(|b| editor.rig.has(*b)) {
        let rotated = !is_identity(editor.pose.rotation(bone));
        let text = if rotated {
            format!("{bone} •")
        } else {
            bone.to_string()
        };
        if ui
            .selectable_label(selection.0 == Some(bone), text)
            .clicked()
        {
            selection.0 = Some(bone);
        }
    }
}
