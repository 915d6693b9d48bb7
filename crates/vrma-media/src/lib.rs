//! Moving pictures: rendered frames written out as an animation a chat app, a browser, a
//! video editor or a phone plays, and a video read back in frame by frame (`video`). The format follows the output's name (`.webp`, `.png`,
//! `.gif`, `.mp4`, or a folder for numbered PNGs), as in `vrma-maker render-anim`.
//!
//! Frames arrive one at a time, as straight-alpha RGBA of the film's size, and are
//! encoded as they come (a long film is never held whole in memory as pixels). Nothing
//! appears at the output until [`FilmWriter::finish`]: the file is written atomically,
//! the folder filled beside it and moved in; a writer dropped unfinished (cancelled,
//! failed) leaves nothing behind.

mod out;
/// Video in (H.264 in MP4 or MOV), frame by frame.
#[cfg(feature = "codecs")]
pub mod video;

use std::path::{Path, PathBuf};

pub use vrma_core::Refusal;

/// What an output's name asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilmFormat {
    /// Animated WebP with alpha (lossless), looping.
    WebP,
    /// Animated PNG with alpha, looping.
    Apng,
    /// GIF: one bit of transparency, a palette per frame with dithering, looping.
    Gif,
    /// H.264 (yuv420p) in MP4 over the background colour: plays everywhere.
    Mp4,
    /// A folder of numbered PNGs with alpha, for video editors and overlays.
    PngSequence,
}

impl FilmFormat {
    /// The format an output path names: its extension, or a folder (a name ending in a
    /// path separator, or an existing folder).
    pub fn of_path(path: &Path) -> Result<FilmFormat, Refusal> {
        let text = path.to_string_lossy();
        if text.ends_with('/') || text.ends_with(std::path::MAIN_SEPARATOR) || path.is_dir() {
            return Ok(FilmFormat::PngSequence);
        }
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match extension.as_deref() {
            Some("webp") => Ok(FilmFormat::WebP),
            Some("png" | "apng") => Ok(FilmFormat::Apng),
            Some("gif") => Ok(FilmFormat::Gif),
            Some("mp4") => Ok(FilmFormat::Mp4),
            _ => Err(Refusal::new(format!(
                "{}: name the output .webp, .png (APNG), .gif or .mp4, or a folder ending in / for a PNG sequence",
                path.display()
            ))),
        }
    }

    /// Whether the format keeps the background transparent.
    pub fn has_alpha(self) -> bool {
        !matches!(self, FilmFormat::Mp4)
    }

    /// Whether the format plays its frames in a loop by itself.
    pub fn loops(self) -> bool {
        matches!(self, FilmFormat::WebP | FilmFormat::Apng | FilmFormat::Gif)
    }

    /// Every format, for the dialog's filters: name and extensions.
    pub const FILTERS: [(&str, &[&str]); 4] = [
        ("Animated WebP", &["webp"]),
        ("Animated PNG", &["png"]),
        ("GIF", &["gif"]),
        ("MP4 (H.264)", &["mp4"]),
    ];
}

/// The most frames a film may have (an hour at 30 fps): a bound a typo in a range or
/// rate meets before any rendering starts.
pub const MAX_FRAMES: usize = 108_000;

/// The largest side of a film, in pixels.
pub const MAX_SIDE: u32 = 4096;

/// The background an MP4 gets when none is asked for (it has no alpha).
pub const MP4_DEFAULT_BACKGROUND: [u8; 3] = [255, 255, 255];

/// What every writer needs before the first frame.
#[derive(Clone, Debug, PartialEq)]
pub struct FilmSettings {
    pub width: u32,
    pub height: u32,
    /// Frames per second (1 to 120).
    pub fps: u32,
    /// Frames that will be pushed (APNG writes the count first).
    pub frames: usize,
    /// Plays for looping formats: 0 for ever. An MP4 repeats its frames this many times.
    pub loop_count: u32,
    /// The colour under the figure; `None` keeps it transparent where the format can.
    pub background: Option<[u8; 3]>,
}

impl FilmSettings {
    /// Checks the settings against the bounds, so a writer never allocates for a
    /// hostile size or count.
    pub fn check(&self) -> Result<(), Refusal> {
        if self.width == 0 || self.height == 0 || self.width > MAX_SIDE || self.height > MAX_SIDE {
            return Err(Refusal::new(format!(
                "the size {}×{} is outside 1 to {MAX_SIDE} pixels a side",
                self.width, self.height
            )));
        }
        if !(1..=120).contains(&self.fps) {
            return Err(Refusal::new(format!(
                "{} frames per second is outside 1 to 120",
                self.fps
            )));
        }
        if self.frames == 0 || self.frames > MAX_FRAMES {
            return Err(Refusal::new(format!(
                "{} frames is outside 1 to {MAX_FRAMES}",
                self.frames
            )));
        }
        if self.loop_count > 1000 {
            return Err(Refusal::new(
                "--loop is at most 1000 plays (0 plays for ever)",
            ));
        }
        Ok(())
    }

