//! File ▸ Import animation… for motion from another skeleton (BVH): before a key goes
//! in, a dialog shows what mapped and lets the user change the mapping, the key layout
//! and the range to take, previews the result on the avatar, and puts the keys at the
//! playhead or in place of the timeline — one undoable edit either way. Every change
//! re-runs the import on a worker thread (a four-minute capture takes a fifth of a
//! second), so what the dialog shows is what goes in.

use std::path::PathBuf;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use crate::app::session::{
    Banner, EditRequest, Job, KeepAwake, PreviewPose, Session, names::bone_label,
};
use crate::core::Refusal;
use crate::core::animation::edit::KeyEdit;
use crate::core::body::rig::Rig;
use crate::core::formats::imported::Imported;
use crate::core::formats::motion::{KeyPolicy, UserMap};
use crate::core::formats::table::{ImportOptions, import_file};
use crate::core::model::humanoid::Bone;
use crate::tr;

/// The open dialog's state.
pub(super) struct Open {
    path: PathBuf,
    rig: Rig,
    every_frame: bool,
    /// Degrees and millimetres.
    tolerance: (f32, f32),
    /// The seconds of the source to take; `None` until the source's length is known.
    range: Option<(f32, f32)>,
    map: UserMap,
    /// The take of a file with several (FBX), by name; `None`: the longest.
    take: Option<String>,
    result: Option<Result<Imported, String>>,
    running: Option<Job<Result<Imported, Refusal>>>,
    /// The options changed while an import ran: run again when it ends.
    stale: bool,
    preview_at: f32,
    replace: bool,
}

#[derive(Resource, Default)]
pub(super) struct ImportDialog(pub(super) Option<Open>);

impl ImportDialog {
    /// Opens the dialog on a file and starts reading it with the default options.
    pub(super) fn open(&mut self, path: PathBuf, session: &Session) {
        let mut open = Open {
            path,
            rig: session.editor.rig.clone(),
            every_frame: false,
            tolerance: (1.0, 5.0),
            range: None,
            map: UserMap::default(),
            take: None,
            result: None,
            running: None,
            stale: false,
            preview_at: 0.0,
            replace: session.editor.timeline.is_empty(),
        };
        open.run();
        self.0 = Some(open);
    }
}

impl Open {
    fn options(&self) -> ImportOptions {
        ImportOptions {
            keys: if self.every_frame {
                KeyPolicy::EveryFrame
            } else {
                KeyPolicy::Reduced {
                    degrees: self.tolerance.0,
                    metres: self.tolerance.1 / 1000.0,
                }
            },
            map: (!self.map.bones.is_empty()).then(|| self.map.clone()),
            range: self.range,
            rate: None,
            take: self.take.clone(),
        }
    }

    fn run(&mut self) {
        let (path, rig, options) = (self.path.clone(), self.rig.clone(), self.options());
        self.running = Some(Job::spawn("import", move || {
            import_file(&path, &rig, &options)
        }));
        self.stale = false;
    }

    /// Takes a finished import; starts the next when the options moved on meanwhile.
    fn follow(&mut self) {
        let Some(result) = self.running.as_ref().and_then(Job::take) else {
            return;
        };
        self.running = None;
        let result = result.and_then(|r| r.map_err(|e| e.to_string()));
        if let Ok(imported) = &result
            && self.range.is_none()
            && let Some(report) = &imported.mapping
        {
            self.range = Some((0.0, report.source_seconds));
        }
        self.result = Some(result);
        if self.stale {
            self.run();
        }
    }
}

/// What the dialog changes when it is answered.
#[derive(SystemParam)]
pub(super) struct ImportOutput<'w> {
    edits: MessageWriter<'w, EditRequest>,
    banner: ResMut<'w, Banner>,
    preview: ResMut<'w, PreviewPose>,
    awake: ResMut<'w, KeepAwake>,
}

