//! The built-in file dialog, for desktops that have no native one (no xdg-desktop-portal
//! and no zenity: a bare X session, a kiosk, a remote display). Without it, every Open,
//! Save As and Export there did nothing at all. It is a path field with the usual
//! default name, checked before it answers: a file to open must exist, a file to save
//! needs its folder, and replacing a file asks once.

use std::path::{Path, PathBuf};

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use super::FileDialogs;
use crate::app::session::{DialogPurpose, Session};
use crate::core::formats::table::with_extension;
use crate::tr;

/// The built-in dialog showing now.
#[derive(Debug)]
pub(super) struct PathDialog {
    purpose: DialogPurpose,
    text: String,
    problem: Option<String>,
    /// Save was pressed once for this existing file: the next press replaces it.
    replace_confirmed: Option<PathBuf>,
    focus_pending: bool,
}

impl PathDialog {
    /// Starts in [`starting_folder`], with the default name when saving.
    pub(super) fn new(purpose: DialogPurpose, session: &Session) -> Self {
        let folder = starting_folder(session);
        let text = match saved_as(purpose) {
            Some((name, _)) => folder.join(name).display().to_string(),
            None => format!("{}{}", folder.display(), std::path::MAIN_SEPARATOR),
        };
        Self {
            purpose,
            text,
            problem: None,
            replace_confirmed: None,
            focus_pending: true,
        }
    }
}

/// Where a dialog starts: the folder of the open project, else of the model, else the
/// working folder.
pub(super) fn starting_folder(session: &Session) -> PathBuf {
    session
        .project_path
        .as_ref()
        .or(session.model_path.as_ref())
        .and_then(|p| p.parent())
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default()
}

/// A save's default file name and forced extension; `None` for an open.
fn saved_as(purpose: DialogPurpose) -> Option<(&'static str, &'static str)> {
    match purpose {
        DialogPurpose::SaveProjectAs => Some(("animation.json", "json")),
        DialogPurpose::Export(kind) => {
            let format = kind.format();
            Some((format.default_name, format.extension))
        }
        DialogPurpose::ExportFilm => Some((super::FILM_DEFAULT_NAME, "webp")),
        DialogPurpose::OpenModel
        | DialogPurpose::LoadPose
        | DialogPurpose::OpenProject
        | DialogPurpose::ImportAnimation
        | DialogPurpose::PoseFromImage
        | DialogPurpose::ImportVideo => None,
    }
}

/// The dialog's title (the native dialog's too).
pub(super) fn title(purpose: DialogPurpose) -> String {
    match purpose {
        DialogPurpose::OpenModel => tr!("files-title-open-model"),
        DialogPurpose::LoadPose => tr!("files-title-load-pose"),
        DialogPurpose::OpenProject => tr!("files-title-open-project"),
        DialogPurpose::SaveProjectAs => tr!("files-title-save-project-as"),
        DialogPurpose::ImportAnimation => tr!("files-title-import-animation"),
        DialogPurpose::PoseFromImage => tr!("files-title-pose-from-image"),
        DialogPurpose::ImportVideo => tr!("files-title-import-video"),
        DialogPurpose::Export(kind) => tr!("files-title-export", format = super::filter_name(kind)),
        DialogPurpose::ExportFilm => tr!("files-title-export-film"),
    }
}

/// Why a typed path is not an answer yet.
#[derive(Debug, PartialEq)]
pub(super) enum NotYet {
    /// Shown under the field.
    Problem(String),
    /// The file exists: saving again replaces it.
    Exists(PathBuf),
}

/// What a typed path answers, checked as a native dialog would before closing.
/// `replace_confirmed` is the existing file the user already chose to replace.
pub(super) fn check_answer(
    purpose: DialogPurpose,
    typed: &str,
    replace_confirmed: Option<&Path>,
) -> Result<PathBuf, NotYet> {
    let typed = typed.trim();
    if typed.is_empty() || typed.ends_with('/') {
        return Err(NotYet::Problem(tr!("files-path-type-a-name")));
    }
    let path = expand_home(typed);
    if path.is_dir() {
        return Err(NotYet::Problem(tr!(
            "files-path-folder-add-a-name",
            path = path.display().to_string()
        )));
    }
    match saved_as(purpose) {
        None if path.is_file() => Ok(path),
        None => Err(NotYet::Problem(tr!(
            "files-path-no-file",
            path = path.display().to_string()
        ))),
        Some((_, extension)) => {
            // A film's format follows the name; another name becomes a WebP.
            let path = match purpose {
                DialogPurpose::ExportFilm if crate::media::FilmFormat::of_path(&path).is_ok() => {
                    path
                }
                _ => with_extension(&path, extension),
            };
            let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
            if folder.is_some_and(|f| !f.is_dir()) {
                return Err(NotYet::Problem(tr!(
                    "files-path-no-folder",
                    path = folder.unwrap_or(Path::new("")).display().to_string()
                )));
            }
            if path.is_dir() {
                return Err(NotYet::Problem(tr!(
                    "files-path-is-a-folder",
                    path = path.display().to_string()
                )));
            }
            if path.exists() && replace_confirmed != Some(path.as_path()) {
                return Err(NotYet::Exists(path));
            }
            Ok(path)
        }
    }
}

