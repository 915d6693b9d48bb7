//! The ruler: its time scale in seconds with 1/30 s frames, the loop range, the playhead,
//! and what a press on it starts (moving or retiming keys, a box, scrubbing, a drop).

use bevy_egui::egui;
use std::collections::HashSet;

use super::TimelineUi;
use super::keys::{self, KEY_ROW, SELECTED_FILL};
use crate::app::session::{LibraryPoseDrag, PlacingKeys, Session, Thumbnails};
use crate::core::animation::edit::{Edit, Editor, KeyEdit, SelectMode};
use crate::core::animation::timeline::{FPS, KeyPick, snap};
use crate::tr;

const RULER_HEIGHT: f32 = 96.0;

/// Maps time ↔ x across the ruler.
#[derive(Clone, Copy)]
pub(super) struct Scale {
    pub(super) left: f32,
    pub(super) width: f32,
    pub(super) length: f32,
}

impl Scale {
    pub(super) fn x(&self, t: f32) -> f32 {
        self.left + t / self.length * self.width
    }

    pub(super) fn t(&self, x: f32) -> f32 {
        ((x - self.left) / self.width * self.length).clamp(0.0, self.length)
    }
}

/// Seconds between labelled ticks, so labels stay at least ~60 px apart.
fn label_step(px_per_second: f32) -> f32 {
    [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0]
        .into_iter()
        .find(|s| s * px_per_second >= 60.0)
        .unwrap_or(600.0)
}

/// What a press on the ruler started.
#[derive(Debug, Clone)]
pub(super) enum RulerDrag {
    /// Moving keys (the selection, or the key pressed): where the press was, in time.
    Keys {
        ids: HashSet<u64>,
        from: f32,
        to: f32,
    },
    /// Retiming the selection by one of its ends; the other end stays.
    End { pivot: f32, from: f32, to: f32 },
    /// A box on the key row: everything between the two times gets selected.
    Box { from: f32, to: f32, add: bool },
    /// Scrubbing the playhead.
    Scrub,
}

/// What the parts of one frame's ruler share: where it is, its scale, and the selection.
pub(super) struct Ruler<'a> {
    pub(super) editor: &'a Editor,
    pub(super) rect: egui::Rect,
    pub(super) scale: Scale,
    pub(super) painter: egui::Painter,
    /// The key row's middle (y).
    pub(super) key_y: f32,
    pub(super) selection: HashSet<u64>,
    /// The selection's first and last times, when it has two keys or more.
    pub(super) span: Option<(f32, f32)>,
    /// Where the span's handles are (x), left and right.
    pub(super) handle_x: Option<(f32, f32)>,
}

/// The ruler, drawn from the back to the front, then what the pointer did on it.
pub(super) fn ruler(
    ui: &mut egui::Ui,
    session: &Session,
    ui_state: &mut TimelineUi,
    send: &mut impl FnMut(Edit),
    thumbs: &mut Thumbnails,
    placing: &mut PlacingKeys,
) {
    let editor = &session.editor;
    let width = ui.available_width();
    // Not focusable: a click on the ruler must leave the window's shortcuts (Delete,
    // Ctrl+C, Ctrl+V…) working, which a focused egui widget would take.
    let (rect, response) = ui.allocate_exact_size(
        egui::vec2(width, RULER_HEIGHT),
        egui::Sense::CLICK | egui::Sense::DRAG,
    );
    let length = editor
        .settings
        .length
        .max(editor.timeline.end())
        .max(1.0 / FPS);
    let scale = Scale {
        left: rect.left() + 10.0,
        width: (rect.width() - 20.0).max(10.0),
        length,
    };
    let painter = ui.painter_at(rect);
    let visuals = ui.visuals();

    let key_y = rect.top() + KEY_ROW;
    let selection: HashSet<u64> = editor.selection.iter().copied().collect();
    let selected_times: Vec<f32> = editor
        .timeline
        .keys()
        .iter()
        .filter(|k| selection.contains(&k.id))
        .map(|k| k.t)
        .collect();
    let span = match (selected_times.first(), selected_times.last()) {
        (Some(&a), Some(&b)) if selected_times.len() >= 2 => Some((a, b)),
        _ => None,
    };
    let handle_x = span.map(|(a, b)| (scale.x(a) - 10.0, scale.x(b) + 10.0));
    let ruler = Ruler {
        editor,
        rect,
        scale,
        painter,
        key_y,
        selection,
        span,
        handle_x,
    };

    marks(&ruler, visuals);
    keys::plant_bars(&ruler, visuals);
    keys::selection_span(&ruler);
    keys::key_row(&ruler, visuals, ui_state, thumbs);
    drag_box(&ruler, ui_state);
    playhead(&ruler);

    // Ctrl+D's copies follow the pointer until a click puts them down; nothing else on
    // the ruler reacts meanwhile.
    if placing.active {
        keys::place_duplicates(ui, editor, &ruler.selection, scale, ui_state, placing, send);
        return;
    }

    // Interaction.
    let (shift, ctrl) = ui.input(|i| (i.modifiers.shift, i.modifiers.command));
    let mode = if ctrl {
        SelectMode::Toggle
    } else if shift {
        SelectMode::Add
    } else {
        SelectMode::Replace
    };
    // Where the button went down: a quick drag is already past the key by the time egui
    // calls it a drag.
    let pressed_at = ui
        .input(|i| i.pointer.press_origin())
        .or(response.interact_pointer_pos());
    if response.clicked()
        && let Some(pos) = pressed_at
    {
        keys::click(&ruler, pos, mode, send);
    }
    drags(&ruler, &response, pressed_at, shift || ctrl, ui_state, send);
    drop_pose(&ruler, &response, send);
}

