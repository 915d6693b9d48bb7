//! Webcams (Video4Linux 2, through `rscam`: libc only, no bindgen or system library):
//! finding the cameras, opening one at about 640×480 and 30 frames a second in a format
//! we can read (YUYV or Motion-JPEG), and each frame as RGB.

use std::path::{Path, PathBuf};

use image::RgbImage;
use vrma_core::Refusal;

/// The size and rate asked of a camera: enough for the pose model (256² crops), light
/// enough for the CPU.
const WANTED_SIZE: (u32, u32) = (640, 480);
#[cfg(target_os = "linux")]
const WANTED_INTERVAL: (u32, u32) = (1, 30);
/// Formats we decode, in order of preference (raw first: no decoding cost).
#[cfg(target_os = "linux")]
const FORMATS: [[u8; 4]; 2] = [*b"YUYV", *b"MJPG"];

/// Why webcams cannot be read on this system, where they cannot: only Video4Linux is
/// read so far (Windows' Media Foundation and macOS's AVFoundation are not).
pub fn unavailable_here() -> Option<&'static str> {
    if cfg!(target_os = "linux") {
        None
    } else {
        Some("Follow camera is not available on this system yet: webcams are read on Linux only")
    }
}

/// The video devices present (`/dev/video*`, in number order; `$VRMA_MAKER_VIDEO_DEVICES`
/// names another folder to look in). Some are not cameras (a camera's metadata node, a
/// hardware encoder): opening one says so. None where webcams cannot be read.
pub fn camera_devices() -> Vec<PathBuf> {
    if unavailable_here().is_some() {
        return Vec::new();
    }
    match std::env::var_os("VRMA_MAKER_VIDEO_DEVICES") {
        Some(dir) => devices_in(Path::new(&dir)),
        None => devices_in(Path::new("/dev")),
    }
}

fn devices_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(u32, PathBuf)> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name();
            let number = name.to_str()?.strip_prefix("video")?.parse().ok()?;
            Some((number, entry.path()))
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, path)| path).collect()
}

/// How long the first frame may take (a camera sets its exposure as it starts), and
/// each one after it, before the camera counts as stopped.
#[cfg(target_os = "linux")]
const FIRST_FRAME_WAIT: std::time::Duration = std::time::Duration::from_secs(5);
#[cfg(target_os = "linux")]
const FRAME_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// An open, streaming camera.
pub struct Webcam {
    #[cfg(target_os = "linux")]
    camera: rscam::Camera,
    /// The camera's file descriptor, to wait on with a time limit: a camera that stops
    /// sending without an error (a USB webcam short of bandwidth does) would otherwise
    /// hold the reading thread, and the device, for ever. `None` where it could not be
    /// told apart (the wait is then unlimited, as before).
    #[cfg(target_os = "linux")]
    descriptor: Option<std::os::fd::RawFd>,
    #[cfg(target_os = "linux")]
    frames_read: usize,
    format: [u8; 4],
    size: (u32, u32),
}

impl Webcam {
    /// The first of `devices` that streams in a format we read.
    pub fn open_first(devices: &[PathBuf]) -> Result<Webcam, Refusal> {
        let mut why = Vec::new();
        for device in devices {
            match Webcam::open(device) {
                Ok(webcam) => return Ok(webcam),
                Err(refusal) => why.push(refusal.0),
            }
        }
        Err(Refusal::new(if why.is_empty() {
            "no camera found".to_string()
        } else {
            why.join("; ")
        }))
    }

    #[cfg(not(target_os = "linux"))]
    pub fn open(device: &Path) -> Result<Webcam, Refusal> {
        Err(Refusal::new(format!(
            "{}: webcams are read on Linux only so far",
            device.display()
        )))
    }

