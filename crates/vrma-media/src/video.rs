//! Video in: H.264 in MP4 or MOV, demuxed by the `mp4` crate and decoded by OpenH264 in
//! process (no program to install), frame by frame as RGB. Everything a hostile file
//! claims is bounded before it is allocated or decoded: the file's size, the picture's
//! sides, the frame count, each frame's bytes. Any other codec is refused with what to
//! do (a phone's HEVC video saved again as H.264).

use std::io::{Read, Seek};
use std::path::Path;

use openh264::decoder::{Decoder, DecoderConfig, Flush};
use openh264::formats::YUVSource;

use crate::Refusal;

/// The largest video file read (4 GiB).
pub const MAX_VIDEO_BYTES: u64 = 4 << 30;

/// The most frames a video may have (30 minutes at 30 fps).
pub const MAX_VIDEO_FRAMES: u32 = 54_000;

/// The largest side of a video picture.
pub const MAX_VIDEO_SIDE: u32 = 4096;

/// The most bytes one encoded frame may have.
const MAX_SAMPLE_BYTES: u32 = 32 << 20;

/// What a video holds, read from its header.
#[derive(Clone, Debug, PartialEq)]
pub struct VideoInfo {
    pub width: u32,
    pub height: u32,
    pub frames: u32,
    /// Frames per second (the track's average).
    pub fps: f64,
}

/// One decoded picture.
pub struct VideoFrame {
    /// In display order, from 0.
    pub index: u32,
    /// Seconds from the start (`index / fps`).
    pub time: f64,
    pub width: u32,
    pub height: u32,
    /// RGB, 3 bytes a pixel, rows top to bottom.
    pub rgb: Vec<u8>,
}

/// Where one encoded frame lies in the file.
#[derive(Clone, Copy, Debug)]
struct Sample {
    offset: u64,
    size: u32,
    is_sync: bool,
}

/// A video being read.
pub struct VideoReader<R: Read + Seek> {
    reader: R,
    /// Every frame's place, from the sample tables (checked here: the `mp4` crate's own
    /// sample reading divides by what a hostile file may set to zero).
    samples: Vec<Sample>,
    info: VideoInfo,
    /// The parameter sets as Annex B, put before each key frame.
    parameter_sets: Vec<u8>,
    length_size: usize,
    decoder: Decoder,
    /// The next sample to decode (1-based, as MP4 counts them).
    next_sample: u32,
    /// Frames handed out.
    given: u32,
    /// Frames the decoder gave once the samples ran out.
    flushed: Vec<VideoFrame>,
    done: bool,
}

fn refused(path: &str, e: impl std::fmt::Display) -> Refusal {
    Refusal::new(format!("{path}: {e}"))
}

impl VideoReader<std::io::BufReader<std::fs::File>> {
    /// Opens a video file: its header read and checked, nothing decoded yet.
    pub fn open(path: &Path) -> Result<Self, Refusal> {
        let name = path.display().to_string();
        let file = std::fs::File::open(path).map_err(|e| refused(&name, e))?;
        let meta = file.metadata().map_err(|e| refused(&name, e))?;
        if !meta.is_file() {
            return Err(refused(&name, "not a regular file"));
        }
        VideoReader::from_reader(std::io::BufReader::new(file), meta.len())
            .map_err(|e| e.context(&name))
    }
}

