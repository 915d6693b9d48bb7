//! `vrma-maker render-anim`: every output format read back by an outside decoder —
//! Pillow (PyPI) for WebP, APNG and GIF, Debian's ffprobe and ffmpeg for MP4 — with the
//! right frame count (duration × fps + 1), size and alpha, and a middle frame whose
//! silhouette is `render-png --time` of the same moment.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;

/// Pillow's Python (`$VRMA_MAKER_PILLOW_PYTHON`, set by scripts/test from
/// scripts/setup-pillow).
pub fn pillow() -> Option<PathBuf> {
    std::env::var_os("VRMA_MAKER_PILLOW_PYTHON")
        .map(PathBuf::from)
        .filter(|p| p.exists())
}

fn have_ffmpeg() -> bool {
    Command::new("ffprobe").arg("-version").output().is_ok()
        && Command::new("ffmpeg").arg("-version").output().is_ok()
}

const FPS: u32 = 15;
const SECONDS: f64 = 2.0;
const SIZE: (u32, u32) = (160, 213);
/// The middle frame, and its moment.
const MIDDLE: usize = 15;

/// A project on the mannequin that moves on every frame: the arms swing, the hips
/// turn and the body leans, keys at 0, 1 and 2 s with linear eases.
fn moving_project(model: &Path, path: &Path) {
    std::fs::write(
        path,
        serde_json::json!({"v": 1, "fps": 30, "model": {"path": model}, "keys": [
            {"id": 1, "t": 0, "ease": "LINEAR", "pose": {"bones": {
                "leftUpperArm": [0, 0, 0.5, 0.866], "rightUpperArm": [0, 0, 0.17, 0.985],
                "hips": [0, -0.2, 0, 0.98]}}},
            {"id": 2, "t": 1, "ease": "LINEAR", "pose": {"bones": {
                "leftUpperArm": [0, 0, -0.3, 0.954], "rightUpperArm": [0, 0, -0.6, 0.8],
                "hips": [0, 0.15, 0, 0.989], "spine": [0.2, 0, 0, 0.98]}}},
            {"id": 3, "t": 2, "ease": "LINEAR", "pose": {"bones": {
                "leftUpperArm": [0, 0, 0.6, 0.8], "rightUpperArm": [0, 0, 0.3, 0.954],
                "hips": [0, 0.4, 0, 0.917], "leftUpperLeg": [0.4, 0, 0, 0.917]}}}]})
        .to_string(),
    )
    .unwrap();
}

/// A camera that sees the whole figure, fixed so the film and the still share it.
fn camera(dir: &Path) -> PathBuf {
    let path = dir.join("camera.json");
    std::fs::write(
        &path,
        serde_json::json!({"position": [0.0, 0.9, 4.2], "target": [0.0, 0.85, 0.0], "fov": 35.0})
            .to_string(),
    )
    .unwrap();
    path
}

