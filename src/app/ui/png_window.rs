//! File ▸ Export PNG…: the still's size and camera, then the save dialog.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use crate::app::session::{DialogPurpose, FileRequest, FileSettings, StillView, Windows};
use crate::core::body::framing::CameraPreset;
use crate::core::formats::table::ExportKind;
use crate::tr;

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
    egui::Window::new(tr!("ui-png-title"))
        .id(egui::Id::new("Export PNG"))
        .open(&mut open)
        .collapsible(false)
        .show(&ctx, |ui| {
            ui.label(tr!("ui-png-about"));
            ui.horizontal(|ui| {
                ui.label(tr!("ui-png-size"));
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
                StillView::CurrentCamera | StillView::Fixed(_) => tr!("ui-png-current-view"),
                StillView::Preset(preset) => {
                    crate::app::session::names::camera_preset_label(preset)
                }
            };
            egui::ComboBox::new("Camera", tr!("ui-png-camera"))
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
                ui.checkbox(&mut transparent, tr!("ui-png-transparent"));
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
            ui.checkbox(&mut png.every_key, tr!("ui-png-every-key"))
                .on_hover_text(tr!("ui-png-every-key.tooltip"));
            ui.horizontal(|ui| {
                if ui.button(tr!("ui-png-export")).clicked() {
                    files.write(FileRequest::Dialog(DialogPurpose::Export(ExportKind::Png)));
                }
                if ui
                    .button(tr!("ui-png-export-film"))
                    .on_hover_text(tr!("ui-png-export-film.tooltip"))
                    .clicked()
                {
                    files.write(FileRequest::Dialog(DialogPurpose::ExportFilm));
                }
            });
        });
    windows.png = open;
    Ok(())
}
