//! Native file dialogs (on a worker thread, so the window keeps drawing), drag-and-drop
//! onto the window, pose files and project files.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, Sender, channel};

use bevy::prelude::*;

use super::model::{LoadModel, ModelSource};
use super::session::{Banner, EditRequest, Session};
use crate::core::edit::{Edit, Gesture, KeyEdit, PoseEdit};
use crate::core::pose::Pose;

/// What a dialog was opened for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialogPurpose {
    OpenModel,
    LoadPose,
    SavePose,
    OpenProject,
    SaveProjectAs,
    ExportVrma,
    ImportAnimation,
    ExportPng,
}

type Answer = (DialogPurpose, Option<PathBuf>);

/// Opens native dialogs and collects their answers.
#[derive(Resource)]
pub struct FileDialogs {
    sender: Sender<Answer>,
    receiver: Mutex<Receiver<Answer>>,
    open: bool,
    /// Answers that need no dialog (typed paths, drops, tests).
    direct: Vec<Answer>,
    /// Quit once the pending save succeeds (the close guard's "Save").
    pub exit_after_save: bool,
}

impl FileDialogs {
    /// Shows a native dialog; its answer arrives in a later frame.
    pub fn open(&mut self, purpose: DialogPurpose) {
        if self.open {
            return; // one dialog at a time
        }
        self.open = true;
        let sender = self.sender.clone();
        std::thread::spawn(move || {
            let dialog = rfd::FileDialog::new();
            let path = match purpose {
                DialogPurpose::OpenModel => {
                    dialog.add_filter("VRM model", &["vrm", "glb"]).pick_file()
                }
                DialogPurpose::LoadPose => dialog.add_filter("Pose", &["json"]).pick_file(),
                DialogPurpose::SavePose => dialog
                    .add_filter("Pose", &["json"])
                    .set_file_name("pose.json")
                    .save_file(),
                DialogPurpose::OpenProject => dialog
                    .add_filter("VRMA Maker project", &["json"])
                    .pick_file(),
                DialogPurpose::ExportVrma => dialog
                    .add_filter("VRM Animation", &["vrma"])
                    .set_file_name("animation.vrma")
                    .save_file(),
                DialogPurpose::ExportPng => dialog
                    .add_filter("PNG image", &["png"])
                    .set_file_name("pose.png")
                    .save_file(),
                DialogPurpose::ImportAnimation => dialog
                    .add_filter("Animation (VRMA, glTF clip)", &["vrma", "glb", "gltf"])
                    .pick_file(),
                DialogPurpose::SaveProjectAs => dialog
                    .add_filter("VRMA Maker project", &["json"])
                    .set_file_name("animation.json")
                    .save_file(),
            };
            let _ = sender.send((purpose, path));
        });
    }

    /// Opens a path as a drop would: a model, a project or a pose.
    pub fn open_path(&mut self, path: PathBuf) {
        let purpose = if is_project_file(&path) {
            DialogPurpose::OpenProject
        } else if is_json(&path) {
            DialogPurpose::LoadPose
        } else {
            DialogPurpose::OpenModel
        };
        self.direct.push((purpose, Some(path)));
    }

    /// Answers a purpose without a dialog (typed-in paths; tests).
    pub fn answer(&mut self, purpose: DialogPurpose, path: PathBuf) {
        self.direct.push((purpose, Some(path)));
    }
}

/// Ask to save the project: to its file, or through Save As when it has none.
#[derive(Message, Clone, Copy, Debug)]
pub struct SaveProject {
    pub save_as: bool,
}

pub fn plugin(app: &mut App) {
    let (sender, receiver) = channel();
    app.insert_resource(FileDialogs {
        sender,
        receiver: Mutex::new(receiver),
        open: false,
        direct: Vec::new(),
        exit_after_save: false,
    })
    .add_message::<SaveProject>()
    .add_systems(
        Update,
        (collect_drops, save_project, handle_answers).chain(),
    );
}

fn collect_drops(mut drops: MessageReader<FileDragAndDrop>, mut dialogs: ResMut<FileDialogs>) {
    for drop in drops.read() {
        if let FileDragAndDrop::DroppedFile { path_buf, .. } = drop {
            dialogs.open_path(path_buf.clone());
        }
    }
}

