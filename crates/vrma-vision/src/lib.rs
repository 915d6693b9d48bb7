//! Pose from a picture: MediaPipe's person detector, full-body pose landmark model and
//! hand landmark model (Apache-2.0; converted to ONNX once by `scripts/setup-pose-models`)
//! run on tract, a pure-Rust engine, and read into `vrma_core::capture` landmarks, which
//! the core turns into a pose. The pipeline follows MediaPipe's pose and holistic graphs:
//! detect the person, crop the body upright around the hips, find 33 landmarks (3D, in
//! metres), and crop each visible hand from the body's wrist and knuckles (the holistic
//! way, no palm detector), twice, the second time around the hand's own landmarks.

pub mod crop;
pub mod detector;
pub mod recorded;
pub mod webcam;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::{Vec2, Vec3};
use image::RgbImage;
use tract_onnx::prelude::*;
use vrma_core::Refusal;
use vrma_core::body::smoothing::OneEuroParams;
use vrma_core::capture::{
    BODY_POINTS, BodyLandmarks, CAMERA_SMOOTHING, Capture, CaptureSmoother, HAND_POINTS,
    HandLandmarks, align_limbs_to_picture, body,
};
use vrma_core::model::humanoid::Side;

pub use crop::Roi;

/// The converted models, by file name in the model folder.
pub const DETECTOR_FILE: &str = "pose_detection.onnx";
pub const BODY_FILE: &str = "pose_landmark_full.onnx";
pub const HAND_FILE: &str = "hand_landmark_full.onnx";

/// What to tell a user whose models are missing.
pub const INSTALL_HINT: &str = "install them once with scripts/setup-pose-models \
     (it fetches MediaPipe's Apache-2.0 models from PyPI and converts them)";

/// The largest model file read (the models are 11–13 MB).
const MAX_MODEL_BYTES: u64 = 64 << 20;
/// The largest picture file read, and the largest picture decoded.
pub const MAX_IMAGE_BYTES: u64 = 64 << 20;
pub const MAX_IMAGE_SIDE: u32 = 8192;
pub const MAX_IMAGE_PIXELS: u64 = 40_000_000;

/// The body landmark model's input side, and the hand model's.
const BODY_INPUT: usize = 256;
const HAND_INPUT: usize = 224;
/// Landmarks the body model gives: the 33 of the body and 6 that place the next crop.
const BODY_MODEL_POINTS: usize = 39;
/// The body model's "a person is here" flag must reach this; the hand model's too.
const MIN_PRESENCE: f32 = 0.5;

/// The model folder: `$VRMA_MAKER_POSE_MODELS` when set, else `models/mediapipe` beside
/// the program when it is there (the packaged builds ship them), else
/// `$VRMA_MAKER_DATA_DIR/models/mediapipe`, else the OS user data folder's (where
/// `scripts/setup-pose-models` puts them).
pub fn default_models_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("VRMA_MAKER_POSE_MODELS") {
        return PathBuf::from(dir);
    }
    let shipped = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join("models").join("mediapipe")));
    if let Some(dir) = shipped.filter(|dir| dir.join(DETECTOR_FILE).is_file()) {
        return dir;
    }
    vrma_core::animation::library::data_dir()
        .join("models")
        .join("mediapipe")
}

type Plan = Arc<TypedRunnableModel>;

/// The loaded models, ready to run (any thread; one picture at a time per call).
pub struct PoseModels {
    detector: Plan,
    body: Plan,
    hand: Option<Plan>,
}

/// A person found in a picture: the landmarks for the core, and where they lie in the
/// picture (for the confidence overlay).
#[derive(Clone, Debug)]
pub struct Found {
    pub capture: Capture,
    /// The 33 body landmarks in picture pixels, with their confidence (0–1: the better of
    /// the model's "visible" and "inside the picture").
    pub body_pixels: [Vec2; BODY_POINTS],
    pub visibility: [f32; BODY_POINTS],
    /// Each found hand's 21 landmarks in picture pixels.
    pub hand_pixels: Vec<(Side, [Vec2; HAND_POINTS])>,
    /// The region the body was read from, and the one to read the next frame from.
    pub body_roi: Roi,
    pub next_roi: Roi,
}