    /// Bytes in one frame of straight-alpha RGBA.
    pub fn frame_bytes(&self) -> usize {
        self.width as usize * self.height as usize * 4
    }
}

/// The picture size an MP4 of `width` × `height` gets: each side rounded up to even
/// (4:2:0 keeps colour at half the size each way).
pub fn even_size(width: u32, height: u32) -> (u32, u32) {
    (width + width % 2, height + height % 2)
}

/// Frames in, one animation out.
pub trait FilmWriter {
    /// One frame: straight-alpha RGBA of the film's size, in order.
    fn push(&mut self, rgba: &[u8]) -> Result<(), Refusal>;

    /// Ends the film and puts it at its path; what the file or folder is.
    fn finish(self: Box<Self>) -> Result<PathBuf, Refusal>;
}

/// The format `path` asks for, once the settings suit it and there is a folder to
/// write in: everything checked before a frame is rendered.
pub fn check_output(path: &Path, settings: &FilmSettings) -> Result<FilmFormat, Refusal> {
    settings.check()?;
    let format = FilmFormat::of_path(path)?;
    // Browsers play a delay under 2/100 s as 1/10 s: a faster GIF would crawl.
    if format == FilmFormat::Gif && settings.fps > 50 {
        return Err(Refusal::new(format!(
            "a GIF plays at most 50 frames per second (browsers slow faster ones down): use --fps 50 or less, not {}",
            settings.fps
        )));
    }
    let trimmed = PathBuf::from(path.to_string_lossy().trim_end_matches(['/', '\\']));
    let parent = trimmed.parent().filter(|p| !p.as_os_str().is_empty());
    if parent.is_some_and(|p| !p.is_dir()) {
        return Err(Refusal::new(format!(
            "cannot write {}: its folder does not exist",
            path.display()
        )));
    }
    Ok(format)
}

/// A writer for `path`, in the format its name asks for.
pub fn open(path: &Path, settings: &FilmSettings) -> Result<Box<dyn FilmWriter>, Refusal> {
    let format = check_output(path, settings)?;
    Ok(match format {
        #[cfg(feature = "codecs")]
        FilmFormat::WebP => Box::new(out::webp::WebPWriter::new(path, settings)?),
        #[cfg(feature = "codecs")]
        FilmFormat::Mp4 => Box::new(out::mp4::Mp4Writer::new(path, settings)?),
        #[cfg(not(feature = "codecs"))]
        FilmFormat::WebP | FilmFormat::Mp4 => {
            return Err(Refusal::new(format!(
                "this build has no {format:?} encoder (built without the codecs feature)"
            )));
        }
        FilmFormat::Apng => Box::new(out::apng::ApngWriter::new(path, settings)?),
        FilmFormat::Gif => Box::new(out::gif::GifWriter::new(path, settings)?),
        FilmFormat::PngSequence => Box::new(out::sequence::SequenceWriter::new(path, settings)?),
    })
}

/// Straight-alpha RGBA laid over an opaque colour (alpha becomes 255).
pub fn over_background(rgba: &mut [u8], background: [u8; 3]) {
    for pixel in rgba.chunks_exact_mut(4) {
        let alpha = pixel[3] as u32;
        for (channel, under) in pixel[..3].iter_mut().zip(background) {
            *channel = ((*channel as u32 * alpha + under as u32 * (255 - alpha) + 127) / 255) as u8;
        }
        pixel[3] = 255;
    }
}

/// The frame's size checked before a writer reads it.
fn check_frame(rgba: &[u8], settings: &FilmSettings) -> Result<(), Refusal> {
    if rgba.len() != settings.frame_bytes() {
        return Err(Refusal::new(format!(
            "a frame of {} bytes is not {}×{} RGBA",
            rgba.len(),
            settings.width,
            settings.height
        )));
    }
    Ok(())
}

/// Writes a finished file in one step (no half-written file at the path, ever).
fn write_whole(path: &Path, bytes: &[u8]) -> Result<PathBuf, Refusal> {
    vrma_core::write_atomic(path, bytes)
        .map_err(|e| Refusal::new(format!("cannot write {}: {e}", path.display())))?;
    Ok(path.to_path_buf())
}

#[cfg(test)]
mod tests;