impl<R: Read + Seek> VideoReader<R> {
    /// Reads the header of the video in `reader` (`size` bytes long).
    pub fn from_reader(reader: R, size: u64) -> Result<Self, Refusal> {
        if size > MAX_VIDEO_BYTES {
            return Err(Refusal::new(format!(
                "{size} bytes is more than a video may have ({MAX_VIDEO_BYTES})"
            )));
        }
        let mut reader = reader;
        check_boxes(&mut reader, size)?;
        let header = mp4::Mp4Reader::read_header(&mut reader, size).map_err(|e| {
            Refusal::new(format!("not a video this program reads (MP4 or MOV): {e}"))
        })?;
        if header.is_fragmented() {
            return Err(Refusal::new(
                "this is a fragmented MP4 (a stream recording): save it again as a regular H.264 MP4",
            ));
        }
        let mut video = header
            .tracks()
            .values()
            .filter(|t| matches!(t.track_type(), Ok(mp4::TrackType::Video)))
            .collect::<Vec<_>>();
        video.sort_by_key(|t| t.track_id());
        let track = video
            .first()
            .ok_or_else(|| Refusal::new("the file has no video track"))?;
        let stsd = &track.trak.mdia.minf.stbl.stsd;
        let Some(avc1) = &stsd.avc1 else {
            let codec = if stsd.hev1.is_some() {
                "HEVC (H.265)"
            } else if stsd.vp09.is_some() {
                "VP9"
            } else {
                "a codec other than H.264 (HEVC, as phones record by default, or AV1)"
            };
            return Err(Refusal::new(format!(
                "this file uses {codec}: save it as H.264 MP4 (a phone's \"Most Compatible\" camera setting, or any editor's H.264 export)"
            )));
        };
        let (width, height) = (u32::from(avc1.width), u32::from(avc1.height));
        if width == 0 || height == 0 || width > MAX_VIDEO_SIDE || height > MAX_VIDEO_SIDE {
            return Err(Refusal::new(format!(
                "the picture is {width}×{height}: 1 to {MAX_VIDEO_SIDE} pixels a side is read"
            )));
        }
        let frames = track.sample_count();
        if frames == 0 || frames > MAX_VIDEO_FRAMES {
            return Err(Refusal::new(format!(
                "the video claims {frames} frames: 1 to {MAX_VIDEO_FRAMES} are read (cut it shorter)"
            )));
        }
        // The rate from the track's clock and its frames' durations (the `mp4` crate's
        // own divides by a clock a hostile file may set to zero).
        let timescale = track.trak.mdia.mdhd.timescale;
        let ticks: u128 = track
            .trak
            .mdia
            .minf
            .stbl
            .stts
            .entries
            .iter()
            .map(|e| u128::from(e.sample_count) * u128::from(e.sample_delta))
            .sum();
        let fps = if timescale == 0 || ticks == 0 {
            f64::NAN
        } else {
            f64::from(frames) * f64::from(timescale) / ticks as f64
        };
        if !(fps.is_finite() && (1.0..=240.0).contains(&fps)) {
            return Err(Refusal::new(format!(
                "the video's frame rate ({fps}) is not 1 to 240 frames per second"
            )));
        }
        let mut parameter_sets = Vec::new();
        for unit in avc1
            .avcc
            .sequence_parameter_sets
            .iter()
            .chain(&avc1.avcc.picture_parameter_sets)
        {
            parameter_sets.extend_from_slice(&[0, 0, 0, 1]);
            parameter_sets.extend_from_slice(&unit.bytes);
        }
        let length_size = usize::from(avc1.avcc.length_size_minus_one & 3) + 1;
        let stbl = &track.trak.mdia.minf.stbl;
        let tables = SampleTables {
            fixed_size: stbl.stsz.sample_size,
            sizes: stbl.stsz.sample_sizes.clone(),
            chunks: match (&stbl.stco, &stbl.co64) {
                (Some(stco), _) => stco.entries.iter().map(|&o| u64::from(o)).collect(),
                (None, Some(co64)) => co64.entries.clone(),
                (None, None) => Vec::new(),
            },
            runs: stbl
                .stsc
                .entries
                .iter()
                .map(|e| (e.first_chunk, e.samples_per_chunk))
                .collect(),
            sync: stbl.stss.as_ref().map(|s| s.entries.clone()),
        };
        let samples = sample_index(&tables, frames, size)?;
        drop(header);
        // No flush after each frame: with B-frames (a phone's High profile) a frame the
        // decoder holds back for reordering, flushed early, breaks the next one's
        // references. The held frames come out at the end (`flush`).
        let config = DecoderConfig::new().flush_after_decode(Flush::NoFlush);
        let decoder = Decoder::with_api_config(openh264::OpenH264API::from_source(), config)
            .map_err(|e| Refusal::new(format!("the H.264 decoder did not start: {e}")))?;
        Ok(VideoReader {
            reader,
            samples,
            info: VideoInfo {
                width,
                height,
                frames,
                fps,
            },
            parameter_sets,
            length_size,
            decoder,
            next_sample: 1,
            given: 0,
            flushed: Vec::new(),
            done: false,
        })
    }