/// `~/x` is the home folder's `x`, as in a shell.
fn expand_home(typed: &str) -> PathBuf {
    let home = || directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    match typed.strip_prefix("~/") {
        Some(rest) => match home() {
            Some(home) => home.join(rest),
            None => PathBuf::from(typed),
        },
        None if typed == "~" => home().unwrap_or_else(|| PathBuf::from(typed)),
        None => PathBuf::from(typed),
    }
}

/// Draws the dialog; its answer (or a cancel) joins the direct answers.
pub(super) fn show(mut contexts: EguiContexts, mut dialogs: ResMut<FileDialogs>) -> Result {
    let Some(mut dialog) = dialogs.built_in.take() else {
        return Ok(());
    };
    let ctx = contexts.ctx_mut()?;
    let mut answer = None;
    let saving = saved_as(dialog.purpose).is_some();
    egui::Window::new(title(dialog.purpose))
        .id(egui::Id::new("path-dialog"))
        .collapsible(false)
        .resizable(false)
        .anchor(egui::Align2::CENTER_CENTER, egui::vec2(0.0, 0.0))
        .show(ctx, |ui| {
            ui.label(tr!("files-path-file"));
            let field = ui.add(egui::TextEdit::singleline(&mut dialog.text).desired_width(480.0));
            if dialog.focus_pending {
                field.request_focus();
                dialog.focus_pending = false;
            }
            if field.changed() {
                dialog.problem = None;
                dialog.replace_confirmed = None;
            }
            let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if let Some(problem) = &dialog.problem {
                ui.colored_label(egui::Color32::from_rgb(230, 120, 90), problem);
            }
            ui.horizontal(|ui| {
                let label = match (saving, &dialog.replace_confirmed) {
                    (true, Some(_)) => tr!("files-replace"),
                    (true, None) => tr!("files-save"),
                    (false, _) => tr!("files-open"),
                };
                if ui.button(label).clicked() || entered {
                    match check_answer(
                        dialog.purpose,
                        &dialog.text,
                        dialog.replace_confirmed.as_deref(),
                    ) {
                        Ok(path) => answer = Some(Some(path)),
                        Err(NotYet::Problem(problem)) => {
                            dialog.problem = Some(problem);
                            dialog.focus_pending = true;
                        }
                        Err(NotYet::Exists(path)) => {
                            dialog.problem = Some(tr!(
                                "files-path-exists",
                                name = path
                                    .file_name()
                                    .unwrap_or_default()
                                    .to_string_lossy()
                                    .into_owned()
                            ));
                            dialog.replace_confirmed = Some(path);
                            dialog.focus_pending = true;
                        }
                    }
                }
                if ui.button(tr!("files-cancel")).clicked()
                    || ui.input(|i| i.key_pressed(egui::Key::Escape))
                {
                    answer = Some(None);
                }
            });
        });
    match answer {
        Some(path) => dialogs.direct.push((dialog.purpose, path)),
        None => dialogs.built_in = Some(dialog),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::formats::table::ExportKind;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "vrma-maker-path-dialog-{name}-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn an_open_needs_an_existing_file() {
        let dir = scratch("open");
        let model = dir.join("a.vrm");
        std::fs::write(&model, b"x").unwrap();
        let typed = model.display().to_string();
        assert_eq!(
            check_answer(DialogPurpose::OpenModel, &format!("  {typed} "), None),
            Ok(model.clone())
        );
        let missing = dir.join("b.vrm");
        assert!(matches!(
            check_answer(DialogPurpose::OpenModel, missing.to_str().unwrap(), None),
            Err(NotYet::Problem(p)) if p.contains("No file")
        ));
        assert!(matches!(
            check_answer(
                DialogPurpose::OpenProject,
                &format!("{}/", dir.display()),
                None
            ),
            Err(NotYet::Problem(_))
        ));
    }

    #[test]
    fn a_save_gets_its_extension_needs_its_folder_and_asks_before_replacing() {
        let dir = scratch("save");
        let vrma = DialogPurpose::Export(ExportKind::Vrma);
        let wanted = dir.join("walk.vrma");
        assert_eq!(
            check_answer(vrma, dir.join("walk").to_str().unwrap(), None),
            Ok(wanted.clone())
        );
        assert!(matches!(
            check_answer(vrma, dir.join("no/such/walk.vrma").to_str().unwrap(), None),
            Err(NotYet::Problem(p)) if p.contains("No folder")
        ));
        assert!(matches!(
            check_answer(vrma, dir.to_str().unwrap(), None),
            Err(NotYet::Problem(_))
        ));
        std::fs::write(&wanted, b"old").unwrap();
        assert_eq!(
            check_answer(vrma, wanted.to_str().unwrap(), None),
            Err(NotYet::Exists(wanted.clone()))
        );
        assert_eq!(
            check_answer(vrma, wanted.to_str().unwrap(), Some(&wanted)),
            Ok(wanted.clone())
        );
    }

    #[test]
    fn a_tilde_is_the_home_folder() {
        let home = directories::BaseDirs::new()
            .expect("a home folder")
            .home_dir()
            .to_path_buf();
        assert_eq!(expand_home("~/x.vrm"), home.join("x.vrm"));
        assert_eq!(expand_home("/a/~/x"), PathBuf::from("/a/~/x"));
    }
}