fn run_guarded<T>(what: &str, f: impl FnOnce() -> TractResult<T>) -> Result<T, Refusal> {
    // A hostile model file must not take the editor down with it.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(Refusal::new(format!("{what}: {e}"))),
        Err(_) => Err(Refusal::new(format!("{what}: the model could not be run"))),
    }
}

fn load_plan(path: &Path) -> Result<Plan, Refusal> {
    let shown = path.display().to_string();
    if !path.exists() {
        return Err(Refusal::new(format!(
            "the pose model {shown} is missing; {INSTALL_HINT}"
        )));
    }
    let bytes = vrma_core::read_bounded(path, MAX_MODEL_BYTES)?;
    run_guarded(&shown, || {
        tract_onnx::onnx()
            .model_for_read(&mut std::io::Cursor::new(bytes))?
            .into_optimized()?
            .into_runnable()
    })
}

fn run(plan: &Plan, input: Vec<f32>, side: usize, what: &str) -> Result<Vec<Vec<f32>>, Refusal> {
    run_guarded(what, || {
        let tensor =
            tract_ndarray::Array4::from_shape_vec((1, side, side, 3), input)?.into_tensor();
        let outputs = plan.run(tvec!(tensor.into_tvalue()))?;
        outputs
            .iter()
            .map(|o| Ok(o.to_plain_array_view::<f32>()?.iter().copied().collect()))
            .collect()
    })
}

/// The output of `outputs` that has `len` numbers (the models' outputs differ in size).
fn output(outputs: &[Vec<f32>], len: usize, what: &str) -> Result<Vec<f32>, Refusal> {
    outputs
        .iter()
        .find(|o| o.len() == len)
        .cloned()
        .ok_or_else(|| Refusal::new(format!("{what}: the model gave no output of {len} numbers")))
}

/// World landmarks (x, y, z triples, metres) as the model gave them for a turned crop,
/// turned back upright: they turn with the crop about the camera's axis.
fn turned_back<const N: usize>(roi: &Roi, world: &[f32]) -> [Vec3; N] {
    let turn = Vec2::from_angle(roi.rotation);
    std::array::from_fn(|i| {
        let xy = turn.rotate(Vec2::new(world[i * 3], world[i * 3 + 1]));
        Vec3::new(xy.x, xy.y, world[i * 3 + 2])
    })
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x.clamp(-100.0, 100.0)).exp())
}

impl PoseModels {
    /// Loads the models from `dir` (the hand model only when `hands`), or says which is
    /// missing and how to install them.
    pub fn load(dir: &Path, hands: bool) -> Result<PoseModels, Refusal> {
        if !dir.join(DETECTOR_FILE).is_file() {
            return Err(Refusal::new(format!(
                "the pose models are not installed in {}; {INSTALL_HINT}",
                dir.display()
            )));
        }
        Ok(PoseModels {
            detector: load_plan(&dir.join(DETECTOR_FILE))?,
            body: load_plan(&dir.join(BODY_FILE))?,
            hand: if hands {
                Some(load_plan(&dir.join(HAND_FILE))?)
            } else {
                None
            },
        })
    }

    /// Whether the hand model is loaded.
    pub fn has_hands(&self) -> bool {
        self.hand.is_some()
    }

    /// The person in `image` (the most confident one), with hands when the hand model is
    /// loaded. `track` is the region the last frame gave (`Found::next_roi`): it skips
    /// the detector, as live tracking does; a lost track falls back to detecting.
    pub fn find(&self, image: &RgbImage, track: Option<Roi>) -> Result<Found, Refusal> {
        if let Some(roi) = track.filter(Roi::is_usable)
            && let Ok(found) = self.read_body(image, roi)
        {
            return Ok(found);
        }
        let roi = self.detect(image)?;
        self.read_body(image, roi)
    }