    pub fn info(&self) -> &VideoInfo {
        &self.info
    }

    /// The next picture in display order, or `None` after the last.
    pub fn next_frame(&mut self) -> Result<Option<VideoFrame>, Refusal> {
        loop {
            if let Some(frame) = self.flushed.pop() {
                return Ok(Some(frame));
            }
            if self.done {
                return Ok(None);
            }
            if self.next_sample > self.info.frames {
                self.flush()?;
                continue;
            }
            let id = self.next_sample;
            self.next_sample += 1;
            let sample = self.samples[id as usize - 1];
            if sample.size > MAX_SAMPLE_BYTES {
                return Err(Refusal::new(format!(
                    "frame {id} claims {} bytes: more than a frame may have",
                    sample.size
                )));
            }
            let mut bytes = vec![0u8; sample.size as usize];
            self.reader
                .seek(std::io::SeekFrom::Start(sample.offset))
                .and_then(|_| self.reader.read_exact(&mut bytes))
                .map_err(|e| Refusal::new(format!("frame {id} cannot be read: {e}")))?;
            let mut stream = Vec::with_capacity(bytes.len() + self.parameter_sets.len());
            if sample.is_sync || id == 1 {
                stream.extend_from_slice(&self.parameter_sets);
            }
            self.annex_b(&bytes, &mut stream)
                .map_err(|e| Refusal::new(format!("frame {id}: {e}")))?;
            let decoded = self
                .decoder
                .decode(&stream)
                .map_err(|e| Refusal::new(format!("frame {id} does not decode: {e}")))?;
            if let Some(picture) = decoded {
                let frame = picture_frame(&picture, self.given, &self.info)?;
                self.given += 1;
                return Ok(Some(frame));
            }
        }
    }

    /// The frames the decoder still holds (reordered pictures), once the samples end.
    fn flush(&mut self) -> Result<(), Refusal> {
        self.done = true;
        let pictures = self
            .decoder
            .flush_remaining()
            .map_err(|e| Refusal::new(format!("the last frames do not decode: {e}")))?;
        let mut frames = Vec::new();
        for picture in &pictures {
            if self.given >= self.info.frames {
                break;
            }
            frames.push(picture_frame(picture, self.given, &self.info)?);
            self.given += 1;
        }
        frames.reverse(); // handed out by pop
        self.flushed = frames;
        Ok(())
    }

    /// One MP4 sample (length-prefixed NAL units) as Annex B (start codes).
    fn annex_b(&self, sample: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        let mut at = 0;
        while at < sample.len() {
            if at + self.length_size > sample.len() {
                return Err("a unit's length runs past the frame".into());
            }
            let length = sample[at..at + self.length_size]
                .iter()
                .fold(0usize, |n, b| (n << 8) | usize::from(*b));
            at += self.length_size;
            if length > sample.len() - at {
                return Err("a unit runs past the frame".into());
            }
            out.extend_from_slice(&[0, 0, 0, 1]);
            out.extend_from_slice(&sample[at..at + length]);
            at += length;
        }
        Ok(())
    }
}

/// The sample tables as read (the `mp4` crate's own types are not all nameable).
struct SampleTables {
    /// Every frame's size when not 0; else `sizes`.
    fixed_size: u32,
    sizes: Vec<u32>,
    chunks: Vec<u64>,
    /// (first chunk, frames in each chunk) from there on.
    runs: Vec<(u32, u32)>,
    /// The key frames (1-based); `None`: every frame is one.
    sync: Option<Vec<u32>>,
}

