//! Pose from a photo (File ▸ Pose from image…, or a PNG/JPEG dropped onto the window):
//! MediaPipe's models run on a worker (loaded on first use, then kept), the pose the
//! person shows lands on the model as one undoable edit (`core::capture`: the model's
//! own bone lengths, limbs through the IK; limbs not clearly seen keep their pose), and
//! a window shows the photo with the landmarks that were used.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use crate::app::session::{Banner, EditRequest, Job, KeepAwake, Session};
use crate::core::Refusal;
use crate::core::animation::edit::PoseEdit;
use crate::core::capture::{BODY_POINTS, Part, pose_from_capture};
use crate::tr;
use crate::vision::{Found, PoseModels, default_models_dir, read_image};

/// The longest side of the photo as the landmark window shows it.
const SHOWN_SIDE: u32 = 360;

/// What the worker hands back: the landmarks and a small copy of the photo.
struct Read {
    found: Found,
    shown: image::RgbImage,
    scale: f32,
}

/// Models loaded once per run (loading takes a quarter of a second), shared with the
/// worker.
pub(super) type Models = Arc<Mutex<Option<Arc<PoseModels>>>>;

#[derive(Resource, Default)]
pub(super) struct PhotoPose {
    running: Option<(PathBuf, Job<Result<Read, Refusal>>)>,
    models: Models,
    overlay: Option<Overlay>,
}

/// The landmark window: the photo, each body landmark (used or not) and each hand's.
struct Overlay {
    title: String,
    texture: Option<egui::TextureHandle>,
    shown: Option<image::RgbImage>,
    size: egui::Vec2,
    body: Vec<(egui::Pos2, bool)>,
    hands: Vec<egui::Pos2>,
    summary: String,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<PhotoPose>()
        .add_systems(Update, follow.in_set(crate::app::session::EditorSet::Drive));
}

pub(super) fn window_plugin(app: &mut App) {
    app.add_systems(
        bevy_egui::EguiPrimaryContextPass,
        show.in_set(crate::app::session::UiLayout::Windows),
    );
}

impl PhotoPose {
    /// The models, loaded once for photos and the live camera alike.
    pub(super) fn models(&self) -> Models {
        self.models.clone()
    }

    /// Starts reading the person in `path`; the pose lands when the worker is done.
    pub(super) fn start(&mut self, path: PathBuf, banner: &mut Banner) {
        if self.running.is_some() {
            banner.error(tr!("files-photo-running"));
            return;
        }
        let models = self.models.clone();
        let file = path.clone();
        let job = Job::spawn("pose-from-image", move || read_photo(&file, &models));
        banner.notice = Some(tr!(
            "files-photo-finding",
            path = path.display().to_string()
        ));
        self.running = Some((path, job));
    }
}

/// The models, loading them on first use (on the worker that needs them).
pub(super) fn loaded(models: &Models) -> Result<Arc<PoseModels>, Refusal> {
    let mut slot = models
        .lock()
        .map_err(|_| Refusal::new(tr!("files-photo-models-unavailable")))?;
    if let Some(loaded) = &*slot {
        return Ok(loaded.clone());
    }
    let loaded = Arc::new(PoseModels::load(&default_models_dir(), true)?);
    *slot = Some(loaded.clone());
    Ok(loaded)
}

fn read_photo(path: &std::path::Path, models: &Models) -> Result<Read, Refusal> {
    let picture = read_image(path)?;
    let loaded = loaded(models)?;
    let found = loaded
        .find(&picture, None)
        .map_err(|e| e.context(path.display()))?;
    let scale = SHOWN_SIDE as f32 / picture.width().max(picture.height()) as f32;
    let scale = scale.min(1.0);
    let shown = image::imageops::thumbnail(
        &picture,
        ((picture.width() as f32 * scale).round() as u32).max(1),
        ((picture.height() as f32 * scale).round() as u32).max(1),
    );
    Ok(Read {
        found,
        shown,
        scale,
    })
}

