//! Transparent PNG stills, rendered headless on Mesa's software Vulkan (lavapipe) by
//! `vrma-maker render-png`: exact size, transparent background, opaque avatar, clean
//! alpha, and a raised arm shows up where it should.

use crate::common::*;
use serde_json::json;

fn have_vulkan() -> bool {
    std::path::Path::new("/usr/share/vulkan/icd.d").is_dir()
}

fn render(
    model: &std::path::Path,
    pose: serde_json::Value,
    size: &str,
    camera: &str,
    dir: &std::path::Path,
    name: &str,
) -> image::RgbaImage {
    let pose_path = dir.join(format!("{name}.json"));
    std::fs::write(&pose_path, pose.to_string()).unwrap();
    let out = dir.join(format!("{name}.png"));
    let result = bin()
        .args([
            "render-png",
            "--model",
            model.to_str().unwrap(),
            "--pose",
            pose_path.to_str().unwrap(),
        ])
        .args([
            "-o",
            out.to_str().unwrap(),
            "--size",
            size,
            "--camera",
            camera,
        ])
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    assert!(
        result.status.success(),
        "render-png failed: {}",
        String::from_utf8_lossy(&result.stderr)
    );
    image::open(&out).unwrap().to_rgba8()
}

fn opaque_fraction(img: &image::RgbaImage, x0: f32, x1: f32, y0: f32, y1: f32) -> f64 {
    let (w, h) = (img.width() as f32, img.height() as f32);
    let mut hit = 0;
    let mut total = 0;
    for y in (y0 * h) as u32..(y1 * h) as u32 {
        for x in (x0 * w) as u32..(x1 * w) as u32 {
            hit += (img.get_pixel(x, y)[3] == 255) as u32;
            total += 1;
        }
    }
    hit as f64 / total.max(1) as f64
}

#[test]
fn a_still_has_a_transparent_background_and_an_opaque_avatar() {
    if !required_or_skip("a Vulkan driver (mesa-vulkan-drivers)", have_vulkan()) {
        return;
    }
    let dir = scratch("png");
    let (v1, v0) = mannequins(&dir);
    for (model, camera) in [(&v1, "front"), (&v0, "three-quarter"), (&v1, "side")] {
        let img = render(model, json!({"v": 1}), "240x320", camera, &dir, camera);
        assert_eq!(
            (img.width(), img.height()),
            (240, 320),
            "the requested size exactly"
        );
        for (x, y) in [(0, 0), (239, 0), (0, 319), (239, 319)] {
            assert_eq!(
                img.get_pixel(x, y)[3],
                0,
                "{camera}: corner ({x},{y}) is transparent"
            );
        }
        assert!(
            opaque_fraction(&img, 0.45, 0.55, 0.35, 0.6) > 0.6,
            "{camera}: the body is opaque"
        );
        let partial = img.pixels().filter(|p| p[3] != 0 && p[3] != 255).count();
        assert_eq!(
            partial, 0,
            "{camera}: straight alpha, no half-transparent fringe"
        );
        let coloured = img
            .pixels()
            .filter(|p| p[3] == 0 && (p[0] | p[1] | p[2]) != 0)
            .count();
        assert_eq!(coloured, 0, "{camera}: transparent pixels carry no colour");
    }
}

#[test]
fn raising_the_left_arm_fills_the_upper_right_of_a_front_still() {
    if !required_or_skip("a Vulkan driver (mesa-vulkan-drivers)", have_vulkan()) {
        return;
    }
    let dir = scratch("png-arm");
    let (v1, _) = mannequins(&dir);
    let rest = render(&v1, json!({"v": 1}), "300x400", "front", &dir, "rest");
    // The avatar's left is the image's right in a front view.
    let raised = render(
        &v1,
        json!({"v": 1, "bones": {"leftUpperArm": [0, 0, 0.5, 0.866]}}),
        "300x400",
        "front",
        &dir,
        "raised",
    );
    let upper_right = |img: &image::RgbaImage| opaque_fraction(img, 0.6, 1.0, 0.0, 0.3);
    let upper_left = |img: &image::RgbaImage| opaque_fraction(img, 0.0, 0.4, 0.0, 0.3);
    assert!(
        upper_right(&rest) < 0.001,
        "T-pose: nothing up there ({})",
        upper_right(&rest)
    );
    assert!(
        upper_right(&raised) > 0.01,
        "the raised arm is there ({})",
        upper_right(&raised)
    );
    assert!(
        upper_left(&raised) < 0.001,
        "and not on the other side ({})",
        upper_left(&raised)
    );
}

#[test]
fn render_png_refuses_bad_requests() {
    let dir = scratch("png-bad");
    let (v1, _) = mannequins(&dir);
    let pose = dir.join("p.json");
    std::fs::write(&pose, "{}").unwrap();
    let m = v1.to_str().unwrap();
    let p = pose.to_str().unwrap();
    let out = dir.join("o.png");
    let o = out.to_str().unwrap();
    for (args, needle) in [
        (
            vec![
                "render-png",
                "--model",
                m,
                "--pose",
                p,
                "-o",
                o,
                "--size",
                "0x10",
            ],
            "--size",
        ),
        (
            vec![
                "render-png",
                "--model",
                m,
                "--pose",
                p,
                "-o",
                o,
                "--size",
                "big",
            ],
            "--size",
        ),
        (
            vec![
                "render-png",
                "--model",
                m,
                "--pose",
                p,
                "-o",
                o,
                "--camera",
                "top",
            ],
            "--camera",
        ),
        (vec!["render-png", "--model", m, "-o", o], "--pose"),
    ] {
        let r = run(&args);
        assert_eq!(r.status.code(), Some(1), "{args:?}");
        assert!(
            String::from_utf8_lossy(&r.stderr).contains(needle),
            "{args:?}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        assert!(!out.exists());
    }
}