fn render_anim(model: &Path, project: &Path, out: &Path, extra: &[&str]) -> serde_json::Value {
    let size = format!("{}x{}", SIZE.0, SIZE.1);
    let fps = FPS.to_string();
    let output = bin()
        .args(["render-anim", "--model", model.to_str().unwrap()])
        .args([
            "--project",
            project.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .args(["--size", &size, "--fps", &fps])
        .args(extra)
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "render-anim {} failed: {}",
        out.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    let frames = (SECONDS * FPS as f64) as usize + 1;
    assert!(
        stderr.contains(&format!("rendered {frames} of {frames} frames")),
        "progress on stderr: {stderr}"
    );
    json_stdout(&output)
}

/// What the figure covers: alpha at least half, or (`background` given, no alpha) a
/// colour clearly off the background.
fn silhouette(img: &image::RgbaImage, background: Option<[u8; 3]>) -> Vec<bool> {
    img.pixels()
        .map(|p| match background {
            None => p[3] >= 128,
            Some(bg) => {
                (0..3)
                    .map(|c| (p[c] as i32 - bg[c] as i32).abs())
                    .max()
                    .unwrap()
                    > 30
            }
        })
        .collect()
}

fn iou(a: &[bool], b: &[bool]) -> f64 {
    assert_eq!(a.len(), b.len(), "the same size");
    let both = a.iter().zip(b).filter(|(x, y)| **x && **y).count();
    let either = a.iter().zip(b).filter(|(x, y)| **x || **y).count();
    assert!(either > 500, "a figure is drawn ({either} pixels)");
    both as f64 / either as f64
}

#[test]
fn every_format_plays_in_an_outside_decoder_with_its_frames_alpha_and_middle_moment() {
    if !required_or_skip("Pillow (scripts/setup-pillow)", pillow().is_some())
        || !required_or_skip("ffmpeg and ffprobe (Debian)", have_ffmpeg())
        || !required_or_skip("a Vulkan driver", have_vulkan())
    {
        return;
    }
    let python = pillow().unwrap();
    let dir = scratch("render-anim-formats");
    let (model, _) = mannequins(&dir);
    let project = dir.join("moving.json");
    moving_project(&model, &project);
    let camera = camera(&dir);
    let camera_arg = ["--camera-json", camera.to_str().unwrap()];
    let frames = (SECONDS * FPS as f64) as usize + 1;
    // The same moment as a still, through the same camera.
    let still_path = dir.join("still.png");
    let t = format!("{}", MIDDLE as f64 / FPS as f64);
    let size = format!("{}x{}", SIZE.0, SIZE.1);
    let out = bin()
        .args(["render-png", "--model", model.to_str().unwrap()])
        .args(["--project", project.to_str().unwrap(), "--time", &t])
        .args(["-o", still_path.to_str().unwrap(), "--size", &size])
        .args(camera_arg)
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let still = silhouette(&image::open(&still_path).unwrap().to_rgba8(), None);

    for name in ["film.webp", "film.png", "film.gif"] {
        let film = dir.join(name);
        let report = render_anim(&model, &project, &film, &camera_arg);
        assert_eq!(report["frames"], frames);
        let middle = dir.join(format!("{name}-middle.png"));
        let read = Command::new(&python)
            .arg(repo().join("tests/python/film_frames.py"))
            .arg(&film)
            .arg(MIDDLE.to_string())
            .arg(&middle)
            .output()
            .unwrap();
        assert!(
            read.status.success(),
            "Pillow: {}",
            String::from_utf8_lossy(&read.stderr)
        );
        let info: serde_json::Value = serde_json::from_slice(&read.stdout).unwrap();
        assert_eq!(info["frames"], frames, "{name}: {info}");
        assert_eq!(info["size"], serde_json::json!([SIZE.0, SIZE.1]), "{name}");
        assert_eq!(
            info["alpha"], true,
            "{name} keeps its transparent background"
        );
        assert_eq!(info["loop"], 0, "{name} loops for ever");
        let total: f64 = info["durations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_f64().unwrap())
            .sum();
        let want = frames as f64 * 1000.0 / FPS as f64;
        assert!(
            (total - want).abs() <= 10.0,
            "{name} lasts {total} ms, not {want}"
        );
        let frame = silhouette(&image::open(&middle).unwrap().to_rgba8(), None);
        let overlap = iou(&frame, &still);
        assert!(
            overlap >= 0.97,
            "{name}'s middle frame against the still: IoU {overlap:.3}"
        );
    }

    // MP4: ffprobe counts the decoded frames; ffmpeg draws the middle one.
    let film = dir.join("film.mp4");
    let report = render_anim(
        &model,
        &project,
        &film,
        &[&camera_arg[..], &["--background", "#204060"]].concat(),
    );
    assert_eq!(report["height"], SIZE.1 + 1, "4:2:0 needs even sides");
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-count_frames", "-select_streams", "v:0"])
        .args([
            "-show_entries",
            "stream=codec_name,pix_fmt,width,height,nb_read_frames",
        ])
        .args(["-of", "json"])
        .arg(&film)
        .output()
        .unwrap();
    assert!(
        probe.status.success(),
        "{}",
        String::from_utf8_lossy(&probe.stderr)
    );
    let probe: serde_json::Value = serde_json::from_slice(&probe.stdout).unwrap();
    let stream = &probe["streams"][0];
    assert_eq!(stream["codec_name"], "h264");
    assert_eq!(stream["pix_fmt"], "yuv420p");
    assert_eq!(stream["width"], SIZE.0);
    assert_eq!(stream["height"], SIZE.1 + 1);
    assert_eq!(stream["nb_read_frames"], frames.to_string());
    let middle = dir.join("mp4-middle.png");
    let drawn = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(&film)
        .args(["-vf", &format!("select=eq(n\\,{MIDDLE})"), "-frames:v", "1"])
        .arg(&middle)
        .output()
        .unwrap();
    assert!(
        drawn.status.success(),
        "{}",
        String::from_utf8_lossy(&drawn.stderr)
    );
    let frame = image::open(&middle).unwrap().to_rgba8();
    let cropped = image::imageops::crop_imm(&frame, 0, 0, SIZE.0, SIZE.1).to_image();
    // The still over the same colour, seen through the same test: what differs from
    // the background (the figure's shaded side is dark, like the background).
    let background = [0x20, 0x40, 0x60];
    let mut over = image::open(&still_path).unwrap().to_rgba8();
    for p in over.pixels_mut() {
        let a = p[3] as u32;
        for c in 0..3 {
            p[c] = ((p[c] as u32 * a + background[c] as u32 * (255 - a) + 127) / 255) as u8;
        }
        p[3] = 255;
    }
    let overlap = iou(
        &silhouette(&cropped, Some(background)),
        &silhouette(&over, Some(background)),
    );
    assert!(
        overlap >= 0.9,
        "the MP4's middle frame against the still: IoU {overlap:.3}"
    );

    // A PNG sequence: a folder of numbered frames, the middle one the still's moment.
    let folder = dir.join("frames");
    let report = render_anim(
        &model,
        &project,
        Path::new(&format!("{}/", folder.display())),
        &camera_arg,
    );
    assert_eq!(report["frames"], frames);
    let count = std::fs::read_dir(&folder).unwrap().count();
    assert_eq!(count, frames);
    let middle = image::open(folder.join(format!("frame_{:04}.png", MIDDLE + 1)))
        .unwrap()
        .to_rgba8();
    let overlap = iou(&silhouette(&middle, None), &still);
    assert!(
        overlap >= 0.97,
        "the sequence's middle frame: IoU {overlap:.3}"
    );
}

#[test]
fn bad_requests_are_refused_in_one_line_and_write_nothing() {
    let dir = scratch("render-anim-refusals");
    let (model, _) = mannequins(&dir);
    let project = dir.join("moving.json");
    moving_project(&model, &project);
    let cases: [(&str, &[&str], &str); 5] = [
        ("film.mkv", &[], ".webp"),
        ("film.webp", &["--fps", "0"], "frames per second"),
        ("film.webp", &["--to", "1e9"], "more than a film may have"),
        ("film.gif", &["--fps", "60"], "50"),
        ("film.webp", &["--size", "9000x10"], "--size"),
    ];
    for (name, extra, says) in cases {
        let out = dir.join(name);
        let output = bin()
            .args(["render-anim", "--model", model.to_str().unwrap()])
            .args([
                "--project",
                project.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ])
            .args(extra)
            .env_remove("DISPLAY")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{name} {extra:?} was accepted");
        assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
        assert!(stderr.contains(says), "{name} {extra:?}: {stderr}");
        assert!(!out.exists(), "nothing written for {name} {extra:?}");
    }
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with("film"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
