//! The timeline panel along the bottom: play/stop, loop, time and length, keys on a
//! ruler in seconds with 1/30 s frames, the playhead, key selection and dragging, ease
//! and key time fields, undo/redo. Every change is an [`Edit`] through the one path.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use super::session::{EditRequest, LibraryPoseDrag, Session, Thumbnails, UiLayout, UiSpace};
use crate::core::edit::{Edit, KeyEdit};
use crate::core::project::Settings;
use crate::core::timeline::{Ease, FPS, snap};

/// Timeline UI state that is not part of the project.
#[derive(Resource, Default, Debug)]
pub struct TimelineUi {
    /// The selected key (selecting a key also moves the playhead onto it).
    pub selected: Option<u64>,
    drag: Option<KeyDrag>,
}

#[derive(Debug, Clone, Copy)]
struct KeyDrag {
    from: f32,
    to: f32,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<TimelineUi>().add_systems(
        EguiPrimaryContextPass,
        draw_panel.in_set(UiLayout::Timeline),
    );
}

fn draw_panel(
    mut contexts: EguiContexts,
    mut space: ResMut<UiSpace>,
    session: Res<Session>,
    mut ui_state: ResMut<TimelineUi>,
    mut edits: MessageWriter<EditRequest>,
    mut thumbs: ResMut<Thumbnails>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    space.show(&ctx, "timeline-space", |root| {
        draw(root, &session, &mut ui_state, &mut edits, &mut thumbs);
    });
    Ok(())
}

const KEY_HIT_PX: f32 = 7.0;
const RULER_HEIGHT: f32 = 96.0;
/// Key thumbnails on the ruler (96×128 shown at this size).
const KEY_THUMB: egui::Vec2 = egui::vec2(33.0, 44.0);

/// The most thumbnails the ruler shows (a ruler as wide as eight 4K screens has room
/// for fewer).
const MAX_KEY_THUMBNAILS: usize = 1024;

