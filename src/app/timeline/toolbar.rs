//! The timeline's toolbar above the ruler: play, loop, time and length, adding and
//! deleting keys, the ease and the key time or scale, undo/redo, speed, loop in/out and
//! the export frame rate.

use bevy_egui::egui;
use std::collections::HashSet;

use super::TimelineUi;
use crate::core::animation::edit::{Edit, Editor, KeyEdit};
use crate::core::animation::project::{EXPORT_FPS, SPEED_RANGE, Settings};
use crate::core::animation::timeline::{Ease, FPS, snap};
use crate::tr;

/// The play button's text: Stop while playing.
pub(super) fn play_label(playing: bool) -> String {
    if playing {
        tr!("timeline-stop")
    } else {
        tr!("timeline-play")
    }
}

/// An ease's message id, from its stable name (`IN-OUT` → `timeline-ease-in-out`).
fn ease_id(ease: Ease) -> String {
    format!("timeline-ease-{}", ease.name().to_ascii_lowercase())
}

/// An ease's name in the current language.
pub(super) fn ease_label(ease: Ease) -> String {
    tr!(&ease_id(ease))
}

/// An ease's short name, for the label beside a key on the ruler.
pub(super) fn ease_short_label(ease: Ease) -> String {
    tr!(&format!("{}.short", ease_id(ease)))
}

/// The row of controls above the ruler.
pub(super) fn toolbar(
    ui: &mut egui::Ui,
    editor: &Editor,
    ui_state: &mut TimelineUi,
    send: &mut impl FnMut(Edit),
) {
    ui.horizontal(|ui| {
        transport(ui, editor, send);
        ui.separator();
        key_controls(ui, editor, ui_state, send);
        ui.separator();
        history(ui, editor, send);
        ui.separator();
        playback_controls(ui, editor, send);
    });
}

/// Play/stop, loop, the playhead's time and frame, and the take's length.
fn transport(ui: &mut egui::Ui, editor: &Editor, send: &mut impl FnMut(Edit)) {
    let playing = editor.playing;
    if ui
        .button(play_label(playing))
        .on_hover_text("Space")
        .clicked()
    {
        send(Edit::SetPlaying(!playing));
    }
    let mut settings: Settings = editor.settings;
    if ui
        .checkbox(&mut settings.looping, tr!("timeline-loop"))
        .changed()
    {
        send(Edit::ChangeSettings(settings));
    }
    ui.separator();
    ui.label(tr!("timeline-time"));
    let mut t = editor.playhead;
    let time = ui.add(
        egui::DragValue::new(&mut t)
            .speed(1.0 / FPS)
            .range(0.0..=1e6)
            .suffix(tr!("timeline-seconds-suffix"))
            .max_decimals(3),
    );
    if time.changed() {
        send(Edit::Seek(t));
    }
    ui.label(tr!(
        "timeline-frame",
        frame = (editor.playhead * FPS).round() as i64
    ));
    ui.label(tr!("timeline-length"));
    let end = editor.timeline.end();
    let length = ui.add(
        egui::DragValue::new(&mut settings.length)
            .speed(0.1)
            .range(end.max(1.0 / FPS)..=1e6)
            .suffix(tr!("timeline-seconds-suffix"))
            .max_decimals(2)
            .update_while_editing(false),
    );
    if length.changed() {
        send(Edit::ChangeSettings(settings));
    }
}

/// Adding and deleting keys, the ease, and the selection's scale or the key's time.
fn key_controls(
    ui: &mut egui::Ui,
    editor: &Editor,
    ui_state: &mut TimelineUi,
    send: &mut impl FnMut(Edit),
) {
    if ui
        .button(tr!("timeline-add-key"))
        .on_hover_text(tr!("timeline-add-key.tooltip"))
        .clicked()
    {
        send(Edit::Keys(KeyEdit::Add));
    }
    let key = editor
        .timeline
        .key_at(editor.playhead)
        .filter(|_| !editor.playing);
    let selection: HashSet<u64> = editor.selection.iter().copied().collect();
    let selected: Vec<&crate::core::animation::timeline::Key> = editor
        .timeline
        .keys()
        .iter()
        .filter(|k| selection.contains(&k.id))
        .map(|k| &**k)
        .collect();
    ui.add_enabled_ui(key.is_some() || !selected.is_empty(), |ui| {
        let label = if selected.len() > 1 {
            tr!("timeline-delete-keys")
        } else {
            tr!("timeline-delete-key")
        };
        if ui.button(label).on_hover_text("Delete").clicked() {
            send(Edit::Keys(if selected.is_empty() {
                KeyEdit::Delete
            } else {
                KeyEdit::DeleteSelected
            }));
        }
    });
    // The ease of the selection (or of the key at the playhead).
    let eased: Vec<Ease> = if selected.is_empty() {
        key.iter().map(|k| k.ease).collect()
    } else {
        selected.iter().map(|k| k.ease).collect()
    };
    if let Some(&first) = eased.first() {
        ui.label(tr!("timeline-ease"));
        let mixed = eased.iter().any(|e| *e != first);
        let mut picked = None;
        egui::ComboBox::from_id_salt("key-ease")
            .selected_text(if mixed {
                tr!("timeline-ease-mixed")
            } else {
                ease_label(first)
            })
            .show_ui(ui, |ui| {
                for e in Ease::ALL {
                    let current = !mixed && e == first;
                    if ui.selectable_label(current, ease_label(e)).clicked() {
                        picked = Some(e);
                    }
                }
            });
        if let Some(ease) = picked.filter(|e| mixed || *e != first) {
            send(Edit::Keys(if selected.is_empty() {
                KeyEdit::SetEase(ease)
            } else {
                KeyEdit::EaseSelected(ease)
            }));
        }
    }
    if selected.len() > 1 {
        ui.label(tr!("timeline-scale"))
            .on_hover_text(tr!("timeline-scale.tooltip"));
        if ui_state.scale_factor <= 0.0 {
            ui_state.scale_factor = 1.0;
        }
        let response = ui.add(
            egui::DragValue::new(&mut ui_state.scale_factor)
                .speed(0.01)
                .range(0.1..=10.0)
                .prefix("×")
                .max_decimals(2)
                .update_while_editing(false),
        );
        let done = committed(&response);
        if done && (ui_state.scale_factor - 1.0).abs() > 1e-4 {
            send(Edit::Keys(KeyEdit::ScaleSelected {
                factor: ui_state.scale_factor,
                pivot: snap(editor.playhead),
            }));
            ui_state.scale_factor = 1.0;
        }
    } else if let Some(key) = key {
        ui.label(tr!("timeline-key-time"));
        let mut kt = key.t;
        let response = ui.add(
            egui::DragValue::new(&mut kt)
                .speed(1.0 / FPS)
                .range(0.0..=1e6)
                .suffix(tr!("timeline-seconds-suffix"))
                .max_decimals(3)
                // Typed times apply on Enter: one move, one undo step.
                .update_while_editing(false),
        );
        let done = committed(&response);
        if done && (snap(kt) - key.t).abs() > 1e-6 {
            send(Edit::Keys(KeyEdit::Move {
                from: key.t,
                to: kt,
            }));
            send(Edit::Seek(kt));
        }
    }
}

