//! The egui panels: menu bar, error banner, model / pose / bone inspector on the left,
//! expressions on the right, the timeline and a status line at the bottom.

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use super::close_guard::QuitRequested;
use super::files::{DialogPurpose, FileDialogs, SaveProject};
use super::model::{LoadModel, ModelSource};
use super::session::{Banner, EditRequest, Selection, Session};
use super::timeline_panel::{self, TimelineUi};
use crate::core::edit::{Edit, Gesture, GripSide, PoseEdit};
use crate::core::humanoid::{ALL_BONES, Side};
use crate::core::pose::is_identity;

/// Whether the pointer is over a panel (the 3D view then ignores the mouse).
#[derive(Resource, Default, Debug)]
pub struct PointerOverUi(pub bool);

/// The part of the window left for the 3D view after the panels, in logical pixels.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq)]
pub struct ViewRect(pub Option<bevy::math::Rect>);

/// Panel state that is not part of the pose.
#[derive(Resource, Debug)]
pub struct PanelState {
    pub grip_amount: f32,
    pub show_help: bool,
    /// A typed path, for machines where no native file dialog is available.
    pub typed_path: String,
    /// Keys per second when importing a dense clip (0 = a key at every source key).
    pub import_rate: f32,
    /// The Export PNG window is open.
    pub show_png: bool,
    /// The pose library window is open.
    pub show_library: bool,
}

impl Default for PanelState {
    fn default() -> Self {
        PanelState {
            grip_amount: 1.0,
            show_help: false,
            typed_path: String::new(),
            import_rate: 0.0,
            show_png: false,
            show_library: true,
        }
    }
}

pub fn plugin(app: &mut App) {
    app.init_resource::<PointerOverUi>()
        .init_resource::<ViewRect>()
        .init_resource::<PanelState>()
        .add_systems(EguiPrimaryContextPass, draw_panels)
        .add_systems(Update, (update_title, toggle_help));
}

fn toggle_help(keys: Res<ButtonInput<KeyCode>>, mut state: ResMut<PanelState>) {
    if keys.just_pressed(KeyCode::F1) {
        state.show_help = !state.show_help;
    }
}

/// "VRMA Maker — walk.json* — Model title": the project, an unsaved mark, the model.
pub fn window_title(session: &Session) -> String {
    let title = &session.editor.rig.model.title;
    let model = if title.is_empty() {
        "untitled model"
    } else {
        title
    };
    let dirty = if session.editor.dirty { "*" } else { "" };
    format!("VRMA Maker — {}{dirty} — {model}", session.project_name())
}

fn update_title(session: Res<Session>, mut window: Single<&mut Window, With<PrimaryWindow>>) {
    if !session.is_changed() {
        return;
    }
    let wanted = window_title(&session);
    if window.title != wanted {
        window.title = wanted;
    }
}

/// Sends a slider's edit: previews while dragging, one undoable edit when released or
/// when changed without a drag (a click, typed value).
fn slider_edit(
    response: &egui::Response,
    edit: Option<PoseEdit>,
    edits: &mut MessageWriter<EditRequest>,
) {
    if let Some(edit) = edit {
        if response.dragged() {
            edits.write(EditRequest(Edit::preview(edit)));
        } else {
            edits.write(EditRequest(edit.into()));
        }
    }
    if response.drag_stopped() {
        edits.write(EditRequest(Edit::Gesture(Gesture::End)));
    }
}

