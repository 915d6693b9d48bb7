//! The real editor window under Xvfb on Mesa's software Vulkan: a screenshot after the
//! model loads shows the mannequin's pixels in the middle of the view.

use std::time::Duration;

use crate::common::*;

fn screenshot(args: &[&str], name: &str) -> image::RgbaImage {
    screenshot_and_log(args, name).0
}

fn screenshot_and_log(args: &[&str], name: &str) -> (image::RgbaImage, String) {
    let (_xvfb, display) = start_xvfb().expect("Xvfb starts");
    let dir = scratch(name);
    let shot = dir.join("window.png");
    let log = std::fs::File::create(dir.join("log.txt")).unwrap();
    let mut child = bin()
        .arg("--screenshot")
        .arg(&shot)
        .args(args)
        .env("DISPLAY", &display)
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    let status = wait_with_timeout(&mut child, Duration::from_secs(300));
    let log = std::fs::read_to_string(dir.join("log.txt")).unwrap_or_default();
    assert!(
        status.is_some_and(|s| s.success()),
        "the app did not exit cleanly: {status:?}\n{log}"
    );
    (
        image::open(&shot).expect("screenshot written").to_rgba8(),
        log,
    )
}

#[test]
fn the_window_shows_the_mannequin_and_a_vrm0_model_faces_the_same_way() {
    if !required_or_skip(
        "Xvfb and a Vulkan driver (mesa-vulkan-drivers)",
        have_display_stack(),
    ) {
        return;
    }
    let img = screenshot(&[], "window-mannequin");
    img.save(std::env::temp_dir().join("vrma-maker-window-mannequin.png"))
        .ok();
    let (w, h) = (img.width(), img.height());
    // The 3D view sits between the inspector (left) and the expressions panel (right).
    let centre = view_centre_covered(&img);
    assert!(
        centre > 0.25,
        "the mannequin covers only {centre:.2} of the centre of the view"
    );
    let corner = covered_fraction(&img, w * 30 / 100, w * 34 / 100, h * 10 / 100, h * 14 / 100);
    assert!(
        corner < 0.05,
        "background is not plain near the top-left of the view ({corner:.2})"
    );

    // The same mannequin written as VRM 0.x shows the same way round: the face (dark
    // eyes) is visible from the default camera in both.
    let dir = scratch("window-vrm0");
    let (_, v0) = mannequins(&dir);
    let img0 = screenshot(&[v0.to_str().unwrap()], "window-vrm0-shot");
    let diff = image_difference(&img, &img0, w * 40 / 100, w * 60 / 100, 0, h);
    assert!(
        diff < 0.02,
        "VRM 0.x and 1.0 mannequins render differently ({diff:.3} of pixels)"
    );
}

fn image_difference(
    a: &image::RgbaImage,
    b: &image::RgbaImage,
    x0: u32,
    x1: u32,
    y0: u32,
    y1: u32,
) -> f64 {
    let mut differ = 0;
    let mut total = 0;
    for y in y0..y1.min(a.height()).min(b.height()) {
        for x in x0..x1 {
            let (p, q) = (a.get_pixel(x, y), b.get_pixel(x, y));
            differ += ((0..3).any(|c| (p[c] as i32 - q[c] as i32).abs() > 24)) as u32;
            total += 1;
        }
    }
    differ as f64 / total as f64
}

#[test]
fn a_bad_model_file_shows_a_message_and_the_mannequin_stays() {
    if !required_or_skip(
        "Xvfb and a Vulkan driver (mesa-vulkan-drivers)",
        have_display_stack(),
    ) {
        return;
    }
    let dir = scratch("window-bad");
    let bad = dir.join("broken.vrm");
    std::fs::write(&bad, b"glTF\x02\0\0\0\xff\xff\0\0 this is not a model").unwrap();
    let (img, log) = screenshot_and_log(&[bad.to_str().unwrap()], "window-bad-shot");
    img.save(std::env::temp_dir().join("vrma-maker-window-bad.png"))
        .ok();
    assert!(
        log.contains("Cannot open") && log.contains("broken.vrm"),
        "the reason is logged: {log}"
    );
    // The red error banner sits under the menu bar, across the window.
    let banner_rows = (0..img.height() / 4)
        .filter(|&y| {
            let p = img.get_pixel(img.width() / 2, y);
            p[0] > 90 && p[0] < 160 && p[1] < 50 && p[2] < 50
        })
        .count();
    assert!(
        banner_rows >= 10,
        "no error banner visible ({banner_rows} red rows)"
    );
    // The mannequin is still there to work on.
    let centre = view_centre_covered(&img);
    assert!(
        centre > 0.25,
        "the mannequin is not shown after a bad file ({centre:.2})"
    );
}