/// Undo and redo.
fn history(ui: &mut egui::Ui, editor: &Editor, send: &mut impl FnMut(Edit)) {
    ui.add_enabled_ui(editor.history.can_undo(), |ui| {
        if ui
            .button(tr!("timeline-undo"))
            .on_hover_text("Ctrl+Z")
            .clicked()
        {
            send(Edit::Undo);
        }
    });
    ui.add_enabled_ui(editor.history.can_redo(), |ui| {
        if ui
            .button(tr!("timeline-redo"))
            .on_hover_text("Ctrl+Y / Ctrl+Shift+Z")
            .clicked()
        {
            send(Edit::Redo);
        }
    });
}

/// Whether a value field is done: Enter on a typed value, or the end of a drag on it
/// (one edit, one undo step, not one per frame of the drag).
fn committed(response: &egui::Response) -> bool {
    (response.changed() && !response.dragged()) || response.drag_stopped()
}

/// Speed, the loop range's in and out markers, and the export frame rate.
fn playback_controls(ui: &mut egui::Ui, editor: &Editor, send: &mut impl FnMut(Edit)) {
    let mut settings = editor.settings;
    egui::ComboBox::from_id_salt("playback-speed")
        .selected_text(format!("{}×", settings.speed))
        .width(54.0)
        .show_ui(ui, |ui| {
            for speed in [0.25, 0.5, 1.0, 1.5, 2.0] {
                debug_assert!((SPEED_RANGE.0..=SPEED_RANGE.1).contains(&speed));
                ui.selectable_value(&mut settings.speed, speed, format!("{speed}×"));
            }
        })
        .response
        .on_hover_text(tr!("timeline-speed.tooltip"));
    let playhead = snap(editor.playhead);
    let end = editor.settings.length.max(editor.timeline.end());
    let (lo, hi) = settings.loop_range.unwrap_or((0.0, end));
    if ui
        .selectable_label(
            settings.loop_range.is_some_and(|r| r.0 > 0.0),
            tr!("timeline-loop-in"),
        )
        .on_hover_text(tr!("timeline-loop-in.tooltip"))
        .clicked()
    {
        settings.loop_range = (playhead < hi).then_some((playhead, hi));
    }
    if ui
        .selectable_label(
            settings.loop_range.is_some_and(|r| r.1 < end),
            tr!("timeline-loop-out"),
        )
        .on_hover_text(tr!("timeline-loop-out.tooltip"))
        .clicked()
    {
        settings.loop_range = (playhead > lo).then_some((lo, playhead));
    }
    if settings.loop_range.is_some()
        && ui
            .small_button("×")
            .on_hover_text(tr!("timeline-loop-clear.tooltip"))
            .clicked()
    {
        settings.loop_range = None;
    }
    egui::ComboBox::from_id_salt("export-fps")
        .selected_text(format!("{} fps", settings.fps))
        .width(64.0)
        .show_ui(ui, |ui| {
            for fps in EXPORT_FPS {
                ui.selectable_value(&mut settings.fps, fps, format!("{fps} fps"));
            }
        })
        .response
        .on_hover_text(tr!("timeline-export-fps.tooltip"));
    if settings != editor.settings {
        send(Edit::ChangeSettings(settings));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ease_has_a_name_in_both_languages() {
        use crate::app::session::language::{Language, lookup};
        for ease in Ease::ALL {
            let id = ease_id(ease);
            for language in [Language::English, Language::Japanese] {
                for id in [id.clone(), format!("{id}.short")] {
                    assert!(
                        lookup(language, &id, None).is_some_and(|t| !t.trim().is_empty()),
                        "{id} in {language:?}"
                    );
                }
            }
        }
        assert_eq!(ease_id(Ease::InOut), "timeline-ease-in-out");
    }
}