/// The background, the loop range and the ticks with their labelled seconds.
fn marks(ruler: &Ruler, visuals: &egui::Visuals) {
    let Ruler {
        rect,
        scale,
        ref painter,
        ..
    } = *ruler;
    let length = scale.length;
    painter.rect_filled(rect, 3.0, visuals.extreme_bg_color);

    // The loop range, shaded behind everything.
    if let Some((a, b)) = ruler.editor.settings.loop_range {
        painter.rect_filled(
            egui::Rect::from_x_y_ranges(scale.x(a)..=scale.x(b.min(length)), rect.y_range()),
            0.0,
            egui::Color32::from_rgba_unmultiplied(80, 140, 255, 28),
        );
        for t in [a, b] {
            let x = scale.x(t.min(length));
            painter.line_segment(
                [egui::pos2(x, rect.top()), egui::pos2(x, rect.bottom())],
                egui::Stroke::new(1.0, egui::Color32::from_rgb(80, 140, 255)),
            );
        }
    }

    // Ticks: frames when there is room, labelled seconds.
    let px_per_second = scale.width / length;
    if px_per_second / FPS >= 5.0 {
        let frames = (length * FPS).ceil() as i64;
        for f in 0..=frames {
            let x = scale.x(f as f32 / FPS);
            painter.line_segment(
                [egui::pos2(x, rect.top()), egui::pos2(x, rect.top() + 5.0)],
                egui::Stroke::new(1.0, visuals.weak_text_color()),
            );
        }
    }
    let step = label_step(px_per_second);
    let mut s = 0.0;
    while s <= length + 1e-4 {
        let x = scale.x(s);
        painter.line_segment(
            [egui::pos2(x, rect.top()), egui::pos2(x, rect.top() + 12.0)],
            egui::Stroke::new(1.0, visuals.text_color()),
        );
        painter.text(
            egui::pos2(x + 2.0, rect.top() + 12.0),
            egui::Align2::LEFT_TOP,
            tr!("timeline-ruler-seconds", seconds = format!("{s:.1}")),
            egui::FontId::proportional(10.0),
            visuals.weak_text_color(),
        );
        s += step;
    }
}

/// A box being dragged.
fn drag_box(ruler: &Ruler, ui_state: &TimelineUi) {
    let Ruler { scale, key_y, .. } = *ruler;
    if let Some(RulerDrag::Box { from, to, .. }) = ui_state.drag {
        ruler.painter.rect(
            egui::Rect::from_x_y_ranges(
                scale.x(from.min(to))..=scale.x(from.max(to)),
                key_y - 12.0..=key_y + 12.0,
            ),
            1.0,
            egui::Color32::from_rgba_unmultiplied(250, 210, 40, 30),
            egui::Stroke::new(1.0, SELECTED_FILL),
            egui::StrokeKind::Inside,
        );
    }
}

/// The playhead.
fn playhead(ruler: &Ruler) {
    let Ruler { rect, scale, .. } = *ruler;
    let px = scale.x(ruler.editor.playhead.min(scale.length));
    ruler.painter.line_segment(
        [egui::pos2(px, rect.top()), egui::pos2(px, rect.bottom())],
        egui::Stroke::new(2.0, egui::Color32::from_rgb(230, 60, 60)),
    );
}

