//! The pose library window: a grid of 96×128 thumbnails with names. Save the current
//! pose under a name (its thumbnail is rendered off-screen), click to apply (one undoable
//! edit, written back to the key at the playhead), drag one onto the timeline to make a
//! key there, rename / overwrite / delete from its menu, import or export a folder.

use std::collections::HashMap;
use std::path::PathBuf;

use bevy::prelude::*;
use bevy_egui::{EguiContext, EguiContexts, EguiPrimaryContextPass, egui};

use super::session::{
    AvatarShown, Banner, EditRequest, EditorSet, KeepAwake, LibraryPoseDrag, PasteMask, Prefs,
    RenderPoseThumbnail, Session, THUMBNAIL, UiLayout, UpdatedThumbnails, ViewRect, VrPanel,
    VrPanelPass, Windows, panel_button, panel_rect,
};
use crate::core::animation::library::{Library, default_dir};
use crate::core::body::pose::{BodyMask, Pose};
use crate::tr;

/// A folder chosen in a dialog: (export?, folder).
type FolderPick = std::sync::Mutex<std::sync::mpsc::Receiver<(bool, Option<PathBuf>)>>;

/// What an entry's click or menu asks for.
enum EntryAction {
    Apply(String),
    Rename(String),
    Overwrite(String),
    Delete(String),
    FinishRenaming,
}

/// The open library and its window state.
#[derive(Resource, Default)]
struct LibraryState {
    placement: Placement,
    library: Option<Library>,
    new_name: String,
    renaming: Option<(String, String)>,
    textures: HashMap<String, Option<egui::TextureHandle>>,
    /// The same thumbnails in the VR panel's egui context (a texture is one context's).
    vr_textures: HashMap<String, Option<egui::TextureHandle>>,
    /// The page of thumbnails the VR panel shows.
    vr_page: usize,
    /// Entries whose missing thumbnail has been asked for.
    requested: std::collections::HashSet<String>,
    /// Folder picks answered by the dialog thread.
    folder: Option<FolderPick>,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<LibraryState>()
        .add_systems(Startup, open_library)
        .add_systems(Update, save_at_start.in_set(EditorSet::Input))
        .add_systems(
            EguiPrimaryContextPass,
            draw_library.in_set(UiLayout::Windows),
        )
        .add_systems(VrPanelPass, draw_vr_panel);
}

/// The library on the VR panel: a page of thumbnails in the places `core::vr::panel`
/// gives them, and buttons to turn the pages. A press applies a pose (one undo step, as
/// on the desktop); a drag takes it to the timeline's ruler below.
fn draw_vr_panel(
    mut panel: Single<&mut EguiContext, With<VrPanel>>,
    mut state: ResMut<LibraryState>,
    mut edits: MessageWriter<EditRequest>,
    mask: Res<PasteMask>,
) {
    use crate::core::vr::panel::{
        LIBRARY, LIBRARY_NEXT, LIBRARY_PAGE, LIBRARY_PREVIOUS, library_slot,
    };
    let rect = panel_rect;
    let ctx = panel.get_mut().clone();
    let state = &mut *state;
    let Some(library) = state.library.as_ref() else {
        return;
    };
    let pages = library.entries.len().div_ceil(LIBRARY_PAGE).max(1);
    state.vr_page = state.vr_page.min(pages - 1);
    egui::Area::new(egui::Id::new("vr-library"))
        .fixed_pos(rect(LIBRARY).min)
        .movable(false)
        .show(&ctx, |ui| {
            let title = if library.entries.is_empty() {
                tr!("library-vr-empty")
            } else {
                tr!("library-vr-page", page = state.vr_page + 1, pages = pages)
            };
            ui.put(
                egui::Rect::from_min_size(rect(LIBRARY).min, egui::vec2(600.0, 30.0)),
                egui::Label::new(egui::RichText::new(title).size(18.0)),
            );
            let big = panel_button;
            let previous = ui.add_enabled_ui(state.vr_page > 0, |ui| {
                ui.put(rect(LIBRARY_PREVIOUS), big("◀"))
            });
            if previous.inner.clicked() {
                state.vr_page -= 1;
            }
            let next = ui.add_enabled_ui(state.vr_page + 1 < pages, |ui| {
                ui.put(rect(LIBRARY_NEXT), big("▶"))
            });
            if next.inner.clicked() {
                state.vr_page += 1;
            }
            let shown = library.entries.iter().skip(state.vr_page * LIBRARY_PAGE);
            for (slot, entry) in shown.take(LIBRARY_PAGE).enumerate() {
                let texture = state
                    .vr_textures
                    .entry(entry.id.clone())
                    .or_insert_with(|| {
                        load_texture(&ctx, &library.thumbnail_path(&entry.id), &entry.id)
                    })
                    .clone();
                let at = rect(library_slot(slot));
                let picture = pose_picture(ui, &ctx, at.size(), Some(at), texture.as_ref(), entry);
                if picture.clicked() {
                    edits.write(EditRequest::new(entry.apply_edit(mask.0)));
                }
                ui.put(
                    egui::Rect::from_min_size(
                        at.left_bottom(),
                        egui::vec2(at.width() + 24.0, 18.0),
                    ),
                    egui::Label::new(egui::RichText::new(&entry.name).size(13.0)).truncate(),
                );
            }
        });
}

