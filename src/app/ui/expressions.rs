//! The right panel: hands and gaze (`hands.rs`), then a slider per preset and custom
//! expression.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use super::slider_edit;
use crate::app::session::names::expression_label;
use crate::app::session::{EditRequest, Prefs, Session, UiSpace};
use crate::core::animation::edit::PoseEdit;
use crate::tr;

pub(super) fn draw(
    mut contexts: EguiContexts,
    mut space: ResMut<UiSpace>,
    session: Res<Session>,
    mut prefs: ResMut<Prefs>,
    mut edits: MessageWriter<EditRequest>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let editor = &session.editor;
    space.show(&ctx, "expressions-space", |root| {
        let panel = egui::Panel::right("expressions")
            .resizable(true)
            .default_size(prefs.values.expressions_width.unwrap_or(210.0))
            .show(root, |ui| {
                // No wider than the expression sliders below (headers and wrapped rows
                // take all the width they are given), so the panel, and the 3D view
                // beside it, keep the width they have always had.
                ui.scope(|ui| {
                    ui.set_max_width(super::hands::SECTION_WIDTH);
                    egui::CollapsingHeader::new(tr!("ui-hands"))
                        .id_salt("Hands")
                        .default_open(true)
                        .show(ui, |ui| super::hands::draw_hands(ui, editor, &mut edits));
                    egui::CollapsingHeader::new(tr!("ui-gaze"))
                        .id_salt("Gaze")
                        .default_open(true)
                        .show(ui, |ui| super::hands::draw_gaze(ui, editor, &mut edits));
                    ui.separator();
                });
                ui.heading(tr!("ui-expressions"));
                if editor.expression_names().is_empty() {
                    ui.label(tr!("ui-expressions-none"));
                }
                egui::ScrollArea::vertical()
                    .id_salt("expressions-scroll")
                    .show(ui, |ui| {
                        for name in editor.expression_names() {
                            let mut value =
                                editor.pose.expressions.get(name).copied().unwrap_or(0.0);
                            ui.label(expression_label(name));
                            let response = ui.add(
                                egui::Slider::new(&mut value, 0.0..=1.0)
                                    .update_while_editing(false),
                            );
                            let edit = response.changed().then(|| PoseEdit::Expression {
                                name: name.clone(),
                                value,
                            });
                            slider_edit(&response, edit, &mut edits);
                        }
                    });
            });
        let width = panel.response.rect.width();
        if let Some(width) = super::chosen_panel_width(root, prefs.values.expressions_width, width)
        {
            prefs.values.expressions_width = Some(width);
        }
    });
    Ok(())
}