/// Frames per chunk from a chunk on.
struct Run {
    first_chunk: u32,
    samples_per_chunk: u32,
}

/// Every frame's offset, size and whether it is a key frame, from the sample tables
/// (sizes, chunks of samples, chunk offsets, key frames), with every count, index and
/// sum checked: each frame must lie inside the file.
fn sample_index(
    tables: &SampleTables,
    frames: u32,
    file_size: u64,
) -> Result<Vec<Sample>, Refusal> {
    let broken = |what: &str| Refusal::new(format!("the video's sample table is broken: {what}"));
    let size_of = |i: usize| -> Option<u32> {
        if tables.fixed_size > 0 {
            Some(tables.fixed_size)
        } else {
            tables.sizes.get(i).copied()
        }
    };
    let chunks = &tables.chunks;
    if chunks.is_empty() {
        return Err(broken("no chunk offsets"));
    }
    let runs: Vec<Run> = tables
        .runs
        .iter()
        .map(|&(first_chunk, samples_per_chunk)| Run {
            first_chunk,
            samples_per_chunk,
        })
        .collect();
    if runs.is_empty() || runs[0].first_chunk != 1 {
        return Err(broken(
            "the chunks' sample counts do not start at the first chunk",
        ));
    }
    let mut samples = Vec::with_capacity(frames as usize);
    for (r, run) in runs.iter().enumerate() {
        if run.samples_per_chunk == 0 || run.samples_per_chunk > frames {
            return Err(broken("a chunk claims an impossible number of frames"));
        }
        let last_chunk = match runs.get(r + 1) {
            Some(next) if next.first_chunk > run.first_chunk => next.first_chunk - 1,
            Some(_) => return Err(broken("the chunk runs are out of order")),
            None => chunks.len() as u32,
        };
        for chunk in run.first_chunk..=last_chunk {
            let Some(&start) = chunks.get(chunk as usize - 1) else {
                return Err(broken("a chunk without an offset"));
            };
            let mut offset = start;
            for _ in 0..run.samples_per_chunk {
                if samples.len() == frames as usize {
                    break;
                }
                let size =
                    size_of(samples.len()).ok_or_else(|| broken("a frame without a size"))?;
                let end = offset
                    .checked_add(u64::from(size))
                    .filter(|&end| end <= file_size)
                    .ok_or_else(|| broken("a frame lies past the end of the file"))?;
                samples.push(Sample {
                    offset,
                    size,
                    is_sync: false,
                });
                offset = end;
            }
            if samples.len() == frames as usize {
                break;
            }
        }
        if samples.len() == frames as usize {
            break;
        }
    }
    if samples.len() != frames as usize {
        return Err(broken("fewer frames in its chunks than it claims"));
    }
    match &tables.sync {
        Some(sync) => {
            for &id in sync {
                if let Some(sample) = (id as usize)
                    .checked_sub(1)
                    .and_then(|i| samples.get_mut(i))
                {
                    sample.is_sync = true;
                }
            }
        }
        None => samples.iter_mut().for_each(|s| s.is_sync = true),
    }
    Ok(samples)
}

/// The most bytes of header boxes (`moov` and the like) read into memory to check.
const MAX_HEADER_BYTES: u64 = 64 << 20;

/// Boxes that hold boxes, and the bytes of their own before the first child: the `mp4`
/// crate walks these, and loops for ever on a child that claims less than its own header
/// (a hostile file), so every child's size is checked here first.
fn children_after(name: &[u8; 4]) -> Option<usize> {
    Some(match name {
        b"moov" | b"trak" | b"mdia" | b"minf" | b"stbl" | b"dinf" | b"edts" | b"udta" | b"mvex"
        | b"moof" | b"traf" | b"mfra" => 0,
        // Version and flags, then the entry count.
        b"stsd" | b"dref" => 8,
        // A visual sample entry's fixed part.
        b"avc1" | b"hev1" | b"hvc1" | b"vp09" | b"av01" => 78,
        // An audio sample entry's.
        b"mp4a" => 28,
        _ => return None,
    })
}

