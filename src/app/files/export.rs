//! File ▸ Export: every entry of the export table (`core::formats::table`) as a job with a
//! progress bar: core-made files on a worker thread, stills through the renderer; and
//! File ▸ Import animation… (keys replace the timeline as one undoable edit).

use std::path::PathBuf;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use crate::app::session::{
    Banner, EditRequest, EditorSet, FileSettings, FilmRequest, Films, Job, KeepAwake, Progress,
    RenderStill, SPRING_SETTLE_SECONDS, Session, StillEyes, StillRequest, StillView,
};
use crate::core::Refusal;
use crate::core::animation::edit::{Edit, KeyEdit};
use crate::core::animation::film::{Film, default_end, frame_times};
use crate::core::animation::project::Settings;
use crate::core::body::framing::{STILL_FOV_DEGREES, StillCamera};
use crate::core::formats::imported::Imported;
use crate::core::formats::table::{
    ExportKind, ExportWork, ImportOptions, Writer, import_file, with_extension, write_file,
};
use crate::media::FilmSettings;
use crate::tr;

/// The running export: what it is, how far it got, and its result.
struct Running {
    label: String,
    progress: Progress,
    job: Job<Result<String, String>>,
}

#[derive(Resource, Default)]
pub(super) struct ExportJob(Option<Running>);

impl ExportJob {
    pub(super) fn running(&self) -> bool {
        self.0.is_some()
    }
}

/// An animation being read and converted on a worker thread (a long clip takes seconds;
/// the window keeps drawing, and a panic in the import cannot take the editor down).
#[derive(Resource, Default)]
pub(super) struct ImportJob(Option<(PathBuf, Job<Result<Imported, Refusal>>)>);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<ExportJob>()
        .init_resource::<ImportJob>()
        .add_systems(
            Update,
            (follow_export, follow_import).in_set(EditorSet::Drive),
        );
}

/// Starting exports (for the dialog's answers).
#[derive(SystemParam)]
pub(super) struct Exports<'w> {
    job: ResMut<'w, ExportJob>,
    stills: MessageWriter<'w, RenderStill>,
    films: ResMut<'w, Films>,
}

impl Exports<'_> {
    /// Starts exporting the session's work as `kind` to `path` (its extension forced).
    pub(super) fn start(
        &mut self,
        kind: ExportKind,
        session: &Session,
        settings: &FileSettings,
        path: PathBuf,
        banner: &mut Banner,
    ) {
        let format = kind.format();
        match format.writer {
            Writer::Render if settings.png.every_key => self.png_sequence(
                session,
                settings,
                &with_extension(&path, format.extension),
                banner,
            ),
            Writer::Render => {
                self.stills.write(RenderStill(StillRequest {
                    size: settings.png.size,
                    view: settings.png.view,
                    background: settings.png.background,
                    output: with_extension(&path, format.extension),
                    at: None,
                    eyes: StillEyes::Camera,
                }));
                banner.notice = Some(tr!("files-rendering-png"));
            }
            Writer::Core(_) => {
                if self.job.0.is_some() {
                    banner.error(tr!("files-export-running"));
                    return;
                }
                let mut work = ExportWork::of(&session.editor);
                work.model_file = session.model_path.clone();
                let progress = Progress::default();
                let report = progress.clone();
                let job = Job::spawn("export", move || {
                    write_file(format, &work, &path, &mut |p| report.set(p))
                        .map(|(path, written)| {
                            tr!(
                                "files-exported",
                                path = path.display().to_string(),
                                summary = written.summary
                            )
                        })
                        .map_err(|e| e.to_string())
                });
                self.job.0 = Some(Running {
                    label: tr!("files-exporting", format = format.extension.to_uppercase()),
                    progress,
                    job,
                });
            }
        }
    }
}