fn open_library(mut state: ResMut<LibraryState>, mut banner: ResMut<Banner>) {
    let dir = default_dir();
    match Library::open(&dir) {
        Ok(library) => {
            if !library.warnings.is_empty() {
                banner.error(tr!(
                    "library-warnings",
                    warnings = library.warnings.join("; ")
                ));
            }
            state.library = Some(library);
        }
        Err(e) => banner.error(tr!("library-unavailable", reason = e.to_string())),
    }
}

/// Saves the current pose as a new entry; its thumbnail is rendered like every missing
/// one, from the entry's own pose.
fn save_current(
    library: &mut Library,
    name: &str,
    pose: &Pose,
    mask: BodyMask,
    banner: &mut Banner,
) {
    // A hand saved without a name is named after the hand.
    let name = if name.trim().is_empty() && mask != BodyMask::WholeBody {
        crate::app::session::names::mask_label(mask)
    } else {
        name.to_string()
    };
    match library.add_part(&name, pose, mask) {
        Ok(_) => {
            banner.notice = Some(tr!("library-saved", name = name.trim()));
        }
        Err(e) => banner.error(e.to_string()),
    }
}

/// Testing aid (`--library-save NAME`): the Save pose button's path, once the model shows.
fn save_at_start(
    launch: Res<super::session::Launch>,
    mut shown: MessageReader<AvatarShown>,
    mut state: ResMut<LibraryState>,
    session: Res<Session>,
    mut banner: ResMut<Banner>,
) {
    let Some(name) = launch.library_save.clone() else {
        return;
    };
    if shown.read().count() == 0 {
        return;
    }
    if let Some(library) = state.library.as_mut() {
        save_current(
            library,
            &name,
            &session.editor.pose,
            BodyMask::WholeBody,
            &mut banner,
        );
    }
}

fn load_texture(
    ctx: &egui::Context,
    path: &std::path::Path,
    id: &str,
) -> Option<egui::TextureHandle> {
    let img = image::open(path).ok()?.to_rgba8();
    let size = [img.width() as usize, img.height() as usize];
    let color = egui::ColorImage::from_rgba_unmultiplied(size, img.as_raw());
    Some(ctx.load_texture(format!("library-{id}"), color, egui::TextureOptions::LINEAR))
}