    #[cfg(target_os = "linux")]
    pub fn open(device: &Path) -> Result<Webcam, Refusal> {
        let name = device.display();
        let path = device
            .to_str()
            .ok_or_else(|| Refusal::new(format!("{name}: not a device path")))?;
        let before = open_descriptors();
        let mut camera = rscam::new(path)
            .map_err(|e| Refusal::new(format!("cannot open the camera {name}: {e}")))?;
        let descriptor = camera_descriptor(&before, &open_descriptors());
        // (The list ends at the first error: a failing query would repeat for ever.)
        let offered: Vec<[u8; 4]> = camera
            .formats()
            .map_while(Result::ok)
            .map(|f| f.format)
            .collect();
        let format = FORMATS
            .into_iter()
            .find(|f| offered.contains(f))
            .ok_or_else(|| {
                let offers: String = offered
                    .iter()
                    .map(|f| String::from_utf8_lossy(f).into_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
                    .chars()
                    .take(80)
                    .collect();
                Refusal::new(if offers.is_empty() {
                    format!("{name} is not a camera: it offers no video to capture")
                } else {
                    format!(
                        "{name} is not a camera we can read (it offers {offers}; YUYV or MJPG needed)"
                    )
                })
            })?;
        let size = match camera.resolutions(&format) {
            Ok(rscam::ResolutionInfo::Discretes(sizes)) => nearest_size(&sizes),
            Ok(rscam::ResolutionInfo::Stepwise { min, max, .. }) => Some((
                WANTED_SIZE.0.clamp(min.0, max.0.max(min.0)),
                WANTED_SIZE.1.clamp(min.1, max.1.max(min.1)),
            )),
            Err(_) => None,
        }
        .unwrap_or(WANTED_SIZE);
        let interval = match camera.intervals(&format, size) {
            Ok(rscam::IntervalInfo::Discretes(intervals)) => intervals
                .iter()
                .copied()
                .min_by_key(|&(n, d)| {
                    // Nearest to 1/30 s, compared in microseconds.
                    let micros = u64::from(n) * 1_000_000 / u64::from(d.max(1));
                    micros.abs_diff(33_333)
                })
                .unwrap_or(WANTED_INTERVAL),
            _ => WANTED_INTERVAL,
        };
        camera
            .start(&rscam::Config {
                interval,
                resolution: size,
                format: &format,
                ..Default::default()
            })
            .map_err(|e| Refusal::new(format!("the camera {name} would not start: {e}")))?;
        Ok(Webcam {
            camera,
            descriptor,
            frames_read: 0,
            format,
            size,
        })
    }

    /// The camera's size and format, for the menu (e.g. "640×480 YUYV").
    pub fn describe(&self) -> String {
        format!(
            "{}×{} {}",
            self.size.0,
            self.size.1,
            String::from_utf8_lossy(&self.format)
        )
    }

    /// The next frame (waits for it).
    #[cfg(not(target_os = "linux"))]
    pub fn next_frame(&mut self) -> Result<RgbImage, Refusal> {
        Err(Refusal::new("webcams are read on Linux only so far"))
    }

    /// The next frame (waits for it, a few seconds at most). A frame that cannot be read
    /// (a camera short of USB bandwidth sends cut-off ones) is passed over; a second of
    /// them in a row ends it.
    #[cfg(target_os = "linux")]
    pub fn next_frame(&mut self) -> Result<RgbImage, Refusal> {
        let mut unreadable = 0;
        loop {
            let limit = if self.frames_read == 0 {
                FIRST_FRAME_WAIT
            } else {
                FRAME_WAIT
            };
            if let Some(descriptor) = self.descriptor
                && !frame_ready(descriptor, limit)
            {
                return Err(Refusal::new(format!(
                    "the camera stopped sending pictures (none for {} s)",
                    limit.as_secs()
                )));
            }
            self.frames_read += 1;
            let frame = self
                .camera
                .capture()
                .map_err(|e| Refusal::new(format!("the camera stopped: {e}")))?;
            let (width, height) = frame.resolution;
            let read = match &frame.format {
                b"YUYV" => yuyv_to_rgb(width, height, &frame),
                _ => mjpeg_to_rgb(&frame),
            };
            match read {
                Ok(picture) => return Ok(picture),
                Err(refusal) if unreadable >= UNREADABLE_FRAMES_IN_A_ROW => {
                    return Err(Refusal::new(format!(
                        "the camera's frames cannot be read: {refusal}"
                    )));
                }
                Err(_) => unreadable += 1,
            }
        }
    }
}

/// The process's open file descriptors.
#[cfg(target_os = "linux")]
fn open_descriptors() -> Vec<std::os::fd::RawFd> {
    let listed: Vec<std::os::fd::RawFd> = match std::fs::read_dir("/proc/self/fd") {
        Ok(entries) => entries
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse().ok())
            .collect(),
        Err(_) => return Vec::new(),
    };
    // Without the listing's own descriptor, closed by now (the camera may open on its
    // number next).
    // SAFETY: F_GETFD only asks whether the descriptor is open.
    listed
        .into_iter()
        .filter(|&fd| unsafe { libc::fcntl(fd, libc::F_GETFD) } != -1)
        .collect()
}

