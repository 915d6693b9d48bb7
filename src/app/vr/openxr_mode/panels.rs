//! The in-headset panel and the hand-preset menu: egui drawn by cameras of their own into
//! textures on quads, their pointer events, and what their buttons do.

use bevy::camera::RenderTarget;
use bevy::camera::visibility::RenderLayers;
use bevy::prelude::*;
use bevy_egui::input::EguiInputEvent;
use bevy_egui::{EguiContext, EguiSchedule, egui};

use super::{PANEL_FILL, PanelMode, VrInput};
use crate::app::session::{
    Banner, DialogPurpose, EditRequest, FileRequest, Session, VR_LAYER, VrPanel, VrPanelPass,
    panel_button, panel_rect,
};
use crate::core::animation::edit::{GripSide, PoseEdit};
use crate::core::formats::table::ExportKind;
use crate::core::model::humanoid::Side;
use crate::core::vr::TurnMode;
use crate::core::vr::panel::{
    PANEL_POINTS, PANEL_ZOOM, PanelEvent, PanelPlace, RADIAL_POINTS, panel_pixels,
};

/// The hand-preset menu's egui pass (only `app::vr` draws it).
#[derive(bevy::ecs::schedule::ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct VrRadialPass;

/// The hand-preset menu's egui context (on the camera that renders it).
#[derive(Component)]
pub(super) struct VrRadial;

/// The hand-preset menu's quad.
#[derive(Component)]
pub(super) struct RadialQuad;

/// The panel's quad in the world.
#[derive(Component)]
pub(super) struct PanelQuad;

/// A quad's place and whether it shows.
type Placed = (&'static mut Transform, &'static mut Visibility);

/// What the panel's input needs: its egui context and where egui reads its events.
#[derive(bevy::ecs::system::SystemParam)]
pub(super) struct PanelInput<'w, 's> {
    panel: Query<'w, 's, Entity, With<VrPanel>>,
    radial: Query<'w, 's, Entity, (With<VrRadial>, Without<VrPanel>)>,
    events: MessageWriter<'w, EguiInputEvent>,
}

impl PanelInput<'_, '_> {
    /// Tells the panel's egui (or the hand menu's, `radial`) what its pointer did.
    pub(super) fn send(&mut self, radial: bool, event: PanelEvent) {
        debug!(
            "VR {}: {event:?}",
            if radial { "hand menu" } else { "panel" }
        );
        let context = if radial {
            self.radial.single()
        } else {
            self.panel.single()
        };
        let Ok(context) = context else {
            return;
        };
        let pos = |at: Vec2| egui::pos2(at.x, at.y);
        let event = match event {
            PanelEvent::Moved(at) => egui::Event::PointerMoved(pos(at)),
            PanelEvent::Pressed(at) | PanelEvent::Released(at) => egui::Event::PointerButton {
                pos: pos(at),
                button: egui::PointerButton::Primary,
                pressed: matches!(event, PanelEvent::Pressed(_)),
                modifiers: egui::Modifiers::default(),
            },
            PanelEvent::Gone => egui::Event::PointerGone,
        };
        self.events.write(EguiInputEvent { context, event });
    }
}

/// The panel's texture (egui draws into it through a camera of its own) and its quad;
/// the same for the hand-preset menu.
pub(super) fn spawn_panel(
    commands: &mut Commands,
    images: &mut Assets<Image>,
    meshes: &mut Assets<Mesh>,
    materials: &mut Assets<StandardMaterial>,
) {
    let (w, h) = panel_pixels();
    let image = ui_texture(
        commands,
        images,
        (w, h),
        EguiSchedule::new(VrPanelPass),
        VrPanel,
    );
    commands.spawn((
        PanelQuad,
        ui_quad(meshes, materials, PANEL_POINTS, image),
        RenderLayers::layer(VR_LAYER),
    ));
    let size = RADIAL_POINTS * PANEL_ZOOM;
    let image = ui_texture(
        commands,
        images,
        (size.x as u32, size.y as u32),
        EguiSchedule::new(VrRadialPass),
        VrRadial,
    );
    commands.spawn((
        RadialQuad,
        ui_quad(meshes, materials, RADIAL_POINTS, image),
        RenderLayers::layer(VR_LAYER),
    ));
}