/// An entry's thumbnail (`size`, next in the layout or at `at`): a click applies it (the caller reads `clicked`), a drag
/// carries the pose to the timeline (the picture follows the pointer meanwhile). One
/// widget takes both: egui's drag source puts a drag-only widget over its contents,
/// which then never see a click.
fn pose_picture(
    ui: &mut egui::Ui,
    ctx: &egui::Context,
    size: egui::Vec2,
    at: Option<egui::Rect>,
    texture: Option<&egui::TextureHandle>,
    entry: &crate::core::animation::library::LibraryEntry,
) -> egui::Response {
    let sense = egui::Sense::click_and_drag();
    let picture = match (texture, at) {
        (Some(t), None) => ui.add(egui::Image::new(t).fit_to_exact_size(size).sense(sense)),
        (Some(t), Some(at)) => ui.put(at, egui::Image::new(t).fit_to_exact_size(size).sense(sense)),
        (None, None) => ui.add_sized(
            size,
            egui::Label::new(tr!("library-rendering")).sense(sense),
        ),
        (None, Some(at)) => ui.put(at, egui::Label::new(tr!("library-rendering")).sense(sense)),
    };
    picture.dnd_set_drag_payload(LibraryPoseDrag(entry.pose.clone(), entry.mask));
    if picture.dragged()
        && let (Some(t), Some(pointer)) = (texture, ctx.pointer_interact_pos())
    {
        egui::Area::new(egui::Id::new(("library-drag", &entry.id)))
            .order(egui::Order::Tooltip)
            .fixed_pos(pointer - size / 2.0)
            .interactable(false)
            .show(ctx, |ui| {
                ui.add(egui::Image::new(t).fit_to_exact_size(size));
            });
    }
    picture
}

/// What the library window asks for: edits (applying a pose) and thumbnails.
#[derive(bevy::ecs::system::SystemParam)]
struct LibraryRequests<'w> {
    edits: MessageWriter<'w, EditRequest>,
    thumbnails: MessageWriter<'w, RenderPoseThumbnail>,
    awake: ResMut<'w, KeepAwake>,
    view: Res<'w, ViewRect>,
    prefs: ResMut<'w, Prefs>,
    /// Edit ▸ Paste onto: the part of the body a library pose is applied to.
    mask: Res<'w, PasteMask>,
}

/// The library window's width when it first opens (its height follows the poses in it).
const LIBRARY_WIDTH: f32 = 250.0;

/// Where the library window is, to remember where the user puts it.
#[derive(Default)]
struct Placement {
    /// The 3D view last frame, until the window is first shown.
    last_view: Option<bevy::math::Rect>,
    shown: bool,
    last_rect: Option<egui::Rect>,
    frames_shown: u32,
    /// The button went down on the window and is still down.
    grabbed: bool,
}