/// One box's header at `at` in `bytes`: its name and its whole size (header included),
/// the size checked against what encloses it.
fn box_at(bytes: &[u8], at: usize, end: usize) -> Result<([u8; 4], usize, usize), Refusal> {
    let broken =
        || Refusal::new("a box of the file's structure is broken (a size that does not fit)");
    if end - at < 8 {
        return Err(broken());
    }
    let size32 = u32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let name: [u8; 4] = bytes[at + 4..at + 8].try_into().expect("4 bytes");
    let (size, header) = match size32 {
        // "To the end of the file" is for the last top-level box only.
        0 => return Err(broken()),
        1 => {
            if end - at < 16 {
                return Err(broken());
            }
            let large = u64::from_be_bytes(bytes[at + 8..at + 16].try_into().expect("8 bytes"));
            (usize::try_from(large).map_err(|_| broken())?, 16)
        }
        n => (n as usize, 8),
    };
    if size < header || size > end - at {
        return Err(broken());
    }
    Ok((name, size, header))
}

/// Checks the boxes inside `bytes[start..end]`, and inside any container among them.
fn check_children(bytes: &[u8], start: usize, end: usize, depth: usize) -> Result<(), Refusal> {
    if depth > 16 {
        return Err(Refusal::new("the file's boxes nest too deep"));
    }
    let mut at = start;
    while at < end {
        let (name, size, header) = box_at(bytes, at, end)?;
        if let Some(skip) = children_after(&name) {
            let first = at + header + skip;
            if first <= at + size {
                check_children(bytes, first, at + size, depth + 1)?;
            }
        }
        at += size;
    }
    Ok(())
}

/// Walks the file's top-level boxes (seeking past the media data) and checks every box
/// inside the header boxes before the `mp4` crate reads them.
fn check_boxes<R: Read + Seek>(reader: &mut R, size: u64) -> Result<(), Refusal> {
    use std::io::SeekFrom;
    let unreadable = |e: std::io::Error| Refusal::new(format!("the file cannot be read: {e}"));
    let broken =
        || Refusal::new("a box of the file's structure is broken (a size that does not fit)");
    let mut at = 0u64;
    while at < size {
        if size - at < 8 {
            break; // trailing bytes: the mp4 crate ignores them too
        }
        reader.seek(SeekFrom::Start(at)).map_err(unreadable)?;
        let mut head = [0u8; 16];
        let wanted = if size - at >= 16 { 16 } else { 8 };
        reader.read_exact(&mut head[..wanted]).map_err(unreadable)?;
        let size32 = u32::from_be_bytes(head[0..4].try_into().expect("4 bytes"));
        let name: [u8; 4] = head[4..8].try_into().expect("4 bytes");
        let box_size = match size32 {
            0 => size - at,
            1 if wanted == 16 => u64::from_be_bytes(head[8..16].try_into().expect("8 bytes")),
            1 => return Err(broken()),
            n => u64::from(n),
        };
        if box_size < 8 || box_size > size - at {
            return Err(broken());
        }
        if children_after(&name).is_some() {
            if box_size > MAX_HEADER_BYTES {
                return Err(Refusal::new(format!(
                    "the file's '{}' box claims {box_size} bytes: more than a header may have",
                    String::from_utf8_lossy(&name)
                )));
            }
            let mut bytes = vec![0u8; box_size as usize];
            reader.seek(SeekFrom::Start(at)).map_err(unreadable)?;
            reader.read_exact(&mut bytes).map_err(unreadable)?;
            check_children(&bytes, 0, bytes.len(), 0)?;
        }
        at += box_size;
    }
    reader.seek(SeekFrom::Start(0)).map_err(unreadable)?;
    Ok(())
}

