//! The hand and gaze sections of the right panel: hand presets in one click (one or
//! both hands), per-finger curl and spread, copying a hand to the other side, and where
//! the eyes look (off, ahead, the camera, a point; the point's handle is in the view).

use bevy_egui::egui;

use super::slider_edit;
use crate::app::session::EditRequest;
use crate::app::session::names::{finger_label, hand_preset_label};
use crate::core::animation::edit::{Editor, GripSide, PoseEdit};
use crate::core::body::hand::{self, Finger, FingerShape};
use crate::core::body::look::LookTarget;
use crate::core::model::humanoid::Side;
use crate::tr;
use bevy::prelude::{MessageWriter, Vec3};

/// The widest the hand and gaze sections may be: an expression slider with its value.
pub(super) const SECTION_WIDTH: f32 = 144.0;

/// Which hand(s) the panel acts on (remembered between frames in egui's memory).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
enum Hands {
    Left,
    Right,
    #[default]
    Both,
}

impl Hands {
    fn side(self) -> GripSide {
        match self {
            Hands::Left => GripSide::One(Side::Left),
            Hands::Right => GripSide::One(Side::Right),
            Hands::Both => GripSide::Both,
        }
    }

    /// The hand whose fingers the sliders show.
    fn shown(self) -> Side {
        match self {
            Hands::Right => Side::Right,
            _ => Side::Left,
        }
    }
}

pub(super) fn draw_hands(
    ui: &mut egui::Ui,
    editor: &Editor,
    edits: &mut MessageWriter<EditRequest>,
) {
    let id = ui.id().with("hands-side");
    let mut hands: Hands = ui.ctx().data(|d| d.get_temp(id)).unwrap_or_default();
    ui.horizontal(|ui| {
        ui.selectable_value(&mut hands, Hands::Left, tr!("ui-side-left"));
        ui.selectable_value(&mut hands, Hands::Right, tr!("ui-side-right"));
        ui.selectable_value(&mut hands, Hands::Both, tr!("ui-side-both"));
    });
    ui.ctx().data_mut(|d| d.insert_temp(id, hands));
    // Wrapped, so the panel keeps its width (the 3D view keeps its size).
    ui.horizontal_wrapped(|ui| {
        for preset in hand::presets() {
            if ui.button(hand_preset_label(preset)).clicked() {
                edits.write(EditRequest::new(PoseEdit::Hand {
                    side: hands.side(),
                    shape: Box::new(preset.shape),
                    amount: 1.0,
                }));
            }
        }
        if ui.button(tr!("ui-hands-copy-to-right")).clicked() {
            edits.write(EditRequest::new(PoseEdit::CopyHand { from: Side::Left }));
        }
        if ui.button(tr!("ui-hands-copy-to-left")).clicked() {
            edits.write(EditRequest::new(PoseEdit::CopyHand { from: Side::Right }));
        }
    });
    let side = hands.shown();
    egui::CollapsingHeader::new(if side == Side::Left {
        tr!("ui-hands-fingers-left")
    } else {
        tr!("ui-hands-fingers-right")
    })
    .id_salt("finger-sliders")
    .show(ui, |ui| {
        // Short sliders: the section is narrower than the expressions' full ones.
        ui.spacing_mut().slider_width = 60.0;
        for finger in Finger::ALL {
            let FingerShape {
                mut curl,
                mut spread,
                ..
            } = editor.hands.read_finger(&editor.pose, side, finger);
            let bone = finger.bones(side)[0];
            // Labels above, not beside: the panel keeps its width.
            let sliders = if finger == Finger::Thumb {
                "ui-hands-thumb-sliders"
            } else {
                "ui-hands-finger-sliders"
            };
            ui.label(tr!(sliders, finger = finger_label(finger)));
            let response =
                ui.add(egui::Slider::new(&mut curl, -0.3..=1.2).update_while_editing(false));
            let edit = response
                .changed()
                .then_some(PoseEdit::Finger { bone, curl, spread });
            slider_edit(&response, edit, edits);
            let response =
                ui.add(egui::Slider::new(&mut spread, -1.0..=1.0).update_while_editing(false));
            let edit = response
                .changed()
                .then_some(PoseEdit::Finger { bone, curl, spread });
            slider_edit(&response, edit, edits);
        }
    });
}

/// The gaze choices of the panel.
#[derive(Clone, Copy, PartialEq)]
enum GazeChoice {
    Off,
    Ahead,
    Camera,
    Point,
    Angles,
}

pub(super) fn draw_gaze(
    ui: &mut egui::Ui,
    editor: &Editor,
    edits: &mut MessageWriter<EditRequest>,
) {
    let target = editor.pose.look.map(|l| l.target());
    let current = match target {
        None => GazeChoice::Off,
        Some(LookTarget::Camera) => GazeChoice::Camera,
        Some(LookTarget::Point(_)) => GazeChoice::Point,
        Some(t) if t == LookTarget::AHEAD => GazeChoice::Ahead,
        Some(LookTarget::Angles(_)) => GazeChoice::Angles,
    };
    if editor.rig.model.look_at.is_none() {
        ui.label(tr!("ui-gaze-no-eyes"));
    }
    let mut chosen = current;
    ui.horizontal_wrapped(|ui| {
        ui.selectable_value(&mut chosen, GazeChoice::Off, tr!("ui-gaze-off"));
        ui.selectable_value(&mut chosen, GazeChoice::Ahead, tr!("ui-gaze-ahead"));
        ui.selectable_value(&mut chosen, GazeChoice::Camera, tr!("ui-gaze-camera"));
        ui.selectable_value(&mut chosen, GazeChoice::Point, tr!("ui-gaze-point"));
    });
    if chosen != current {
        let eyes = editor
            .rig
            .model
            .look_at
            .clone()
            .unwrap_or_else(crate::core::model::look_at::LookAt::standard)
            .eyes(&editor.rig, &editor.pose)
            .0;
        let next = match chosen {
            GazeChoice::Off => None,
            GazeChoice::Ahead | GazeChoice::Angles => Some(LookTarget::AHEAD),
            GazeChoice::Camera => Some(LookTarget::Camera),
            // A point half a metre in front of the eyes, to drag from there.
            GazeChoice::Point => Some(LookTarget::Point(eyes + Vec3::Z * 0.5)),
        };
        edits.write(EditRequest::new(PoseEdit::LookAt(next)));
    }
    match target {
        Some(LookTarget::Point(p)) => {
            ui.label(tr!("ui-gaze-drag"));
            let mut p = p;
            let mut changed = None;
            ui.horizontal_wrapped(|ui| {
                for (i, axis) in ["x", "y", "z"].iter().enumerate() {
                    let response = ui.add(
                        egui::DragValue::new(&mut p[i])
                            .speed(0.01)
                            .range(-100.0..=100.0)
                            .prefix(format!("{axis} ")),
                    );
                    if response.changed() {
                        changed = Some(response);
                    }
                }
            });
            if let Some(response) = changed {
                let edit = Some(PoseEdit::LookAt(Some(LookTarget::Point(p))));
                slider_edit(&response, edit, edits);
            }
        }
        Some(LookTarget::Angles(g)) if g != crate::core::body::look::Gaze::default() => {
            ui.label(tr!(
                "ui-gaze-turned",
                yaw = format!("{:.0}", g.yaw),
                pitch = format!("{:.0}", g.pitch)
            ));
        }
        _ => {}
    }
}
