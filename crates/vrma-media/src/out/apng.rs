//! Animated PNG with alpha through the `png` crate's own APNG writer: every browser and
//! Pillow play it, and a player without APNG shows the first frame.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::{FilmSettings, FilmWriter, Refusal, check_frame, write_whole};

/// The file's bytes, shared with the encoder that writes them (its `finish` keeps its
/// writer).
#[derive(Clone, Default)]
struct Bytes(Arc<Mutex<Vec<u8>>>);

impl Write for Bytes {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("poisoned"))?
            .extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub(crate) struct ApngWriter {
    path: PathBuf,
    settings: FilmSettings,
    bytes: Bytes,
    writer: png::Writer<Bytes>,
}

fn failed(e: impl std::fmt::Display) -> Refusal {
    Refusal::new(format!("the APNG encoder failed: {e}"))
}

impl ApngWriter {
    pub(crate) fn new(path: &Path, settings: &FilmSettings) -> Result<ApngWriter, Refusal> {
        let bytes = Bytes::default();
        let mut encoder = png::Encoder::new(bytes.clone(), settings.width, settings.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        let frames = u32::try_from(settings.frames).map_err(failed)?;
        encoder
            .set_animated(frames, settings.loop_count)
            .map_err(failed)?;
        let fps = u16::try_from(settings.fps).map_err(failed)?;
        encoder.set_frame_delay(1, fps).map_err(failed)?;
        let writer = encoder.write_header().map_err(failed)?;
        Ok(ApngWriter {
            path: path.to_path_buf(),
            settings: settings.clone(),
            bytes,
            writer,
        })
    }
}

impl FilmWriter for ApngWriter {
    fn push(&mut self, rgba: &[u8]) -> Result<(), Refusal> {
        check_frame(rgba, &self.settings)?;
        let frame = super::with_background(rgba, &self.settings);
        self.writer.write_image_data(&frame).map_err(failed)
    }

    fn finish(self: Box<Self>) -> Result<PathBuf, Refusal> {
        let ApngWriter {
            path,
            bytes,
            writer,
            ..
        } = *self;
        writer.finish().map_err(failed)?;
        let bytes = bytes.0.lock().map_err(failed)?;
        write_whole(&path, &bytes)
    }
}