/// A decoded picture as RGB, checked against the size the header gave.
fn picture_frame(
    picture: &openh264::decoder::DecodedYUV<'_>,
    index: u32,
    info: &VideoInfo,
) -> Result<VideoFrame, Refusal> {
    let (width, height) = picture.dimensions();
    if width as u32 > MAX_VIDEO_SIDE || height as u32 > MAX_VIDEO_SIDE || width == 0 || height == 0
    {
        return Err(Refusal::new(format!(
            "frame {index} decodes to {width}×{height}, outside 1 to {MAX_VIDEO_SIDE} a side"
        )));
    }
    let mut rgb = vec![0; width * height * 3];
    picture.write_rgb8(&mut rgb);
    Ok(VideoFrame {
        index,
        time: f64::from(index) / info.fps,
        width: width as u32,
        height: height as u32,
        rgb,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FilmSettings, open};

    /// A film of a bright square moving right over grey, written by our MP4 writer.
    fn film(dir: &Path, frames: usize) -> std::path::PathBuf {
        let settings = FilmSettings {
            width: 96,
            height: 64,
            fps: 25,
            frames,
            loop_count: 0,
            background: Some([90, 90, 90]),
        };
        let path = dir.join("square.mp4");
        let mut writer = open(&path, &settings).unwrap();
        for i in 0..frames {
            let mut rgba = vec![0u8; 96 * 64 * 4];
            for y in 20..44 {
                for x in (10 + i * 4)..(34 + i * 4) {
                    rgba[(y * 96 + x) * 4..][..4].copy_from_slice(&[250, 200, 40, 255]);
                }
            }
            writer.push(&rgba).unwrap();
        }
        writer.finish().unwrap()
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("vrma-media-video-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn an_h264_film_reads_back_frame_by_frame_in_order() {
        let dir = scratch("round-trip");
        let path = film(&dir, 12);
        let mut video = VideoReader::open(&path).unwrap();
        assert_eq!(
            *video.info(),
            VideoInfo {
                width: 96,
                height: 64,
                frames: 12,
                fps: 25.0
            }
        );
        let mut count = 0;
        while let Some(frame) = video.next_frame().unwrap() {
            assert_eq!(frame.index, count);
            assert!((frame.time - f64::from(count) / 25.0).abs() < 1e-9);
            // The square's centre is bright, the grey left of it is grey.
            let centre = (32 * 96 + 22 + count as usize * 4) * 3;
            let left = (32 * 96 + 4) * 3;
            assert!(
                frame.rgb[centre] > 200 && frame.rgb[centre + 2] < 100,
                "frame {count}"
            );
            assert!((frame.rgb[left] as i32 - 90).abs() < 20, "frame {count}");
            count += 1;
        }
        assert_eq!(count, 12);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn broken_and_truncated_files_are_refused_in_one_line() {
        let dir = scratch("broken");
        let path = film(&dir, 6);
        let bytes = std::fs::read(&path).unwrap();
        for cut in [0, 8, 40, bytes.len() / 2, bytes.len() - 7] {
            let part = &bytes[..cut];
            let opened = VideoReader::from_reader(std::io::Cursor::new(part), part.len() as u64);
            if let Ok(mut video) = opened {
                // The header may survive a cut at the end: the frames then stop with a
                // refusal or run short, never a panic.
                while let Ok(Some(_)) = video.next_frame() {}
            } else if let Err(e) = opened {
                assert!(!e.0.contains('\n'), "{e}");
            }
        }
        // A box claiming less than its own header (the mp4 crate would loop for ever).
        let mut looping = bytes.clone();
        let stbl = looping
            .windows(4)
            .position(|w| w == b"stbl")
            .expect("a sample table");
        let child = stbl + 4;
        looping[child..child + 4].copy_from_slice(&0u32.to_be_bytes());
        let refused =
            VideoReader::from_reader(std::io::Cursor::new(&looping[..]), looping.len() as u64);
        assert!(refused.is_err(), "a box of size 0 inside the sample table");
        let text = b"not a video at all";
        assert!(
            VideoReader::from_reader(std::io::Cursor::new(&text[..]), text.len() as u64).is_err()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