/// Draws the dialog, follows its import, and previews the result on the avatar.
pub(super) fn show(
    mut contexts: EguiContexts,
    mut dialog: ResMut<ImportDialog>,
    session: Res<Session>,
    mut out: ImportOutput,
) -> Result {
    let Some(open) = dialog.0.as_mut() else {
        if out.preview.0.is_some() {
            out.preview.0 = None;
        }
        return Ok(());
    };
    open.follow();
    if open.running.is_some() {
        out.awake.now();
    }
    let ctx = contexts.ctx_mut()?;
    let mut changed = false;
    let mut answer: Option<bool> = None;
    let mut window_open = true;
    let playhead = session.editor.playhead;
    egui::Window::new(tr!("files-import-title"))
        .id(egui::Id::new("import-dialog"))
        .open(&mut window_open)
        .collapsible(false)
        .resizable(true)
        .default_width(440.0)
        .anchor(egui::Align2::RIGHT_TOP, egui::vec2(-12.0, 40.0))
        .show(ctx, |ui| {
            let name = open
                .path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            ui.strong(name);
            let report = match &open.result {
                Some(Ok(imported)) => imported.mapping.clone(),
                _ => None,
            };
            if let Some(report) = &report {
                ui.label(tr!(
                    "files-import-source",
                    seconds = format!("{:.1}", report.source_seconds),
                    fps = format!("{:.0}", report.source_fps),
                    joints = report.joints.len()
                ));
            }
            if let Some(report) = report.as_ref().filter(|r| r.clips.len() > 1) {
                ui.horizontal(|ui| {
                    ui.label(tr!("files-import-take"));
                    let before = open.take.clone();
                    egui::ComboBox::from_id_salt("import-take")
                        .selected_text(
                            open.take
                                .clone()
                                .unwrap_or_else(|| tr!("files-import-longest")),
                        )
                        .show_ui(ui, |ui| {
                            ui.selectable_value(&mut open.take, None, tr!("files-import-longest"));
                            for clip in &report.clips {
                                ui.selectable_value(&mut open.take, Some(clip.clone()), clip);
                            }
                        });
                    if open.take != before {
                        // Another take has its own length: the range starts afresh.
                        open.range = None;
                        changed = true;
                    }
                });
            }
            ui.separator();
            ui.horizontal(|ui| {
                ui.label(tr!("files-import-keys"));
                changed |= ui
                    .radio_value(&mut open.every_frame, false, tr!("files-import-reduced"))
                    .changed();
                changed |= ui
                    .radio_value(&mut open.every_frame, true, tr!("files-import-every-frame"))
                    .changed();
            });
            ui.add_enabled_ui(!open.every_frame, |ui| {
                ui.horizontal(|ui| {
                    ui.label(tr!("files-import-tolerance"));
                    changed |= ui
                        .add(
                            egui::DragValue::new(&mut open.tolerance.0)
                                .range(0.1..=10.0)
                                .speed(0.05)
                                .suffix("°"),
                        )
                        .changed();
                    changed |= ui
                        .add(
                            egui::DragValue::new(&mut open.tolerance.1)
                                .range(0.5..=50.0)
                                .speed(0.1)
                                .suffix(" mm"),
                        )
                        .changed();
                });
            });
            if let (Some((from, to)), Some(report)) = (open.range.as_mut(), &report) {
                let length = report.source_seconds;
                ui.horizontal(|ui| {
                    ui.label(tr!("files-import-range"));
                    changed |= ui
                        .add(
                            egui::DragValue::new(from)
                                .range(0.0..=length)
                                .speed(0.05)
                                .suffix(" s"),
                        )
                        .changed();
                    ui.label(tr!("files-import-to"));
                    changed |= ui
                        .add(
                            egui::DragValue::new(to)
                                .range(0.0..=length)
                                .speed(0.05)
                                .suffix(" s"),
                        )
                        .changed();
                });
                if *to < *from {
                    *to = *from;
                }
            }
            match &open.result {
                _ if open.running.is_some() => {
                    ui.label(tr!("files-import-reading"));
                }
                Some(Ok(imported)) => {
                    ui.label(tr!(
                        "files-import-result",
                        keys = imported.timeline.keys().len(),
                        seconds = format!("{:.2}", imported.duration)
                    ));
                    for warning in &imported.warnings {
                        ui.small(warning);
                    }
                    ui.horizontal(|ui| {
                        ui.label(tr!("files-import-preview"));
                        ui.add(
                            egui::Slider::new(
                                &mut open.preview_at,
                                0.0..=imported.duration.max(0.0),
                            )
                            .suffix(" s"),
                        );
                    });
                }
                Some(Err(e)) => {
                    ui.colored_label(egui::Color32::from_rgb(230, 120, 90), e);
                }
                None => {}
            }
            if let Some(report) = &report {
                egui::CollapsingHeader::new(tr!(
                    "files-import-mapping",
                    mapped = report.mapped.len(),
                    unused = report.unused.len()
                ))
                .id_salt("import-mapping")
                .show(ui, |ui| {
                    changed |= mapping_table(ui, open, report);
                });
            }
            ui.separator();
            ui.radio_value(
                &mut open.replace,
                false,
                tr!("files-import-at-playhead", time = format!("{playhead:.2}")),
            );
            ui.radio_value(&mut open.replace, true, tr!("files-import-replace"));
            ui.horizontal(|ui| {
                let ready = open.running.is_none() && matches!(open.result, Some(Ok(_)));
                if ui
                    .add_enabled(ready, egui::Button::new(tr!("files-import-ok")))
                    .clicked()
                {
                    answer = Some(true);
                }
                if ui.button(tr!("files-import-cancel")).clicked() {
                    answer = Some(false);
                }
            });
        });
    if changed {
        if open.running.is_some() {
            open.stale = true;
        } else {
            open.run();
        }
        out.awake.now();
    }
    // The avatar shows the imported motion where the preview slider is.
    let shown = match &open.result {
        Some(Ok(imported)) => imported
            .timeline
            .sample(open.preview_at, open.rig.hips_rest()),
        _ => None,
    };
    if out.preview.0 != shown {
        out.preview.0 = shown;
        out.awake.now();
    }
    if !window_open {
        answer = Some(false);
    }
    match answer {
        Some(true) => {
            let Some(Open {
                path,
                result: Some(Ok(imported)),
                replace,
                ..
            }) = dialog.0.take()
            else {
                return Ok(());
            };
            let keys = imported.timeline.keys().len();
            let timeline = Box::new(imported.timeline);
            out.edits.write(EditRequest::new(if replace {
                KeyEdit::Replace(timeline)
            } else {
                KeyEdit::InsertAt {
                    timeline,
                    at: playhead,
                }
            }));
            out.banner.notice = Some(tr!(
                "files-imported",
                keys = keys,
                path = path.display().to_string()
            ));
            out.preview.0 = None;
        }
        Some(false) => {
            dialog.0 = None;
            out.preview.0 = None;
        }
        None => {}
    }
    Ok(())
}

