//! H.264 in MP4: Cisco's OpenH264 (built from source by the `openh264` crate, BSD) encodes
//! yuv420p in BT.601's limited range, signalled in the stream, and the `mp4` crate muxes
//! the samples. 4:2:0 keeps colour at half the size each way, so the picture's sides
//! are made even (a last row or column of background) rather than scaled.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use openh264::encoder::{
    Encoder, EncoderConfig, FrameRate, IntraFramePeriod, QpRange, RateControlMode, VuiConfig,
};
use openh264::formats::{RgbSliceU8, YUVBuffer};

use crate::{
    FilmSettings, FilmWriter, MP4_DEFAULT_BACKGROUND, Refusal, check_frame, even_size, write_whole,
};

/// Samples per second of the track's clock (a whole number of them per frame).
const TICKS_PER_FRAME: u32 = 1000;

/// NAL unit types (H.264 table 7-1).
const NAL_IDR: u8 = 5;
const NAL_SPS: u8 = 7;
const NAL_PPS: u8 = 8;

/// One encoded frame: its NAL units length-prefixed, as MP4 stores them.
struct Sample {
    bytes: Vec<u8>,
    is_sync: bool,
    /// Frames it stands for (a frame the encoder emitted nothing for lengthens the one
    /// before).
    frames: u32,
}

pub(crate) struct Mp4Writer {
    path: PathBuf,
    settings: FilmSettings,
    size: (u32, u32),
    background: [u8; 3],
    encoder: Encoder,
    parameter_sets: Option<(Vec<u8>, Vec<u8>)>,
    samples: Vec<Sample>,
    rgb: Vec<u8>,
}

fn failed(e: impl std::fmt::Display) -> Refusal {
    Refusal::new(format!("the H.264 encoder failed: {e}"))
}

impl Mp4Writer {
    pub(crate) fn new(path: &Path, settings: &FilmSettings) -> Result<Mp4Writer, Refusal> {
        let size = even_size(settings.width, settings.height);
        // A fixed quality (no bitrate to meet, so no frame is ever skipped): QP 20–26
        // keeps the figure's edges clean; the flat backgrounds cost next to nothing.
        let config = EncoderConfig::new()
            .rate_control_mode(RateControlMode::Off)
            .qp(QpRange::new(20, 26))
            .max_frame_rate(FrameRate::from_hz(settings.fps as f32))
            .skip_frames(false)
            // A key frame every two seconds: players can seek.
            .intra_frame_period(IntraFramePeriod::from_num_frames(settings.fps * 2))
            .vui(VuiConfig::bt601());
        let encoder = Encoder::with_api_config(openh264::OpenH264API::from_source(), config)
            .map_err(failed)?;
        Ok(Mp4Writer {
            path: path.to_path_buf(),
            settings: settings.clone(),
            size,
            background: settings.background.unwrap_or(MP4_DEFAULT_BACKGROUND),
            encoder,
            parameter_sets: None,
            samples: Vec::new(),
            rgb: vec![0; size.0 as usize * size.1 as usize * 3],
        })
    }

    /// The frame over the background, as RGB of the even size.
    fn fill_rgb(&mut self, rgba: &[u8]) {
        let (width, height) = (self.settings.width as usize, self.settings.height as usize);
        let stride = self.size.0 as usize;
        for (index, pixel) in self.rgb.chunks_exact_mut(3).enumerate() {
            let (x, y) = (index % stride, index / stride);
            if x >= width || y >= height {
                pixel.copy_from_slice(&self.background);
                continue;
            }
            let source = &rgba[(y * width + x) * 4..][..4];
            let alpha = source[3] as u32;
            for c in 0..3 {
                pixel[c] =
                    ((source[c] as u32 * alpha + self.background[c] as u32 * (255 - alpha) + 127)
                        / 255) as u8;
            }
        }
    }
}