/// When the worker is done: the pose as one edit (from the pose as it is now), the
/// landmark window, and a line saying what was posed and what kept its pose.
fn follow(
    mut photo: ResMut<PhotoPose>,
    session: Res<Session>,
    mut edits: MessageWriter<EditRequest>,
    mut banner: ResMut<Banner>,
    mut awake: ResMut<KeepAwake>,
) {
    let Some((path, running)) = &photo.running else {
        return;
    };
    awake.now();
    let Some(result) = running.take() else { return };
    let path = path.clone();
    photo.running = None;
    let read = match result {
        Ok(Ok(read)) => read,
        Ok(Err(refusal)) => return banner.error(refusal.to_string()),
        Err(panic) => {
            return banner.error(tr!(
                "files-photo-read-failed",
                path = path.display().to_string(),
                reason = panic
            ));
        }
    };
    let editor = &session.editor;
    let posed = match pose_from_capture(&editor.rig, &editor.pose, &read.found.capture) {
        Ok(posed) => posed,
        Err(refusal) => return banner.error(format!("{}: {refusal}", path.display())),
    };
    edits.write(EditRequest::new(PoseEdit::SetPose(Box::new(
        posed.pose.clone(),
    ))));
    let names = |parts: Vec<Part>| {
        parts
            .into_iter()
            .map(part_name)
            .collect::<Vec<_>>()
            .join(tr!("files-list-separator").as_str())
    };
    let kept = posed.kept();
    let mut summary = tr!("files-photo-posed", parts = names(posed.posed.clone()));
    if !kept.is_empty() {
        let kept = tr!("files-photo-kept", parts = names(kept));
        summary.push(' ');
        summary.push_str(&kept);
    }
    banner.notice = Some(summary.clone());
    let at = |p: Vec2| egui::pos2(p.x * read.scale, p.y * read.scale);
    let body = (0..BODY_POINTS)
        .map(|i| (at(read.found.body_pixels[i]), posed.used[i]))
        .collect();
    let hands = read
        .found
        .hand_pixels
        .iter()
        .flat_map(|(_, points)| points.iter().map(|p| at(*p)))
        .collect();
    photo.overlay = Some(Overlay {
        title: path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ),
        texture: None,
        size: egui::vec2(read.shown.width() as f32, read.shown.height() as f32),
        shown: Some(read.shown),
        body,
        hands,
        summary,
    });
}

/// A body part as the photo's summary names it.
fn part_name(part: Part) -> String {
    match part {
        Part::Torso => tr!("files-part-torso"),
        Part::Head => tr!("files-part-head"),
        Part::LeftArm => tr!("files-part-left-arm"),
        Part::RightArm => tr!("files-part-right-arm"),
        Part::LeftLeg => tr!("files-part-left-leg"),
        Part::RightLeg => tr!("files-part-right-leg"),
        Part::LeftHand => tr!("files-part-left-fingers"),
        Part::RightHand => tr!("files-part-right-fingers"),
    }
}

/// The landmark window: green dots were used, grey ones were not clear enough; the
/// hands' landmarks in blue.
fn show(mut contexts: EguiContexts, mut photo: ResMut<PhotoPose>) -> Result {
    let Some(overlay) = &mut photo.overlay else {
        return Ok(());
    };
    let ctx = contexts.ctx_mut()?;
    if overlay.texture.is_none()
        && let Some(shown) = overlay.shown.take()
    {
        let size = [shown.width() as usize, shown.height() as usize];
        let pixels = egui::ColorImage::from_rgb(size, shown.as_raw());
        overlay.texture =
            Some(ctx.load_texture("pose-photo", pixels, egui::TextureOptions::LINEAR));
    }
    let mut open = true;
    egui::Window::new(tr!("files-photo-title", name = overlay.title.as_str()))
        .id(egui::Id::new("pose-from-image"))
        .open(&mut open)
        .resizable(false)
        // Beside the model, not over it.
        .default_pos(egui::pos2(740.0, 40.0))
        .show(ctx, |ui| {
            if let Some(texture) = &overlay.texture {
                let (rect, _) = ui.allocate_exact_size(overlay.size, egui::Sense::hover());
                ui.painter().image(
                    texture.id(),
                    rect,
                    egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
                    egui::Color32::WHITE,
                );
                let painter = ui.painter_at(rect);
                let offset = rect.min.to_vec2();
                for (p, used) in &overlay.body {
                    let (fill, radius) = if *used {
                        (egui::Color32::from_rgb(60, 220, 90), 4.0)
                    } else {
                        (egui::Color32::from_gray(150), 3.0)
                    };
                    painter.circle(
                        *p + offset,
                        radius,
                        fill,
                        egui::Stroke::new(1.0, egui::Color32::BLACK),
                    );
                }
                for p in &overlay.hands {
                    painter.circle_filled(*p + offset, 2.0, egui::Color32::from_rgb(80, 160, 255));
                }
            }
            ui.horizontal(|ui| {
                let key = |ui: &mut egui::Ui, color: egui::Color32, text: String| {
                    ui.label(egui::RichText::new(text).small().color(color));
                };
                key(
                    ui,
                    egui::Color32::from_rgb(60, 220, 90),
                    tr!("files-photo-key-used"),
                );
                key(
                    ui,
                    egui::Color32::from_gray(170),
                    tr!("files-photo-key-unclear"),
                );
                key(
                    ui,
                    egui::Color32::from_rgb(80, 160, 255),
                    tr!("files-photo-key-hands"),
                );
            });
            ui.label(&overlay.summary);
            ui.label(tr!("files-photo-refine"));
        });
    if !open {
        photo.overlay = None;
    }
    Ok(())
}
