//! The menu bar: File, Edit, Pose, View, Help. Key hints come from the key map; the
//! export entries from the export table.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use super::Requests;
use crate::app::session::keymap::{Action, menu_label};
use crate::app::session::{
    CameraFollow, CaptureKey, DialogPurpose, EditRequest, FileRequest, FileSettings, LoadModel,
    ModelSource, OnionSkin, PasteMask, PlacingKeys, Prefs, QuitRequested, Session, SpringBones,
    UiSpace, VrStatus, Windows,
};
use crate::core::edit::{Edit, KeyEdit, PoseEdit, SelectMode};
use crate::core::export::{EXPORT_FORMATS, Writer};
use crate::core::pose::BodyMask;
use crate::core::prefs::RecentKind;
use crate::core::timeline::KeyPick;

/// A path typed into the File menu, for machines without a native file dialog.
#[derive(Default)]
pub(super) struct TypedPath(String);

/// What the menus show and change.
#[derive(bevy::ecs::system::SystemParam)]
pub(super) struct MenuState<'w> {
    settings: ResMut<'w, FileSettings>,
    prefs: ResMut<'w, Prefs>,
    windows: ResMut<'w, Windows>,
    vr: ResMut<'w, VrStatus>,
    camera: ResMut<'w, CameraFollow>,
    springs: ResMut<'w, SpringBones>,
    paste_mask: ResMut<'w, PasteMask>,
    onion: ResMut<'w, OnionSkin>,
    placing: ResMut<'w, PlacingKeys>,
}

pub(super) fn draw(
    mut contexts: EguiContexts,
    mut space: ResMut<UiSpace>,
    session: Res<Session>,
    mut state: MenuState,
    mut typed: Local<TypedPath>,
    mut out: Requests,
) -> Result {
    let MenuState {
        settings,
        prefs,
        windows,
        vr,
        camera,
        springs,
        paste_mask,
        onion,
        placing,
    } = &mut state;
    let ctx = contexts.ctx_mut()?.clone();
    space.show(&ctx, "menu-bar", |root| {
        egui::Panel::top("menu").show(root, |ui| {
            egui::MenuBar::new().ui(ui, |ui| {
                file_menu(ui, settings, prefs, windows, &mut typed, &mut out);
                edit_menu(ui, &session, paste_mask, placing, &mut out);
                pose_menu(ui, &session, paste_mask.0, &mut out);
                view_menu(ui, windows, vr, springs, onion, camera, &mut out);
                ui.menu_button("Help", |ui| {
                    if ui.button(menu_label("Controls", Action::Help)).clicked() {
                        windows.help = true;
                        ui.close();
                    }
                });
            });
        });
    });
    Ok(())
}

impl Requests<'_> {
    fn dialog(&mut self, purpose: DialogPurpose) {
        self.files.write(FileRequest::Dialog(purpose));
    }
}