/// The NAL units of an Annex B stream (start codes removed).
fn nal_units(stream: &[u8]) -> Vec<&[u8]> {
    let mut starts = Vec::new();
    let mut i = 0;
    while i + 3 <= stream.len() {
        if stream[i] == 0 && stream[i + 1] == 0 && stream[i + 2] == 1 {
            starts.push(i + 3);
            i += 3;
        } else {
            i += 1;
        }
    }
    starts
        .iter()
        .enumerate()
        .map(|(n, &start)| {
            let mut end = starts.get(n + 1).map_or(stream.len(), |&next| next - 3);
            // A four-byte start code's leading zero belongs to no unit.
            while end > start && n + 1 < starts.len() && stream[end - 1] == 0 {
                end -= 1;
            }
            &stream[start..end]
        })
        .filter(|unit| !unit.is_empty())
        .collect()
}

impl FilmWriter for Mp4Writer {
    fn push(&mut self, rgba: &[u8]) -> Result<(), Refusal> {
        check_frame(rgba, &self.settings)?;
        self.fill_rgb(rgba);
        let (width, height) = (self.size.0 as usize, self.size.1 as usize);
        let yuv = YUVBuffer::from_rgb8_source(RgbSliceU8::new(&self.rgb, (width, height)));
        let stream = self.encoder.encode(&yuv).map_err(failed)?.to_vec();
        let mut bytes = Vec::new();
        let (mut sps, mut pps, mut is_sync) = (None, None, false);
        for unit in nal_units(&stream) {
            match unit[0] & 0x1f {
                NAL_SPS => sps = Some(unit.to_vec()),
                NAL_PPS => pps = Some(unit.to_vec()),
                kind => {
                    is_sync |= kind == NAL_IDR;
                    bytes.extend_from_slice(&(unit.len() as u32).to_be_bytes());
                    bytes.extend_from_slice(unit);
                }
            }
        }
        if let (Some(sps), Some(pps), None) = (sps, pps, &self.parameter_sets) {
            self.parameter_sets = Some((sps, pps));
        }
        match self.samples.last_mut() {
            Some(last) if bytes.is_empty() => last.frames += 1,
            _ if bytes.is_empty() => {
                return Err(Refusal::new(
                    "the H.264 encoder gave nothing for the first frame",
                ));
            }
            _ => self.samples.push(Sample {
                bytes,
                is_sync,
                frames: 1,
            }),
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<PathBuf, Refusal> {
        let Some((sps, pps)) = self.parameter_sets.clone() else {
            return Err(Refusal::new("the H.264 encoder wrote no parameter sets"));
        };
        let config = mp4::Mp4Config {
            major_brand: str::parse("isom").map_err(failed)?,
            minor_version: 512,
            compatible_brands: ["isom", "iso2", "avc1", "mp41"]
                .iter()
                .map(|b| str::parse(b))
                .collect::<Result<_, _>>()
                .map_err(failed)?,
            timescale: 1000,
        };
        let mut writer =
            mp4::Mp4Writer::write_start(Cursor::new(Vec::new()), &config).map_err(failed)?;
        writer
            .add_track(&mp4::TrackConfig {
                track_type: mp4::TrackType::Video,
                timescale: self.settings.fps * TICKS_PER_FRAME,
                language: "und".into(),
                media_conf: mp4::MediaConfig::AvcConfig(mp4::AvcConfig {
                    width: self.size.0 as u16,
                    height: self.size.1 as u16,
                    seq_param_set: sps,
                    pic_param_set: pps,
                }),
            })
            .map_err(failed)?;
        // Each pass starts on the first frame, a key frame that refers to nothing before
        // it, so a repeat is the same samples again.
        let mut start = 0u64;
        for _ in 0..self.settings.loop_count.max(1) {
            for sample in &self.samples {
                let duration = sample.frames * TICKS_PER_FRAME;
                writer
                    .write_sample(
                        1,
                        &mp4::Mp4Sample {
                            start_time: start,
                            duration,
                            rendering_offset: 0,
                            is_sync: sample.is_sync,
                            bytes: bytes::Bytes::copy_from_slice(&sample.bytes),
                        },
                    )
                    .map_err(failed)?;
                start += duration as u64;
            }
        }
        writer.write_end().map_err(failed)?;
        let bytes = writer.into_writer().into_inner();
        write_whole(&self.path, &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annex_b_units_are_split_on_three_and_four_byte_start_codes() {
        let stream = [
            0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 1, 0x65, 4, 5,
        ];
        let units = nal_units(&stream);
        assert_eq!(units, vec![&[0x67, 1, 2][..], &[0x68, 3], &[0x65, 4, 5]]);
    }
}
