//! Pose from a photo (File ▸ Pose from image…, or a PNG/JPEG dropped onto the window):
//! MediaPipe's models run on a worker (loaded on first use, then kept), the pose the
//! person shows lands on the model as one undoable edit (`core::capture`: the model's
//! own bone lengths, limbs through the IK; limbs not clearly seen keep their pose), and
//! a window shows the photo with the landmarks that were used. A limb the picture got
//! backwards in depth is flipped there: a click on its line, or Tab to pick one and F
//! (the picture focused), each flip one more undoable edit.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use crate::app::session::{Banner, EditRequest, Job, KeepAwake, Session};
use crate::core::Refusal;
use crate::core::animation::edit::PoseEdit;
use crate::core::body::pose::Pose;
use crate::core::capture::{
    BODY_POINTS, Capture, FLIPPABLE_LIMBS, Part, limb_points, pose_from_capture,
};
use crate::core::model::humanoid::Bone;
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
    /// What the photo showed (after any mirroring) and the pose it was read onto: a flip
    /// reads the photo again from there.
    capture: Capture,
    start: Pose,
    /// Each flippable limb bone's line in the shown picture.
    limbs: Vec<(Bone, egui::Pos2, egui::Pos2)>,
    /// The limbs flipped so far, and the one Tab has picked.
    flipped: Vec<Bone>,
    picked: Option<usize>,
}

/// A click this close to a limb's line (points) flips it.
const LIMB_HIT: f32 = 8.0;

impl Overlay {
    /// The limb whose line passes nearest `at`, if one is close.
    fn limb_at(&self, at: egui::Pos2) -> Option<usize> {
        self.limbs
            .iter()
            .enumerate()
            .map(|(i, (_, a, b))| (i, distance_to_segment(at, *a, *b)))
            .filter(|(_, d)| *d <= LIMB_HIT)
            .min_by(|x, y| x.1.total_cmp(&y.1))
            .map(|(i, _)| i)
    }

    /// Flips limb `index` (or back), and the pose read with every flip so far.
    fn flip(&mut self, index: usize, rig: &crate::core::body::rig::Rig) -> Result<Pose, Refusal> {
        let bone = self.limbs[index].0;
        match self.flipped.iter().position(|b| *b == bone) {
            Some(at) => {
                self.flipped.remove(at);
            }
            None => self.flipped.push(bone),
        }
        let mut capture = self.capture.clone();
        for &flipped in &self.flipped {
            capture = capture.with_depth_flipped(flipped)?;
        }
        Ok(pose_from_capture(rig, &self.start, &capture)?.pose)
    }
}

fn distance_to_segment(p: egui::Pos2, a: egui::Pos2, b: egui::Pos2) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_sq().max(1e-6)).clamp(0.0, 1.0);
    (a + ab * t).distance(p)
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
    let (shown, scale) = shrunk(&picture, SHOWN_SIDE);
    Ok(Read {
        found,
        shown,
        scale,
    })
}

/// A picture as a window shows it: its longest side at most `longest` (never enlarged),
/// and the scale that maps its pixels onto the copy.
pub(super) fn shrunk(picture: &image::RgbImage, longest: u32) -> (image::RgbImage, f32) {
    let scale = (longest as f32 / picture.width().max(picture.height()).max(1) as f32).min(1.0);
    let copy = image::imageops::thumbnail(
        picture,
        ((picture.width() as f32 * scale).round() as u32).max(1),
        ((picture.height() as f32 * scale).round() as u32).max(1),
    );
    (copy, scale)
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
    let limbs = FLIPPABLE_LIMBS
        .iter()
        .filter_map(|&bone| {
            let (root, tip) = limb_points(bone)?;
            Some((
                bone,
                at(read.found.body_pixels[root]),
                at(read.found.body_pixels[tip]),
            ))
        })
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
        capture: read.found.capture,
        start: editor.pose.clone(),
        limbs,
        flipped: Vec::new(),
        picked: None,
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
fn show(
    mut contexts: EguiContexts,
    mut photo: ResMut<PhotoPose>,
    session: Res<Session>,
    mut edits: MessageWriter<EditRequest>,
    mut banner: ResMut<Banner>,
) -> Result {
    let Some(overlay) = &mut photo.overlay else {
        return Ok(());
    };
    let mut flip = None;
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
                let (rect, response) = ui.allocate_exact_size(overlay.size, egui::Sense::click());
                let offset = rect.min.to_vec2();
                if response.clicked() {
                    // Focused, the picture has the keys: Tab picks a limb, F flips it (and
                    // neither reaches the 3D view's shortcuts).
                    response.request_focus();
                    if let Some(index) = response
                        .interact_pointer_pos()
                        .and_then(|at| overlay.limb_at(at - offset))
                    {
                        overlay.picked = Some(index);
                        flip = Some(index);
                    }
                }
                // The keys go back to the editor (Ctrl+S, the view's keys) once the pointer
                // leaves the picture, or with Esc.
                let pointer_on_picture = ui
                    .ctx()
                    .pointer_hover_pos()
                    .is_some_and(|p| rect.expand(LIMB_HIT).contains(p));
                if response.has_focus() && !pointer_on_picture {
                    response.surrender_focus();
                }
                if response.has_focus() {
                    ui.memory_mut(|m| {
                        m.set_focus_lock_filter(
                            response.id,
                            egui::EventFilter {
                                tab: true,
                                ..Default::default()
                            },
                        )
                    });
                    let (tab, back, f) = ui.input_mut(|i| {
                        (
                            i.consume_key(egui::Modifiers::NONE, egui::Key::Tab),
                            i.consume_key(egui::Modifiers::SHIFT, egui::Key::Tab),
                            i.consume_key(egui::Modifiers::NONE, egui::Key::F),
                        )
                    });
                    let count = overlay.limbs.len().max(1);
                    if tab {
                        overlay.picked = Some(overlay.picked.map_or(0, |p| (p + 1) % count));
                    }
                    if back {
                        overlay.picked = Some(
                            overlay
                                .picked
                                .map_or(count - 1, |p| (p + count - 1) % count),
                        );
                    }
                    if f {
                        flip = overlay.picked;
                    }
                }
                ui.painter().image(
                    texture.id(),
                    rect,
                    egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
                    egui::Color32::WHITE,
                );
                let painter = ui.painter_at(rect);
                for (i, (bone, a, b)) in overlay.limbs.iter().enumerate() {
                    let colour = if overlay.flipped.contains(bone) {
                        egui::Color32::from_rgb(255, 150, 40)
                    } else {
                        egui::Color32::from_white_alpha(160)
                    };
                    let width = if overlay.picked == Some(i) { 4.0 } else { 2.0 };
                    painter
                        .line_segment([*a + offset, *b + offset], egui::Stroke::new(width, colour));
                }
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
            if let Some(index) = overlay.picked {
                let bone = overlay.limbs[index].0;
                ui.label(tr!(
                    "files-photo-picked",
                    bone = crate::app::session::names::bone_label(bone)
                ));
            }
            ui.label(tr!("files-photo-flip-hint"));
            ui.label(tr!("files-photo-refine"));
        });
    if let Some(index) = flip {
        match overlay.flip(index, &session.editor.rig) {
            Ok(pose) => {
                edits.write(EditRequest::new(PoseEdit::SetPose(Box::new(pose))));
            }
            Err(refusal) => banner.error(refusal.to_string()),
        }
    }
    if !open {
        photo.overlay = None;
    }
    Ok(())
}
