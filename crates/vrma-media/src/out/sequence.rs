//! A numbered PNG sequence (`frame_0001.png`, …) with alpha, for a video editor or a
//! VTuber overlay. The frames are written into a hidden folder beside the output and
//! moved in once all are done, so a cancelled film leaves no half sequence.

use std::path::{Path, PathBuf};

use crate::{FilmSettings, FilmWriter, Refusal, check_frame};

pub(crate) struct SequenceWriter {
    folder: PathBuf,
    staging: PathBuf,
    settings: FilmSettings,
    pushed: usize,
    digits: usize,
    finished: bool,
}

fn cannot(path: &Path, e: impl std::fmt::Display) -> Refusal {
    Refusal::new(format!("cannot write {}: {e}", path.display()))
}

impl SequenceWriter {
    pub(crate) fn new(folder: &Path, settings: &FilmSettings) -> Result<SequenceWriter, Refusal> {
        let folder = PathBuf::from(folder.to_string_lossy().trim_end_matches(['/', '\\']));
        let name = folder
            .file_name()
            .ok_or_else(|| Refusal::new(format!("{}: name the folder", folder.display())))?
            .to_string_lossy()
            .into_owned();
        let parent = match folder.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !parent.is_dir() {
            return Err(cannot(&folder, "its parent folder does not exist"));
        }
        let staging = parent.join(format!(".{name}.partial-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&staging);
        std::fs::create_dir(&staging).map_err(|e| cannot(&staging, e))?;
        Ok(SequenceWriter {
            folder,
            staging,
            settings: settings.clone(),
            pushed: 0,
            digits: settings.frames.to_string().len().max(4),
            finished: false,
        })
    }

    fn name(&self, index: usize) -> String {
        format!("frame_{:0width$}.png", index + 1, width = self.digits)
    }
}

impl FilmWriter for SequenceWriter {
    fn push(&mut self, rgba: &[u8]) -> Result<(), Refusal> {
        check_frame(rgba, &self.settings)?;
        let frame = super::with_background(rgba, &self.settings);
        let path = self.staging.join(self.name(self.pushed));
        let mut bytes = Vec::new();
        {
            let mut encoder =
                png::Encoder::new(&mut bytes, self.settings.width, self.settings.height);
            encoder.set_color(png::ColorType::Rgba);
            encoder.set_depth(png::BitDepth::Eight);
            encoder.set_compression(png::Compression::Fast);
            let mut writer = encoder.write_header().map_err(|e| cannot(&path, e))?;
            writer
                .write_image_data(&frame)
                .map_err(|e| cannot(&path, e))?;
            writer.finish().map_err(|e| cannot(&path, e))?;
        }
        std::fs::write(&path, bytes).map_err(|e| cannot(&path, e))?;
        self.pushed += 1;
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<PathBuf, Refusal> {
        if !self.folder.exists() {
            std::fs::rename(&self.staging, &self.folder).map_err(|e| cannot(&self.folder, e))?;
        } else {
            // Into a folder that is there already: each frame replaces its namesake.
            for index in 0..self.pushed {
                let name = self.name(index);
                std::fs::rename(self.staging.join(&name), self.folder.join(&name))
                    .map_err(|e| cannot(&self.folder.join(&name), e))?;
            }
            let _ = std::fs::remove_dir_all(&self.staging);
        }
        self.finished = true;
        Ok(self.folder.clone())
    }
}

impl Drop for SequenceWriter {
    fn drop(&mut self) {
        if !self.finished {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}