    /// The detector: the region to read the body from.
    fn detect(&self, image: &RgbImage) -> Result<Roi, Refusal> {
        let whole = Roi::whole(image.width(), image.height());
        let input = crop::crop(image, &whole, detector::INPUT, (-1.0, 1.0));
        let outputs = run(
            &self.detector,
            input,
            detector::INPUT,
            "the person detector",
        )?;
        let boxes = output(
            &outputs,
            detector::ANCHORS * detector::VALUES,
            "the person detector",
        )?;
        let scores = output(&outputs, detector::ANCHORS, "the person detector")?;
        let person = detector::best_person(&boxes, &scores)
            .ok_or_else(|| Refusal::new("no person was found in the picture"))?;
        let [hips, scale, ..] = person.keypoints.map(|k| whole.to_image(k));
        body_roi(hips, scale).ok_or_else(|| Refusal::new("no person was found in the picture"))
    }

    fn read_body(&self, image: &RgbImage, roi: Roi) -> Result<Found, Refusal> {
        let input = crop::crop(image, &roi, BODY_INPUT, (0.0, 1.0));
        let outputs = run(&self.body, input, BODY_INPUT, "the body landmark model")?;
        let screen = output(&outputs, BODY_MODEL_POINTS * 5, "the body landmark model")?;
        let flag = output(&outputs, 1, "the body landmark model")?[0];
        let world = output(&outputs, BODY_MODEL_POINTS * 3, "the body landmark model")?;
        if flag.is_nan() || flag < MIN_PRESENCE {
            return Err(Refusal::new("no person was found in the picture"));
        }
        let pixel = |i: usize| {
            roi.to_image(Vec2::new(screen[i * 5], screen[i * 5 + 1]) / BODY_INPUT as f32)
        };
        let body_pixels: [Vec2; BODY_POINTS] = std::array::from_fn(pixel);
        // Seen, or at least inside the picture (an occluded joint's place is still
        // estimated from the body around it): the better of the two.
        let mut visibility: [f32; BODY_POINTS] =
            std::array::from_fn(|i| sigmoid(screen[i * 5 + 3]).max(sigmoid(screen[i * 5 + 4])));
        // A joint outside the picture was guessed, not seen (the hips excepted: a
        // half-length picture's torso needs them, and its legs stay as they were).
        let (w, h) = (image.width() as f32, image.height() as f32);
        let margin = 0.02 * w.max(h);
        for (i, p) in body_pixels.iter().enumerate() {
            let outside = p.x < -margin || p.y < -margin || p.x > w + margin || p.y > h + margin;
            if outside && i != body::LEFT_HIP && i != body::RIGHT_HIP {
                visibility[i] = 0.0;
            }
        }
        // World landmarks are metres about the hips.
        let points: [Vec3; BODY_POINTS] = turned_back(&roi, &world);
        if body_pixels.iter().any(|p| !p.is_finite()) || points.iter().any(|p| !p.is_finite()) {
            return Err(Refusal::new(
                "the body landmark model gave no usable landmarks",
            ));
        }
        // The model's own landmarks 33 and 34 place the next frame's crop.
        let next_roi = body_roi(pixel(33), pixel(34)).unwrap_or(roi);
        let mut body = BodyLandmarks { points, visibility };
        align_limbs_to_picture(&mut body, &body_pixels);
        let mut capture = Capture {
            body: Some(body),
            hands: Vec::new(),
        };
        let mut hand_pixels = Vec::new();
        if let Some(hand) = &self.hand {
            for side in Side::BOTH {
                if let Some((landmarks, pixels)) =
                    read_hand(hand, image, side, &body_pixels, &visibility)?
                {
                    capture.hands.push(landmarks);
                    hand_pixels.push((side, pixels));
                }
            }
        }
        Ok(Found {
            capture,
            body_pixels,
            visibility,
            hand_pixels,
            body_roi: roi,
            next_roi,
        })
    }
}

