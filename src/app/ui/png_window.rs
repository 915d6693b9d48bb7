//! File ▸ Export PNG…: the still's size and camera, then the save dialog.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use crate::app::session::{DialogPurpose, FileRequest, FileSettings, StillView, Windows};
use crate::core::export::ExportKind;
use crate::core::framing::CameraPreset;

pub(super) fn draw(
    mut contexts: EguiContexts,
    mut windows: ResMut<Windows>,
    mut settings: ResMut<FileSettings>,
    mut files: MessageWriter<FileRequest>,
) -> Result {
    if !windows.png {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?.clone();
    let png = &mut settings.png;
    let mut open = true;
    egui::Window::new("Export PNG")
        .open(&mut open)
        .collapsible(false)
        .show(&ctx, |ui| {
            ui.label("The avatar alone, anti-aliased, with straight alpha.");
            ui.horizontal(|ui| {
                ui.label("Size");
                ui.add(
                    egui::DragValue::new(&mut png.size.x)
                        .range(1..=8192)
                        .suffix(" px"),
                );
                ui.label("×");
                ui.add(
                    egui::DragValue::new(&mut png.size.y)
                        .range(1..=8192)
                        .suffix(" px"),
                );
            });
            let label = |v: StillView| match v {
                StillView::CurrentCamera | StillView::Fixed(_) => "Current view",
                StillView::Preset(CameraPreset::Front) => "Front",
                StillView::Preset(CameraPreset::Side) => "Side",
                StillView::Preset(CameraPreset::ThreeQuarter) => "Three-quarter",
            };
            egui::ComboBox::from_label("Camera")
                .selected_text(label(png.view))
                .show_ui(ui, |ui| {
                    for view in [
                        StillView::CurrentCamera,
                        StillView::Preset(CameraPreset::Front),
                        StillView::Preset(CameraPreset::Side),
                        StillView::Preset(CameraPreset::ThreeQuarter),
                    ] {
                        ui.selectable_value(&mut png.view, view, label(view));
                    }
                });
            ui.horizontal(|ui| {
                let mut transparent = png.background.is_none();
                ui.checkbox(&mut transparent, "Transparent background");
                match (transparent, png.background) {
                    (true, Some(_)) => png.background = None,
                    (false, None) => png.background = Some([255, 255, 255]),
                    (false, Some(mut colour)) => {
                        if ui.color_edit_button_srgb(&mut colour).changed() {
                            png.background = Some(colour);
                        }
                    }
                    (true, None) => {}
                }
            });
            ui.checkbox(&mut png.every_key, "Every key, one camera")
                .on_hover_text(
                    "A numbered PNG of each key (name_001.png, …), all framed alike so that they line up",
                );
            if ui.button("Export…").clicked() {
                files.write(FileRequest::Dialog(DialogPurpose::Export(ExportKind::Png)));
            }
        });
    windows.png = open;
    Ok(())
}
