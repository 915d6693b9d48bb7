//! Work is never dropped without asking: closing, quitting or opening another project
//! with unsaved changes asks first (Save, Don't save, Cancel), and quitting while an
//! export is writing waits for it (a killed export would leave a temporary file and
//! no export).

use std::path::PathBuf;

use bevy::prelude::*;
use bevy::window::WindowCloseRequested;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use super::FileDialogs;
use super::export::ExportJob;
use crate::app::session::{
    Banner, DialogPurpose, EditorSet, FileRequest, Films, KeepAwake, QuitRequested, Session,
    UiLayout,
};
use crate::tr;

/// What happens once the unsaved changes are dealt with.
#[derive(Clone, Debug, PartialEq)]
pub enum Then {
    Quit,
    Open(PathBuf),
}

/// The question showing, if any.
#[derive(Clone, Debug, PartialEq)]
pub enum Question {
    Unsaved(Then),
    ExportRunning,
}

#[derive(Resource, Default, Debug)]
pub struct CloseGuard {
    pub asking: Option<Question>,
    /// Quit as soon as the running export has finished.
    quit_after_export: bool,
}

impl CloseGuard {
    /// The answer "Quit when done" to [`Question::ExportRunning`].
    pub fn quit_when_export_done(&mut self) {
        self.quit_after_export = true;
        self.asking = None;
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<CloseGuard>().add_systems(
        Update,
        (on_quit_requests, quit_after_export).in_set(EditorSet::Input),
    );
}

/// The question itself (window apps only).
pub(super) fn question_plugin(app: &mut App) {
    app.add_systems(EguiPrimaryContextPass, ask.in_set(UiLayout::Windows));
}

fn on_quit_requests(
    mut closes: MessageReader<WindowCloseRequested>,
    mut quits: MessageReader<QuitRequested>,
    session: Res<Session>,
    (export, films): (Res<ExportJob>, Res<Films>),
    mut guard: ResMut<CloseGuard>,
    mut exit: MessageWriter<AppExit>,
) {
    let asked = closes.read().count() + quits.read().count() > 0;
    if !asked {
        return;
    }
    if export.running() || films.running {
        guard.asking = Some(Question::ExportRunning);
    } else if session.editor.dirty {
        guard.asking = Some(Question::Unsaved(Then::Quit));
    } else {
        exit.write(AppExit::Success);
    }
}

fn quit_after_export(
    mut guard: ResMut<CloseGuard>,
    (export, films): (Res<ExportJob>, Res<Films>),
    mut quits: MessageWriter<QuitRequested>,
    mut awake: ResMut<KeepAwake>,
) {
    if !guard.quit_after_export {
        return;
    }
    if export.running() || films.running {
        awake.now();
    } else {
        // The usual way out from here: unsaved changes are still asked about.
        guard.quit_after_export = false;
        quits.write(QuitRequested);
    }
}

fn ask(
    mut contexts: EguiContexts,
    mut guard: ResMut<CloseGuard>,
    mut dialogs: ResMut<FileDialogs>,
    session: Res<Session>,
    mut banner: ResMut<Banner>,
    mut files: MessageWriter<FileRequest>,
    mut exit: MessageWriter<AppExit>,
) -> Result {
    let Some(question) = guard.asking.clone() else {
        return Ok(());
    };
    let ctx = contexts.ctx_mut()?;
    let (id, title) = match &question {
        Question::Unsaved(_) => ("unsaved-changes", tr!("files-unsaved-title")),
        Question::ExportRunning => ("export-running", tr!("files-export-running-title")),
    };
    egui::Window::new(title)
        .id(egui::Id::new(id))
        .collapsible(false)
        .resizable(false)
        .anchor(egui::Align2::CENTER_CENTER, egui::vec2(0.0, 0.0))
        .show(ctx, |ui| match &question {
            Question::Unsaved(then) => {
                let asked = match then {
                    Then::Quit => tr!(
                        "files-unsaved-before-closing",
                        project = session.project_name()
                    ),
                    Then::Open(path) => tr!(
                        "files-unsaved-before-opening",
                        project = session.project_name(),
                        name = path
                            .file_name()
                            .unwrap_or_default()
                            .to_string_lossy()
                            .into_owned()
                    ),
                };
                ui.label(asked);
                ui.horizontal(|ui| {
                    if ui.button(tr!("files-save")).clicked() {
                        if let Then::Open(path) = then {
                            dialogs.open_after_save = Some(path.clone());
                        }
                        files.write(FileRequest::Save {
                            save_as: false,
                            then_quit: *then == Then::Quit,
                        });
                        guard.asking = None;
                    }
                    if ui.button(tr!("files-dont-save")).clicked() {
                        match then {
                            Then::Quit => {
                                crate::core::recovery::clear(&crate::core::recovery::own_path());
                                exit.write(AppExit::Success);
                            }
                            Then::Open(path) => {
                                dialogs.replace_unsaved = Some(path.clone());
                                dialogs
                                    .direct
                                    .push((DialogPurpose::OpenProject, Some(path.clone())));
                            }
                        }
                        guard.asking = None;
                    }
                    if ui.button(tr!("files-cancel")).clicked() {
                        guard.asking = None;
                    }
                });
            }
            Question::ExportRunning => {
                ui.label(tr!("files-export-running-question"));
                ui.horizontal(|ui| {
                    if ui.button(tr!("files-quit-when-done")).clicked() {
                        guard.quit_when_export_done();
                        banner.notice = Some(tr!("files-quitting-after-export"));
                    }
                    if ui.button(tr!("files-keep-working")).clicked() {
                        guard.asking = None;
                    }
                });
            }
        });
    Ok(())
}
