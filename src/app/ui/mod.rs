//! The window's panels: the menu bar, the error banner and status line, the inspector
//! on the left, expressions on the right, the Export PNG options and the F1 help, the
//! keyboard shortcuts and the window title. Panels are laid out in [`UiLayout`] order;
//! what they leave becomes the 3D view.

mod expressions;
mod hands;
mod help;
mod inspector;
mod menu;
mod png_window;
mod shortcuts;
mod status;

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use super::session::{
    EditRequest, EditorSet, FileRequest, KeepAwake, LoadModel, PointerOverUi, QuitRequested,
    Session, UiLayout, UiSpace, ViewRect,
};
use crate::core::animation::edit::{Edit, Gesture, PoseEdit};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        EguiPrimaryContextPass,
        (
            (begin_layout, menu::draw, status::draw)
                .chain()
                .in_set(UiLayout::Bars),
            (inspector::draw, expressions::draw)
                .chain()
                .in_set(UiLayout::Sides),
            finish_layout.in_set(UiLayout::View),
            (png_window::draw, help::draw).in_set(UiLayout::Windows),
        ),
    )
    .add_systems(
        PreUpdate,
        pass_modifier_changes_only
            .after(bevy_egui::EguiPreUpdateSet::ProcessInput)
            .before(bevy_egui::EguiPreUpdateSet::BeginPass),
    )
    .add_systems(
        Update,
        (
            shortcuts::shortcuts.in_set(EditorSet::Input),
            update_title.in_set(EditorSet::Drive),
            set_window_icon.in_set(EditorSet::Drive),
        ),
    );
}

/// The window's icon (the taskbar's and Alt+Tab's on Windows, the task switcher's on
/// Linux): `assets/icon.png`, built into the program.
const ICON_PNG: &[u8] = include_bytes!("../../../assets/icon.png");

/// Gives the window its icon once winit has made it. Runs on the main thread (winit's
/// windows live there).
fn set_window_icon(_main_thread: bevy::ecs::system::NonSendMarker, mut done: Local<bool>) {
    if *done {
        return;
    }
    bevy::winit::WINIT_WINDOWS.with_borrow(|windows| {
        let Some(window) = windows.windows.values().next() else {
            return; // not made yet
        };
        *done = true;
        let icon = image::load_from_memory_with_format(ICON_PNG, image::ImageFormat::Png)
            .map_err(|e| e.to_string())
            .and_then(|picture| {
                let picture = picture.to_rgba8();
                let (width, height) = picture.dimensions();
                winit::window::Icon::from_rgba(picture.into_raw(), width, height)
                    .map_err(|e| e.to_string())
            });
        match icon {
            Ok(icon) => {
                // Windows shows the large icon in the taskbar and Alt+Tab.
                #[cfg(windows)]
                winit::platform::windows::WindowExtWindows::set_taskbar_icon(
                    &**window,
                    Some(icon.clone()),
                );
                window.set_window_icon(Some(icon));
            }
            Err(e) => warn!("the window icon could not be set: {e}"),
        }
    });
}

/// bevy_egui tells egui the modifier keys every frame, and egui takes any input event as
/// a reason to draw again at once, so the window never went idle (80% of a core). Only
/// a real change of the modifiers is passed on; egui still reads their state.
fn pass_modifier_changes_only(
    mut inputs: Query<&mut bevy_egui::EguiInput>,
    mut last: Local<Option<egui::Modifiers>>,
) {
    for mut input in &mut inputs {
        input.0.events.retain(|event| match event {
            egui::Event::ModifiersChanged(now) => {
                let changed = *last != Some(*now);
                *last = Some(*now);
                changed
            }
            _ => true,
        });
    }
}

/// Every frame starts with the whole window to lay panels out in.
fn begin_layout(mut contexts: EguiContexts, mut space: ResMut<UiSpace>) -> Result {
    space.0 = contexts.ctx_mut()?.viewport_rect();
    Ok(())
}

/// The 3D view gets what the panels left; the pointer is "over the UI" outside it or on
/// any egui area (menus, windows).
fn finish_layout(
    mut contexts: EguiContexts,
    space: Res<UiSpace>,
    mut view_rect: ResMut<ViewRect>,
    mut over_ui: ResMut<PointerOverUi>,
    mut awake: ResMut<KeepAwake>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let free = space.0;
    let rect = bevy::math::Rect::new(free.min.x, free.min.y, free.max.x, free.max.y);
    if view_rect.0 != Some(rect) {
        view_rect.0 = Some(rect);
        // The camera and the floating windows fit the view a frame later: draw that
        // frame too (a window shrunk while idle would otherwise leave them as they were).
        awake.now();
    }
    let pointer = ctx.pointer_latest_pos();
    over_ui.0 = pointer.is_some_and(|p| !free.contains(p))
        || ctx.is_pointer_over_egui()
        || ctx.egui_wants_pointer_input();
    Ok(())
}

/// The title follows the session and the language (View ▸ Language changes no resource
/// the title reads, so the last language is kept here).
fn update_title(
    session: Res<Session>,
    mut window: Single<&mut Window, With<PrimaryWindow>>,
    mut shown_in: Local<Option<crate::app::session::Language>>,
) {
    let language = crate::app::session::language::current();
    if !session.is_changed() && *shown_in == Some(language) {
        return;
    }
    *shown_in = Some(language);
    let wanted = session.window_title();
    if window.title != wanted {
        window.title = wanted;
    }
}

/// What menus and shortcuts ask of the rest of the app.
#[derive(bevy::ecs::system::SystemParam)]
struct Requests<'w> {
    edits: MessageWriter<'w, EditRequest>,
    files: MessageWriter<'w, FileRequest>,
    loads: MessageWriter<'w, LoadModel>,
    quits: MessageWriter<'w, QuitRequested>,
    captures: MessageWriter<'w, crate::app::session::CaptureKey>,
}

/// Sends a slider's edit: previews while dragging, one undoable edit when released or
/// when changed without a drag (a click, a typed value).
/// A side panel's new width to remember, once the user has dragged its edge (while the
/// button is down; a panel squeezed by a smaller window is not a choice).
fn chosen_panel_width(ui: &egui::Ui, remembered: Option<f32>, width: f32) -> Option<f32> {
    let width = width.round();
    let key = ui.id().with("shown-width");
    let last = ui.ctx().data(|d| d.get_temp::<f32>(key));
    ui.ctx().data_mut(|d| d.insert_temp(key, width));
    let resized = last.is_some_and(|last| last != width);
    let by_hand = ui.input(|i| i.pointer.any_down() || i.pointer.any_released());
    (resized && by_hand && remembered != Some(width)).then_some(width)
}

fn slider_edit(
    response: &egui::Response,
    edit: Option<PoseEdit>,
    edits: &mut MessageWriter<EditRequest>,
) {
    if let Some(edit) = edit {
        if response.dragged() {
            edits.write(EditRequest(Edit::preview(edit)));
        } else {
            edits.write(EditRequest::new(edit));
        }
    }
    if response.drag_stopped() {
        edits.write(EditRequest::new(Gesture::End));
    }
}
