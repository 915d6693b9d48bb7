//! The timeline panel along the bottom: play/stop, loop, time and length, keys on a
//! ruler in seconds with 1/30 s frames, the playhead, key selection and dragging, ease
//! and key time fields, undo/redo. Every change is an [`Edit`] through the one path.

use bevy::prelude::*;
use bevy_egui::{EguiContext, EguiContexts, EguiPrimaryContextPass, egui};

use super::session::{
    EditRequest, LibraryPoseDrag, PlacingKeys, Session, Thumbnails, UiLayout, UiSpace, VrPanel,
    VrPanelPass, panel_button, panel_rect,
};
use std::collections::HashSet;

use crate::core::edit::{Edit, Editor, KeyEdit, SelectMode};
use crate::core::humanoid::Side;
use crate::core::project::{EXPORT_FPS, SPEED_RANGE, Settings};
use crate::core::timeline::{Ease, FPS, KeyPick, snap};
use crate::tr;

/// Timeline UI state that is not part of the project (the selection is the editor's).
#[derive(Resource, Default, Debug)]
pub struct TimelineUi {
    drag: Option<RulerDrag>,
    /// The "scale around the playhead" factor being typed.
    scale_factor: f32,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<TimelineUi>()
        .add_systems(
            EguiPrimaryContextPass,
            draw_panel.in_set(UiLayout::Timeline),
        )
        .add_systems(VrPanelPass, draw_vr_panel);
}