/// The body's crop from the hips' middle and the detector's scale point (MediaPipe:
/// twice their distance across, then 1.25 × that).
fn body_roi(hips: Vec2, scale: Vec2) -> Option<Roi> {
    let size = 2.0 * hips.distance(scale) * 1.25;
    let roi = Roi::aligned(hips, size, hips, scale);
    roi.is_usable().then_some(roi)
}

/// The hand's crop from the body's wrist, index and little-finger knuckles (MediaPipe's
/// holistic graph: centred on the middle knuckle, estimated as two thirds of the way
/// from the little finger to the index, twice its distance from the wrist, × 2.7).
fn hand_roi_from_body(wrist: Vec2, index: Vec2, pinky: Vec2) -> Option<Roi> {
    let middle = (index * 2.0 + pinky) / 3.0;
    let roi =
        Roi::aligned(middle, 2.0 * wrist.distance(middle), wrist, middle).transformed(2.7, 0.1);
    roi.is_usable().then_some(roi)
}

/// The hand's crop from its own landmarks (MediaPipe's hand tracking: turned from the
/// wrist to the middle of the index, middle and ring fingers' second joints, around the
/// palm and finger bases, × 2, shifted a tenth towards the fingers).
fn hand_roi_from_landmarks(points: &[Vec2; HAND_POINTS]) -> Option<Roi> {
    let wrist = points[0];
    let toward = ((points[6] + points[14]) * 0.5 + points[10]) * 0.5;
    let rotation = Roi::aligned(wrist, 1.0, wrist, toward).rotation;
    let turn = Vec2::from_angle(-rotation);
    let palm = [0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18];
    let local: Vec<Vec2> = palm.iter().map(|&i| turn.rotate(points[i])).collect();
    let (lo, hi) = local.iter().fold((Vec2::MAX, Vec2::MIN), |(lo, hi), p| {
        (lo.min(*p), hi.max(*p))
    });
    let center = Vec2::from_angle(rotation).rotate((lo + hi) * 0.5);
    let extent = hi - lo;
    let roi = Roi {
        center,
        size: extent.max_element(),
        rotation,
    }
    .transformed(2.0, 0.1);
    roi.is_usable().then_some(roi)
}

/// One hand's landmarks, when the body shows its wrist and knuckles and the hand model
/// agrees a hand is there.
fn read_hand(
    plan: &Plan,
    image: &RgbImage,
    side: Side,
    body_pixels: &[Vec2; BODY_POINTS],
    visibility: &[f32; BODY_POINTS],
) -> Result<Option<(HandLandmarks, [Vec2; HAND_POINTS])>, Refusal> {
    use body::*;
    let [wrist, index, pinky] = match side {
        Side::Left => [LEFT_WRIST, LEFT_INDEX, LEFT_PINKY],
        Side::Right => [RIGHT_WRIST, RIGHT_INDEX, RIGHT_PINKY],
    };
    if [wrist, index, pinky]
        .iter()
        .any(|&i| visibility[i] < vrma_core::capture::MIN_VISIBILITY)
    {
        return Ok(None);
    }
    let Some(mut roi) =
        hand_roi_from_body(body_pixels[wrist], body_pixels[index], body_pixels[pinky])
    else {
        return Ok(None);
    };
    let mut best = None;
    // Twice: the second crop is placed by the first pass's own landmarks.
    for _ in 0..2 {
        let input = crop::crop(image, &roi, HAND_INPUT, (0.0, 1.0));
        let outputs = run(plan, input, HAND_INPUT, "the hand landmark model")?;
        let screen = outputs.first().filter(|s| s.len() == HAND_POINTS * 3);
        let world = outputs.get(3).filter(|w| w.len() == HAND_POINTS * 3);
        let presence = outputs
            .get(1)
            .and_then(|p| p.first())
            .copied()
            .unwrap_or(0.0);
        let (Some(screen), Some(world)) = (screen, world) else {
            return Err(Refusal::new(
                "the hand landmark model gave outputs of unexpected sizes",
            ));
        };
        if presence.is_nan() || presence < MIN_PRESENCE {
            break;
        }
        let pixels: [Vec2; HAND_POINTS] = std::array::from_fn(|i| {
            roi.to_image(Vec2::new(screen[i * 3], screen[i * 3 + 1]) / HAND_INPUT as f32)
        });
        let points: [Vec3; HAND_POINTS] = turned_back(&roi, world);
        if pixels.iter().any(|p| !p.is_finite()) || points.iter().any(|p| !p.is_finite()) {
            break;
        }
        best = Some((
            HandLandmarks {
                side,
                points,
                score: presence,
            },
            pixels,
        ));
        match hand_roi_from_landmarks(&pixels) {
            Some(next) => roi = next,
            None => break,
        }
    }
    Ok(best)
}