/// A drag on the ruler: it starts where the button went down (`pressed_at`) moving the
/// keys there, retiming the selection by a handle, drawing a box (`add`: onto the
/// selection) or scrubbing; it ends as one edit.
fn drags(
    ruler: &Ruler,
    response: &egui::Response,
    pressed_at: Option<egui::Pos2>,
    add: bool,
    ui_state: &mut TimelineUi,
    send: &mut impl FnMut(Edit),
) {
    let Ruler {
        editor,
        scale,
        ref selection,
        ..
    } = *ruler;
    if response.drag_started()
        && let Some(pos) = pressed_at
    {
        let t = scale.t(pos.x);
        ui_state.drag = Some(if let Some((pivot, end)) = ruler.end_under(pos) {
            RulerDrag::End {
                pivot,
                from: end,
                to: end,
            }
        } else if let Some((id, key_t)) = ruler.key_under(pos) {
            let ids = if selection.contains(&id) {
                selection.clone()
            } else {
                send(Edit::Keys(KeyEdit::Select {
                    pick: KeyPick::Ids(vec![id]),
                    mode: SelectMode::Replace,
                }));
                HashSet::from([id])
            };
            send(Edit::Seek(key_t));
            RulerDrag::Keys {
                ids,
                from: t,
                to: t,
            }
        } else if ruler.in_key_row(pos) || ruler.plant_row_under(pos).is_some() {
            RulerDrag::Box {
                from: t,
                to: t,
                add,
            }
        } else {
            send(Edit::Seek(snap(t)));
            RulerDrag::Scrub
        });
    }
    if response.dragged()
        && let Some(pos) = response.interact_pointer_pos()
    {
        let t = scale.t(pos.x);
        match ui_state.drag.as_mut() {
            Some(RulerDrag::Keys { to, .. }) | Some(RulerDrag::Box { to, .. }) => *to = t,
            Some(RulerDrag::End { to, .. }) => *to = snap(t),
            Some(RulerDrag::Scrub) | None => send(Edit::Seek(snap(t))),
        }
    }
    if response.drag_stopped()
        && let Some(drag) = ui_state.drag.take()
    {
        match drag {
            RulerDrag::Keys { from, to, .. } => {
                let by = snap(to - from);
                if by.abs() > 1e-6 {
                    send(Edit::Keys(KeyEdit::MoveSelected { by }));
                    send(Edit::Seek(snap(editor.playhead + by)));
                }
            }
            RulerDrag::End { pivot, from, to } => {
                if (to - from).abs() > 1e-6 && (from - pivot).abs() > 1e-6 {
                    let factor = (to - pivot) / (from - pivot);
                    send(Edit::Keys(KeyEdit::ScaleSelected { factor, pivot }));
                }
            }
            RulerDrag::Box { from, to, add } => {
                send(Edit::Keys(KeyEdit::Select {
                    pick: KeyPick::Range {
                        from: from.min(to),
                        to: from.max(to),
                    },
                    mode: if add {
                        SelectMode::Add
                    } else {
                        SelectMode::Replace
                    },
                }));
            }
            RulerDrag::Scrub => {}
        }
    }
}

/// A library pose dropped on the ruler becomes a key at that time: one undo step.
fn drop_pose(ruler: &Ruler, response: &egui::Response, send: &mut impl FnMut(Edit)) {
    if let Some(pose) = response.dnd_release_payload::<LibraryPoseDrag>()
        && let Some(pos) = response.hover_pos().or(response.interact_pointer_pos())
    {
        send(Edit::Keys(KeyEdit::PlacePose {
            t: snap(ruler.scale.t(pos.x)),
            pose: Box::new(pose.0.clone()),
            mask: pose.1,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ruler_maps_time_and_x_both_ways() {
        let s = Scale {
            left: 10.0,
            width: 600.0,
            length: 4.0,
        };
        assert_eq!(s.x(0.0), 10.0);
        assert_eq!(s.x(4.0), 610.0);
        assert!((s.t(s.x(1.5)) - 1.5).abs() < 1e-5);
        assert_eq!(s.t(-100.0), 0.0);
        assert_eq!(s.t(1e6), 4.0);
        assert!(label_step(600.0 / 4.0) * 150.0 >= 60.0);
    }
}