/// A texture egui draws into, through a camera of its own (`marker` on it).
fn ui_texture(
    commands: &mut Commands,
    images: &mut Assets<Image>,
    (w, h): (u32, u32),
    schedule: EguiSchedule,
    marker: impl Component,
) -> Handle<Image> {
    let image = images.add(Image::new_target_texture(
        w,
        h,
        bevy::render::render_resource::TextureFormat::Rgba8UnormSrgb,
        None,
    ));
    commands.spawn((
        Camera2d,
        Camera {
            // Before the headset's cameras, which show the texture.
            order: -10,
            clear_color: ClearColorConfig::Custom(Color::NONE),
            ..default()
        },
        RenderTarget::Image(image.clone().into()),
        RenderLayers::none(),
        EguiContext::default(),
        schedule,
        marker,
    ));
    image
}

/// A hidden quad of `points` (scaled to metres where it is placed) showing `image`.
fn ui_quad(
    meshes: &mut Assets<Mesh>,
    materials: &mut Assets<StandardMaterial>,
    points: Vec2,
    image: Handle<Image>,
) -> impl Bundle {
    (
        Mesh3d(meshes.add(Rectangle::new(points.x, points.y))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color_texture: Some(image),
            // Opaque but for its rounded corners: nothing shows through the text.
            alpha_mode: AlphaMode::Mask(0.5),
            unlit: true,
            cull_mode: None,
            ..default()
        })),
        Transform::default(),
        Visibility::Hidden,
    )
}

/// The quads stand where the panel and the hand menu are this frame.
pub(super) fn place_panel(
    input: Res<VrInput>,
    mut panel: Query<Placed, (With<PanelQuad>, Without<RadialQuad>)>,
    mut radial: Query<Placed, With<RadialQuad>>,
) {
    let place =
        |place: Option<PanelPlace>,
         (mut transform, mut visibility): (Mut<Transform>, Mut<Visibility>)| {
            match place {
                Some(place) => {
                    *transform = Transform {
                        translation: place.center,
                        rotation: place.rotation,
                        scale: Vec3::new(place.metres_per_point, place.metres_per_point, 1.0),
                    };
                    *visibility = Visibility::Visible;
                }
                None => *visibility = Visibility::Hidden,
            }
        };
    for quad in &mut panel {
        place(input.panel_world, quad);
    }
    for quad in &mut radial {
        place(input.radial_world, quad);
    }
}

/// A VR egui context drawn at the panel's zoom, with clicks as a hand-held laser makes
/// them (slower and shakier than a mouse's).
fn made_for_lasers(ctx: &egui::Context) {
    if ctx.zoom_factor() != PANEL_ZOOM {
        ctx.set_zoom_factor(PANEL_ZOOM);
        ctx.options_mut(|o| {
            o.input_options.max_click_duration = crate::core::vr::panel::CLICK_SECONDS;
            o.input_options.max_click_dist = crate::core::vr::panel::CLICK_TRAVEL;
        });
    }
}

/// The hand-preset menu: the presets in a ring, and in the middle which of the avatar's
/// hands they shape (each press picks the next). A preset is one undo step.
pub(super) fn draw_radial(
    mut menu: Single<&mut EguiContext, With<VrRadial>>,
    mut input: ResMut<VrInput>,
    mut edits: MessageWriter<EditRequest>,
) {
    use crate::core::vr::panel::{RADIAL_SIDE, radial_slot};
    let ctx = menu.get_mut().clone();
    made_for_lasers(&ctx);
    let rect = panel_rect;
    let centre = egui::pos2(RADIAL_POINTS.x * 0.5, RADIAL_POINTS.y * 0.5);
    ctx.layer_painter(egui::LayerId::background())
        .circle_filled(
            centre,
            RADIAL_POINTS.x * 0.5 - 1.0,
            egui::Color32::from_rgb(PANEL_FILL[0], PANEL_FILL[1], PANEL_FILL[2]),
        );
    let presets = crate::core::body::hand::presets();
    egui::Area::new(egui::Id::new("vr-hand-menu"))
        .fixed_pos(egui::Pos2::ZERO)
        .movable(false)
        .show(&ctx, |ui| {
            let button = |text: &str| egui::Button::new(egui::RichText::new(text).size(15.0));
            for (slot, preset) in presets.iter().enumerate() {
                if ui
                    .put(
                        rect(radial_slot(slot, presets.len())),
                        button(&crate::app::session::names::hand_preset_label(preset)),
                    )
                    .clicked()
                {
                    info!("VR hand menu: {}", preset.name);
                    edits.write(EditRequest::new(PoseEdit::Hand {
                        side: input.radial_side,
                        shape: Box::new(preset.shape),
                        amount: 1.0,
                    }));
                }
            }
            let side = match input.radial_side {
                GripSide::Both => crate::tr!("vr-hand-both"),
                GripSide::One(Side::Left) => crate::tr!("vr-hand-left"),
                GripSide::One(Side::Right) => crate::tr!("vr-hand-right"),
            };
            if ui.put(rect(RADIAL_SIDE), button(&side)).clicked() {
                input.radial_side = match input.radial_side {
                    GripSide::Both => GripSide::One(Side::Left),
                    GripSide::One(Side::Left) => GripSide::One(Side::Right),
                    GripSide::One(Side::Right) => GripSide::Both,
                };
            }
        });
}

