//! The ruler's key row: keys as diamonds with their thumbnails and ease names, the
//! selection's span, the planted-foot bars under it, clicks on them, and Ctrl+D's copies.

use bevy_egui::egui;
use std::collections::HashSet;

use super::TimelineUi;
use super::ruler::{Ruler, RulerDrag, Scale};
use super::toolbar::ease_short_label;
use crate::app::session::{PlacingKeys, Thumbnails};
use crate::core::animation::edit::{Edit, Editor, KeyEdit, SelectMode};
use crate::core::animation::timeline::{Ease, KeyPick, snap};
use crate::core::model::humanoid::Side;

const KEY_HIT_PX: f32 = 7.0;
/// Key thumbnails on the ruler (96×128 shown at this size).
const KEY_THUMB: egui::Vec2 = egui::vec2(33.0, 44.0);

/// The most thumbnails the ruler shows (a ruler as wide as eight 4K screens has room
/// for fewer).
const MAX_KEY_THUMBNAILS: usize = 1024;

/// Rows of the ruler, from its top (px).
pub(super) const KEY_ROW: f32 = 76.0;
const PLANT_ROWS: [(f32, f32); 2] = [(84.0, 89.0), (90.0, 95.0)];
const PLANT_COLOURS: [egui::Color32; 2] = [
    egui::Color32::from_rgb(90, 200, 120),
    egui::Color32::from_rgb(240, 150, 70),
];
pub(super) const SELECTED_FILL: egui::Color32 = egui::Color32::from_rgb(250, 210, 40);

const FEET: [Side; 2] = [Side::Left, Side::Right];

/// The keys whose thumbnails fit on the ruler side by side, in time order, plus the
/// selected key's: a thumbnail covered by its neighbour's would cost an image and a
/// render for nothing, and a take of 50,000 keys would cost gigabytes.
fn keys_with_thumbnails(
    keys: &[std::sync::Arc<crate::core::animation::timeline::Key>],
    scale: Scale,
    selected: Option<u64>,
) -> Vec<u64> {
    let mut wanted = Vec::new();
    let mut last_x = f32::NEG_INFINITY;
    for key in keys {
        let x = scale.x(key.t);
        if x - last_x >= KEY_THUMB.x && wanted.len() < MAX_KEY_THUMBNAILS {
            wanted.push(key.id);
            last_x = x;
        }
    }
    if let Some(id) = selected.filter(|id| !wanted.contains(id) && keys.iter().any(|k| k.id == *id))
    {
        wanted.push(id);
    }
    wanted
}

/// Planted feet: a bar per foot under the key row.
pub(super) fn plant_bars(ruler: &Ruler, visuals: &egui::Visuals) {
    let Ruler {
        rect,
        scale,
        ref painter,
        ..
    } = *ruler;
    let length = scale.length;
    for (row, (y0, y1)) in PLANT_ROWS.into_iter().enumerate() {
        painter.text(
            egui::pos2(rect.left() + 1.0, rect.top() + (y0 + y1) / 2.0),
            egui::Align2::LEFT_CENTER,
            ["L", "R"][row],
            egui::FontId::proportional(7.0),
            visuals.weak_text_color(),
        );
        for plant in ruler
            .editor
            .timeline
            .plants()
            .iter()
            .filter(|p| p.foot == FEET[row])
        {
            painter.rect_filled(
                egui::Rect::from_x_y_ranges(
                    scale.x(plant.from)..=scale.x(plant.to.min(length)),
                    rect.top() + y0..=rect.top() + y1,
                ),
                1.0,
                PLANT_COLOURS[row],
            );
        }
    }
}

/// The selection's span with a handle at each end for retiming it.
pub(super) fn selection_span(ruler: &Ruler) {
    let Ruler {
        scale,
        key_y,
        span,
        handle_x,
        ref painter,
        ..
    } = *ruler;
    if let (Some((a, b)), Some((hl, hr))) = (span, handle_x) {
        painter.rect_filled(
            egui::Rect::from_x_y_ranges(scale.x(a)..=scale.x(b), key_y - 2.0..=key_y + 2.0),
            1.0,
            egui::Color32::from_rgba_unmultiplied(250, 210, 40, 90),
        );
        for x in [hl, hr] {
            painter.rect_filled(
                egui::Rect::from_center_size(egui::pos2(x, key_y), egui::vec2(4.0, 14.0)),
                1.0,
                SELECTED_FILL,
            );
        }
    }
}