#[test]
fn without_a_vulkan_driver_the_window_says_what_to_install() {
    if !required_or_skip("Xvfb", have_display_stack()) {
        return;
    }
    let (_xvfb, display) = start_xvfb().expect("Xvfb starts");
    let out = bin()
        .env("DISPLAY", &display)
        .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .env("VK_DRIVER_FILES", "/nonexistent/icd.json")
        // Nor OpenGL: Mesa's EGL, which ffmpeg's packages bring, is hidden from glvnd too.
        .env("__EGL_VENDOR_LIBRARY_FILENAMES", "/nonexistent/egl.json")
        // (Where zenity is installed the line would also wait in a message box.)
        .env("VRMA_MAKER_NO_MESSAGE_BOX", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("no graphics device could be started (tried Vulkan")
            && stderr.contains("mesa-vulkan-drivers")
            && !stderr.contains("panicked"),
        "{stderr}"
    );
}

#[test]
fn export_png_from_the_window_shows_only_the_avatar() {
    if !required_or_skip(
        "Xvfb and a Vulkan driver (mesa-vulkan-drivers)",
        have_display_stack(),
    ) {
        return;
    }
    let dir = scratch("window-png");
    let (model, _) = mannequins(&dir);
    let from_window = dir.join("window.png");
    let (_xvfb, display) = start_xvfb().expect("Xvfb starts");
    // A selected bone shows the gizmo and every marker is drawn: none may reach the PNG.
    let status = bin()
        .arg(&model)
        .args(["--select", "leftHand", "--exit-after", "12", "--export-png"])
        .arg(&from_window)
        .env("DISPLAY", &display)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let window_png = image::open(&from_window)
        .expect("the window exported the PNG")
        .to_rgba8();
    // The same still from the command line (no window, no overlays at all).
    let pose = dir.join("rest.json");
    std::fs::write(&pose, "{\"v\":1}").unwrap();
    let from_cli = dir.join("cli.png");
    let out = run(&[
        "render-png",
        "--model",
        model.to_str().unwrap(),
        "--pose",
        pose.to_str().unwrap(),
        "-o",
        from_cli.to_str().unwrap(),
        "--size",
        "240x320",
        "--camera",
        "front",
    ]);
    assert!(out.status.success());
    let cli_png = image::open(&from_cli).unwrap().to_rgba8();
    assert_eq!(window_png.dimensions(), cli_png.dimensions());
    let differing = window_png
        .pixels()
        .zip(cli_png.pixels())
        .filter(|(a, b)| a[3] != b[3])
        .count();
    assert_eq!(
        differing, 0,
        "the window's PNG silhouette matches the overlay-free render"
    );
    assert_eq!(window_png.get_pixel(0, 0)[3], 0);
}

#[test]
fn keys_show_rendered_thumbnails_without_touching_the_pose_on_screen() {
    if !required_or_skip(
        "Xvfb and a Vulkan driver (mesa-vulkan-drivers)",
        have_display_stack(),
    ) {
        return;
    }
    let dir = scratch("window-key-thumbs");
    let (model, _) = mannequins(&dir);
    let project = dir.join("p.json");
    three_key_project(&model, &project);
    let saved = dir.join("saved.json");
    let (img, log) = screenshot_and_log(
        &[
            project.to_str().unwrap(),
            "--save-on-exit",
            saved.to_str().unwrap(),
        ],
        "window-key-thumbs-shot",
    );
    img.save(std::env::temp_dir().join("vrma-maker-window-key-thumbs.png"))
        .ok();
    assert!(log.contains("key thumbnails: 3 regenerated"), "{log}");
    // The thumbnails' fixed background shows on the ruler, three times.
    let background = thumbnail_background(&img, 0, img.width());
    assert!(
        background > 3 * 33 * 44 / 3,
        "thumbnails on the ruler ({background} background pixels)"
    );
    // The pose on screen stayed the timeline's pose at the playhead.
    let saved: serde_json::Value = serde_json::from_slice(&std::fs::read(&saved).unwrap()).unwrap();
    let sampled = json_stdout(&run(&[
        "sample",
        "--model",
        model.to_str().unwrap(),
        "--project",
        project.to_str().unwrap(),
        "--times",
        "0.5",
    ]));
    assert_eq!(saved["pose"]["bones"], sampled[0]["pose"]["bones"]);
}

/// Thumbnail background pixels (56, 61, 71) in a column range of the ruler's band.
fn thumbnail_background(img: &image::RgbaImage, x0: u32, x1: u32) -> usize {
    let band = (img.height() - 130)..(img.height() - 20);
    band.flat_map(|y| (x0..x1).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = img.get_pixel(x, y);
            (p[0] as i32 - 56).abs() <= 4
                && (p[1] as i32 - 61).abs() <= 4
                && (p[2] as i32 - 71).abs() <= 4
        })
        .count()
}

