//! The timeline on the VR panel: big buttons for the laser and the desktop's ruler, in
//! `core::vr::panel`'s rectangles.

use bevy::prelude::*;
use bevy_egui::{EguiContext, egui};

use super::TimelineUi;
use super::ruler::ruler;
use super::toolbar::{ease_label, play_label};
use crate::app::session::{
    EditRequest, PlacingKeys, Session, Thumbnails, VrPanel, panel_button, panel_rect,
};
use crate::core::animation::edit::{Edit, KeyEdit};
use crate::core::animation::timeline::{Ease, FPS};
use crate::tr;

/// The timeline on the VR panel: big buttons for the laser (play, add and delete a key,
/// the ease, undo, redo) and the desktop's ruler, each in its place of
/// `core::vr::panel`. Its own drag state: the desktop's ruler is drawn meanwhile too.
pub(super) fn draw_vr_panel(
    mut panel: Single<&mut EguiContext, With<VrPanel>>,
    session: Res<Session>,
    mut ruler_state: Local<TimelineUi>,
    mut edits: MessageWriter<EditRequest>,
    (mut thumbs, mut placing): (ResMut<Thumbnails>, ResMut<PlacingKeys>),
) {
    use crate::core::vr::panel::{
        ADD_KEY_BUTTON, DELETE_KEY_BUTTON, EASE_BUTTON, PLAY_BUTTON, REDO_BUTTON, RULER,
        TIME_LABEL, UNDO_BUTTON,
    };
    let ctx = panel.get_mut().clone();
    let editor = &session.editor;
    let mut send = |edit: Edit| {
        edits.write(EditRequest(edit));
    };
    let big = panel_button;
    egui::Area::new(egui::Id::new("vr-timeline"))
        .fixed_pos(panel_rect(PLAY_BUTTON).min)
        .movable(false)
        .show(&ctx, |ui| {
            let playing = editor.playing;
            let play = big(&play_label(playing));
            if ui.put(panel_rect(PLAY_BUTTON), play).clicked() {
                send(Edit::SetPlaying(!playing));
            }
            if ui
                .put(panel_rect(ADD_KEY_BUTTON), big(&tr!("timeline-add-key")))
                .clicked()
            {
                send(Edit::Keys(KeyEdit::Add));
            }
            let key = editor.timeline.key_at(editor.playhead).filter(|_| !playing);
            let selected: Vec<&crate::core::animation::timeline::Key> = editor
                .timeline
                .keys()
                .iter()
                .filter(|k| editor.selection.contains(&k.id))
                .map(|k| &**k)
                .collect();
            let delete = ui.add_enabled_ui(key.is_some() || !selected.is_empty(), |ui| {
                ui.put(
                    panel_rect(DELETE_KEY_BUTTON),
                    big(&tr!("timeline-delete-key")),
                )
            });
            if delete.inner.clicked() {
                send(Edit::Keys(if selected.is_empty() {
                    KeyEdit::Delete
                } else {
                    KeyEdit::DeleteSelected
                }));
            }
            // The ease: each press picks the next one for the selection (or the key at
            // the playhead); a laser cannot work a drop-down list comfortably.
            let ease = selected.first().map(|k| k.ease).or(key.map(|k| k.ease));
            let label = ease.map_or(tr!("timeline-vr-ease-none"), |e| {
                tr!("timeline-vr-ease", ease = ease_label(e))
            });
            let ease_button = ui.add_enabled_ui(ease.is_some(), |ui| {
                ui.put(panel_rect(EASE_BUTTON), big(&label))
            });
            if ease_button.inner.clicked()
                && let Some(now) = ease
            {
                let at = Ease::ALL.iter().position(|e| *e == now).unwrap_or(0);
                let next = Ease::ALL[(at + 1) % Ease::ALL.len()];
                send(Edit::Keys(if selected.is_empty() {
                    KeyEdit::SetEase(next)
                } else {
                    KeyEdit::EaseSelected(next)
                }));
            }
            let undo = ui.add_enabled_ui(editor.history.can_undo(), |ui| {
                ui.put(panel_rect(UNDO_BUTTON), big(&tr!("timeline-undo")))
            });
            if undo.inner.clicked() {
                send(Edit::Undo);
            }
            let redo = ui.add_enabled_ui(editor.history.can_redo(), |ui| {
                ui.put(panel_rect(REDO_BUTTON), big(&tr!("timeline-redo")))
            });
            if redo.inner.clicked() {
                send(Edit::Redo);
            }
            ui.put(
                panel_rect(TIME_LABEL),
                egui::Label::new(
                    egui::RichText::new(tr!(
                        "timeline-vr-time",
                        seconds = format!("{:.2}", editor.playhead),
                        frame = (editor.playhead * FPS).round() as i64
                    ))
                    .size(18.0),
                ),
            );
            // The desktop's ruler, as it is; which keys get thumbnails stays the
            // desktop ruler's choice (the two would otherwise take turns).
            let wanted = thumbs.wanted.clone();
            ui.scope_builder(egui::UiBuilder::new().max_rect(panel_rect(RULER)), |ui| {
                ruler(
                    ui,
                    &session,
                    &mut ruler_state,
                    &mut send,
                    &mut thumbs,
                    &mut placing,
                );
            });
            if thumbs.wanted != wanted {
                thumbs.wanted = wanted;
            }
        });
}
