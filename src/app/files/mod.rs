//! Files: native dialogs (on a worker thread, so the window keeps drawing), drag-and-drop
//! onto the window, typed paths, project and pose files, Save, the export table's jobs
//! and animation import ([`export`]), autosave and recovery ([`autosave`]), and the
//! "Save changes?" question before quitting ([`close_guard`]).

mod autosave;
mod camera;
mod close_guard;
mod export;
mod import_dialog;
mod path_dialog;
mod photo;
mod video;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bevy::prelude::*;

use super::session::{
    Banner, DialogPurpose, EditRequest, EditorCamera, EditorSet, FileRequest, FileSettings, Job,
    KeepAwake, LoadModel, ModelSource, Prefs, Session,
};
use crate::core::animation::edit::PoseEdit;
use crate::core::animation::project::is_project_file;
use crate::core::body::pose::Pose;
use crate::core::formats::table::{ExportKind, with_extension};
use crate::core::prefs::RecentKind;
use crate::tr;

pub use close_guard::{CloseGuard, Question, Then};

type Answer = (DialogPurpose, Option<PathBuf>);

/// The dialog open now (one at a time, native or built-in) and answers that need no
/// dialog.
#[derive(Resource, Default)]
struct FileDialogs {
    /// The native dialog on its worker thread, and when it was asked for.
    open: Option<(Job<Answer>, Instant)>,
    /// The built-in dialog, where the desktop has no native one.
    built_in: Option<path_dialog::PathDialog>,
    /// The native dialog was found missing: the built-in one answers from now on.
    native_missing: bool,
    /// Answers that need no dialog (typed paths, drops, tests).
    direct: Vec<Answer>,
    /// Quit once the pending save succeeds (the close guard's "Save").
    exit_after_save: bool,
    /// Open this project once the pending save succeeds (the guard's "Save").
    open_after_save: Option<PathBuf>,
    /// The project the user chose to open over unsaved changes ("Don't save").
    replace_unsaved: Option<PathBuf>,
}

/// A native dialog that answers sooner than this never showed: no person closes one so
/// fast (rfd answers "no file" when neither the portal nor zenity can show it).
const NATIVE_DIALOG_MISSING_WITHIN: Duration = Duration::from_millis(300);

impl FileDialogs {
    /// Shows a file dialog; its answer arrives in a later frame.
    fn show(&mut self, purpose: DialogPurpose, session: &Session) {
        if self.open.is_some() || self.built_in.is_some() {
            return; // one dialog at a time
        }
        if self.native_missing || !native_dialog_possible() {
            self.native_missing = true;
            self.built_in = Some(path_dialog::PathDialog::new(purpose, session));
            return;
        }
        let folder = path_dialog::starting_folder(session);
        self.open = Some((
            Job::spawn("file-dialog", move || {
                (purpose, native_dialog(purpose, &folder))
            }),
            Instant::now(),
        ));
    }
}

/// Whether a native dialog can show at all: rfd asks the desktop portal over the D-Bus
/// session bus, or else runs zenity.
fn native_dialog_possible() -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    let bus = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|a| !a.is_empty())
        || std::env::var_os("XDG_RUNTIME_DIR")
            .is_some_and(|dir| Path::new(&dir).join("bus").exists());
    let zenity = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join("zenity").is_file()));
    bus || zenity
}