/// One row per bone of the rig: the source joint that drives it, to choose.
fn mapping_table(
    ui: &mut egui::Ui,
    open: &mut Open,
    report: &crate::core::formats::imported::MappingReport,
) -> bool {
    let mut changed = false;
    egui::ScrollArea::vertical()
        .max_height(220.0)
        .show(ui, |ui| {
            egui::Grid::new("import-mapping-grid")
                .striped(true)
                .show(ui, |ui| {
                    for &bone in open.rig.order().iter().filter(|b| !b.is_eye()) {
                        ui.label(bone_label(bone));
                        let current = report
                            .mapped
                            .iter()
                            .find(|(b, _)| Bone::from_name(b) == Some(bone))
                            .map(|(_, j)| j.clone());
                        let mut chosen = current.clone();
                        egui::ComboBox::from_id_salt(("import-joint", bone.name()))
                            .selected_text(
                                chosen.clone().unwrap_or_else(|| tr!("files-import-none")),
                            )
                            .show_ui(ui, |ui| {
                                ui.selectable_value(&mut chosen, None, tr!("files-import-none"));
                                for joint in &report.joints {
                                    ui.selectable_value(&mut chosen, Some(joint.clone()), joint);
                                }
                            });
                        if chosen != current {
                            open.map.bones.insert(bone, chosen);
                            changed = true;
                        }
                        ui.end_row();
                    }
                });
        });
    changed
}
