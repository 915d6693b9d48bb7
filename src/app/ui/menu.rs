//! The menu bar: File, Edit, Pose, View, Help. Key hints come from the key map; the
//! export entries from the export table.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use super::Requests;
use crate::app::session::keymap::{Action, menu_label};
use crate::app::session::language::{self, Language};
use crate::app::session::names::{export_menu_label, mask_label};
use crate::app::session::{
    CameraFollow, CaptureKey, DialogPurpose, EditRequest, FileRequest, FileSettings, LoadModel,
    ModelSource, OnionSkin, PasteMask, PlacingKeys, Prefs, QuitRequested, Session, SpringBones,
    UiSpace, VrStatus, Windows,
};
use crate::core::animation::edit::{Edit, KeyEdit, PoseEdit, SelectMode};
use crate::core::animation::timeline::KeyPick;
use crate::core::body::pose::BodyMask;
use crate::core::formats::table::{EXPORT_FORMATS, Writer};
use crate::core::prefs::RecentKind;
use crate::tr;

/// A path typed into the File menu, for machines without a native file dialog.
#[derive(Default)]
pub(super) struct TypedPath(String);

/// What the menus show and change.
#[derive(bevy::ecs::system::SystemParam)]
pub(super) struct MenuState<'w> {
    settings: ResMut<'w, FileSettings>,
    prefs: ResMut<'w, Prefs>,
    windows: ResMut<'w, Windows>,
    view: ViewSwitches<'w>,
    paste_mask: ResMut<'w, PasteMask>,
    placing: ResMut<'w, PlacingKeys>,
}