/// How far a live track may wander from the detector's last crop, as a share of its
/// size: its centre that far, its size that much larger or smaller.
const TRACK_LEASH: f32 = 0.1;

/// Live tracking (a webcam, or a folder of frames standing in for one): each frame read
/// from the crop the last one gave, its landmarks smoothed by the One Euro filter VR
/// uses (seed 003: at the landmarks, not the bones), mirrored when asked.
pub struct LiveCapture {
    track: Option<Roi>,
    /// Where the person detector last put the body: the track may not wander far from
    /// it (see `TRACK_LEASH`).
    detected: Option<Roi>,
    smoother: CaptureSmoother,
    pub params: OneEuroParams,
    /// Off: each frame's landmarks as found (to compare, and for tests).
    pub unfiltered: bool,
    /// A selfie view: the avatar moves as the user's reflection.
    pub mirror: bool,
}

impl Default for LiveCapture {
    fn default() -> LiveCapture {
        LiveCapture {
            track: None,
            detected: None,
            smoother: CaptureSmoother::default(),
            params: CAMERA_SMOOTHING,
            unfiltered: false,
            mirror: false,
        }
    }
}

impl LiveCapture {
    /// The person in the next frame, `dt` seconds after the last. Losing the person
    /// starts the filter and the track afresh.
    pub fn next(
        &mut self,
        models: &PoseModels,
        frame: &RgbImage,
        dt: f32,
    ) -> Result<Found, Refusal> {
        // Each frame's crop comes from the last frame's landmarks, a loop that can drift:
        // a half-length picture's crop grows round the missing legs until the model
        // invents them (a knee on a helmet held by the hips). A track that has wandered
        // from where the detector last saw the body is detected afresh.
        let track = self.track.filter(|track| {
            self.detected
                .is_some_and(|detected| track.is_near(&detected, TRACK_LEASH))
        });
        let mut found = match models.find(frame, track) {
            Ok(found) => found,
            Err(refusal) => {
                self.track = None;
                self.detected = None;
                self.smoother = CaptureSmoother::default();
                return Err(refusal);
            }
        };
        if Some(found.body_roi) != track {
            self.detected = Some(found.body_roi);
        }
        self.track = Some(found.next_roi);
        if self.mirror {
            found.capture = found.capture.mirrored();
        }
        if !self.unfiltered {
            found.capture = self.smoother.filter(&found.capture, dt, &self.params);
        }
        Ok(found)
    }
}

/// The most frames a folder may stand in with (an hour at 30 frames a second).
pub const MAX_FRAMES: usize = 108_000;

/// The pictures of a folder of frames, in name order (PNG or JPEG).
pub fn frame_files(dir: &Path) -> Result<Vec<PathBuf>, Refusal> {
    let shown = dir.display();
    let entries = std::fs::read_dir(dir).map_err(|e| Refusal::new(format!("{shown}: {e}")))?;
    let mut frames = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let is_picture = path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
            ["png", "jpg", "jpeg"]
                .iter()
                .any(|p| p.eq_ignore_ascii_case(e))
        });
        if is_picture && path.is_file() {
            frames.push(path);
            if frames.len() > MAX_FRAMES {
                return Err(Refusal::new(format!(
                    "{shown} holds more than {MAX_FRAMES} frames"
                )));
            }
        }
    }
    if frames.is_empty() {
        return Err(Refusal::new(format!("{shown} holds no PNG or JPEG frames")));
    }
    frames.sort();
    Ok(frames)
}