/// File ▸ Open recent: models and projects, newest first; a file that has gone is
/// shown greyed out with the reason on hover.
fn open_recent_menu(ui: &mut egui::Ui, prefs: &mut ResMut<Prefs>, out: &mut Requests) {
    ui.menu_button("Open recent", |ui| {
        if prefs.values.recent.is_empty() {
            ui.label("Nothing opened yet");
            return;
        }
        let mut open = None;
        for recent in &prefs.values.recent {
            let name = recent.path.file_name().map_or_else(
                || recent.path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            let kind = match recent.kind {
                RecentKind::Model => "model",
                RecentKind::Project => "project",
            };
            let exists = recent.path.is_file();
            let button = ui
                .add_enabled(exists, egui::Button::new(format!("{name}  ({kind})")))
                .on_hover_text(recent.path.display().to_string())
                .on_disabled_hover_text(format!("{} is gone", recent.path.display()));
            if button.clicked() {
                open = Some(recent.path.clone());
            }
        }
        ui.separator();
        if ui.button("Clear the list").clicked() {
            prefs.values.recent.clear();
            ui.close();
        }
        if let Some(path) = open {
            out.files.write(FileRequest::OpenPath(path));
            ui.close();
        }
    });
}

fn file_menu(
    ui: &mut egui::Ui,
    settings: &mut FileSettings,
    prefs: &mut ResMut<Prefs>,
    windows: &mut Windows,
    typed: &mut TypedPath,
    out: &mut Requests,
) {
    // The File menu holds a text field: clicking into it must not close the menu
    // (egui's default closes a menu on any click inside it).
    let stay_open = egui::containers::menu::MenuConfig::new()
        .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside);
    egui::containers::menu::MenuButton::new("File")
        .config(stay_open)
        .ui(ui, |ui| {
            if ui
                .button(menu_label("Open project…", Action::OpenProject))
                .clicked()
            {
                out.dialog(DialogPurpose::OpenProject);
                ui.close();
            }
            open_recent_menu(ui, prefs, out);
            if ui.button(menu_label("Save project", Action::Save)).clicked() {
                out.files.write(FileRequest::Save {
                    save_as: false,
                    then_quit: false,
                });
                ui.close();
            }
            if ui
                .button(menu_label("Save project as…", Action::SaveAs))
                .clicked()
            {
                out.files.write(FileRequest::Save {
                    save_as: true,
                    then_quit: false,
                });
                ui.close();
            }
            ui.separator();
            for format in &EXPORT_FORMATS {
                if ui.button(format.menu).clicked() {
                    match format.writer {
                        // A still asks for its size and camera first.
                        Writer::Render => windows.png = true,
                        Writer::Core(_) => out.dialog(DialogPurpose::Export(format.kind)),
                    }
                    ui.close();
                }
            }
            if ui.button("Import animation (VRMA, glTF clip)…").clicked() {
                out.dialog(DialogPurpose::ImportAnimation);
                ui.close();
            }
            ui.horizontal(|ui| {
                ui.label("Import keys per second");
                ui.add(
                    egui::DragValue::new(&mut settings.import_rate)
                        .range(0.0..=30.0)
                        .speed(0.5),
                )
                .on_hover_text(
                    "0 = a key wherever the source has one; otherwise thin dense clips to this rate",
                );
            });
            ui.separator();
            if ui.button("Open model…").clicked() {
                out.dialog(DialogPurpose::OpenModel);
                ui.close();
            }
            if ui.button("Open built-in mannequin").clicked() {
                out.loads.write(LoadModel(ModelSource::Mannequin));
                ui.close();
            }
            ui.separator();
            if ui.button("Load pose…").clicked() {
                out.dialog(DialogPurpose::LoadPose);
                ui.close();
            }
            if ui
                .button("Pose from image…")
                .on_hover_text("Find the person in a photo and give the model their pose")
                .clicked()
            {
                out.dialog(DialogPurpose::PoseFromImage);
                ui.close();
            }
            ui.separator();
            ui.label("Or type a path (.vrm, project, pose .json or a photo):");
            ui.horizontal(|ui| {
                ui.text_edit_singleline(&mut typed.0);
                if ui.button("Open").clicked() && !typed.0.trim().is_empty() {
                    out.files.write(FileRequest::OpenPath(typed.0.trim().into()));
                    ui.close();
                }
            });
            ui.separator();
            if ui.button(menu_label("Quit", Action::Quit)).clicked() {
                out.quits.write(QuitRequested);
                ui.close();
            }
        });
}

fn edit_menu(
    ui: &mut egui::Ui,
    session: &Session,
    paste_mask: &mut PasteMask,
    placing: &mut PlacingKeys,
    out: &mut Requests,
) {
    ui.menu_button("Edit", |ui| {
        let editor = &session.editor;
        let history = &editor.history;
        let selected = !editor.selection.is_empty();
        let keys = !editor.timeline.is_empty();
        let paste = |mirror| Edit::PasteLast {
            mirror,
            mask: paste_mask.0,
        };
        let pasteable = editor.last_copied.is_some();
        let duplicate_at = editor.duplicate_at();
        for (label, action, edit, enabled) in [
            ("Undo", Action::Undo, Edit::Undo, history.can_undo()),
            ("Redo", Action::Redo, Edit::Redo, history.can_redo()),
            (
                "Select all keys",
                Action::SelectAllKeys,
                Edit::Keys(KeyEdit::Select {
                    pick: KeyPick::All,
                    mode: SelectMode::Replace,
                }),
                keys,
            ),
            (
                if selected { "Copy keys" } else { "Copy pose" },
                Action::Copy,
                editor.copy_edit(),
                true,
            ),
            ("Paste", Action::Paste, paste(false), pasteable),
            (
                "Paste mirrored",
                Action::PasteMirrored,
                paste(true),
                pasteable,
            ),
            (
                "Duplicate keys",
                Action::DuplicateKeys,
                Edit::Keys(KeyEdit::Duplicate {
                    t: duplicate_at.unwrap_or_default(),
                }),
                duplicate_at.is_some(),
            ),
            (
                "Delete keys",
                Action::DeleteKey,
                Edit::Keys(KeyEdit::DeleteSelected),
                selected,
            ),
        ] {
            if ui
                .add_enabled(enabled, egui::Button::new(menu_label(label, action)))
                .clicked()
            {
                // Duplicated keys then follow the pointer until a click puts them down.
                placing.active |= action == Action::DuplicateKeys;
                out.edits.write(EditRequest(edit));
                ui.close();
            }
        }
        ui.separator();
        ui.menu_button(format!("Paste onto: {}", paste_mask.0.label()), |ui| {
            for mask in BodyMask::ALL {
                if ui
                    .radio_value(&mut paste_mask.0, mask, mask.label())
                    .on_hover_text("where a pasted or library pose goes")
                    .clicked()
                {
                    ui.close();
                }
            }
        });
    });
}