/// What the View menu switches: VR, the camera following the person, live spring bones
/// and the onion skin.
#[derive(bevy::ecs::system::SystemParam)]
struct ViewSwitches<'w> {
    vr: ResMut<'w, VrStatus>,
    camera: ResMut<'w, CameraFollow>,
    springs: ResMut<'w, SpringBones>,
    onion: ResMut<'w, OnionSkin>,
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
        view,
        paste_mask,
        placing,
    } = &mut state;
    let ctx = contexts.ctx_mut()?.clone();
    space.show(&ctx, "menu-bar", |root| {
        egui::Panel::top("menu").show(root, |ui| {
            egui::MenuBar::new().ui(ui, |ui| {
                file_menu(ui, settings, prefs, windows, &mut typed, &mut out);
                edit_menu(ui, &session, paste_mask, placing, &mut out);
                pose_menu(ui, &session, paste_mask.0, &mut out);
                view_menu(ui, windows, prefs, view, &mut out);
                ui.menu_button(tr!("ui-menu-help"), |ui| {
                    if ui
                        .button(menu_label(&tr!("ui-menu-controls"), Action::Help))
                        .clicked()
                    {
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
    ui.menu_button(tr!("ui-menu-open-recent"), |ui| {
        if prefs.values.recent.is_empty() {
            ui.label(tr!("ui-menu-recent-none"));
            return;
        }
        let mut open = None;
        for recent in &prefs.values.recent {
            let name = recent.path.file_name().map_or_else(
                || recent.path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            let kind = match recent.kind {
                RecentKind::Model => tr!("ui-menu-recent-model"),
                RecentKind::Project => tr!("ui-menu-recent-project"),
            };
            let exists = recent.path.is_file();
            let button = ui
                .add_enabled(exists, egui::Button::new(format!("{name}  ({kind})")))
                .on_hover_text(recent.path.display().to_string())
                .on_disabled_hover_text(tr!(
                    "ui-menu-recent-gone",
                    path = recent.path.display().to_string()
                ));
            if button.clicked() {
                open = Some(recent.path.clone());
            }
        }
        ui.separator();
        if ui.button(tr!("ui-menu-recent-clear")).clicked() {
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
    egui::containers::menu::MenuButton::new(tr!("ui-menu-file"))
        .config(stay_open)
        .ui(ui, |ui| {
            if ui
                .button(menu_label(
                    &tr!("ui-menu-open-project"),
                    Action::OpenProject,
                ))
                .clicked()
            {
                out.dialog(DialogPurpose::OpenProject);
                ui.close();
            }
            open_recent_menu(ui, prefs, out);
            if ui
                .button(menu_label(&tr!("ui-menu-save-project"), Action::Save))
                .clicked()
            {
                out.files.write(FileRequest::Save {
                    save_as: false,
                    then_quit: false,
                });
                ui.close();
            }
            if ui
                .button(menu_label(&tr!("ui-menu-save-project-as"), Action::SaveAs))
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
                if ui.button(export_menu_label(format)).clicked() {
                    match format.writer {
                        // A still asks for its size and camera first.
                        Writer::Render => windows.png = true,
                        Writer::Core(_) => out.dialog(DialogPurpose::Export(format.kind)),
                    }
                    ui.close();
                }
            }
            // A film asks for its size, camera and background first (the still's window).
            if ui.button(tr!("ui-menu-export-film")).clicked() {
                windows.png = true;
                ui.close();
            }
            if ui.button(tr!("ui-menu-import-animation")).clicked() {
                out.dialog(DialogPurpose::ImportAnimation);
                ui.close();
            }
            ui.horizontal(|ui| {
                ui.label(tr!("ui-menu-import-rate"));
                ui.add(
                    egui::DragValue::new(&mut settings.import_rate)
                        .range(0.0..=30.0)
                        .speed(0.5),
                )
                .on_hover_text(tr!("ui-menu-import-rate.tooltip"));
            });
            ui.separator();
            if ui.button(tr!("ui-menu-open-model")).clicked() {
                out.dialog(DialogPurpose::OpenModel);
                ui.close();
            }
            if ui.button(tr!("ui-menu-open-mannequin")).clicked() {
                out.loads.write(LoadModel(ModelSource::Mannequin));
                ui.close();
            }
            ui.separator();
            if ui.button(tr!("ui-menu-load-pose")).clicked() {
                out.dialog(DialogPurpose::LoadPose);
                ui.close();
            }
            if ui
                .button(tr!("ui-menu-pose-from-image"))
                .on_hover_text(tr!("ui-menu-pose-from-image.tooltip"))
                .clicked()
            {
                out.dialog(DialogPurpose::PoseFromImage);
                ui.close();
            }
            if ui
                .button(tr!("ui-menu-import-video"))
                .on_hover_text(tr!("ui-menu-import-video.tooltip"))
                .clicked()
            {
                out.dialog(DialogPurpose::ImportVideo);
                ui.close();
            }
            ui.separator();
            ui.label(tr!("ui-menu-type-path"));
            ui.horizontal(|ui| {
                ui.text_edit_singleline(&mut typed.0);
                if ui.button(tr!("ui-menu-open")).clicked() && !typed.0.trim().is_empty() {
                    out.files
                        .write(FileRequest::OpenPath(typed.0.trim().into()));
                    ui.close();
                }
            });
            ui.separator();
            if ui
                .button(menu_label(&tr!("ui-menu-quit"), Action::Quit))
                .clicked()
            {
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
    ui.menu_button(tr!("ui-menu-edit"), |ui| {
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
            ("ui-menu-undo", Action::Undo, Edit::Undo, history.can_undo()),
            ("ui-menu-redo", Action::Redo, Edit::Redo, history.can_redo()),
            (
                "ui-menu-select-all-keys",
                Action::SelectAllKeys,
                Edit::Keys(KeyEdit::Select {
                    pick: KeyPick::All,
                    mode: SelectMode::Replace,
                }),
                keys,
            ),
            (
                if selected {
                    "ui-menu-copy-keys"
                } else {
                    "ui-menu-copy-pose"
                },
                Action::Copy,
                editor.copy_edit(),
                true,
            ),
            ("ui-menu-paste", Action::Paste, paste(false), pasteable),
            (
                "ui-menu-paste-mirrored",
                Action::PasteMirrored,
                paste(true),
                pasteable,
            ),
            (
                "ui-menu-duplicate-keys",
                Action::DuplicateKeys,
                Edit::Keys(KeyEdit::Duplicate {
                    t: duplicate_at.unwrap_or_default(),
                }),
                duplicate_at.is_some(),
            ),
            (
                "ui-menu-delete-keys",
                Action::DeleteKey,
                Edit::Keys(KeyEdit::DeleteSelected),
                selected,
            ),
        ] {
            if ui
                .add_enabled(enabled, egui::Button::new(menu_label(&tr!(label), action)))
                .clicked()
            {
                // Duplicated keys then follow the pointer until a click puts them down.
                placing.active |= action == Action::DuplicateKeys;
                out.edits.write(EditRequest(edit));
                ui.close();
            }
        }
        ui.separator();
        let onto = tr!("ui-menu-paste-onto", part = mask_label(paste_mask.0));
        ui.menu_button(onto, |ui| {
            for mask in BodyMask::ALL {
                if ui
                    .radio_value(&mut paste_mask.0, mask, mask_label(mask))
                    .on_hover_text(tr!("ui-menu-paste-onto.tooltip"))
                    .clicked()
                {
                    ui.close();
                }
            }
        });
    });
}

/// The whole-pose edits, shared with the inspector's buttons: the menu's and the
/// button's message ids.
pub(super) const POSE_ACTIONS: [(&str, &str, PoseEdit); 3] = [
    ("ui-pose-reset", "ui-pose-reset", PoseEdit::ResetPose),
    ("ui-pose-mirror", "ui-pose-mirror-button", PoseEdit::Mirror),
    ("ui-pose-arms-down", "ui-pose-arms-down", PoseEdit::ArmsDown),
];

fn pose_menu(ui: &mut egui::Ui, session: &Session, mask: BodyMask, out: &mut Requests) {
    ui.menu_button(tr!("ui-menu-pose"), |ui| {
        for (label, _, edit) in POSE_ACTIONS {
            if ui.button(tr!(label)).clicked() {
                out.edits.write(EditRequest::new(edit));
                ui.close();
            }
        }
        ui.separator();
        if ui.button(tr!("ui-menu-copy-pose")).clicked() {
            out.edits.write(EditRequest(Edit::CopyPose));
            ui.close();
        }
        let copied = session.editor.copied_pose.is_some();
        for (label, mirror) in [
            ("ui-menu-paste-pose-onto", false),
            ("ui-menu-paste-pose-mirrored-onto", true),
        ] {
            let part = mask_label(mask).to_lowercase();
            if ui
                .add_enabled(copied, egui::Button::new(tr!(label, part = part)))
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
        ui.add_enabled(
            false,
            egui::Checkbox::new(&mut false, tr!("ui-camera-follow")),
        );
        ui.set_max_width(260.0);
        ui.label(match crate::vision::webcam::unavailable_here() {
            Some(why) => tr!("ui-camera-unavailable", why = why),
            None => tr!("ui-camera-none"),
        });
        return;
    }
    ui.checkbox(&mut camera.wanted, tr!("ui-camera-follow"))
        .on_hover_text(tr!("ui-camera-follow.tooltip"));
    let capture = ui.add_enabled(
        camera.wanted,
        egui::Button::new(menu_label(&tr!("ui-camera-capture"), Action::PlayStop)),
    );
    if capture.clicked() {
        out.captures.write(CaptureKey);
    }
    if camera.wanted {
        ui.label(tr!("ui-camera-followed", count = camera.followed));
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
    prefs: &mut ResMut<Prefs>,
    view: &mut ViewSwitches,
    out: &mut Requests,
) {
    // Plain `&mut` as before they were grouped: each is marked changed whenever the menu
    // bar is drawn, not only when the View menu is open.
    let ViewSwitches {
        vr,
        camera,
        springs,
        onion,
    } = view;
    let (vr, camera, springs, onion) = (&mut **vr, &mut **camera, &mut **springs, &mut **onion);
    ui.menu_button(tr!("ui-menu-view"), |ui| {
        ui.checkbox(&mut windows.library, tr!("ui-menu-pose-library"));
        ui.separator();
        match (&vr.unavailable, vr.wanted) {
            (Some(reason), _) => {
                ui.add_enabled(false, egui::Button::new(tr!("ui-menu-enter-vr")))
                    .on_disabled_hover_text(tr!(
                        "ui-menu-vr-unavailable",
                        reason = reason.as_str()
                    ));
            }
            (None, false) => {
                if ui.button(tr!("ui-menu-enter-vr")).clicked() {
                    vr.wanted = true;
                    ui.close();
                }
            }
            (None, true) => {
                if ui.button(tr!("ui-menu-leave-vr")).clicked() {
                    vr.wanted = false;
                    ui.close();
                }
            }
        }
        ui.separator();
        ui.checkbox(&mut springs.live, tr!("ui-menu-spring-bones"))
            .on_hover_text(tr!("ui-menu-spring-bones.tooltip"));
        ui.checkbox(&mut onion.on, tr!("ui-menu-onion-skin"))
            .on_hover_text(tr!("ui-menu-onion-skin.tooltip"));
        ui.add_enabled_ui(onion.on, |ui| {
            ui.menu_button(tr!("ui-menu-onion-shows"), |ui| {
                for frames in [None, Some(2u32), Some(5), Some(10)] {
                    let label = match frames {
                        None => tr!("ui-menu-onion-keys"),
                        Some(n) => tr!("ui-menu-onion-frames", count = n),
                    };
                    if ui.radio_value(&mut onion.frames, frames, label).clicked() {
                        ui.close();
                    }
                }
            });
        });
        ui.separator();
        camera_items(ui, camera, out);
        ui.separator();
        language_menu(ui, prefs);
    });
}

/// View ▸ Language: each language by its own name. The title keeps the English word
/// beside the current language's, so anyone finds their way back.
fn language_menu(ui: &mut egui::Ui, prefs: &mut ResMut<Prefs>) {
    let current = language::current();
    let title = if current == Language::English {
        tr!("ui-menu-language")
    } else {
        format!("{} / Language", tr!("ui-menu-language"))
    };
    ui.menu_button(title, |ui| {
        for choice in Language::ALL {
            if ui.radio(choice == current, choice.own_name()).clicked() {
                language::set_current(choice);
                prefs.values.language = Some(choice.tag().to_string());
                ui.close();
            }
        }
    });
}