/// Keys as diamonds; dragged keys show where they will land.
pub(super) fn key_row(
    ruler: &Ruler,
    visuals: &egui::Visuals,
    ui_state: &TimelineUi,
    thumbs: &mut Thumbnails,
) {
    let Ruler {
        editor,
        scale,
        key_y,
        ref selection,
        ref painter,
        ..
    } = *ruler;
    // Where a drag in progress puts each key.
    let dragged_time = |id: u64, t: f32| -> f32 {
        match &ui_state.drag {
            Some(RulerDrag::Keys { ids, from, to }) if ids.contains(&id) => {
                snap(t + (to - from)).max(0.0)
            }
            Some(RulerDrag::End { pivot, from, to })
                if selection.contains(&id) && (from - pivot).abs() > 1e-6 =>
            {
                let factor = ((to - pivot) / (from - pivot)).max(0.01);
                snap(pivot + (t - pivot) * factor).max(0.0)
            }
            _ => t,
        }
    };

    let wanted = keys_with_thumbnails(
        editor.timeline.keys(),
        scale,
        editor.selection.first().copied(),
    );
    if thumbs.wanted != wanted {
        thumbs.wanted = wanted;
    }
    let showing: HashSet<u64> = thumbs.wanted.iter().copied().collect();
    // Keys closer than a pixel and a half draw as one diamond, and ease names only where
    // they fit (selected and dragged keys always draw): 50,000 overlapping diamonds and
    // labels looked the same and took half a second a frame to rasterise.
    let (mut last_diamond, mut last_label) = (f32::NEG_INFINITY, f32::NEG_INFINITY);
    for key in editor.timeline.keys() {
        let t = dragged_time(key.id, key.t);
        let x = scale.x(t);
        let selected = selection.contains(&key.id);
        let fill = if selected {
            SELECTED_FILL
        } else {
            egui::Color32::from_rgb(120, 190, 250)
        };
        let r = 6.0;
        if let Some(&texture) = thumbs
            .textures
            .get(&key.id)
            .filter(|_| showing.contains(&key.id))
        {
            let thumb = egui::Rect::from_center_size(
                egui::pos2(x, key_y - r - 3.0 - KEY_THUMB.y / 2.0),
                KEY_THUMB,
            );
            painter.image(
                texture,
                thumb,
                egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
                egui::Color32::WHITE,
            );
        }
        if !selected && x - last_diamond < 1.5 {
            continue;
        }
        last_diamond = x;
        let diamond = vec![
            egui::pos2(x, key_y - r),
            egui::pos2(x + r, key_y),
            egui::pos2(x, key_y + r),
            egui::pos2(x - r, key_y),
        ];
        painter.add(egui::Shape::convex_polygon(
            diamond,
            fill,
            egui::Stroke::new(1.0, egui::Color32::BLACK),
        ));
        if key.ease != Ease::Linear && (selected || x - last_label >= 32.0) {
            last_label = x;
            painter.text(
                egui::pos2(x + r + 1.0, key_y - r - 1.0),
                egui::Align2::LEFT_BOTTOM,
                ease_short_label(key.ease),
                egui::FontId::proportional(9.0),
                visuals.weak_text_color(),
            );
        }
    }
}

/// What is under the pointer on the ruler's rows.
impl Ruler<'_> {
    /// The key nearest the pointer on the key row: its id and time.
    pub(super) fn key_under(&self, pos: egui::Pos2) -> Option<(u64, f32)> {
        self.editor
            .timeline
            .keys()
            .iter()
            .map(|k| ((self.scale.x(k.t) - pos.x).abs(), k))
            .filter(|(d, _)| *d <= KEY_HIT_PX && (pos.y - self.key_y).abs() <= 14.0)
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, k)| (k.id, k.t))
    }

    /// The span's handle under the pointer: the time of the other end (the pivot) and
    /// of its own.
    pub(super) fn end_under(&self, pos: egui::Pos2) -> Option<(f32, f32)> {
        let ((a, b), (hl, hr)) = (self.span?, self.handle_x?);
        if (pos.y - self.key_y).abs() > 9.0 {
            return None;
        }
        if (pos.x - hl).abs() <= 4.0 {
            Some((b, a))
        } else if (pos.x - hr).abs() <= 4.0 {
            Some((a, b))
        } else {
            None
        }
    }

    /// Which foot's bar is under the pointer.
    pub(super) fn plant_row_under(&self, pos: egui::Pos2) -> Option<usize> {
        let rect = self.rect;
        PLANT_ROWS
            .iter()
            .position(|(y0, y1)| (rect.top() + y0 - 1.0..=rect.top() + y1 + 1.0).contains(&pos.y))
    }

    pub(super) fn in_key_row(&self, pos: egui::Pos2) -> bool {
        (pos.y - self.key_y).abs() <= 14.0
    }
}