/// Reads a picture file, refusing a file or picture too big before decoding it.
pub fn read_image(path: &Path) -> Result<RgbImage, Refusal> {
    let bytes = vrma_core::read_bounded(path, MAX_IMAGE_BYTES)?;
    decode_image(&bytes).map_err(|r| r.context(path.display()))
}

/// Decodes a PNG or JPEG picture, checking its size from the header first (a hostile
/// header cannot make it allocate gigabytes).
pub fn decode_image(bytes: &[u8]) -> Result<RgbImage, Refusal> {
    use image::ImageReader;
    let reader = || {
        ImageReader::new(std::io::Cursor::new(bytes))
            .with_guessed_format()
            .map_err(|e| Refusal::new(format!("not a picture: {e}")))
    };
    let first = reader()?;
    if first.format().is_none() {
        return Err(Refusal::new("not a picture this reads (PNG or JPEG)"));
    }
    let (w, h) = first
        .into_dimensions()
        .map_err(|e| Refusal::new(format!("not a readable picture: {e}")))?;
    if w == 0
        || h == 0
        || w > MAX_IMAGE_SIDE
        || h > MAX_IMAGE_SIDE
        || u64::from(w) * u64::from(h) > MAX_IMAGE_PIXELS
    {
        return Err(Refusal::new(format!(
            "the picture is {w} × {h} pixels; up to {MAX_IMAGE_SIDE} a side and {MAX_IMAGE_PIXELS} pixels are read"
        )));
    }
    let mut decoder = reader()?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    limits.max_alloc = Some(MAX_IMAGE_PIXELS * 8);
    decoder.limits(limits);
    let image = decoder
        .decode()
        .map_err(|e| Refusal::new(format!("the picture could not be decoded: {e}")))?;
    Ok(image.to_rgb8())
}

/// Crafted pictures for the tests of the size limits (here and through the CLI).
#[doc(hidden)]
pub mod crafted {
    /// A PNG whose valid header claims `width` × `height` pixels, with no pixels behind.
    pub fn png_header(width: u32, height: u32) -> Vec<u8> {
        let mut header = b"IHDR".to_vec();
        header.extend_from_slice(&width.to_be_bytes());
        header.extend_from_slice(&height.to_be_bytes());
        header.extend_from_slice(&[8, 2, 0, 0, 0]);
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0d".to_vec();
        png.extend_from_slice(&header);
        png.extend_from_slice(&crc32(&header).to_be_bytes());
        // An empty data chunk: the header is all a reader sees before deciding.
        png.extend_from_slice(b"\0\0\0\0IDAT");
        png.extend_from_slice(&crc32(b"IDAT").to_be_bytes());
        png
    }