/// The one descriptor opened between `before` and `after` that answers as a video
/// device (`rscam` keeps its own private; another thread may open files meanwhile).
#[cfg(target_os = "linux")]
fn camera_descriptor(
    before: &[std::os::fd::RawFd],
    after: &[std::os::fd::RawFd],
) -> Option<std::os::fd::RawFd> {
    // VIDIOC_QUERYCAP: _IOR('V', 0, struct v4l2_capability), 104 bytes.
    const VIDIOC_QUERYCAP: libc::c_ulong = 0x8068_5600;
    let answers = |fd: std::os::fd::RawFd| {
        let mut capability = [0u8; 104];
        // SAFETY: the ioctl writes at most the 104 bytes of the buffer it is given.
        unsafe { libc::ioctl(fd, VIDIOC_QUERYCAP as _, capability.as_mut_ptr()) == 0 }
    };
    let mut opened = after
        .iter()
        .copied()
        .filter(|fd| !before.contains(fd))
        .filter(|&fd| answers(fd));
    let first = opened.next();
    first.filter(|_| opened.next().is_none())
}

/// Whether a frame is ready on the camera within `limit`.
#[cfg(target_os = "linux")]
fn frame_ready(descriptor: std::os::fd::RawFd, limit: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + limit;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let mut wanted = libc::pollfd {
            fd: descriptor,
            events: libc::POLLIN,
            revents: 0,
        };
        let millis = left.as_millis().min(i32::MAX as u128) as libc::c_int;
        // SAFETY: one pollfd, ours, for the length of the call.
        let result = unsafe { libc::poll(&mut wanted, 1, millis) };
        match result {
            0 => return false,
            // Interrupted by a signal: wait out the rest.
            -1 if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {
                continue;
            }
            // Ready, or an error the capture itself will report.
            _ => return true,
        }
    }
}

/// How many unreadable frames in a row are passed over (a second's worth).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const UNREADABLE_FRAMES_IN_A_ROW: usize = 30;

/// A Motion-JPEG frame as RGB. A frame without its end marker was cut off on its way
/// (JPEG readers fill the rest in grey, which the pose model would take for the picture).
pub fn mjpeg_to_rgb(frame: &[u8]) -> Result<RgbImage, Refusal> {
    // Inside the compressed picture a 0xFF byte is always followed by 0 or a restart
    // marker, so the end marker (0xFF 0xD9) cannot appear before the end.
    if !frame.windows(2).any(|pair| pair == [0xFF, 0xD9]) {
        return Err(Refusal::new(format!(
            "the camera's frame was cut off ({} bytes)",
            frame.len()
        )));
    }
    crate::decode_image(&as_jpeg(frame))
}

/// A Motion-JPEG frame as a JPEG file. Webcams leave out the Huffman tables (MJPEG's
/// are fixed: the standard ones of JPEG's Annex K), which a JPEG reader needs; the AVI1
/// marker that says so is added where the frame has neither tables nor marker, and the
/// decoder then takes the standard tables.
pub fn as_jpeg(frame: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    const SOI: [u8; 2] = [0xFF, 0xD8];
    // APP0 "AVI1": polarity, reserved, and two field sizes (unused here).
    const AVI1: [u8; 18] = [
        0xFF, 0xE0, 0x00, 0x10, b'A', b'V', b'I', b'1', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];
    if !frame.starts_with(&SOI) || has_huffman_tables_or_avi1(frame) {
        return std::borrow::Cow::Borrowed(frame);
    }
    let mut jpeg = Vec::with_capacity(frame.len() + AVI1.len());
    jpeg.extend_from_slice(&SOI);
    jpeg.extend_from_slice(&AVI1);
    jpeg.extend_from_slice(&frame[2..]);
    std::borrow::Cow::Owned(jpeg)
}

/// Whether the segments before a JPEG's scan hold a Huffman table (DHT) or an AVI1 mark.
fn has_huffman_tables_or_avi1(jpeg: &[u8]) -> bool {
    let mut at = 2;
    while at + 4 <= jpeg.len() {
        if jpeg[at] != 0xFF {
            return false; // not a segment: let the decoder say what is wrong
        }
        let marker = jpeg[at + 1];
        match marker {
            0xFF => at += 1, // fill byte
            0xC4 => return true,
            0xDA | 0xD9 => return false, // the scan (or the end) comes first
            0x01 | 0xD0..=0xD7 => at += 2,
            _ => {
                let length = usize::from(u16::from_be_bytes([jpeg[at + 2], jpeg[at + 3]]));
                if marker == 0xE0 && jpeg[at + 4..].starts_with(b"AVI1") {
                    return true;
                }
                at += 2 + length.max(2);
            }
        }
    }
    false
}