/// A click on the ruler: on a foot's bar it plants or frees that foot, on a key it
/// selects the key (`mode`) and moves the playhead there; elsewhere it moves the
/// playhead, and on the key row a plain click clears the selection.
pub(super) fn click(ruler: &Ruler, pos: egui::Pos2, mode: SelectMode, send: &mut impl FnMut(Edit)) {
    let scale = ruler.scale;
    if let Some(row) = ruler.plant_row_under(pos) {
        toggle_plant(ruler.editor, FEET[row], scale.t(pos.x), send);
    } else if let Some((id, t)) = ruler.key_under(pos) {
        send(Edit::Keys(KeyEdit::Select {
            pick: KeyPick::Ids(vec![id]),
            mode,
        }));
        send(Edit::Seek(t));
    } else {
        if ruler.in_key_row(pos) && mode == SelectMode::Replace {
            send(Edit::Keys(KeyEdit::Select {
                pick: KeyPick::None,
                mode,
            }));
        }
        send(Edit::Seek(snap(scale.t(pos.x))));
    }
}

/// One frame of placing duplicated keys: the selection previews at the pointer's offset
/// from where placing began; a left click moves it there (one undo step), Esc or a right
/// click leaves it where Ctrl+D put it.
pub(super) fn place_duplicates(
    ui: &egui::Ui,
    editor: &Editor,
    selection: &HashSet<u64>,
    scale: Scale,
    ui_state: &mut TimelineUi,
    placing: &mut PlacingKeys,
    send: &mut impl FnMut(Edit),
) {
    let (pointer, put_down, cancel) = ui.input(|i| {
        (
            i.pointer.latest_pos(),
            // On release, so that the click this ends is not also the ruler's next.
            i.pointer.primary_released(),
            i.key_pressed(egui::Key::Escape) || i.pointer.secondary_released(),
        )
    });
    let t = pointer.map(|p| scale.t(p.x));
    match (&mut ui_state.drag, t) {
        (Some(RulerDrag::Keys { to, .. }), Some(t)) => *to = t,
        (None, Some(t)) if !selection.is_empty() => {
            ui_state.drag = Some(RulerDrag::Keys {
                ids: selection.clone(),
                from: t,
                to: t,
            })
        }
        _ => {}
    }
    if put_down || cancel || editor.selection.is_empty() {
        if let Some(RulerDrag::Keys { from, to, .. }) = ui_state.drag.take() {
            let by = snap(to - from);
            if put_down && by.abs() > 1e-6 {
                send(Edit::Keys(KeyEdit::MoveSelected { by }));
            }
        }
        placing.active = false;
    }
}

/// A click on a foot's bar between two keys plants that foot over the span between
/// them, or frees it there when it is planted.
fn toggle_plant(editor: &Editor, foot: Side, t: f32, send: &mut impl FnMut(Edit)) {
    let keys = editor.timeline.keys();
    let after = keys.partition_point(|k| k.t <= t);
    if after == 0 || after == keys.len() {
        return;
    }
    let (from, to) = (keys[after - 1].t, keys[after].t);
    let planted = editor.timeline.plant_at(foot, (from + to) / 2.0).is_some();
    send(Edit::Keys(KeyEdit::Plant {
        foot,
        from,
        to,
        on: !planted,
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::animation::timeline::FPS;

    fn keys_at(
        times: impl Iterator<Item = f32>,
    ) -> Vec<std::sync::Arc<crate::core::animation::timeline::Key>> {
        times
            .enumerate()
            .map(|(i, t)| {
                std::sync::Arc::new(crate::core::animation::timeline::Key {
                    id: i as u64 + 1,
                    file_id: None,
                    t,
                    ease: Ease::default(),
                    pose: Default::default(),
                })
            })
            .collect()
    }

    #[test]
    fn a_long_take_gets_only_the_thumbnails_the_ruler_has_room_for() {
        let keys = keys_at((0..50_000).map(|f| f as f32 / FPS));
        let scale = Scale {
            left: 10.0,
            width: 1000.0,
            length: keys.last().unwrap().t,
        };
        let selected = keys[30_001].id;
        let wanted = keys_with_thumbnails(&keys, scale, Some(selected));
        let room = (scale.width / KEY_THUMB.x) as usize + 1;
        assert!(wanted.len() <= room + 1, "{} thumbnails", wanted.len());
        assert!(wanted.len() >= room - 1, "{} thumbnails", wanted.len());
        assert_eq!(
            wanted.last(),
            Some(&selected),
            "the selected key's is shown too"
        );
        let x = |id: u64| scale.x(keys[id as usize - 1].t);
        for pair in wanted[..wanted.len() - 1].windows(2) {
            assert!(x(pair[1]) - x(pair[0]) >= KEY_THUMB.x, "side by side");
        }
    }

    #[test]
    fn keys_far_apart_each_get_a_thumbnail() {
        let keys = keys_at([0.0, 1.0, 2.0].into_iter());
        let scale = Scale {
            left: 10.0,
            width: 1000.0,
            length: 4.0,
        };
        assert_eq!(keys_with_thumbnails(&keys, scale, None), vec![1, 2, 3]);
        assert_eq!(keys_with_thumbnails(&keys, scale, Some(2)), vec![1, 2, 3]);
    }
}