#[allow(clippy::too_many_arguments)]
fn draw_panels(
    mut contexts: EguiContexts,
    session: Res<Session>,
    mut selection: ResMut<Selection>,
    mut banner: ResMut<Banner>,
    mut state: ResMut<PanelState>,
    mut timeline_ui: ResMut<TimelineUi>,
    mut over_ui: ResMut<PointerOverUi>,
    mut view_rect: ResMut<ViewRect>,
    mut edits: MessageWriter<EditRequest>,
    mut loads: MessageWriter<LoadModel>,
    mut dialogs: ResMut<FileDialogs>,
    mut saves: MessageWriter<SaveProject>,
    mut quits: MessageWriter<QuitRequested>,
    export_job: Res<super::vrma_files::ExportJob>,
    mut png: ResMut<super::still::PngSettings>,
    (key_thumbs, mut vr): (
        Res<super::key_thumbnails::KeyThumbnails>,
        ResMut<super::vr::VrStatus>,
    ),
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let mut root = egui::Ui::new(
        ctx.clone(),
        "vrma-maker-root".into(),
        egui::UiBuilder::new()
            .layer_id(egui::LayerId::background())
            .max_rect(ctx.viewport_rect()),
    );

    egui::Panel::top("menu").show(&mut root, |ui| {
        egui::MenuBar::new().ui(ui, |ui| {
            // The File menu holds a text field: clicking into it must not close the menu
            // (egui's default closes a menu on any click inside it).
            let stay_open = egui::containers::menu::MenuConfig::new()
                .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside);
            egui::containers::menu::MenuButton::new("File")
                .config(stay_open)
                .ui(ui, |ui| {
                if ui.button("Open project…   Ctrl+O").clicked() {
                    dialogs.open(DialogPurpose::OpenProject);
                    ui.close();
                }
                if ui.button("Save project   Ctrl+S").clicked() {
                    saves.write(SaveProject { save_as: false });
                    ui.close();
                }
                if ui.button("Save project as…   Ctrl+Shift+S").clicked() {
                    saves.write(SaveProject { save_as: true });
                    ui.close();
                }
                ui.separator();
                if ui.button("Export VRMA…").clicked() {
                    dialogs.open(DialogPurpose::ExportVrma);
                    ui.close();
                }
                if ui.button("Import animation (VRMA, glTF clip)…").clicked() {
                    dialogs.open(DialogPurpose::ImportAnimation);
                    ui.close();
                }
                ui.horizontal(|ui| {
                    ui.label("Import keys per second");
                    ui.add(egui::DragValue::new(&mut state.import_rate).range(0.0..=30.0).speed(0.5))
                        .on_hover_text("0 = a key wherever the source has one; otherwise thin dense clips to this rate");
                });
                if ui.button("Export PNG…").clicked() {
                    state.show_png = true;
                    ui.close();
                }
                ui.separator();
                if ui.button("Open model…").clicked() {
                    dialogs.open(DialogPurpose::OpenModel);
                    ui.close();
                }
                if ui.button("Open built-in mannequin").clicked() {
                    loads.write(LoadModel(ModelSource::Mannequin));
                    ui.close();
                }
                ui.separator();
                if ui.button("Load pose…").clicked() {
                    dialogs.open(DialogPurpose::LoadPose);
                    ui.close();
                }
                if ui.button("Save pose…").clicked() {
                    dialogs.open(DialogPurpose::SavePose);
                    ui.close();
                }
                ui.separator();
                ui.label("Or type a path (.vrm, project or pose .json):");
                ui.horizontal(|ui| {
                    ui.text_edit_singleline(&mut state.typed_path);
                    if ui.button("Open").clicked() && !state.typed_path.trim().is_empty() {
                        dialogs.open_path(std::path::PathBuf::from(state.typed_path.trim()));
                        ui.close();
                    }
                });
                ui.separator();
                if ui.button("Quit   Ctrl+Q").clicked() {
                    quits.write(QuitRequested);
                    ui.close();
                }
            });
            ui.menu_button("Edit", |ui| {
                if ui
                    .add_enabled(
                        session.editor.history.can_undo(),
                        egui::Button::new("Undo   Ctrl+Z"),
                    )
                    .clicked()
                {
                    edits.write(EditRequest(Edit::Undo));
                    ui.close();
                }
                if ui
                    .add_enabled(
                        session.editor.history.can_redo(),
                        egui::Button::new("Redo   Ctrl+Y"),
                    )
                    .clicked()
                {
                    edits.write(EditRequest(Edit::Redo));
                    ui.close();
                }
            });
            ui.menu_button("Pose", |ui| {
                for (label, edit) in [
                    ("Reset pose", Edit::Pose(PoseEdit::ResetPose)),
                    ("Mirror left/right", Edit::Pose(PoseEdit::Mirror)),
                    ("Arms down", Edit::Pose(PoseEdit::ArmsDown)),
                ] {
                    if ui.button(label).clicked() {
                        edits.write(EditRequest(edit));
                        ui.close();
                    }
                }
            });
            ui.menu_button("View", |ui| {
                ui.checkbox(&mut state.show_library, "Pose library");
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
            });
            ui.menu_button("Help", |ui| {
                if ui.button("Controls   F1").clicked() {
                    state.show_help = true;
                    ui.close();
                }
            });
        });
    });

    if let Some(error) = banner.error.clone() {
        egui::Panel::top("error-banner")
            .frame(
                egui::Frame::new()
                    .fill(egui::Color32::from_rgb(120, 28, 28))
                    .inner_margin(6.0),
            )
            .show(&mut root, |ui| {
                ui.horizontal(|ui| {
                    ui.colored_label(egui::Color32::WHITE, format!("⚠ {error}"));
                    if ui.button("Dismiss").clicked() {
                        banner.error = None;
                    }
                });
            });
    }

    egui::Panel::bottom("status").show(&mut root, |ui| {
        if let Some(line) = &banner.progress {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(line);
            });
        }
        if let Some(p) = export_job.progress() {
            ui.add(egui::ProgressBar::new(p).text(format!("Exporting VRMA… {:.0}%", p * 100.0)));
        }
        let notice = banner.notice.clone().unwrap_or_else(|| {
            "Click a marker: select · Right drag: orbit · Middle / Shift+right drag: pan · Wheel: zoom · F1: help".into()
        });
        ui.label(notice);
    });

    timeline_panel::draw(
        &mut root,
        &session,
        &mut timeline_ui,
        &mut edits,
        &key_thumbs,
    );

    let editor = &session.editor;
    egui::Panel::left("inspector")
        .resizable(true)
        .default_size(270.0)
        .show(&mut root, |ui| {
            egui::ScrollArea::vertical()
                .id_salt("inspector-scroll")
                .show(ui, |ui| {
                    ui.heading(if editor.rig.model.title.is_empty() {
                        "Untitled model"
                    } else {
                        &editor.rig.model.title
                    });
                    let source = session
                        .model_path
                        .as_ref()
                        .map_or("built-in mannequin".to_string(), |p| {
                            p.display().to_string()
                        });
                    ui.label(format!(
                        "VRM {}.x · {}",
                        editor.rig.version().label(),
                        source
                    ));
                    ui.separator();

                    ui.horizontal_wrapped(|ui| {
                        for (label, edit) in [
                            ("Reset pose", Edit::Pose(PoseEdit::ResetPose)),
                            ("Mirror", Edit::Pose(PoseEdit::Mirror)),
                            ("Arms down", Edit::Pose(PoseEdit::ArmsDown)),
                        ] {
                            if ui.button(label).clicked() {
                                edits.write(EditRequest(edit));
                            }
                        }
                    });
                    ui.horizontal(|ui| {
                        ui.label("Grip");
                        ui.add(egui::Slider::new(&mut state.grip_amount, 0.0..=1.0));
                    });
                    ui.horizontal(|ui| {
                        for (label, side) in [
                            ("Left", GripSide::One(Side::Left)),
                            ("Right", GripSide::One(Side::Right)),
                            ("Both", GripSide::Both),
                        ] {
                            if ui.button(label).clicked() {
                                edits.write(EditRequest(Edit::Pose(PoseEdit::Grip {
                                    side,
                                    amount: state.grip_amount,
                                })));
                            }
                        }
                    });
                    let mut settings = editor.settings;
                    let pin = ui
                        .checkbox(&mut settings.pin_feet, "Pin feet")
                        .on_hover_text("Moving the hips keeps the feet in place");
                    let keep = ui
                        .checkbox(&mut settings.keep_angle, "Keep hand/foot angle")
                        .on_hover_text("IK keeps the hand's or foot's world rotation");
                    if pin.changed() || keep.changed() {
                        edits.write(EditRequest(Edit::ChangeSettings(settings)));
                    }
                    ui.separator();

                    if let Some(bone) = selection.0.filter(|b| editor.rig.has(*b)) {
                        ui.strong(format!("Selected: {bone}"));
                        if bone.is_eye() {
                            ui.label(
                                "Eyes follow the gaze (look-at); they are not posed as bones.",
                            );
                        } else {
                            let q = editor.pose.rotation(bone);
                            let (x, y, z) = q.to_euler(EulerRot::XYZ);
                            let mut angles = [x.to_degrees(), y.to_degrees(), z.to_degrees()];
                            for i in 0..3 {
                                ui.horizontal(|ui| {
                                    ui.label(["X", "Y", "Z"][i]);
                                    let response = ui.add(
                                        egui::Slider::new(&mut angles[i], -180.0..=180.0)
                                            .suffix("°"),
                                    );
                                    let edit = response.changed().then(|| PoseEdit::Rotate {
                                        bone,
                                        rotation: Quat::from_euler(
                                            EulerRot::XYZ,
                                            angles[0].to_radians(),
                                            angles[1].to_radians(),
                                            angles[2].to_radians(),
                                        ),
                                    });
                                    slider_edit(&response, edit, &mut edits);
                                });
                            }
                            if ui.button("Reset bone").clicked() {
                                edits.write(EditRequest(Edit::Pose(PoseEdit::ResetBone(bone))));
                            }
                        }
                        ui.separator();
                    }

                    ui.strong("Bones");
                    for bone in ALL_BONES.into_iter().filter(|b| editor.rig.has(*b)) {
                        let rotated = !is_identity(editor.pose.rotation(bone));
                        let text = if rotated {
                            format!("{bone} •")
                        } else {
                            bone.to_string()
                        };
                        if ui
                            .selectable_label(selection.0 == Some(bone), text)
                            .clicked()
                        {
                            selection.0 = Some(bone);
                        }
                    }
                });
        });

    egui::Panel::right("expressions")
        .resizable(true)
        .default_size(210.0)
        .show(&mut root, |ui| {
            ui.heading("Expressions");
            if editor.expression_names().is_empty() {
                ui.label("This model has no expressions.");
            }
            egui::ScrollArea::vertical()
                .id_salt("expressions-scroll")
                .show(ui, |ui| {
                    for name in editor.expression_names() {
                        let mut value = editor.pose.expressions.get(name).copied().unwrap_or(0.0);
                        ui.label(name);
                        let response = ui.add(egui::Slider::new(&mut value, 0.0..=1.0));
                        let edit = response.changed().then(|| PoseEdit::Expression {
                            name: name.clone(),
                            value,
                        });
                        slider_edit(&response, edit, &mut edits);
                    }
                });
        });

    let free = root.available_rect_before_wrap();
    let rect = bevy::math::Rect::new(free.min.x, free.min.y, free.max.x, free.max.y);
    if view_rect.0 != Some(rect) {
        view_rect.0 = Some(rect);
    }

    if state.show_png {
        let mut open = true;
        egui::Window::new("Export PNG")
            .open(&mut open)
            .collapsible(false)
            .show(&ctx, |ui| {
                ui.label("The avatar alone on a transparent background.");
                ui.horizontal(|ui| {
                    ui.label("Size");
                    ui.add(
                        egui::DragValue::new(&mut png.size.x)
                            .range(1..=8192)
                            .suffix(" px"),
                    );
                    ui.label("×");
                    ui.add(
                        egui::DragValue::new(&mut png.size.y)
                            .range(1..=8192)
                            .suffix(" px"),
                    );
                });
                use super::still::StillView;
                use crate::core::framing::CameraPreset;
                let label = |v: StillView| match v {
                    StillView::CurrentCamera => "Current view",
                    StillView::Preset(CameraPreset::Front) => "Front",
                    StillView::Preset(CameraPreset::Side) => "Side",
                    StillView::Preset(CameraPreset::ThreeQuarter) => "Three-quarter",
                };
                egui::ComboBox::from_label("Camera")
                    .selected_text(label(png.view))
                    .show_ui(ui, |ui| {
                        for view in [
                            StillView::CurrentCamera,
                            StillView::Preset(CameraPreset::Front),
                            StillView::Preset(CameraPreset::Side),
                            StillView::Preset(CameraPreset::ThreeQuarter),
                        ] {
                            ui.selectable_value(&mut png.view, view, label(view));
                        }
                    });
                if ui.button("Export…").clicked() {
                    dialogs.open(DialogPurpose::ExportPng);
                }
            });
        state.show_png = open;
    }

    if state.show_help {
        let mut open = true;
        egui::Window::new("Controls")
            .open(&mut open)
            .show(&ctx, |ui| {
                egui::Grid::new("help-grid").striped(true).show(ui, |ui| {
                    for (key, action) in HELP {
                        ui.strong(*key);
                        ui.label(*action);
                        ui.end_row();
                    }
                });
            });
        state.show_help = open;
    }

    let pointer = ctx.pointer_latest_pos();
    over_ui.0 = pointer.is_some_and(|p| !free.contains(p))
        || ctx.is_pointer_over_egui()
        || ctx.egui_wants_pointer_input();
    Ok(())
}