/// The timeline on the VR panel: big buttons for the laser (play, add and delete a key,
/// the ease, undo, redo) and the desktop's ruler, each in its place of
/// `core::vr_panel`. Its own drag state: the desktop's ruler is drawn meanwhile too.
fn draw_vr_panel(
    mut panel: Single<&mut EguiContext, With<VrPanel>>,
    session: Res<Session>,
    mut ruler_state: Local<TimelineUi>,
    mut edits: MessageWriter<EditRequest>,
    (mut thumbs, mut placing): (ResMut<Thumbnails>, ResMut<PlacingKeys>),
) {
    use crate::core::vr_panel::{
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
            let selected: Vec<&crate::core::timeline::Key> = editor
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

/// The play button's text: Stop while playing.
fn play_label(playing: bool) -> String {
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
fn ease_label(ease: Ease) -> String {
    tr!(&ease_id(ease))
}

/// An ease's short name, for the label beside a key on the ruler.
fn ease_short_label(ease: Ease) -> String {
    tr!(&format!("{}.short", ease_id(ease)))
}

fn draw_panel(
    mut contexts: EguiContexts,
    mut space: ResMut<UiSpace>,
    session: Res<Session>,
    mut ui_state: ResMut<TimelineUi>,
    mut edits: MessageWriter<EditRequest>,
    (mut thumbs, mut placing): (ResMut<Thumbnails>, ResMut<PlacingKeys>),
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    space.show(&ctx, "timeline-space", |root| {
        draw(
            root,
            &session,
            &mut ui_state,
            &mut edits,
            &mut thumbs,
            &mut placing,
        );
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
    placing: &mut PlacingKeys,
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
                ui.separator();
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
                let selected: Vec<&crate::core::timeline::Key> = editor
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
                ui.separator();
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
                ui.separator();
                playback_controls(ui, editor, &mut send);
            });
            ui.add_space(2.0);
            ruler(ui, session, ui_state, &mut send, thumbs, placing);
            ui.add_space(4.0);
        });
}

/// What a press on the ruler started.
#[derive(Debug, Clone)]
enum RulerDrag {
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

/// Rows of the ruler, from its top (px).
const KEY_ROW: f32 = 76.0;
const PLANT_ROWS: [(f32, f32); 2] = [(84.0, 89.0), (90.0, 95.0)];
const PLANT_COLOURS: [egui::Color32; 2] = [
    egui::Color32::from_rgb(90, 200, 120),
    egui::Color32::from_rgb(240, 150, 70),
];
const SELECTED_FILL: egui::Color32 = egui::Color32::from_rgb(250, 210, 40);

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

fn ruler(
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
    painter.rect_filled(rect, 3.0, visuals.extreme_bg_color);

    // The loop range, shaded behind everything.
    if let Some((a, b)) = editor.settings.loop_range {
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

    // Planted feet: a bar per foot under the key row.
    for (row, (y0, y1)) in PLANT_ROWS.into_iter().enumerate() {
        painter.text(
            egui::pos2(rect.left() + 1.0, rect.top() + (y0 + y1) / 2.0),
            egui::Align2::LEFT_CENTER,
            ["L", "R"][row],
            egui::FontId::proportional(7.0),
            visuals.weak_text_color(),
        );
        for plant in editor
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

    // The selection's span with a handle at each end for retiming it.
    let handle_x = span.map(|(a, b)| (scale.x(a) - 10.0, scale.x(b) + 10.0));
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

    // Keys as diamonds; dragged keys show where they will land.
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

    // A box being dragged.
    if let Some(RulerDrag::Box { from, to, .. }) = ui_state.drag {
        painter.rect(
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

    // The playhead.
    let px = scale.x(editor.playhead.min(length));
    painter.line_segment(
        [egui::pos2(px, rect.top()), egui::pos2(px, rect.bottom())],
        egui::Stroke::new(2.0, egui::Color32::from_rgb(230, 60, 60)),
    );

    // Ctrl+D's copies follow the pointer until a click puts them down; nothing else on
    // the ruler reacts meanwhile.
    if placing.active {
        place_duplicates(ui, editor, &selection, scale, ui_state, placing, send);
        return;
    }

    // Interaction.
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
    let end_under = |pos: egui::Pos2| {
        let ((a, b), (hl, hr)) = (span?, handle_x?);
        if (pos.y - key_y).abs() > 9.0 {
            return None;
        }
        if (pos.x - hl).abs() <= 4.0 {
            Some((b, a))
        } else if (pos.x - hr).abs() <= 4.0 {
            Some((a, b))
        } else {
            None
        }
    };
    let plant_row_under = |pos: egui::Pos2| {
        PLANT_ROWS
            .iter()
            .position(|(y0, y1)| (rect.top() + y0 - 1.0..=rect.top() + y1 + 1.0).contains(&pos.y))
    };
    let in_key_row = |pos: egui::Pos2| (pos.y - key_y).abs() <= 14.0;
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
        if let Some(row) = plant_row_under(pos) {
            toggle_plant(editor, FEET[row], scale.t(pos.x), send);
        } else if let Some((id, t)) = key_under(pos) {
            send(Edit::Keys(KeyEdit::Select {
                pick: KeyPick::Ids(vec![id]),
                mode,
            }));
            send(Edit::Seek(t));
        } else {
            if in_key_row(pos) && mode == SelectMode::Replace {
                send(Edit::Keys(KeyEdit::Select {
                    pick: KeyPick::None,
                    mode,
                }));
            }
            send(Edit::Seek(snap(scale.t(pos.x))));
        }
    }
    if response.drag_started()
        && let Some(pos) = pressed_at
    {
        let t = scale.t(pos.x);
        ui_state.drag = Some(if let Some((pivot, end)) = end_under(pos) {
            RulerDrag::End {
                pivot,
                from: end,
                to: end,
            }
        } else if let Some((id, key_t)) = key_under(pos) {
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
        } else if in_key_row(pos) || plant_row_under(pos).is_some() {
            RulerDrag::Box {
                from: t,
                to: t,
                add: shift || ctrl,
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
    // A library pose dropped on the ruler becomes a key at that time: one undo step.
    if let Some(pose) = response.dnd_release_payload::<LibraryPoseDrag>()
        && let Some(pos) = response.hover_pos().or(response.interact_pointer_pos())
    {
        send(Edit::Keys(KeyEdit::PlacePose {
            t: snap(scale.t(pos.x)),
            pose: Box::new(pose.0.clone()),
            mask: pose.1,
        }));
    }
}

const FEET: [Side; 2] = [Side::Left, Side::Right];

/// One frame of placing duplicated keys: the selection previews at the pointer's offset
/// from where placing began; a left click moves it there (one undo step), Esc or a right
/// click leaves it where Ctrl+D put it.
fn place_duplicates(
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
