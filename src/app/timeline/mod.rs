//! The timeline panel along the bottom: play/stop, loop, time and length, keys on a
//! ruler in seconds with 1/30 s frames, the playhead, key selection and dragging, ease
//! and key time fields, undo/redo. Every change is an [`Edit`] through the one path.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use super::session::{
    EditRequest, PlacingKeys, Session, Thumbnails, UiLayout, UiSpace, VrPanelPass,
};
use crate::core::animation::edit::Edit;

mod keys;
mod ruler;
mod toolbar;
mod vr_panel;

use ruler::{RulerDrag, ruler};
use toolbar::toolbar;
use vr_panel::draw_vr_panel;

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
            toolbar(ui, editor, ui_state, &mut send);
            ui.add_space(2.0);
            ruler(ui, session, ui_state, &mut send, thumbs, placing);
            ui.add_space(4.0);
        });
}