fn native_dialog(purpose: DialogPurpose, folder: &Path) -> Option<PathBuf> {
    let dialog = rfd::FileDialog::new()
        .set_directory(folder)
        .set_title(path_dialog::title(purpose));
    match purpose {
        DialogPurpose::OpenModel => dialog
            .add_filter(tr!("files-filter-model"), &["vrm", "glb"])
            .pick_file(),
        DialogPurpose::LoadPose => dialog
            .add_filter(tr!("files-filter-pose"), &["json"])
            .pick_file(),
        DialogPurpose::OpenProject => dialog
            .add_filter(tr!("files-filter-project"), &["json"])
            .pick_file(),
        DialogPurpose::ImportAnimation => dialog
            .add_filter(
                tr!("files-filter-animation"),
                &crate::core::formats::table::import_extensions(),
            )
            .pick_file(),
        DialogPurpose::PoseFromImage => dialog
            .add_filter(tr!("files-filter-photo"), &IMAGE_EXTENSIONS)
            .pick_file(),
        DialogPurpose::ImportVideo => dialog
            .add_filter(tr!("files-filter-video"), &video::VIDEO_EXTENSIONS)
            .pick_file(),
        DialogPurpose::SaveProjectAs => dialog
            .add_filter(tr!("files-filter-project"), &["json"])
            .set_file_name("animation.json")
            .save_file(),
        DialogPurpose::Export(kind) => {
            let format = kind.format();
            dialog
                .add_filter(filter_name(kind), &[format.extension])
                .set_file_name(format.default_name)
                .save_file()
        }
        DialogPurpose::ExportFilm => crate::media::FilmFormat::FILTERS
            .iter()
            .fold(dialog, |dialog, (name, extensions)| {
                dialog.add_filter(*name, extensions)
            })
            .set_file_name(FILM_DEFAULT_NAME)
            .save_file(),
    }
}

/// What File ▸ Export animation as video offers to save as.
pub(super) const FILM_DEFAULT_NAME: &str = "animation.webp";

/// An export format's name in a file dialog (the core's table names it in English).
fn filter_name(kind: ExportKind) -> String {
    match kind {
        ExportKind::Vrma => tr!("files-filter-vrma"),
        ExportKind::Bvh => tr!("files-filter-bvh"),
        ExportKind::Glb => tr!("files-filter-glb"),
        ExportKind::Png => tr!("files-filter-png"),
        ExportKind::Pose => tr!("files-filter-pose"),
    }
}

/// The photos File ▸ Pose from image reads (a drop of one does the same).
const IMAGE_EXTENSIONS: [&str; 3] = ["png", "jpg", "jpeg"];

