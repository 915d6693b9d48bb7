//! Transparent PNG stills, rendered headless on Mesa's software Vulkan (lavapipe) by
//! `vrma-maker render-png`: exact size, transparent background, opaque avatar, clean
//! alpha, and a raised arm shows up where it should.

use crate::common::*;
use serde_json::json;

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

/// Anti-aliased edges with straight alpha: the silhouette has partial alpha, and edge
/// pixels carry the colour of the surface next to them, not one faded towards black
/// (premultiplied colour left undivided) or white: on an unlit (flat-coloured) figure,
/// within 8/255 of their nearest fully covered neighbour on average, the faintest ones
/// included, so the still composites over black or white without a rim.
fn assert_edges_are_clean(img: &image::RgbaImage, what: &str) {
    let (w, h) = img.dimensions();
    let mut signed = [(0u64, 0f64); 2]; // [faint (alpha < 96), all]
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let p = img.get_pixel(x, y);
            if p[3] == 0 || p[3] == 255 {
                continue;
            }
            let inner = (-2i32..=2)
                .flat_map(|dy| (-2i32..=2).map(move |dx| (dx, dy)))
                .filter_map(|(dx, dy)| {
                    let (nx, ny) = (x as i32 + dx, y as i32 + dy);
                    (nx >= 0 && ny >= 0 && nx < w as i32 && ny < h as i32)
                        .then(|| (dx * dx + dy * dy, *img.get_pixel(nx as u32, ny as u32)))
                })
                .filter(|(_, q)| q[3] == 255)
                .min_by_key(|(d, _)| *d);
            let Some((_, q)) = inner else { continue };
            let d = (0..3).map(|c| p[c] as f64 - q[c] as f64).sum::<f64>() / 3.0;
            for (i, bin) in signed.iter_mut().enumerate() {
                if i == 1 || p[3] < 96 {
                    bin.0 += 1;
                    bin.1 += d;
                }
            }
        }
    }
    let (edges, faint) = (signed[1].0, signed[0].0);
    assert!(
        edges > 50,
        "{what}: anti-aliased edges ({edges} partial pixels)"
    );
    for (n, sum, which) in [(faint, signed[0].1, "faint"), (edges, signed[1].1, "all")] {
        let mean = sum / n.max(1) as f64;
        assert!(
            mean.abs() <= 8.0,
            "{what}: {which} edge pixels ({n}) are {mean:+.1}/255 from the surface on average"
        );
    }
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
        assert!(
            partial > 50,
            "{camera}: anti-aliased edges ({partial} partial pixels)"
        );
        let coloured = img
            .pixels()
            .filter(|p| p[3] == 0 && (p[0] | p[1] | p[2]) != 0)
            .count();
        assert_eq!(coloured, 0, "{camera}: transparent pixels carry no colour");
    }
    // Flat colour (every material unlit), so that shading cannot hide a rim.
    for (model, camera) in [(&v1, "front"), (&v0, "three-quarter")] {
        let unlit = edited_glb(model, dir.join(format!("unlit-{camera}.vrm")), |root| {
            for material in root["materials"].as_array_mut().unwrap() {
                material["extensions"]["KHR_materials_unlit"] = json!({});
            }
        });
        let img = render(&unlit, json!({"v": 1}), "240x320", camera, &dir, "unlit");
        assert_edges_are_clean(&img, camera);
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

/// Without any graphics device (no Vulkan driver found: the loader pointed at none), a
/// still ends with one line naming what was tried and what to do, exit code 1, no panic
/// and no file (the window: `window::without_a_vulkan_driver_the_window_says_what_to_install`).
#[test]
fn no_graphics_device_is_one_clear_line_not_a_crash() {
    let dir = scratch("png-no-gpu");
    let (v1, _) = mannequins(&dir);
    let pose = dir.join("p.json");
    std::fs::write(&pose, "{}").unwrap();
    let out = dir.join("o.png");
    let nowhere = dir.join("no-such-driver.json");
    let result = bin()
        .args(["render-png", "--model"])
        .arg(&v1)
        .arg("--pose")
        .arg(&pose)
        .arg("-o")
        .arg(&out)
        .env("VK_ICD_FILENAMES", &nowhere)
        .env("VK_DRIVER_FILES", &nowhere)
        // Nor OpenGL: Mesa's EGL, which ffmpeg's packages bring, is hidden from glvnd too.
        .env("__EGL_VENDOR_LIBRARY_FILENAMES", &nowhere)
        .env_remove("WGPU_BACKEND")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(1), "{said}");
    let line = said
        .lines()
        .find(|l| l.starts_with("error:"))
        .unwrap_or_else(|| panic!("no error line: {said}"));
    assert!(
        line.contains("no graphics device could be started (tried Vulkan")
            && line.contains("mesa-vulkan-drivers"),
        "{line}"
    );
    assert!(!said.contains("panicked"), "{said}");
    assert!(!out.exists());
}