/// The whole-pose edits, shared with the inspector's buttons.
pub(super) const POSE_ACTIONS: [(&str, &str, PoseEdit); 3] = [
    ("Reset pose", "Reset pose", PoseEdit::ResetPose),
    ("Mirror left/right", "Mirror", PoseEdit::Mirror),
    ("Arms down", "Arms down", PoseEdit::ArmsDown),
];

fn pose_menu(ui: &mut egui::Ui, session: &Session, mask: BodyMask, out: &mut Requests) {
    ui.menu_button("Pose", |ui| {
        for (label, _, edit) in POSE_ACTIONS {
            if ui.button(label).clicked() {
                out.edits.write(EditRequest::new(edit));
                ui.close();
            }
        }
        ui.separator();
        if ui.button("Copy pose").clicked() {
            out.edits.write(EditRequest(Edit::CopyPose));
            ui.close();
        }
        let copied = session.editor.copied_pose.is_some();
        for (label, mirror) in [
            ("Paste pose onto", false),
            ("Paste pose mirrored onto", true),
        ] {
            if ui
                .add_enabled(
                    copied,
                    egui::Button::new(format!("{label} {}", mask.label().to_lowercase())),
                )
                .clicked()
            {
                out.edits
                    .write(EditRequest(Edit::PastePose { mirror, mask }));
                ui.close();
            }
        }
    });
}

/// View ▸ Follow camera (the avatar follows the person live), Capture key (Space while
/// following), and why there is nothing to follow.
fn camera_items(ui: &mut egui::Ui, camera: &mut CameraFollow, out: &mut Requests) {
    if camera.frames.is_none() && camera.devices.is_empty() {
        ui.add_enabled(false, egui::Checkbox::new(&mut false, "Follow camera"));
        ui.set_max_width(260.0);
        ui.label(match crate::vision::webcam::unavailable_here() {
            Some(why) => format!(
                "{why}. Start with --camera-frames DIR to follow a folder of frames instead."
            ),
            None => "No camera found (no /dev/video* device). Plug one in, or start with \
                     --camera-frames DIR to follow a folder of frames."
                .to_string(),
        });
        return;
    }
    ui.checkbox(&mut camera.wanted, "Follow camera")
        .on_hover_text("The avatar follows the person in the camera, mirrored");
    let capture = ui.add_enabled(
        camera.wanted,
        egui::Button::new(menu_label("Capture key", Action::PlayStop)),
    );
    if capture.clicked() {
        out.captures.write(CaptureKey);
    }
    if camera.wanted {
        ui.label(format!("{} frames followed", camera.followed));
    }
    if let Some(problem) = &camera.problem {
        ui.set_max_width(320.0);
        let text = egui::RichText::new(problem).color(egui::Color32::from_rgb(230, 120, 90));
        ui.add(egui::Label::new(text).wrap());
    }
}

fn view_menu(
    ui: &mut egui::Ui,
    windows: &mut Windows,
    vr: &mut VrStatus,
    springs: &mut SpringBones,
    onion: &mut OnionSkin,
    camera: &mut CameraFollow,
    out: &mut Requests,
) {
    ui.menu_button("View", |ui| {
        ui.checkbox(&mut windows.library, "Pose library");
        ui.separator();
        match (&vr.unavailable, vr.wanted) {
            (Some(reason), _) => {
                ui.add_enabled(false, egui::Button::new("Enter VR"))
                    .on_disabled_hover_text(format!("VR is not available: {reason}"));
            }
            (None, false) => {
                if ui.button("Enter VR").clicked() {
                    vr.wanted = true;
                    ui.close();
                }
            }
            (None, true) => {
                if ui.button("Leave VR").clicked() {
                    vr.wanted = false;
                    ui.close();
                }
            }
        }
        ui.separator();
        ui.checkbox(&mut springs.live, "Spring bones (live)")
            .on_hover_text(
                "Hair and skirts swing as you pose and play; stills always show them settled",
            );
        ui.checkbox(&mut onion.on, "Onion skin")
            .on_hover_text("The previous and next keys' poses as ghosts (never in stills)");
        ui.add_enabled_ui(onion.on, |ui| {
            ui.menu_button("Onion skin shows", |ui| {
                for (label, frames) in [
                    ("The keys either side", None),
                    ("±2 frames", Some(2)),
                    ("±5 frames", Some(5)),
                    ("±10 frames", Some(10)),
                ] {
                    if ui.radio_value(&mut onion.frames, frames, label).clicked() {
                        ui.close();
                    }
                }
            });
        });
        ui.separator();
        camera_items(ui, camera, out);
    });
}