/// The keys whose thumbnails fit on the ruler side by side, in time order, plus the
/// selected key's: a thumbnail covered by its neighbour's would cost an image and a
/// render for nothing, and a take of 50,000 keys would cost gigabytes.
fn keys_with_thumbnails(
    keys: &[std::sync::Arc<crate::core::timeline::Key>],
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

/// Maps time ↔ x across the ruler.
#[derive(Clone, Copy)]
struct Scale {
    left: f32,
    width: f32,
    length: f32,
}

impl Scale {
    fn x(&self, t: f32) -> f32 {
        self.left + t / self.length * self.width
    }

    fn t(&self, x: f32) -> f32 {
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

/// Draws the panel along the bottom of what the bars left.
fn draw(
    root: &mut egui::Ui,
    session: &Session,
    ui_state: &mut TimelineUi,
    edits: &mut MessageWriter<EditRequest>,
    thumbs: &mut Thumbnails,
) {
    let editor = &session.editor;
    let mut send = |edit: Edit| {
        edits.write(EditRequest(edit));
    };
    egui::Panel::bottom("timeline")
        .resizable(false)
        .show(root, |ui| {
            ui.add_space(4.0);
            ui.horizontal(|ui| {
                let playing = editor.playing;
                if ui
                    .button(if playing { "■ Stop" } else { "▶ Play" })
                    .on_hover_text("Space")
                    .clicked()
                {
                    send(Edit::SetPlaying(!playing));
                }
                let mut settings: Settings = editor.settings;
                if ui.checkbox(&mut settings.looping, "Loop").changed() {
                    send(Edit::ChangeSettings(settings));
                }
                ui.separator();
                ui.label("Time");
                let mut t = editor.playhead;
                let time = ui.add(
                    egui::DragValue::new(&mut t)
                        .speed(1.0 / FPS)
                        .range(0.0..=1e6)
                        .suffix(" s")
                        .max_decimals(3),
                );
                if time.changed() {
                    send(Edit::Seek(t));
                }
                ui.label(format!("frame {}", (editor.playhead * FPS).round() as i64));
                ui.label("Length");
                let end = editor.timeline.end();
                let length = ui.add(
                    egui::DragValue::new(&mut settings.length)
                        .speed(0.1)
                        .range(end.max(1.0 / FPS)..=1e6)
                        .suffix(" s")
                        .max_decimals(2)
                        .update_while_editing(false),
                );
                if length.changed() {
                    send(Edit::ChangeSettings(settings));
                }
                ui.separator();
                if ui
                    .button("+ Key")
                    .on_hover_text("K: add a key at the playhead")
                    .clicked()
                {
                    send(Edit::Keys(KeyEdit::Add));
                }
                let key = editor
                    .timeline
                    .key_at(editor.playhead)
                    .filter(|_| !editor.playing);
                ui.add_enabled_ui(key.is_some(), |ui| {
                    if ui.button("Delete key").on_hover_text("Delete").clicked() {
                        send(Edit::Keys(KeyEdit::Delete));
                    }
                });
                if let Some(key) = key {
                    ui.label("Ease");
                    let mut ease = key.ease;
                    egui::ComboBox::from_id_salt("key-ease")
                        .selected_text(ease.name())
                        .show_ui(ui, |ui| {
                            for e in Ease::ALL {
                                ui.selectable_value(&mut ease, e, e.name());
                            }
                        });
                    if ease != key.ease {
                        send(Edit::Keys(KeyEdit::SetEase(ease)));
                    }
                    ui.label("Key time");
                    let mut kt = key.t;
                    let response = ui.add(
                        egui::DragValue::new(&mut kt)
                            .speed(1.0 / FPS)
                            .range(0.0..=1e6)
                            .suffix(" s")
                            .max_decimals(3)
                            // Typed times apply on Enter: one move, one undo step.
                            .update_while_editing(false),
                    );
                    let done =
                        (response.changed() && !response.dragged()) || response.drag_stopped();
                    if done && (snap(kt) - key.t).abs() > 1e-6 {
                        send(Edit::Keys(KeyEdit::Move {
                            from: key.t,
                            to: kt,
                        }));
                        send(Edit::Seek(kt));
                    }
                }
                ui.separator();
                ui.add_enabled_ui(editor.history.can_undo(), |ui| {
                    if ui.button("Undo").on_hover_text("Ctrl+Z").clicked() {
                        send(Edit::Undo);
                    }
                });
                ui.add_enabled_ui(editor.history.can_redo(), |ui| {
                    if ui
                        .button("Redo")
                        .on_hover_text("Ctrl+Y / Ctrl+Shift+Z")
                        .clicked()
                    {
                        send(Edit::Redo);
                    }
                });
            });
            ui.add_space(2.0);
            ruler(ui, session, ui_state, &mut send, thumbs);
            ui.add_space(4.0);
        });
}

fn ruler(
    ui: &mut egui::Ui,
    session: &Session,
    ui_state: &mut TimelineUi,
    send: &mut impl FnMut(Edit),
    thumbs: &mut Thumbnails,
) {
    let editor = &session.editor;
    let width = ui.available_width();
    let (rect, response) = ui.allocate_exact_size(
        egui::vec2(width, RULER_HEIGHT),
        egui::Sense::click_and_drag(),
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
    painter.rect_filled(rect, 3.0, visuals.extreme_bg_color);

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
            format!("{s:.1}s"),
            egui::FontId::proportional(10.0),
            visuals.weak_text_color(),
        );
        s += step;
    }

    // Keys as diamonds; the dragged key shows where it will land.
    let key_y = rect.bottom() - 16.0;
    let wanted = keys_with_thumbnails(editor.timeline.keys(), scale, ui_state.selected);
    if thumbs.wanted != wanted {
        thumbs.wanted = wanted;
    }
    let showing: std::collections::HashSet<u64> = thumbs.wanted.iter().copied().collect();
    // Keys closer than a pixel and a half draw as one diamond, and ease names only where
    // they fit (the selected and the dragged key always draw): 50,000 overlapping
    // diamonds and labels looked the same and took half a second a frame to rasterise.
    let (mut last_diamond, mut last_label) = (f32::NEG_INFINITY, f32::NEG_INFINITY);
    for key in editor.timeline.keys() {
        let dragging = ui_state.drag.filter(|d| (d.from - key.t).abs() < 1e-6);
        let t = dragging.map_or(key.t, |d| d.to);
        let x = scale.x(t);
        let selected = ui_state.selected == Some(key.id);
        let fill = if selected {
            egui::Color32::from_rgb(250, 210, 40)
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
        let always = selected || dragging.is_some();
        if !always && x - last_diamond < 1.5 {
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
        if key.ease != Ease::Linear && (always || x - last_label >= 32.0) {
            last_label = x;
            painter.text(
                egui::pos2(x + r + 1.0, key_y - r - 1.0),
                egui::Align2::LEFT_BOTTOM,
                key.ease.name(),
                egui::FontId::proportional(9.0),
                visuals.weak_text_color(),
            );
        }
    }

    // The playhead.
    let px = scale.x(editor.playhead.min(length));
    painter.line_segment(
        [egui::pos2(px, rect.top()), egui::pos2(px, rect.bottom())],
        egui::Stroke::new(2.0, egui::Color32::from_rgb(230, 60, 60)),
    );

    // Interaction: press on a key selects it (and drags it); elsewhere scrubs.
    let key_under = |pos: egui::Pos2| {
        editor
            .timeline
            .keys()
            .iter()
            .map(|k| ((scale.x(k.t) - pos.x).abs(), k))
            .filter(|(d, _)| *d <= KEY_HIT_PX && (pos.y - key_y).abs() <= 14.0)
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, k)| (k.id, k.t))
    };
    // Where the button went down: a quick drag is already past the key by the time egui
    // calls it a drag.
    let pressed_at = ui
        .input(|i| i.pointer.press_origin())
        .or(response.interact_pointer_pos());
    if (response.drag_started() || response.clicked())
        && let Some(pos) = pressed_at
    {
        match key_under(pos) {
            Some((id, t)) => {
                ui_state.selected = Some(id);
                send(Edit::Seek(t));
                if response.drag_started() {
                    ui_state.drag = Some(KeyDrag { from: t, to: t });
                }
            }
            None => {
                ui_state.selected = None;
                send(Edit::Seek(snap(scale.t(pos.x))));
            }
        }
    }
    if response.dragged()
        && let Some(pos) = response.interact_pointer_pos()
    {
        match ui_state.drag.as_mut() {
            Some(drag) => drag.to = snap(scale.t(pos.x)),
            None => send(Edit::Seek(snap(scale.t(pos.x)))),
        }
    }
    if response.drag_stopped()
        && let Some(drag) = ui_state.drag.take()
        && (drag.to - drag.from).abs() > 1e-6
        && editor.timeline.key_at(drag.to).is_none()
    {
        send(Edit::Keys(KeyEdit::Move {
            from: drag.from,
            to: drag.to,
        }));
        send(Edit::Seek(drag.to));
    }
    // A library pose dropped on the ruler becomes a key at that time: one undo step.
    if let Some(pose) = response.dnd_release_payload::<LibraryPoseDrag>()
        && let Some(pos) = response.hover_pos().or(response.interact_pointer_pos())
    {
        send(Edit::Keys(KeyEdit::PlacePose {
            t: snap(scale.t(pos.x)),
            pose: Box::new(pose.0.clone()),
        }));
    }
    // A deleted or undone key is no longer selected.
    if let Some(id) = ui_state.selected
        && editor.timeline.key_by_id(id).is_none()
    {
        ui_state.selected = None;
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

    fn keys_at(
        times: impl Iterator<Item = f32>,
    ) -> Vec<std::sync::Arc<crate::core::timeline::Key>> {
        times
            .enumerate()
            .map(|(i, t)| {
                std::sync::Arc::new(crate::core::timeline::Key {
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