fn is_json(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// A JSON file with keys (or fps / playhead) is a project; other JSON is a pose.
pub fn is_project_file(path: &Path) -> bool {
    if !is_json(path) {
        return false;
    }
    match crate::core::read_json(path) {
        Ok(value) => {
            value.get("keys").is_some()
                || value.get("fps").is_some()
                || value.get("playhead").is_some()
        }
        Err(_) => false, // the pose reader will say what is wrong with it
    }
}

fn save_project(
    mut requests: MessageReader<SaveProject>,
    mut session: ResMut<Session>,
    mut dialogs: ResMut<FileDialogs>,
    mut banner: ResMut<Banner>,
    mut exit: MessageWriter<AppExit>,
) {
    for request in requests.read() {
        match session.project_path.clone().filter(|_| !request.save_as) {
            Some(path) => finish_save(&mut session, &path, &mut dialogs, &mut banner, &mut exit),
            None => dialogs.open(DialogPurpose::SaveProjectAs),
        }
    }
}

fn finish_save(
    session: &mut Session,
    path: &Path,
    dialogs: &mut FileDialogs,
    banner: &mut Banner,
    exit: &mut MessageWriter<AppExit>,
) {
    match session.save_to(path) {
        Ok(()) => {
            banner.notice = Some(format!("Saved {}", path.display()));
            if dialogs.exit_after_save {
                exit.write(AppExit::Success);
            }
        }
        Err(e) => {
            dialogs.exit_after_save = false;
            banner.error(format!("Cannot save: {e}"));
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn handle_answers(
    mut dialogs: ResMut<FileDialogs>,
    mut loads: MessageWriter<LoadModel>,
    mut edits: MessageWriter<EditRequest>,
    mut banner: ResMut<Banner>,
    mut session: ResMut<Session>,
    mut exit: MessageWriter<AppExit>,
    mut export_job: ResMut<super::vrma_files::ExportJob>,
    panel: Option<Res<super::panels::PanelState>>,
    (png, mut stills): (
        Option<Res<super::still::PngSettings>>,
        Option<ResMut<super::still::StillQueue>>,
    ),
) {
    let import_rate = panel.map_or(0.0, |p| p.import_rate);
    let mut answers: Vec<Answer> = dialogs
        .receiver
        .lock()
        .map(|r| r.try_iter().collect())
        .unwrap_or_default();
    if !answers.is_empty() {
        dialogs.open = false;
    }
    answers.append(&mut dialogs.direct);
    for (purpose, path) in answers {
        let Some(path) = path else {
            dialogs.exit_after_save = false; // cancelled
            continue;
        };
        match purpose {
            DialogPurpose::OpenModel => {
                loads.write(LoadModel(ModelSource::File(path)));
            }
            DialogPurpose::OpenProject => {
                loads.write(LoadModel(ModelSource::Project(path)));
            }
            DialogPurpose::LoadPose => match read_pose(&path, &session) {
                Ok((pose, warnings)) => {
                    edits.write(EditRequest(Edit::Pose(PoseEdit::SetPose(Box::new(pose)))));
                    banner.notice = Some(if warnings.is_empty() {
                        format!("Pose loaded from {}", path.display())
                    } else {
                        format!("Pose loaded with warnings: {}", warnings.join("; "))
                    });
                }
                Err(e) => banner.error(e),
            },
            DialogPurpose::SavePose => {
                let json = session.editor.pose.to_json(&session.editor.rig.model.title);
                let text = serde_json::to_vec_pretty(&json).expect("JSON serialises");
                match crate::core::write_atomic(&path, &text) {
                    Ok(()) => banner.notice = Some(format!("Pose saved to {}", path.display())),
                    Err(e) => banner.error(format!("Cannot save {}: {e}", path.display())),
                }
            }
            DialogPurpose::ExportVrma => {
                super::vrma_files::start_export(&mut export_job, &session, path, &mut banner);
            }
            DialogPurpose::ExportPng => {
                let path = if path
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("png"))
                {
                    path
                } else {
                    path.with_extension("png")
                };
                let settings = png.as_deref().copied().unwrap_or_default();
                if let Some(queue) = stills.as_mut() {
                    queue.pending.push(super::still::StillRequest {
                        size: settings.size,
                        view: settings.view,
                        output: path,
                        ..Default::default()
                    });
                    banner.notice = Some("Rendering the PNG…".into());
                }
            }
            DialogPurpose::ImportAnimation => {
                let rate = Some(import_rate).filter(|r| *r > 0.0);
                super::vrma_files::import_file(&path, &session, rate, &mut edits, &mut banner);
            }
            DialogPurpose::SaveProjectAs => {
                let path = if is_json(&path) {
                    path
                } else {
                    path.with_extension("json")
                };
                finish_save(&mut session, &path, &mut dialogs, &mut banner, &mut exit);
            }
        }
    }
}

/// Reads a pose file, dropping expressions this model does not have (with warnings).
pub fn read_pose(path: &Path, session: &Session) -> Result<(Pose, Vec<String>), String> {
    let value = crate::core::read_json(path).map_err(|e| e.to_string())?;
    let mut warnings = Vec::new();
    let mut pose =
        Pose::from_json(&value, &mut warnings).map_err(|e| format!("{}: {e}", path.display()))?;
    pose.retain_known_expressions(session.editor.expression_names(), &mut warnings);
    Ok((pose, warnings))
}