/// Every key and mouse action (the F1 overlay).
pub const HELP: &[(&str, &str)] = &[
    ("Left click on a marker", "select that bone"),
    (
        "G",
        "move the selection: hands/feet by IK, elbows/knees swing (pole), hips (feet pinned)",
    ),
    ("R", "rotate the selected bone about the view axis"),
    (
        "X / Y / Z (during G or R)",
        "lock to that world axis; press again to release",
    ),
    (
        "Click / Enter",
        "confirm the move or rotation (one undo step)",
    ),
    ("Right click / Esc", "cancel it: everything returns exactly"),
    (
        "Drag a gizmo arrow / ring",
        "move along / rotate about that axis",
    ),
    ("Right drag", "orbit the camera"),
    ("Middle drag / Shift + right drag", "pan"),
    ("Mouse wheel", "zoom"),
    ("K", "add a key at the playhead"),
    ("Delete", "delete the key at the playhead"),
    ("Space", "play / stop"),
    ("Left / Right arrow", "previous / next frame"),
    ("Ctrl+Z", "undo"),
    ("Ctrl+Y, Ctrl+Shift+Z", "redo"),
    ("Ctrl+S / Ctrl+Shift+S", "save the project / save as"),
    ("Ctrl+O", "open a project"),
    ("Ctrl+Q", "quit (asks to save unsaved changes)"),
    (
        "Click / drag on the timeline",
        "move the playhead; drag a key to move it",
    ),
    (
        "Drop a .vrm on the window",
        "open that model (keys and pose carry over)",
    ),
    (
        "Drop a project or pose .json",
        "open the project / apply the pose",
    ),
    ("F1", "show / hide this help"),
];