impl Exports<'_> {
    /// The whole timeline as a moving picture at `path` (its format from its name), with
    /// the Export PNG window's size, camera and background and the project's rate; the
    /// current view when that is the camera asked for (`view`). The renderer shows a
    /// bar with Cancel.
    pub(super) fn film(
        &mut self,
        session: &Session,
        settings: &FileSettings,
        view: Option<StillCamera>,
        path: PathBuf,
        banner: &mut Banner,
    ) {
        if self.films.running || self.films.pending.is_some() {
            banner.error(tr!("files-export-running"));
            return;
        }
        let editor = &session.editor;
        let png = settings.png;
        let fps = editor.settings.fps.round().max(1.0) as u32;
        let end = default_end(&editor.timeline, editor.settings.length);
        let made = frame_times(0.0, end, fps).and_then(|times| {
            let settings = FilmSettings {
                width: png.size.x,
                height: png.size.y,
                fps,
                frames: times.len(),
                loop_count: 0,
                background: png.background,
            };
            crate::media::check_output(&path, &settings)?;
            Ok((times, settings))
        });
        let (times, film_settings) = match made {
            Ok(made) => made,
            Err(e) => {
                banner.error(e.to_string());
                return;
            }
        };
        let mut film = Film::new(
            editor.rig.clone(),
            editor.timeline.clone(),
            editor.pose.clone(),
            times,
            Vec3::ZERO,
            StillEyes::Camera,
            SPRING_SETTLE_SECONDS,
        );
        let camera = match (png.view, view) {
            (StillView::Preset(preset), _) => StillCamera::framing_all(
                &editor.rig,
                &film.poses(),
                preset,
                STILL_FOV_DEGREES,
                png.size.x as f32 / png.size.y as f32,
            ),
            (StillView::Fixed(camera), _) | (StillView::CurrentCamera, Some(camera)) => camera,
            (StillView::CurrentCamera, None) => StillCamera::framing_all(
                &editor.rig,
                &film.poses(),
                crate::core::body::framing::CameraPreset::Front,
                STILL_FOV_DEGREES,
                png.size.x as f32 / png.size.y as f32,
            ),
        };
        film.look_from(camera.position);
        self.films.pending = Some(FilmRequest {
            film,
            camera,
            settings: film_settings,
            output: path,
            progress: Progress::default(),
            cancel: Default::default(),
            log_progress: false,
        });
    }

    /// Every key as a numbered still (`walk.png` → `walk_001.png`, …), all from one
    /// camera: a preset frames every key's figure at once, so the stills line up.
    fn png_sequence(
        &mut self,
        session: &Session,
        settings: &FileSettings,
        chosen: &std::path::Path,
        banner: &mut Banner,
    ) {
        let editor = &session.editor;
        let keys = editor.timeline.keys();
        if keys.is_empty() {
            banner.error(tr!("files-no-keys-to-export"));
            return;
        }
        let png = settings.png;
        let view = match png.view {
            StillView::Preset(preset) => {
                let poses: Vec<_> = keys.iter().map(|k| k.pose.clone()).collect();
                StillView::Fixed(StillCamera::framing_all(
                    &editor.rig,
                    &poses,
                    preset,
                    STILL_FOV_DEGREES,
                    png.size.x as f32 / png.size.y.max(1) as f32,
                ))
            }
            // The view as it is, for every key (nothing moves it while they render).
            other => other,
        };
        let paths = crate::core::body::still::sequence_paths(chosen, keys.len());
        for (key, output) in keys.iter().zip(paths) {
            self.stills.write(RenderStill(StillRequest {
                size: png.size,
                view,
                background: png.background,
                output,
                at: Some(key.t),
                eyes: StillEyes::Camera,
            }));
        }
        banner.notice = Some(tr!("files-rendering-pngs", count = keys.len()));
    }
}

/// Shows the running export's progress and, when it ends, its result.
fn follow_export(
    mut job: ResMut<ExportJob>,
    mut banner: ResMut<Banner>,
    mut awake: ResMut<KeepAwake>,
) {
    let Some(running) = &job.0 else { return };
    awake.now();
    match running.job.take() {
        None => banner.bar = Some((running.label.clone(), running.progress.get())),
        Some(result) => {
            match result.and_then(|r| r) {
                Ok(message) => banner.notice = Some(message),
                Err(e) => banner.error(e),
            }
            banner.bar = None;
            job.0 = None;
        }
    }
}

impl ImportJob {
    /// Starts importing an animation file as the timeline's keys.
    pub(super) fn start(
        &mut self,
        path: PathBuf,
        session: &Session,
        rate: Option<f32>,
        banner: &mut Banner,
    ) {
        if self.0.is_some() {
            banner.error(tr!("files-import-running"));
            return;
        }
        let rig = session.editor.rig.clone();
        let file = path.clone();
        let options = ImportOptions {
            rate,
            ..Default::default()
        };
        let job = Job::spawn("import", move || import_file(&file, &rig, &options));
        banner.notice = Some(tr!("files-importing", path = path.display().to_string()));
        self.0 = Some((path, job));
    }
}

/// When the import ends: its keys replace the timeline (one undoable edit), or it says
/// why not.
fn follow_import(
    mut job: ResMut<ImportJob>,
    session: Res<Session>,
    mut edits: MessageWriter<EditRequest>,
    mut banner: ResMut<Banner>,
    mut awake: ResMut<KeepAwake>,
) {
    let Some((path, running)) = &job.0 else {
        return;
    };
    awake.now();
    let Some(result) = running.take() else { return };
    match result {
        Ok(Ok(imported)) => {
            let keys = imported.timeline.keys().len();
            let end = imported.timeline.end();
            edits.write(EditRequest::new(KeyEdit::Replace(Box::new(
                imported.timeline,
            ))));
            // Our own VRMA brings back the frame rate it was exported at.
            if let Some(fps) = imported.fps
                && fps != session.editor.settings.fps
            {
                // The length as the import just made it (it grows to fit the keys).
                let settings = session.editor.settings;
                edits.write(EditRequest(Edit::ChangeSettings(Settings {
                    fps,
                    length: settings.length.max(end),
                    ..settings
                })));
            }
            let how = if imported.fps.is_some() {
                "files-restored"
            } else {
                "files-imported"
            };
            let mut notice = tr!(how, keys = keys, path = path.display().to_string());
            if !imported.warnings.is_empty() {
                let warnings = tr!(
                    "files-import-warnings",
                    warnings = imported.warnings.join("; ")
                );
                notice.push(' ');
                notice.push_str(&warnings);
            }
            banner.notice = Some(notice);
        }
        Ok(Err(e)) => banner.error(tr!("files-import-failed", reason = e.to_string())),
        Err(e) => banner.error(tr!(
            "files-import-failed-at",
            path = path.display().to_string(),
            reason = e
        )),
    }
    job.0 = None;
}