    /// `picture` as a webcam's Motion-JPEG frame: a baseline JPEG without its Huffman
    /// tables (a webcam leaves the standard ones implied) and without a JFIF header.
    pub fn mjpeg_frame(picture: &image::RgbImage, quality: u8) -> Vec<u8> {
        let mut jpeg = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, quality)
            .encode_image(picture)
            .expect("a picture in memory encodes");
        let mut frame = jpeg[..2].to_vec();
        let mut at = 2;
        // Segments up to the scan: each marker, its length, its body.
        while jpeg[at + 1] != 0xDA {
            let length = usize::from(u16::from_be_bytes([jpeg[at + 2], jpeg[at + 3]]));
            if !matches!(jpeg[at + 1], 0xC4 | 0xE0) {
                frame.extend_from_slice(&jpeg[at..at + 2 + length]);
            }
            at += 2 + length;
        }
        frame.extend_from_slice(&jpeg[at..]);
        frame
    }

    /// PNG's chunk checksum (a header must pass it to be read at all).
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrupt_empty_and_huge_pictures_are_refused_before_decoding() {
        assert!(decode_image(b"").is_err());
        assert!(
            decode_image(b"not a picture at all")
                .unwrap_err()
                .0
                .contains("picture")
        );
        // A PNG header claiming 100,000 × 100,000 pixels, and nothing behind it.
        let png = crafted::png_header(100_000, 100_000);
        let refused = decode_image(&png).unwrap_err();
        assert!(refused.0.contains("100000 × 100000"), "{refused}");
        // A real small picture reads.
        let mut bytes = Vec::new();
        image::RgbImage::from_pixel(3, 2, image::Rgb([9, 8, 7]))
            .write_to(
                &mut std::io::Cursor::new(&mut bytes),
                image::ImageFormat::Png,
            )
            .unwrap();
        let read = decode_image(&bytes).unwrap();
        assert_eq!(
            (read.width(), read.height(), read.get_pixel(2, 1).0),
            (3, 2, [9, 8, 7])
        );
    }

    #[test]
    fn webcam_motion_jpeg_frames_read_without_their_huffman_tables() {
        let picture = image::RgbImage::from_fn(64, 48, |x, y| {
            image::Rgb([(x * 4) as u8, (y * 5) as u8, if x < 32 { 200 } else { 30 }])
        });
        let frame = crafted::mjpeg_frame(&picture, 90);
        // As a webcam sends it, a JPEG reader cannot: the tables are missing.
        assert!(decode_image(&frame).is_err());
        let read = webcam::mjpeg_to_rgb(&frame).unwrap();
        assert_eq!(read.dimensions(), picture.dimensions());
        let worst = read
            .pixels()
            .zip(picture.pixels())
            .flat_map(|(a, b)| (0..3).map(move |c| a.0[c].abs_diff(b.0[c])))
            .max()
            .unwrap();
        assert!(worst <= 24, "differs by {worst} levels");
        // A complete JPEG passes unchanged.
        let mut whole = Vec::new();
        image::codecs::jpeg::JpegEncoder::new(&mut whole)
            .encode_image(&picture)
            .unwrap();
        assert!(matches!(
            webcam::as_jpeg(&whole),
            std::borrow::Cow::Borrowed(_)
        ));
        // Cut short or garbage: refused, never a panic.
        let cut_off = webcam::mjpeg_to_rgb(&frame[..frame.len() / 3]).unwrap_err();
        assert!(cut_off.0.contains("cut off"), "{cut_off}");
        assert!(webcam::mjpeg_to_rgb(&[0xFF, 0xD8, 0xFF, 0xD9]).is_err());
        assert!(webcam::mjpeg_to_rgb(&[0xFF, 0xD9, 0xFF, 0xD8, 0xFF]).is_err());
    }

    #[test]
    fn missing_models_say_how_to_install_them() {
        let refused = PoseModels::load(Path::new("/nonexistent/models"), true)
            .err()
            .unwrap();
        assert!(refused.0.contains("setup-pose-models"), "{refused}");
    }

    #[test]
    fn hand_crops_centre_on_the_knuckles_and_point_along_the_hand() {
        // A hand pointing right: wrist at the origin, knuckles 10 px to the right.
        let roi =
            hand_roi_from_body(Vec2::ZERO, Vec2::new(10.0, -3.0), Vec2::new(10.0, 6.0)).unwrap();
        assert!(
            (roi.rotation - std::f32::consts::FRAC_PI_2).abs() < 1e-5,
            "{roi:?}"
        );
        assert!((roi.size - 2.7 * 20.0).abs() < 1e-3);
        // Shifted a tenth of the first box towards the fingers.
        assert!(
            (roi.center - Vec2::new(12.0, 0.0)).length() < 1e-3,
            "{roi:?}"
        );
    }
}
