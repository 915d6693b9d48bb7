//! Native file dialogs (on a worker thread, so the window keeps drawing), drag-and-drop
//! onto the window, and pose files.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, Sender, channel};

use bevy::prelude::*;

use super::model::{LoadModel, ModelSource};
use super::session::{Banner, EditRequest, Session};
use crate::core::edit::Edit;
use crate::core::pose::Pose;

/// What a dialog was opened for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialogPurpose {
    OpenModel,
    LoadPose,
    SavePose,
}

/// Opens native dialogs and collects their answers.
#[derive(Resource)]
pub struct FileDialogs {
    sender: Sender<(DialogPurpose, Option<PathBuf>)>,
    receiver: Mutex<Receiver<(DialogPurpose, Option<PathBuf>)>>,
    open: bool,
    /// Paths chosen without a dialog (typed in, dropped).
    direct: Vec<PathBuf>,
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
            };
            let _ = sender.send((purpose, path));
        });
    }

    /// Opens a path as a drop would: a model, or a pose JSON.
    pub fn open_path(&mut self, path: PathBuf) {
        self.direct.push(path);
    }
}

pub fn plugin(app: &mut App) {
    let (sender, receiver) = channel();
    app.insert_resource(FileDialogs {
        sender,
        receiver: Mutex::new(receiver),
        open: false,
        direct: Vec::new(),
    })
    .add_systems(Update, (collect_drops, handle_answers).chain());
}

fn collect_drops(mut drops: MessageReader<FileDragAndDrop>, mut dialogs: ResMut<FileDialogs>) {
    for drop in drops.read() {
        if let FileDragAndDrop::DroppedFile { path_buf, .. } = drop {
            dialogs.direct.push(path_buf.clone());
        }
    }
}

fn is_json(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

fn handle_answers(
    mut dialogs: ResMut<FileDialogs>,
    mut loads: MessageWriter<LoadModel>,
    mut edits: MessageWriter<EditRequest>,
    mut banner: ResMut<Banner>,
    session: Res<Session>,
) {
    let mut answers: Vec<(DialogPurpose, Option<PathBuf>)> = dialogs
        .receiver
        .lock()
        .map(|r| r.try_iter().collect())
        .unwrap_or_default();
    if !answers.is_empty() {
        dialogs.open = false;
    }
    for path in std::mem::take(&mut dialogs.direct) {
        let purpose = if is_json(&path) {
            DialogPurpose::LoadPose
        } else {
            DialogPurpose::OpenModel
        };
        answers.push((purpose, Some(path)));
    }
    for (purpose, path) in answers {
        let Some(path) = path else { continue }; // cancelled
        match purpose {
            DialogPurpose::OpenModel => {
                loads.write(LoadModel(ModelSource::File(path)));
            }
            DialogPurpose::LoadPose => match read_pose(&path, &session) {
                Ok((pose, warnings)) => {
                    edits.write(EditRequest(Edit::SetPose(Box::new(pose))));
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
        }
    }
}

/// Reads a pose file, dropping expressions this model does not have (with warnings).
pub fn read_pose(path: &Path, session: &Session) -> Result<(Pose, Vec<String>), String> {
    let value = crate::cli::read_json(path).map_err(|e| e.to_string())?;
    let mut warnings = Vec::new();
    let mut pose =
        Pose::from_json(&value, &mut warnings).map_err(|e| format!("{}: {e}", path.display()))?;
    pose.retain_known_expressions(session.editor.expression_names(), &mut warnings);
    Ok((pose, warnings))
}
