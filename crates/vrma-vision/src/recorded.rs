//! A recorded video's frames through the live camera's pipeline (detect, then track
//! from frame to frame), unfiltered: the whole video is smoothed afterwards, looking
//! ahead (`core::capture::offline`). The frames come from the caller (`media::video`
//! for a file), so this crate stays free of codecs.

use std::ops::ControlFlow;

use image::RgbImage;
use vrma_core::Refusal;
use vrma_core::capture::Capture;

use crate::{Found, LiveCapture, PoseModels};

/// What was found in each frame, and when (seconds from the first frame taken).
#[derive(Default)]
pub struct Tracked {
    pub captures: Vec<Option<Capture>>,
    pub times: Vec<f32>,
}

/// Tracks a person through `frames` (each a time in seconds and the picture), `fps`
/// apart, mirrored as a selfie when asked. `on_frame` sees each frame and what was
/// found in it (for progress and a preview); breaking stops the reading: `Ok(None)`.
pub fn track_frames(
    models: &PoseModels,
    frames: impl Iterator<Item = Result<(f32, RgbImage), Refusal>>,
    fps: f32,
    mirror: bool,
    mut on_frame: impl FnMut(usize, &RgbImage, Option<&Found>) -> ControlFlow<()>,
) -> Result<Option<Tracked>, Refusal> {
    let mut live = LiveCapture {
        unfiltered: true,
        mirror,
        ..Default::default()
    };
    let dt = 1.0 / fps.max(1e-3);
    let mut tracked = Tracked::default();
    for frame in frames {
        let (time, picture) = frame?;
        let found = live.next(models, &picture, dt).ok();
        if on_frame(tracked.times.len(), &picture, found.as_ref()).is_break() {
            return Ok(None);
        }
        tracked.captures.push(found.map(|found| found.capture));
        tracked.times.push(time);
    }
    Ok(Some(tracked))
}

/// The frames from `from` seconds to `to` (the end when `None`), their times counted
/// from `from`; reading stops after `to`.
pub fn between(
    frames: impl Iterator<Item = Result<(f32, RgbImage), Refusal>>,
    from: f32,
    to: Option<f32>,
) -> impl Iterator<Item = Result<(f32, RgbImage), Refusal>> {
    const EARLY: f32 = 1e-4; // a frame's time as rounded from its timescale
    frames
        .skip_while(move |frame| matches!(frame, Ok((t, _)) if *t + EARLY < from))
        .take_while(
            move |frame| !matches!(frame, Ok((t, _)) if to.is_some_and(|to| *t > to + EARLY)),
        )
        .map(move |frame| frame.map(|(t, picture)| (t - from, picture)))
}

/// One decoded frame's RGB bytes as a picture.
pub fn picture(width: u32, height: u32, rgb: Vec<u8>) -> Result<RgbImage, Refusal> {
    RgbImage::from_raw(width, height, rgb)
        .ok_or_else(|| Refusal::new(format!("a {width}×{height} frame has the wrong size")))
}
