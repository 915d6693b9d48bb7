//! Webcams without a webcam: `fake_v4l2.c`, loaded with LD_PRELOAD, answers the Video4Linux
//! 2 calls on one device path as a UVC webcam does (formats, sizes, rates, buffers,
//! streaming) and plays recorded YUYV or Motion-JPEG frames at 30 a second. The library is
//! tested in a child run of this test binary with it loaded; the window test in
//! `window_mouse` puts the editor in front of it.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{required_or_skip, scratch};
use vrma_maker::vision::webcam::{Webcam, camera_devices};

pub const WIDTH: u32 = 640;
pub const HEIGHT: u32 = 480;

/// The fake camera, built from its source for this run (a C compiler is part of the
/// toolchain the build needs anyway).
pub fn fake_camera_library(dir: &Path) -> Option<PathBuf> {
    let library = dir.join("libfake_v4l2.so");
    let built = Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(&library)
        .arg(crate::common::repo().join("tests/it/fake_v4l2.c"))
        .args(["-ldl", "-lpthread"])
        .status()
        .is_ok_and(|s| s.success());
    required_or_skip("a C compiler (cc) for the fake webcam", built).then_some(library)
}

/// An RGB picture as a webcam sends it: YUYV 4:2:2, BT.601 limited range (each pair of
/// pixels shares the average of their colour).
pub fn to_yuyv(picture: &image::RgbImage) -> Vec<u8> {
    let (w, h) = picture.dimensions();
    assert!(w % 2 == 0);
    let luma = |[r, g, b]: [f32; 3]| 16.0 + 0.257 * r + 0.504 * g + 0.098 * b;
    let mut out = Vec::with_capacity((w * h * 2) as usize);
    for y in 0..h {
        for x in (0..w).step_by(2) {
            let a = picture.get_pixel(x, y).0.map(f32::from);
            let b = picture.get_pixel(x + 1, y).0.map(f32::from);
            let [r, g, bl] = [0, 1, 2].map(|c| (a[c] + b[c]) / 2.0);
            let u = 128.0 - 0.148 * r - 0.291 * g + 0.439 * bl;
            let v = 128.0 + 0.439 * r - 0.368 * g - 0.071 * bl;
            out.extend([luma(a), u, luma(b), v].map(|c| c.round().clamp(0.0, 255.0) as u8));
        }
    }
    out
}

/// Frame `i` of the test pattern: colour bars, and the frame's number as a bright block
/// among eight in the top row (which frame came is read back from the picture).
fn pattern(i: usize) -> image::RgbImage {
    const BARS: [[u8; 3]; 6] = [
        [235, 235, 235],
        [220, 200, 40],
        [40, 190, 200],
        [40, 180, 60],
        [200, 40, 160],
        [30, 40, 200],
    ];
    image::RgbImage::from_fn(WIDTH, HEIGHT, |x, y| {
        if y < 60 {
            let block = (x / (WIDTH / 8)) as usize;
            return image::Rgb(if block == i % 8 { [250; 3] } else { [10; 3] });
        }
        image::Rgb(BARS[(x * BARS.len() as u32 / WIDTH) as usize])
    })
}

/// Which frame of the pattern `frame` shows, and the largest difference from it away from
/// the edges between colours (and more than `blur` pixels from them either side).
fn read_pattern(frame: &image::RgbImage, blur: u32) -> (usize, u8) {
    let lit: Vec<usize> = (0..8)
        .filter(|&b| frame.get_pixel(b as u32 * (WIDTH / 8) + WIDTH / 16, 30).0[0] > 128)
        .collect();
    assert_eq!(lit.len(), 1, "one block lit: {lit:?}");
    let want = pattern(lit[0]);
    let mut worst = 0;
    // Edges between bars share their colour across a pixel pair.
    let near = |at: u32, every: u32| {
        let from_edge = at % every;
        from_edge < blur.max(2) || every - from_edge < blur
    };
    for y in (0..HEIGHT).step_by(7) {
        for x in (0..WIDTH).step_by(5) {
            if near(x, WIDTH / 6) || near(x, WIDTH / 8) || y.abs_diff(60) < blur {
                continue;
            }
            let (a, b) = (frame.get_pixel(x, y).0, want.get_pixel(x, y).0);
            for c in 0..3 {
                worst = worst.max(a[c].abs_diff(b[c]));
            }
        }
    }
    (lit[0], worst)
}

/// The pattern's eight frames as a YUYV camera sends them, one after another.
fn yuyv_pattern_frames() -> Vec<u8> {
    (0..8).flat_map(|i| to_yuyv(&pattern(i))).collect()
}

const CHILD: &str = "VRMA_MAKER_FAKE_CAMERA_CHILD";
/// The frame of the pattern a Motion-JPEG camera sends cut off.
const CUT_OFF: usize = 5;

#[test]
fn a_webcam_is_found_opened_at_640x480_and_streams_its_frames_in_order() {
    if std::env::var_os(CHILD).is_some() {
        return in_front_of_the_fake_camera();
    }
    run_in_front_of_the_fake_camera(
        "webcam::a_webcam_is_found_opened_at_640x480_and_streams_its_frames_in_order",
        "YUYV",
        &yuyv_pattern_frames(),
        &[],
    );
}