/// The panel's background, its title row (turning, holding or pinning it) and the help
/// line; the library and the timeline draw their parts in the same pass.
pub(super) fn draw_panel_frame(
    mut panel: Single<&mut EguiContext, With<VrPanel>>,
    mut input: ResMut<VrInput>,
    session: Res<Session>,
    banner: Res<Banner>,
    mut files: MessageWriter<FileRequest>,
) {
    use crate::core::vr::panel::{EXPORT_BUTTON, HEADER, HINT, PIN_BUTTON, TURN_BUTTON};
    let ctx = panel.get_mut().clone();
    made_for_lasers(&ctx);
    let rect = panel_rect;
    let whole =
        egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(PANEL_POINTS.x, PANEL_POINTS.y));
    ctx.layer_painter(egui::LayerId::background()).rect_filled(
        whole,
        14.0,
        egui::Color32::from_rgb(PANEL_FILL[0], PANEL_FILL[1], PANEL_FILL[2]),
    );
    let big = panel_button;
    egui::Area::new(egui::Id::new("vr-header"))
        .fixed_pos(rect(HEADER).min)
        .movable(false)
        .show(&ctx, |ui| {
            ui.put(
                egui::Rect::from_min_size(rect(HEADER).min, egui::vec2(480.0, 36.0)),
                egui::Label::new(egui::RichText::new("VRMA Maker").size(20.0).strong()),
            );
            if ui
                .put(rect(EXPORT_BUTTON), big(&crate::tr!("vr-panel-export")))
                .clicked()
            {
                let path = export_path(&session);
                info!("VR: exporting to {}", path.display());
                files.write(FileRequest::Answer(
                    DialogPurpose::Export(ExportKind::Vrma),
                    path,
                ));
            }
            let turn = match input.turn_mode {
                TurnMode::Snap => crate::tr!("vr-panel-turn-snap"),
                TurnMode::Smooth => crate::tr!("vr-panel-turn-smooth"),
            };
            if ui.put(rect(TURN_BUTTON), big(&turn)).clicked() {
                input.turn_mode = match input.turn_mode {
                    TurnMode::Snap => TurnMode::Smooth,
                    TurnMode::Smooth => TurnMode::Snap,
                };
            }
            let pin = match input.panel {
                PanelMode::Pinned(_) => crate::tr!("vr-panel-hold"),
                PanelMode::InHand => crate::tr!("vr-panel-pin"),
            };
            if ui.put(rect(PIN_BUTTON), big(&pin)).clicked() {
                input.panel = match input.panel {
                    PanelMode::Pinned(_) => PanelMode::InHand,
                    PanelMode::InHand => PanelMode::Pinned(input.panel_floor),
                };
            }
        });
    egui::Area::new(egui::Id::new("vr-hint"))
        .fixed_pos(rect(HINT).min)
        .movable(false)
        .show(&ctx, |ui| {
            // What the status line says (an export's outcome, a refused edit), else help.
            let text = match (&banner.error, &banner.progress, &banner.notice) {
                (Some(error), _, _) => egui::RichText::new(error).color(egui::Color32::LIGHT_RED),
                (_, Some(progress), _) => egui::RichText::new(progress),
                (_, _, Some(notice)) => egui::RichText::new(notice),
                _ => egui::RichText::new(crate::tr!("vr-panel-help")),
            };
            ui.put(rect(HINT), egui::Label::new(text.size(13.0)).truncate());
        });
}

/// Where the panel's Export VRMA writes: beside the project (or the model) under its
/// name, else in the user's data folder; never over an existing file.
fn export_path(session: &Session) -> std::path::PathBuf {
    use crate::core::formats::table::unused_path;
    let base = session
        .project_path
        .clone()
        .or_else(|| session.model_path.clone())
        .unwrap_or_else(|| {
            crate::core::animation::library::default_dir().with_file_name("animation")
        });
    if let Some(dir) = base.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    unused_path(&base.with_extension("vrma"))
}