fn draw_library(
    mut contexts: EguiContexts,
    mut state: ResMut<LibraryState>,
    session: Res<Session>,
    mut updated: ResMut<UpdatedThumbnails>,
    mut banner: ResMut<Banner>,
    mut windows: ResMut<Windows>,
    mut out: LibraryRequests,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let state = &mut *state;
    // Rewritten thumbnails are re-read; folder picks are carried out.
    for path in updated.0.drain(..) {
        if let Some(id) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) {
            state.textures.remove(&id);
            state.vr_textures.remove(&id);
        }
    }
    let picked = state
        .folder
        .as_ref()
        .and_then(|r| r.lock().ok().and_then(|r| r.try_recv().ok()));
    if let Some((export, dir)) = picked {
        state.folder = None;
        if let (Some(dir), Some(library)) = (dir, state.library.as_mut()) {
            let message = if export {
                library.export_to(&dir).map(|n| {
                    let path = dir.display().to_string();
                    tr!("library-exported", count = n, path = path)
                })
            } else {
                library.import_from(&dir).map(|(n, w)| {
                    let path = dir.display().to_string();
                    if w.is_empty() {
                        tr!("library-imported", count = n, path = path)
                    } else {
                        let skipped = w.join("; ");
                        tr!(
                            "library-imported-skipped",
                            count = n,
                            path = path,
                            skipped = skipped
                        )
                    }
                })
            };
            match message {
                Ok(m) => banner.notice = Some(m),
                Err(e) => banner.error(e.to_string()),
            }
        }
    }
    if state.folder.is_some() {
        out.awake.now(); // the folder dialog answers from another thread
    }
    if !windows.library {
        return Ok(());
    }
    let Some(library) = state.library.as_mut() else {
        return Ok(());
    };
    // Entries without a thumbnail (imported, copied in) get one rendered from their own
    // pose on the hidden instance; the pose on screen is not touched.
    for entry in &library.entries {
        let path = library.thumbnail_path(&entry.id);
        if !path.exists() && state.requested.insert(entry.id.clone()) {
            out.thumbnails.write(RenderPoseThumbnail {
                pose: entry.pose.clone(),
                output: path,
            });
        }
    }
    let mut open = windows.library;
    // Kept inside the 3D view: over the timeline or a panel it would hide controls.
    // Not before the panels have settled (they take a frame or two): egui places a
    // window once, and pushed inside a first frame's view it would not open where it
    // was left.
    let Some(view) = out.view.0 else {
        out.awake.now();
        return Ok(());
    };
    if !state.placement.shown {
        let settled = state.placement.last_view == Some(view);
        state.placement.last_view = Some(view);
        if !settled {
            out.awake.now();
            return Ok(());
        }
        state.placement.shown = true;
    }
    let view = egui::Rect::from_min_max(
        egui::pos2(view.min.x, view.min.y),
        egui::pos2(view.max.x, view.max.y),
    );
    // Where the user last put it (its top left corner); at first standing on the bottom
    // left of the 3D view, under the arms and beside the legs, where it never covers the
    // avatar.
    let (corner, pivot) = match out.prefs.values.library_at {
        Some((x, y)) => (egui::pos2(x, y), egui::Align2::LEFT_TOP),
        None => (
            egui::pos2(view.min.x + 8.0, view.max.y - 8.0),
            egui::Align2::LEFT_BOTTOM,
        ),
    };
    let mut window = egui::Window::new(tr!("library-title"))
        .id(egui::Id::new("Pose library"))
        .constrain_to(view)
        .open(&mut open)
        .pivot(pivot)
        .default_pos(corner)
        .default_width(LIBRARY_WIDTH);
    // egui sizes a new window over its first frames, taller at first; kept inside the
    // view meanwhile it would be pushed up and not open where it was left. So it is held
    // in place until its size has settled.
    if state.placement.frames_shown < 4 {
        state.placement.frames_shown += 1;
        window = window.current_pos(corner).constrain(false);
        out.awake.now();
    }
    let shown = window.show(&ctx, |ui| {
        ui.horizontal(|ui| {
            ui.add(
                egui::TextEdit::singleline(&mut state.new_name)
                    .hint_text(tr!("library-name-hint"))
                    // Short enough that both save buttons fit the window's width: a
                    // wider window moves where egui opens the next one (Export PNG).
                    .desired_width(70.0),
            );
            if ui.button(tr!("library-save-pose")).clicked() {
                let name = std::mem::take(&mut state.new_name);
                let pose = &session.editor.pose;
                save_current(library, &name, pose, BodyMask::WholeBody, &mut banner);
            }
            // A hand pose: applying it later changes only that hand (or, pasted onto
            // the other hand, that one, mirrored).
            ui.menu_button(tr!("library-save-hand"), |ui| {
                for mask in [BodyMask::LeftHand, BodyMask::RightHand] {
                    if ui
                        .button(crate::app::session::names::mask_label(mask))
                        .clicked()
                    {
                        let name = std::mem::take(&mut state.new_name);
                        save_current(library, &name, &session.editor.pose, mask, &mut banner);
                    }
                }
            });
        });
        ui.horizontal(|ui| {
            for (label, export) in [
                (tr!("library-import-folder"), false),
                (tr!("library-export-folder"), true),
            ] {
                if ui.button(label).clicked() && state.folder.is_none() {
                    let (tx, rx) = std::sync::mpsc::channel();
                    state.folder = Some(std::sync::Mutex::new(rx));
                    std::thread::spawn(move || {
                        let _ = tx.send((export, rfd::FileDialog::new().pick_folder()));
                    });
                }
            }
        });
        ui.separator();
        if library.entries.is_empty() {
            ui.label(tr!("library-empty"));
        }
        let mut action: Option<EntryAction> = None;
        egui::ScrollArea::vertical()
            .id_salt("library-grid")
            .show(ui, |ui| {
                ui.horizontal_wrapped(|ui| {
                    for entry in &library.entries {
                        let texture = state
                            .textures
                            .entry(entry.id.clone())
                            .or_insert_with(|| {
                                load_texture(&ctx, &library.thumbnail_path(&entry.id), &entry.id)
                            })
                            .clone();
                        ui.vertical(|ui| {
                            let size = egui::vec2(THUMBNAIL.x as f32, THUMBNAIL.y as f32);
                            let picture =
                                pose_picture(ui, &ctx, size, None, texture.as_ref(), entry);
                            if picture.clicked() {
                                action = Some(EntryAction::Apply(entry.id.clone()));
                            }
                            picture.context_menu(|ui| {
                                let id = || entry.id.clone();
                                for (label, what) in [
                                    (tr!("library-apply"), EntryAction::Apply(id())),
                                    (tr!("library-rename-menu"), EntryAction::Rename(id())),
                                    (tr!("library-overwrite"), EntryAction::Overwrite(id())),
                                    (tr!("library-delete"), EntryAction::Delete(id())),
                                ] {
                                    if ui.button(label).clicked() {
                                        action = Some(what);
                                        ui.close();
                                    }
                                }
                            });
                            ui.label(egui::RichText::new(&entry.name).small());
                        });
                    }
                });
            });
        if let Some((id, name)) = state.renaming.as_mut() {
            ui.separator();
            ui.horizontal(|ui| {
                ui.text_edit_singleline(name);
                if ui.button(tr!("library-rename")).clicked() {
                    match library.rename(id, name) {
                        Ok(()) => banner.notice = Some(tr!("library-renamed")),
                        Err(e) => banner.error(e.to_string()),
                    }
                    action = Some(EntryAction::FinishRenaming);
                }
            });
        }
        match action {
            Some(EntryAction::Apply(id)) => {
                // Expressions this model lacks are dropped by the edit itself.
                if let Some(entry) = library.entries.iter().find(|e| e.id == id) {
                    out.edits
                        .write(EditRequest::new(entry.apply_edit(out.mask.0)));
                }
            }
            Some(EntryAction::Rename(id)) => {
                let name = library
                    .entries
                    .iter()
                    .find(|e| e.id == id)
                    .map(|e| e.name.clone())
                    .unwrap_or_default();
                state.renaming = Some((id, name));
            }
            Some(EntryAction::Overwrite(id)) => {
                match library.overwrite(&id, &session.editor.pose) {
                    Ok(()) => {
                        // The stale thumbnail goes; the missing one is rendered anew.
                        let _ = std::fs::remove_file(library.thumbnail_path(&id));
                        state.requested.remove(&id);
                        state.textures.remove(&id);
                    }
                    Err(e) => banner.error(e.to_string()),
                }
            }
            Some(EntryAction::Delete(id)) => {
                if let Err(e) = library.delete(&id) {
                    banner.error(e.to_string());
                }
                state.textures.remove(&id);
            }
            Some(EntryAction::FinishRenaming) => state.renaming = None,
            None => {}
        }
    });
    // A move by a drag that began on the window is the user's: remembered for the next
    // start (egui shifting it inside a shrinking view is not).
    if let Some(shown) = shown {
        let rect = shown.response.rect;
        let corner = rect.min;
        let (pressed, down, origin) = ctx.input(|i| {
            (
                i.pointer.any_pressed(),
                i.pointer.any_down(),
                i.pointer.press_origin(),
            )
        });
        if pressed {
            state.placement.grabbed =
                origin.is_some_and(|p| state.placement.last_rect.is_some_and(|r| r.contains(p)));
        }
        if state.placement.grabbed
            && state
                .placement
                .last_rect
                .is_some_and(|last| last.min != corner)
        {
            let at = Some((corner.x, corner.y));
            if out.prefs.values.library_at != at {
                out.prefs.values.library_at = at;
            }
        }
        state.placement.last_rect = Some(rect);
        state.placement.grabbed &= down;
    }
    windows.library = open;
    Ok(())
}