/// A camera that offers only Motion-JPEG, whose frames leave out their Huffman tables
/// (as webcams do), and one of which comes cut off: every whole frame is read, in order.
#[test]
fn a_motion_jpeg_webcam_is_read_frame_by_frame_and_a_cut_off_frame_is_passed_over() {
    if std::env::var_os(CHILD).is_some() {
        return in_front_of_the_fake_camera();
    }
    let mut frames = Vec::new();
    for i in 0..8 {
        let mut jpeg = vrma_maker::vision::crafted::mjpeg_frame(&pattern(i), 90);
        if i == CUT_OFF {
            jpeg.truncate(CUT_OFF_BYTES);
        }
        frames.extend((jpeg.len() as u32).to_le_bytes());
        frames.extend(jpeg);
    }
    run_in_front_of_the_fake_camera(
        "webcam::a_motion_jpeg_webcam_is_read_frame_by_frame_and_a_cut_off_frame_is_passed_over",
        "MJPG",
        &frames,
        &[],
    );
}

/// A camera that stops sending after three frames without reporting anything (as a USB
/// webcam short of bandwidth can): the next frame is refused with a message that says so
/// once its wait is up, instead of holding the reader for ever, and the camera is let go
/// (it opens again).
#[test]
fn a_webcam_that_stops_sending_is_let_go_with_a_clear_message() {
    if std::env::var_os(CHILD).is_some() {
        return in_front_of_a_stalling_camera();
    }
    run_in_front_of_the_fake_camera(
        "webcam::a_webcam_that_stops_sending_is_let_go_with_a_clear_message",
        "YUYV",
        &yuyv_pattern_frames(),
        &[("FAKE_V4L2_STALL_AFTER", "3")],
    );
}

fn in_front_of_a_stalling_camera() {
    let devices = camera_devices();
    let mut webcam = Webcam::open_first(&devices).unwrap();
    for k in 0..3 {
        let frame = webcam.next_frame().unwrap();
        assert_eq!(
            read_pattern(&frame, 0).0,
            k,
            "the frames before the stall, in order"
        );
    }
    let stopped = webcam.next_frame().err().unwrap().0;
    assert!(stopped.contains("stopped sending"), "{stopped}");
    drop(webcam);
    let mut again = Webcam::open(&devices[1]).unwrap();
    assert!(again.next_frame().is_ok());
}

/// How much of the cut-off frame arrives: its headers and the start of its picture.
const CUT_OFF_BYTES: usize = 400;

/// Runs `test` again in a child process, with the fake camera loaded and playing
/// `frames` in `format`, with its other `settings` (environment variables).
fn run_in_front_of_the_fake_camera(
    test: &str,
    format: &str,
    frames: &[u8],
    settings: &[(&str, &str)],
) {
    let dir = scratch(&format!("webcam-{}", test.rsplit("::").next().unwrap()));
    let Some(library) = fake_camera_library(&dir) else {
        return;
    };
    std::fs::write(dir.join("frames"), frames).unwrap();
    // The device folder: video0 is not a camera (a plain file, as a camera's metadata
    // node answers no capture format), video1 is the camera.
    let devices = dir.join("dev");
    std::fs::create_dir_all(&devices).unwrap();
    std::fs::write(devices.join("video0"), b"").unwrap();
    std::fs::write(devices.join("video1"), b"").unwrap();
    let status = Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("LD_PRELOAD", &library)
        .env("FAKE_V4L2_DEVICE", devices.join("video1"))
        .env("FAKE_V4L2_FORMAT", format)
        .env("FAKE_V4L2_FRAMES", dir.join("frames"))
        .env("VRMA_MAKER_VIDEO_DEVICES", &devices)
        .envs(settings.iter().copied())
        .status()
        .unwrap();
    assert!(
        status.success(),
        "the run in front of the fake camera failed"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn in_front_of_the_fake_camera() {
    let format = std::env::var("FAKE_V4L2_FORMAT").unwrap();
    // Motion-JPEG blurs colour over 8- and 16-pixel blocks and rounds it more.
    let (blur, tolerance, sent) = if format == "MJPG" {
        (16, 24, (0..8).filter(|&i| i != CUT_OFF).collect::<Vec<_>>())
    } else {
        (0, 6, (0..8).collect())
    };
    let devices = camera_devices();
    let names: Vec<_> = devices.iter().map(|d| d.file_name().unwrap()).collect();
    assert_eq!(names, ["video0", "video1"]);
    // The node that is not a camera is passed over, with its reason kept for when no
    // camera is found at all.
    let refused = Webcam::open_first(&devices[..1]).err().unwrap().0;
    assert!(
        refused.contains("video0") && refused.contains("not a camera"),
        "{refused}"
    );
    let mut webcam = Webcam::open_first(&devices).unwrap();
    // Offered 1280×720, 640×480 and 320×240 at 15 or 30 fps: the size nearest 640×480.
    assert_eq!(webcam.describe(), format!("640×480 {format}"));
    // A camera is one program's at a time: a second open is refused, not a panic.
    let busy = Webcam::open(&devices[1]).err().unwrap().0;
    assert!(busy.contains("video1"), "{busy}");
    let mut seen = Vec::new();
    for _ in 0..12 {
        let frame = webcam.next_frame().unwrap();
        assert_eq!(frame.dimensions(), (WIDTH, HEIGHT));
        let (number, worst) = read_pattern(&frame, blur);
        assert!(
            worst <= tolerance,
            "frame {number} differs by {worst} levels"
        );
        seen.push(number);
    }
    // Every frame sent whole, in order, round and round.
    let first = sent.iter().position(|&n| n == seen[0]).unwrap();
    let expected: Vec<usize> = (0..12).map(|k| sent[(first + k) % sent.len()]).collect();
    assert_eq!(seen, expected);
    // Closed, the camera can be opened again.
    drop(webcam);
    let mut again = Webcam::open(&devices[1]).unwrap();
    assert!(again.next_frame().is_ok());
}