/// `render-png` with extra arguments; returns its JSON report and the still.
fn render_with(
    model: &std::path::Path,
    pose: serde_json::Value,
    extra: &[&str],
    dir: &std::path::Path,
    name: &str,
) -> (serde_json::Value, image::RgbaImage) {
    let pose_path = dir.join(format!("{name}.json"));
    std::fs::write(&pose_path, pose.to_string()).unwrap();
    let out = dir.join(format!("{name}.png"));
    let result = bin()
        .args(["render-png", "--model", model.to_str().unwrap()])
        .args(["--pose", pose_path.to_str().unwrap()])
        .args(["-o", out.to_str().unwrap(), "--size", "200x260"])
        .args(extra)
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    assert!(
        result.status.success(),
        "render-png {extra:?}: {}",
        String::from_utf8_lossy(&result.stderr)
    );
    (json_stdout(&result), image::open(&out).unwrap().to_rgba8())
}

#[test]
fn one_camera_json_gives_the_same_still_whatever_was_rendered_before() {
    if !required_or_skip("a Vulkan driver (mesa-vulkan-drivers)", have_vulkan()) {
        return;
    }
    let dir = scratch("png-camera-json");
    let (v1, v0) = mannequins(&dir);
    let rest = json!({"v": 1});
    let arm_up = json!({"v": 1, "bones": {"leftUpperArm": [0.0, 0.0, 0.5, 0.866]}});
    // The preset's framing is printed as a camera; given back, it frames the same still.
    let (report, framed) = render_with(&v1, rest.clone(), &[], &dir, "framed");
    let camera = report["camera"].clone();
    assert!(
        camera["position"].is_array() && camera["fov"] == 30.0,
        "{report}"
    );
    let camera_file = dir.join("camera.json");
    std::fs::write(&camera_file, camera.to_string()).unwrap();
    let fixed = ["--camera-json", camera_file.to_str().unwrap()];
    let (again, first) = render_with(&v1, rest.clone(), &fixed, &dir, "first");
    assert_eq!(again["camera"], camera, "the camera used is the one given");
    assert_eq!(
        framed.as_raw(),
        first.as_raw(),
        "the preset's camera, given back"
    );
    // Another pose with the same camera is seen from the same place (a preset would
    // reframe it), and the rest pose after it is pixel-identical to the first.
    let (moved, posed) = render_with(&v1, arm_up.clone(), &fixed, &dir, "posed");
    assert_eq!(moved["camera"], camera);
    let (reframed, _) = render_with(&v1, arm_up, &[], &dir, "reframed");
    assert_ne!(
        reframed["camera"], camera,
        "a preset reframes the raised arm"
    );
    assert_ne!(posed.as_raw(), first.as_raw(), "the arm moved");
    let (_, after) = render_with(&v1, rest.clone(), &fixed, &dir, "after");
    assert_eq!(after.as_raw(), first.as_raw(), "the same still again");
    // The same camera puts a VRM 0.x mannequin (the same figure) in the same place.
    let (_, vrm0) = render_with(&v0, rest.clone(), &fixed, &dir, "vrm0");
    let covered = |img: &image::RgbaImage| img.pixels().filter(|p| p[3] > 127).count() as f64;
    let both = first
        .pixels()
        .zip(vrm0.pixels())
        .filter(|(p, q)| p[3] > 127 && q[3] > 127)
        .count() as f64;
    assert!(
        both / covered(&first).max(covered(&vrm0)) > 0.9,
        "VRM 0.x and 1.0 line up under one camera"
    );

    // A background colour: every pixel opaque, corners that colour, edges in between.
    let (_, on_white) = render_with(&v1, rest, &["--background", "#ffffff"], &dir, "white");
    assert!(on_white.pixels().all(|p| p[3] == 255));
    assert_eq!(on_white.get_pixel(0, 0).0, [255, 255, 255, 255]);
    let blended = first
        .pixels()
        .zip(on_white.pixels())
        .filter(|(p, _)| p[3] > 0 && p[3] < 255)
        .all(|(p, q)| {
            let a = p[3] as f64 / 255.0;
            // Between the surface colour and white, weighted by coverage (in light).
            (0..3).all(|c| q[c] as f64 + 1.0 >= p[c] as f64 * a.min(1.0) - 1.0)
        });
    assert!(blended, "edges blend into the background");

    for (extra, needle) in [
        (vec!["--background", "reddish"], "background"),
        (
            vec!["--camera-json", "/nonexistent/camera.json"],
            "camera.json",
        ),
    ] {
        let out = bin()
            .args(["render-png", "--model", v1.to_str().unwrap(), "--pose"])
            .arg(dir.join("first.json"))
            .args(["-o", dir.join("bad.png").to_str().unwrap()])
            .args(&extra)
            .env_remove("DISPLAY")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && stderr.contains(needle),
            "{extra:?}: {stderr}"
        );
        assert!(!dir.join("bad.png").exists());
    }
    std::fs::write(
        &camera_file,
        r#"{"position": [0, 1, 3], "target": [0, 1, 3], "fov": 30}"#,
    )
    .unwrap();
    let out = bin()
        .args(["render-png", "--model", v1.to_str().unwrap(), "--pose"])
        .arg(dir.join("first.json"))
        .args(["-o", dir.join("bad.png").to_str().unwrap()])
        .args(["--camera-json", camera_file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("same point"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