#[test]
fn a_fifty_thousand_key_take_opens_in_bounded_memory_with_the_thumbnails_that_fit() {
    if !required_or_skip(
        "Xvfb, a Vulkan driver, GNU time and ImageMagick",
        have_display_stack() && have_time_and_import(),
    ) {
        return;
    }
    let dir = scratch("window-long-take");
    let (model, _) = mannequins(&dir);
    // A key on every frame for 28 minutes (motion capture, say): one image and camera
    // per key took 6 GB within half a minute and kept climbing.
    let keys: Vec<serde_json::Value> = (0..50_000)
        .map(|f| {
            let a = (f as f64 * 0.01).sin() * 0.4;
            serde_json::json!({"id": f + 1, "t": f as f64 / 30.0, "pose": {"bones": {
                "spine": [0.0, a.sin(), 0.0, a.cos()]}}})
        })
        .collect();
    let project = dir.join("take.json");
    std::fs::write(
        &project,
        serde_json::json!({"v": 1, "fps": 30, "model": {"path": model}, "keys": keys}).to_string(),
    )
    .unwrap();
    let (_xvfb, display) = start_xvfb().expect("Xvfb starts");
    let log = dir.join("log.txt");
    let file = std::fs::File::create(&log).unwrap();
    let mut app = bin();
    app.arg(&project)
        .args(["--exit-after", "240"])
        .env("DISPLAY", &display)
        .env("VRMA_MAKER_DATA_DIR", dir.join("data"));
    let mut timed = under_time(&app)
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .spawn()
        .unwrap();
    wait_for_log(&log, "key thumbnails:", Duration::from_secs(200));
    std::thread::sleep(Duration::from_secs(1));
    let img = grab_display(&display, &dir.join("shot.png"));
    // Quit like a closed terminal would; GNU time still reports the peak.
    std::process::Command::new("pkill")
        .args(["-TERM", "-P", &timed.id().to_string()])
        .status()
        .unwrap();
    wait_with_timeout(&mut timed, Duration::from_secs(60)).expect("the app exits");
    let text = std::fs::read_to_string(&log).unwrap();
    let rendered: usize = text
        .split("key thumbnails: ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    // The ruler is about 1,260 px wide and a thumbnail 33 px: some 38 fit side by side.
    assert!(
        (20..=48).contains(&rendered),
        "{rendered} thumbnails rendered for 50,000 keys"
    );
    let peak = peak_memory(&text);
    assert!(peak < 1_500_000_000, "peak {} MB", peak / 1_000_000);
    let (w, h) = (img.width(), img.height());
    assert!(w >= 1280 && h >= 800, "{w}×{h}");
    // Thumbnails run the ruler's whole width, from the first key to the last.
    let left = thumbnail_background(&img, 10, 320);
    let right = thumbnail_background(&img, 960, 1270);
    assert!(
        left > 4 * 33 * 44 / 3 && right > 4 * 33 * 44 / 3,
        "thumbnails left {left}, right {right} pixels"
    );
}

#[test]
fn key_thumbnails_draw_the_avatars_mtoon_outline_too() {
    if !required_or_skip(
        "Xvfb and a Vulkan driver (mesa-vulkan-drivers)",
        have_display_stack(),
    ) {
        return;
    }
    let dir = scratch("window-mtoon-thumbs");
    let model = test_avatar(&dir, "a.vrm", false, &["--texture-size", "64"]);
    // A red outline 2 cm wide: a few pixels even at thumbnail size.
    let model = edited_glb(&model, dir.join("outlined.vrm"), |root| {
        for material in root["materials"].as_array_mut().unwrap() {
            let mtoon = &mut material["extensions"]["VRMC_materials_mtoon"];
            mtoon["outlineWidthFactor"] = serde_json::json!(0.02);
            mtoon["outlineColorFactor"] = serde_json::json!([1.0, 0.0, 0.0]);
            mtoon["outlineLightingMixFactor"] = serde_json::json!(0.0);
        }
    });
    let project = dir.join("p.json");
    std::fs::write(
        &project,
        serde_json::json!({"v": 1, "fps": 30, "model": {"path": model}, "keys": [
            {"id": 1, "t": 1, "pose": {"bones": {}}}]})
        .to_string(),
    )
    .unwrap();
    let (img, log) = screenshot_and_log(&[project.to_str().unwrap()], "window-mtoon-thumbs-shot");
    assert!(log.contains("key thumbnails: 1 regenerated"), "{log}");
    let reddish = |x: u32, y: u32| {
        let p = img.get_pixel(x, y);
        p[0] > 150 && p[0] as i32 > p[1] as i32 + 70 && p[0] as i32 > p[2] as i32 + 70
    };
    let h = img.height();
    let view = (40..600)
        .flat_map(|y| (280..1100).map(move |x| (x, y)))
        .filter(|&(x, y)| reddish(x, y))
        .count();
    // The 3D view has the outline; so does the thumbnail on the ruler (shown smaller,
    // so blended). The playhead is red too, but a line down the whole ruler: columns
    // that are red most of the way down are left out.
    assert!(view > 200, "the outline in the view ({view} px)");
    let in_thumbnail: usize = (0..img.width())
        .map(|x| (h - 130..h - 20).filter(|&y| reddish(x, y)).count())
        .filter(|&n| n < 50)
        .sum();
    assert!(
        in_thumbnail > 10,
        "the outline in the key's thumbnail ({in_thumbnail} px)"
    );
}
