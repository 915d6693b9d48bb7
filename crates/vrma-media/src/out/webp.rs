//! Animated WebP with alpha through libwebp's own animation encoder (`webp-animation`):
//! lossless, so a sticker keeps its edges. libwebp merges a frame identical to the one
//! before into that frame's duration: the film plays the same, with fewer frames stored.

use std::path::{Path, PathBuf};

use webp_animation::{AnimParams, Encoder, EncoderOptions, EncodingConfig, EncodingType};

use crate::{FilmSettings, FilmWriter, Refusal, check_frame, write_whole};

pub(crate) struct WebPWriter {
    path: PathBuf,
    settings: FilmSettings,
    encoder: Encoder,
    pushed: usize,
}

fn failed(e: impl std::fmt::Debug) -> Refusal {
    Refusal::new(format!("the WebP encoder failed: {e:?}"))
}

impl WebPWriter {
    pub(crate) fn new(path: &Path, settings: &FilmSettings) -> Result<WebPWriter, Refusal> {
        let options = EncoderOptions {
            anim_params: AnimParams {
                loop_count: settings.loop_count as i32,
            },
            encoding_config: Some(EncodingConfig {
                encoding_type: EncodingType::Lossless,
                // Effort, for lossless: low is fast with files a little larger.
                quality: 20.0,
                method: 1,
            }),
            ..Default::default()
        };
        let encoder = Encoder::new_with_options((settings.width, settings.height), options)
            .map_err(failed)?;
        Ok(WebPWriter {
            path: path.to_path_buf(),
            settings: settings.clone(),
            encoder,
            pushed: 0,
        })
    }

    fn milliseconds(&self, frame: usize) -> i32 {
        super::frame_start(frame, self.settings.fps, 1000) as i32
    }
}

impl FilmWriter for WebPWriter {
    fn push(&mut self, rgba: &[u8]) -> Result<(), Refusal> {
        check_frame(rgba, &self.settings)?;
        let frame = super::with_background(rgba, &self.settings);
        let at = self.milliseconds(self.pushed);
        self.encoder.add_frame(&frame, at).map_err(failed)?;
        self.pushed += 1;
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<PathBuf, Refusal> {
        let end = self.milliseconds(self.pushed);
        let data = self.encoder.finalize(end).map_err(failed)?;
        write_whole(&self.path, &data)
    }
}