/// What a path opened directly (a drop, a typed path) is for.
fn purpose_of(path: &Path) -> DialogPurpose {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default();
    if IMAGE_EXTENSIONS
        .iter()
        .any(|e| e.eq_ignore_ascii_case(extension))
    {
        DialogPurpose::PoseFromImage
    } else if video::VIDEO_EXTENSIONS
        .iter()
        .any(|e| e.eq_ignore_ascii_case(extension))
    {
        DialogPurpose::ImportVideo
    } else if is_project_file(path) {
        DialogPurpose::OpenProject
    } else if crate::core::formats::table::import_format(path).is_some()
        && !["glb", "gltf"]
            .iter()
            .any(|e| e.eq_ignore_ascii_case(extension))
    {
        // Motion (.vrma, .bvh); a dropped .glb is an avatar first.
        DialogPurpose::ImportAnimation
    } else if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    {
        DialogPurpose::LoadPose
    } else {
        DialogPurpose::OpenModel
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<FileDialogs>()
        .init_resource::<import_dialog::ImportDialog>()
        .add_systems(
            Update,
            (collect_drops, take_requests, handle_answers, stay_awake)
                .chain()
                .in_set(EditorSet::Input),
        );
    export::plugin(app);
    photo::plugin(app);
    video::plugin(app);
    camera::plugin(app);
    close_guard::plugin(app);
}

/// What only the editor window has: autosave with the recovery offer at start, and the
/// close guard's question (both egui windows).
pub(super) fn window_plugin(app: &mut App) {
    autosave::plugin(app);
    autosave::offer_plugin(app);
    close_guard::question_plugin(app);
    photo::window_plugin(app);
    video::window_plugin(app);
    app.add_systems(
        bevy_egui::EguiPrimaryContextPass,
        (path_dialog::show, import_dialog::show).in_set(super::session::UiLayout::Windows),
    );
    app.add_systems(Update, remember_recent.in_set(EditorSet::Drive));
}

/// A model or project that opened (or a project saved under a new name) goes to the top
/// of File ▸ Open recent.
fn remember_recent(
    session: Res<Session>,
    mut prefs: ResMut<Prefs>,
    mut seen: Local<(Option<PathBuf>, Option<PathBuf>)>,
) {
    if !session.is_changed() {
        return;
    }
    let now = (session.model_path.clone(), session.project_path.clone());
    if *seen == now {
        return;
    }
    // The model first, so that a project opened with its model is the newest entry.
    if let Some(model) = now.0.as_ref().filter(|p| seen.0.as_ref() != Some(*p)) {
        prefs.values.add_recent(model, RecentKind::Model);
    }
    if let Some(project) = now.1.as_ref().filter(|p| seen.1.as_ref() != Some(*p)) {
        prefs.values.add_recent(project, RecentKind::Project);
    }
    *seen = now;
}

/// A dialog's answer arrives from another thread: look for it every frame meanwhile.
fn stay_awake(dialogs: Res<FileDialogs>, mut awake: ResMut<KeepAwake>) {
    if dialogs.open.is_some() || dialogs.built_in.is_some() || !dialogs.direct.is_empty() {
        awake.now();
    }
}

fn collect_drops(mut drops: MessageReader<FileDragAndDrop>, mut files: MessageWriter<FileRequest>) {
    for drop in drops.read() {
        if let FileDragAndDrop::DroppedFile { path_buf, .. } = drop {
            files.write(FileRequest::OpenPath(path_buf.clone()));
        }
    }
}

fn take_requests(
    mut requests: MessageReader<FileRequest>,
    mut dialogs: ResMut<FileDialogs>,
    mut session: ResMut<Session>,
    mut banner: ResMut<Banner>,
    mut exit: MessageWriter<AppExit>,
) {
    for request in requests.read() {
        match request {
            FileRequest::Dialog(purpose) => dialogs.show(*purpose, &session),
            FileRequest::OpenPath(path) => {
                dialogs.direct.push((purpose_of(path), Some(path.clone())));
            }
            FileRequest::Answer(purpose, path) => {
                dialogs.direct.push((*purpose, Some(path.clone())));
            }
            FileRequest::Save { save_as, then_quit } => {
                dialogs.exit_after_save |= *then_quit;
                match session.project_path.clone().filter(|_| !save_as) {
                    Some(path) => {
                        finish_save(&mut session, &path, &mut dialogs, &mut banner, &mut exit)
                    }
                    None => dialogs.show(DialogPurpose::SaveProjectAs, &session),
                }
            }
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
            banner.notice = Some(tr!("files-status-saved", path = path.display().to_string()));
            if dialogs.exit_after_save {
                exit.write(AppExit::Success);
            }
            if let Some(next) = dialogs.open_after_save.take() {
                dialogs
                    .direct
                    .push((DialogPurpose::OpenProject, Some(next)));
            }
        }
        Err(e) => {
            dialogs.exit_after_save = false;
            dialogs.open_after_save = None;
            banner.error(tr!("files-save-failed", reason = e));
        }
    }
}

/// What answering a dialog may need to do.
#[derive(bevy::ecs::system::SystemParam)]
struct AnswerOutput<'w, 's> {
    loads: MessageWriter<'w, LoadModel>,
    edits: MessageWriter<'w, EditRequest>,
    exit: MessageWriter<'w, AppExit>,
    exports: export::Exports<'w>,
    imports: ResMut<'w, export::ImportJob>,
    import_dialog: ResMut<'w, import_dialog::ImportDialog>,
    photo: ResMut<'w, photo::PhotoPose>,
    video: ResMut<'w, video::VideoImport>,
    guard: ResMut<'w, CloseGuard>,
    editor_camera: Query<'w, 's, (&'static Transform, &'static Projection), With<EditorCamera>>,
}

fn handle_answers(
    mut dialogs: ResMut<FileDialogs>,
    mut banner: ResMut<Banner>,
    mut session: ResMut<Session>,
    settings: Res<FileSettings>,
    mut out: AnswerOutput,
) {
    let mut answers = Vec::new();
    if let Some((answer, asked)) = dialogs
        .open
        .as_ref()
        .and_then(|(job, asked)| job.take().map(|a| (a, *asked)))
    {
        dialogs.open = None;
        match answer {
            Ok((purpose, None)) if asked.elapsed() < NATIVE_DIALOG_MISSING_WITHIN => {
                warn!("the native file dialog could not show: using the built-in one");
                dialogs.native_missing = true;
                dialogs.show(purpose, &session);
            }
            Ok(answer) => answers.push(answer),
            Err(e) => banner.error(tr!("files-dialog-failed", reason = e)),
        }
    }
    answers.append(&mut dialogs.direct);
    for (purpose, path) in answers {
        let Some(path) = path else {
            dialogs.exit_after_save = false; // cancelled
            dialogs.open_after_save = None;
            continue;
        };
        match purpose {
            DialogPurpose::OpenModel => {
                out.loads.write(LoadModel(ModelSource::File(path)));
            }
            DialogPurpose::OpenProject => {
                // Opening a project replaces the work: unsaved changes are asked about
                // first (a model opened keeps the work, so it needs no question).
                let confirmed = dialogs.replace_unsaved.take_if(|p| *p == path).is_some();
                if session.editor.dirty && !confirmed {
                    out.guard.asking = Some(Question::Unsaved(Then::Open(path)));
                    continue;
                }
                out.loads.write(LoadModel(ModelSource::Project(path)));
            }
            DialogPurpose::LoadPose => match read_pose(&path, &session) {
                Ok((pose, warnings)) => {
                    // Expressions this model lacks are dropped by the edit itself.
                    out.edits
                        .write(EditRequest::new(PoseEdit::SetPose(Box::new(pose))));
                    banner.notice = Some(if warnings.is_empty() {
                        tr!("files-pose-loaded", path = path.display().to_string())
                    } else {
                        tr!("files-pose-loaded-warnings", warnings = warnings.join("; "))
                    });
                }
                Err(e) => banner.error(e),
            },
            DialogPurpose::Export(kind) => {
                out.exports
                    .start(kind, &session, &settings, path, &mut banner);
            }
            DialogPurpose::ExportFilm => {
                let view = out.editor_camera.iter().next().map(|(t, p)| {
                    let fov = match p {
                        Projection::Perspective(p) => p.fov.to_degrees(),
                        _ => crate::core::body::framing::STILL_FOV_DEGREES,
                    };
                    crate::core::body::framing::StillCamera {
                        position: t.translation,
                        target: t.translation + t.forward() * 3.0,
                        fov,
                    }
                });
                out.exports
                    .film(&session, &settings, view, path, &mut banner);
            }
            // Motion from another skeleton is shown in a dialog first (mapping, keys,
            // range, preview); a VRMA or glTF clip goes straight in.
            DialogPurpose::ImportAnimation
                if crate::core::formats::table::import_format(&path)
                    .is_some_and(|f| f.retargets) =>
            {
                out.import_dialog.open(path, &session);
            }
            DialogPurpose::ImportAnimation => {
                let rate = Some(settings.import_rate).filter(|r| *r > 0.0);
                out.imports.start(path, &session, rate, &mut banner);
            }
            DialogPurpose::PoseFromImage => out.photo.start(path, &mut banner),
            DialogPurpose::ImportVideo => out.video.open(path, &mut banner),
            DialogPurpose::SaveProjectAs => {
                let path = with_extension(&path, "json");
                finish_save(
                    &mut session,
                    &path,
                    &mut dialogs,
                    &mut banner,
                    &mut out.exit,
                );
            }
        }
    }
}

/// Reads a pose file; expressions this model lacks are named in the warnings (the edit
/// drops them).
fn read_pose(path: &Path, session: &Session) -> Result<(Pose, Vec<String>), String> {
    let value = crate::core::read_json(path).map_err(|e| e.to_string())?;
    let mut warnings = Vec::new();
    let pose =
        Pose::from_json(&value, &mut warnings).map_err(|e| format!("{}: {e}", path.display()))?;
    // The edit drops them itself; a copy run through the same rule names them here.
    pose.clone()
        .retain_known_expressions(session.editor.expression_names(), &mut warnings);
    Ok((pose, warnings))
}
