//! Closing with unsaved changes asks first: Save, Don't save, or Cancel.

use bevy::prelude::*;
use bevy::window::WindowCloseRequested;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::app::session::{EditorSet, FileRequest, QuitRequested, Session, UiLayout};

/// Whether the "unsaved changes" question is showing.
#[derive(Resource, Default, Debug)]
pub struct CloseGuard {
    pub asking: bool,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<CloseGuard>()
        .add_systems(Update, on_quit_requests.in_set(EditorSet::Input));
}

/// The question itself (window apps only).
pub(super) fn question_plugin(app: &mut App) {
    app.add_systems(EguiPrimaryContextPass, ask.in_set(UiLayout::Windows));
}

fn on_quit_requests(
    mut closes: MessageReader<WindowCloseRequested>,
    mut quits: MessageReader<QuitRequested>,
    session: Res<Session>,
    mut guard: ResMut<CloseGuard>,
    mut exit: MessageWriter<AppExit>,
) {
    let asked = closes.read().count() + quits.read().count() > 0;
    if !asked {
        return;
    }
    if session.editor.dirty {
        guard.asking = true;
    } else {
        exit.write(AppExit::Success);
    }
}

fn ask(
    mut contexts: EguiContexts,
    mut guard: ResMut<CloseGuard>,
    session: Res<Session>,
    mut files: MessageWriter<FileRequest>,
    mut exit: MessageWriter<AppExit>,
) -> Result {
    if !guard.asking {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    egui::Window::new("Unsaved changes")
        .collapsible(false)
        .resizable(false)
        .anchor(egui::Align2::CENTER_CENTER, egui::vec2(0.0, 0.0))
        .show(ctx, |ui| {
            ui.label(format!(
                "Save the changes to {} before closing?",
                session.project_name()
            ));
            ui.horizontal(|ui| {
                if ui.button("Save").clicked() {
                    files.write(FileRequest::Save {
                        save_as: false,
                        then_quit: true,
                    });
                    guard.asking = false;
                }
                if ui.button("Don't save").clicked() {
                    crate::core::recovery::clear(&crate::core::recovery::recovery_path());
                    exit.write(AppExit::Success);
                }
                if ui.button("Cancel").clicked() {
                    guard.asking = false;
                }
            });
        });
    Ok(())
}