/// The offered size nearest 640×480 (by pixel count), at least 320 wide.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn nearest_size(sizes: &[(u32, u32)]) -> Option<(u32, u32)> {
    let wanted = u64::from(WANTED_SIZE.0) * u64::from(WANTED_SIZE.1);
    sizes
        .iter()
        .copied()
        .filter(|&(w, h)| w >= 320 && h >= 240)
        .min_by_key(|&(w, h)| (u64::from(w) * u64::from(h)).abs_diff(wanted))
        .or_else(|| sizes.first().copied())
}

/// YUYV 4:2:2 (two pixels in four bytes: Y0 U Y1 V, BT.601 limited range) as RGB.
pub fn yuyv_to_rgb(width: u32, height: u32, data: &[u8]) -> Result<RgbImage, Refusal> {
    let needed = width as usize * height as usize * 2;
    if width == 0 || height == 0 || !width.is_multiple_of(2) || data.len() < needed {
        return Err(Refusal::new(format!(
            "the camera sent {} bytes for a {width}×{height} YUYV frame",
            data.len()
        )));
    }
    let mut rgb = Vec::with_capacity(needed / 2 * 3);
    for quad in data[..needed].chunks_exact(4) {
        let (u, v) = (f32::from(quad[1]) - 128.0, f32::from(quad[3]) - 128.0);
        for y in [quad[0], quad[2]] {
            let y = (f32::from(y) - 16.0) * 1.164;
            let channel = |c: f32| c.round().clamp(0.0, 255.0) as u8;
            rgb.push(channel(y + 1.596 * v));
            rgb.push(channel(y - 0.392 * u - 0.813 * v));
            rgb.push(channel(y + 2.017 * u));
        }
    }
    RgbImage::from_raw(width, height, rgb)
        .ok_or_else(|| Refusal::new("the camera's frame has no pixels"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BT.601 limited-range YUV of an RGB colour (the inverse of what the camera does).
    fn yuv(r: f32, g: f32, b: f32) -> [u8; 3] {
        let y = 16.0 + 0.257 * r + 0.504 * g + 0.098 * b;
        let u = 128.0 - 0.148 * r - 0.291 * g + 0.439 * b;
        let v = 128.0 + 0.439 * r - 0.368 * g - 0.071 * b;
        [y, u, v].map(|c| c.round() as u8)
    }

    #[test]
    fn yuyv_frames_come_back_as_the_colours_the_camera_saw() {
        let colours = [
            [255.0, 255.0, 255.0],
            [0.0, 0.0, 0.0],
            [200.0, 30.0, 40.0],
            [20.0, 180.0, 60.0],
            [30.0, 60.0, 220.0],
            [128.0, 128.0, 128.0],
        ];
        // A 12×1 frame: each colour on two neighbouring pixels (they share U and V).
        let mut data = Vec::new();
        for [r, g, b] in colours {
            let [y, u, v] = yuv(r, g, b);
            data.extend_from_slice(&[y, u, y, v]);
        }
        let rgb = yuyv_to_rgb(12, 1, &data).unwrap();
        for (i, want) in colours.iter().enumerate() {
            for x in [2 * i, 2 * i + 1] {
                let got = rgb.get_pixel(x as u32, 0).0;
                for c in 0..3 {
                    assert!(
                        (f32::from(got[c]) - want[c]).abs() <= 3.0,
                        "pixel {x}: {got:?} for {want:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn short_or_odd_frames_are_refused() {
        assert!(yuyv_to_rgb(4, 2, &[0; 15]).is_err());
        assert!(yuyv_to_rgb(3, 2, &[0; 12]).is_err());
        assert!(yuyv_to_rgb(0, 0, &[]).is_err());
    }

    #[test]
    fn webcams_are_read_on_linux_and_elsewhere_the_reason_is_given() {
        let linux = cfg!(target_os = "linux");
        assert_eq!(unavailable_here().is_none(), linux);
        match unavailable_here() {
            None => {}
            Some(why) => {
                assert!(why.contains("not available on this system"), "{why}");
                assert!(camera_devices().is_empty());
                let refused = Webcam::open_first(&[PathBuf::from("video0")])
                    .err()
                    .unwrap();
                assert!(refused.0.contains("Linux only"), "{}", refused.0);
            }
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn video_devices_are_listed_in_number_order_and_others_ignored() {
        let dir = std::env::temp_dir().join(format!("vrma-webcam-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["video10", "video2", "video0", "videox", "vhci", "media0"] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        let names: Vec<String> = devices_in(&dir)
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["video0", "video2", "video10"]);
        assert!(Webcam::open_first(&[]).is_err());
        // Not a device: a clear refusal, no panic.
        let refused = Webcam::open(&dir.join("video0")).err().unwrap();
        assert!(refused.0.contains("video0"), "{}", refused.0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
