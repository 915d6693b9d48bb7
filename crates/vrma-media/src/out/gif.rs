//! GIF through the `gif` crate: each frame gets its own 255-colour palette (NeuQuant, by
//! `color_quant`, over the figure's pixels only) and Floyd–Steinberg dithering (the gif
//! crate's own frame maker does not dither, and banding shows on shaded skin); one index
//! is kept for transparency, which GIF has as one bit: a pixel at least half covered is
//! the figure. A palette per frame, not one for the film: frames arrive one at a time
//! and a figure moving into new colours keeps its own.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use color_quant::NeuQuant;

use crate::{FilmSettings, FilmWriter, Refusal, check_frame, write_whole};

/// The palette index of a transparent pixel.
const TRANSPARENT: u8 = 255;

/// Covered at least this much (of 255), a pixel is drawn.
const ALPHA_CUT: u8 = 128;

/// NeuQuant samples every n-th pixel: 10 is its own balance of speed and quality.
const SAMPLE_FACTOR: i32 = 10;

pub(crate) struct GifWriter {
    path: PathBuf,
    settings: FilmSettings,
    encoder: gif::Encoder<Vec<u8>>,
    pushed: usize,
}

fn failed(e: impl std::fmt::Display) -> Refusal {
    Refusal::new(format!("the GIF encoder failed: {e}"))
}

impl GifWriter {
    pub(crate) fn new(path: &Path, settings: &FilmSettings) -> Result<GifWriter, Refusal> {
        let mut encoder = gif::Encoder::new(
            Vec::new(),
            settings.width as u16,
            settings.height as u16,
            &[],
        )
        .map_err(failed)?;
        // The loop extension counts repeats after the first play; none plays once.
        match settings.loop_count {
            0 => encoder.set_repeat(gif::Repeat::Infinite).map_err(failed)?,
            1 => {}
            plays => encoder
                .set_repeat(gif::Repeat::Finite((plays - 1).min(u16::MAX as u32) as u16))
                .map_err(failed)?,
        }
        Ok(GifWriter {
            path: path.to_path_buf(),
            settings: settings.clone(),
            encoder,
            pushed: 0,
        })
    }
}

impl FilmWriter for GifWriter {
    fn push(&mut self, rgba: &[u8]) -> Result<(), Refusal> {
        check_frame(rgba, &self.settings)?;
        let rgba = super::with_background(rgba, &self.settings);
        let (palette, indices) = dithered_frame(
            &rgba,
            self.settings.width as usize,
            self.settings.height as usize,
        );
        let start = super::frame_start(self.pushed, self.settings.fps, 100);
        let end = super::frame_start(self.pushed + 1, self.settings.fps, 100);
        let frame = gif::Frame {
            width: self.settings.width as u16,
            height: self.settings.height as u16,
            buffer: Cow::Owned(indices),
            palette: Some(palette),
            transparent: Some(TRANSPARENT),
            // Cleared before the next frame: a transparent pixel shows what is behind the
            // GIF, never the last frame's figure.
            dispose: gif::DisposalMethod::Background,
            delay: (end - start) as u16,
            ..gif::Frame::default()
        };
        self.encoder.write_frame(&frame).map_err(failed)?;
        self.pushed += 1;
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<PathBuf, Refusal> {
        let bytes = self.encoder.into_inner().map_err(failed)?;
        write_whole(&self.path, &bytes)
    }
}

/// One frame as a palette (256 RGB entries, the last one for transparency) and an index
/// per pixel, the drawn pixels dithered.
pub(crate) fn dithered_frame(rgba: &[u8], width: usize, height: usize) -> (Vec<u8>, Vec<u8>) {
    let drawn: Vec<u8> = rgba
        .chunks_exact(4)
        .filter(|p| p[3] >= ALPHA_CUT)
        .flat_map(|p| [p[0], p[1], p[2], 255])
        .collect();
    let mut indices = vec![TRANSPARENT; width * height];
    if drawn.is_empty() {
        return (vec![0; 256 * 3], indices);
    }
    let quantizer = NeuQuant::new(SAMPLE_FACTOR, 255, &drawn);
    let mut palette = quantizer.color_map_rgb();
    palette.resize(256 * 3, 0);
    // Floyd–Steinberg: this row's and the next row's carried error, per channel.
    let mut carried = vec![[0f32; 3]; width + 2];
    let mut next = vec![[0f32; 3]; width + 2];
    for y in 0..height {
        for x in 0..width {
            let pixel = &rgba[(y * width + x) * 4..][..4];
            if pixel[3] < ALPHA_CUT {
                continue; // not drawn: no colour, and no error spread from or into it
            }
            let wanted: [f32; 3] =
                std::array::from_fn(|c| (pixel[c] as f32 + carried[x + 1][c]).clamp(0.0, 255.0));
            let probe = [wanted[0] as u8, wanted[1] as u8, wanted[2] as u8, 255];
            let index = quantizer.index_of(&probe).min(254);
            indices[y * width + x] = index as u8;
            let got = &palette[index * 3..][..3];
            for c in 0..3 {
                let error = wanted[c] - got[c] as f32;
                carried[x + 2][c] += error * 7.0 / 16.0;
                next[x][c] += error * 3.0 / 16.0;
                next[x + 1][c] += error * 5.0 / 16.0;
                next[x + 2][c] += error / 16.0;
            }
        }
        std::mem::swap(&mut carried, &mut next);
        next.iter_mut().for_each(|e| *e = [0.0; 3]);
    }
    (palette, indices)
}
