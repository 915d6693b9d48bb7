//! Our stills against three-vrm's: the same generated VRoid-scale MToon avatar (VRM 1.0
//! and 0.x: toon shading, outlines, rim, matcap, emission, cutout and blend, spring
//! hair), the same pose, camera and lighting, drawn by `render-png` on lavapipe and by
//! three-vrm 3.5.5 in headless Chromium (`tests/node/render_three.mjs`).
//!
//! The lighting both use: one white directional light from `KEY_LIGHT_FROM` toward the
//! origin, of radiance 1 (three: intensity π; ours: `session::spawn_lights`), and an
//! ambient light adding `AMBIENT_FRACTION` of the lit colour (three: an `AmbientLight`
//! of intensity π × that). Both write sRGB without tone mapping.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use vrma_maker::app::session::{AMBIENT_FRACTION, KEY_LIGHT_FROM};
use vrma_maker::core::body::still::downsample;

use crate::common::*;

/// Our stills are drawn 3×3 supersampled; three-vrm's is drawn this much larger and
/// reduced the same way, so that both have the same edges.
const REFERENCE_SUPERSAMPLE: u32 = 3;
const SIZE: (u32, u32) = (384, 512);
/// Springs settle for this long (ours: `SPRING_SETTLE_SECONDS`).
const SETTLE_SECONDS: f32 = 1.5;

fn chromium() -> PathBuf {
    std::env::var_os("VRMA_MAKER_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"))
}

pub fn can_compare() -> bool {
    required_or_skip(
        "a Vulkan driver, Node.js with tests/node/node_modules and Chromium (package chromium)",
        have_vulkan() && node_ready() && chromium().exists(),
    )
}

/// Arms lowered and the head tilted, so the hair swings away from its rest.
fn tilted_pose() -> Value {
    let about_z = |degrees: f32| {
        let half = degrees.to_radians() / 2.0;
        json!([0.0, 0.0, half.sin(), half.cos()])
    };
    json!({"v": 1, "bones": {
        "leftUpperArm": about_z(-60.0),
        "rightUpperArm": about_z(60.0),
        "head": about_z(25.0),
    }})
}

/// A full-figure camera, in model space.
fn full_figure_camera() -> Value {
    json!({"position": [0.0, 0.95, 4.3], "target": [0.0, 0.9, 0.0], "fov": 30.0})
}

/// [`tilted_pose`] and [`full_figure_camera`] written into `dir`.
fn pose_and_camera_files(dir: &Path) -> (PathBuf, PathBuf) {
    let (pose, camera) = (dir.join("pose.json"), dir.join("camera.json"));
    std::fs::write(&pose, tilted_pose().to_string()).unwrap();
    std::fs::write(&camera, full_figure_camera().to_string()).unwrap();
    (pose, camera)
}

pub struct Reference {
    pub image: image::RgbaImage,
    springs: Vec<Value>,
}

/// `render_three.mjs` on `files` (model, pose or samples, camera, output) at `size`, lit
/// as our renderer lights a still; its JSON report.
fn render_three(files: &[&Path], (width, height): (u32, u32), extra: &[&str]) -> Value {
    let from = KEY_LIGHT_FROM;
    let output = Command::new("node")
        .arg(repo().join("tests/node/render_three.mjs"))
        .args(files)
        .args(["--size", &format!("{width}x{height}")])
        .args([
            "--light-direction",
            &format!("{},{},{}", from.x, from.y, from.z),
        ])
        .args(["--key", &std::f32::consts::PI.to_string()])
        .args([
            "--ambient",
            &(std::f32::consts::PI * AMBIENT_FRACTION).to_string(),
        ])
        .args(extra)
        .env("VRMA_MAKER_CHROMIUM", chromium())
        .output()
        .expect("node runs");
    assert!(
        output.status.success(),
        "render_three.mjs: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

/// three-vrm's still (reduced to `SIZE`) and its settled spring joints.
pub fn three_vrm(model: &Path, pose: &Path, camera: &Path, out: &Path) -> Reference {
    let (w, h) = (
        SIZE.0 * REFERENCE_SUPERSAMPLE,
        SIZE.1 * REFERENCE_SUPERSAMPLE,
    );
    let report = render_three(
        &[model, pose, camera, out],
        (w, h),
        &["--settle", &SETTLE_SECONDS.to_string()],
    );
    let big = image::open(out).expect("three-vrm's PNG").to_rgba8();
    assert_eq!(big.dimensions(), (w, h));
    let small = downsample(big.as_raw(), w, h, REFERENCE_SUPERSAMPLE);
    Reference {
        image: image::RgbaImage::from_raw(SIZE.0, SIZE.1, small).unwrap(),
        springs: report["springs"].as_array().cloned().unwrap_or_default(),
    }
}

/// Frames drawn by three-vrm: `samples` is what `vrma-maker sample` prints (`[{t,
/// pose}]`), each frame written to `out_dir/frame_0001.png` on, opaque over
/// `background`, the springs settled on the first frame and stepped through time after.
pub fn three_vrm_frames(
    model: &Path,
    samples: &Path,
    camera: &Path,
    out_dir: &Path,
    (width, height): (u32, u32),
    background: &str,
) -> usize {
    let report = render_three(
        &[model, samples, camera, out_dir],
        (width, height),
        &["--background", background],
    );
    report["frames"].as_u64().expect("a frame count") as usize
}

pub fn ours(model: &Path, pose: &Path, camera: &Path, out: &Path) -> image::RgbaImage {
    let size = format!("{}x{}", SIZE.0, SIZE.1);
    render_png(
        model,
        pose,
        out,
        &["--size", &size, "--camera-json", camera.to_str().unwrap()],
    )
}

fn covered(p: &image::Rgba<u8>) -> bool {
    p[3] > 127
}

/// Silhouette overlap, and the mean colour difference per channel over the pixels both
/// cover fully (edges are compared by the overlap).
fn agreement(a: &image::RgbaImage, b: &image::RgbaImage) -> (f64, [f64; 3]) {
    let (mut both, mut either) = (0u64, 0u64);
    let mut sum = [0f64; 3];
    let mut inside = 0u64;
    for (pa, pb) in a.pixels().zip(b.pixels()) {
        both += (covered(pa) && covered(pb)) as u64;
        either += (covered(pa) || covered(pb)) as u64;
        if pa[3] == 255 && pb[3] == 255 {
            inside += 1;
            for c in 0..3 {
                sum[c] += (pa[c] as f64 - pb[c] as f64).abs();
            }
        }
    }
    assert!(inside > 10_000, "the figure covers {inside} pixels");
    (
        both as f64 / either.max(1) as f64,
        sum.map(|s| s / inside as f64),
    )
}

/// Pixels of a pure blue outline (lighting mix 0).
fn outline_pixels(img: &image::RgbaImage) -> Vec<bool> {
    img.pixels()
        .map(|p| p[3] > 200 && p[2] > 180 && p[0] < 60 && p[1] < 60)
        .collect()
}

/// The model with every outline 1 cm wide and pure blue, unlit; a VRM 0.x one's in
/// screen coordinates (1 % of the view's half height), as UniVRM exports often have.
/// Each is thinned by a width mask: a second texture of its colour texture's image (a
/// mask of its own is read linear; one texture serving both would be sRGB in three-vrm).
fn blue_outlines(model: &Path, vrm0: bool) -> PathBuf {
    let out = model.with_file_name(if vrm0 { "blue0.vrm" } else { "blue1.vrm" });
    edited_glb(model, out, |root| {
        // The mask of a colour texture: its image again, as a texture of its own.
        let mask_of = |root: &mut Value, texture: &Value| {
            let texture = texture.as_u64().unwrap() as usize;
            let source = root["textures"][texture]["source"].as_u64().unwrap() as usize;
            let image = root["images"][source].clone();
            let images = root["images"].as_array_mut().unwrap();
            images.push(image);
            let image = images.len() - 1;
            let textures = root["textures"].as_array_mut().unwrap();
            textures.push(json!({"source": image}));
            json!(textures.len() - 1)
        };
        if vrm0 {
            let count = root["extensions"]["VRM"]["materialProperties"]
                .as_array()
                .unwrap()
                .len();
            for m in 0..count {
                let main = root["extensions"]["VRM"]["materialProperties"][m]["textureProperties"]
                    ["_MainTex"]
                    .clone();
                let mask = mask_of(root, &main);
                let props = &mut root["extensions"]["VRM"]["materialProperties"][m];
                props["textureProperties"]["_OutlineWidthTexture"] = mask;
                props["floatProperties"]["_OutlineWidth"] = json!(1.0);
                props["floatProperties"]["_OutlineWidthMode"] = json!(2.0);
                props["floatProperties"]["_OutlineColorMode"] = json!(0.0);
                props["vectorProperties"]["_OutlineColor"] = json!([0.0, 0.0, 1.0, 1.0]);
            }
        } else {
            let count = root["materials"].as_array().unwrap().len();
            for m in 0..count {
                let main =
                    root["materials"][m]["pbrMetallicRoughness"]["baseColorTexture"]["index"]
                        .clone();
                let mask = mask_of(root, &main);
                let mtoon = &mut root["materials"][m]["extensions"]["VRMC_materials_mtoon"];
                mtoon["outlineWidthMultiplyTexture"] = json!({"index": mask});
                mtoon["outlineWidthFactor"] = json!(0.01);
                mtoon["outlineColorFactor"] = json!([0.0, 0.0, 1.0]);
                mtoon["outlineLightingMixFactor"] = json!(0.0);
            }
        }
    })
}

/// The generated MToon avatar of one version in `dir` (256² textures), and its tag.
fn avatar_of(dir: &Path, vrm0: bool) -> (&'static str, PathBuf) {
    let tag = if vrm0 { "0" } else { "1" };
    let model = test_avatar(
        dir,
        &format!("avatar{tag}.vrm"),
        vrm0,
        &["--texture-size", "256"],
    );
    (tag, model)
}

/// [`agreement`] within the figures: IoU ≥ 0.97, mean difference ≤ 8/255.
fn assert_agreement(
    ours: &image::RgbaImage,
    three: &image::RgbaImage,
    vrm0: bool,
    dir: &Path,
) -> (f64, [f64; 3]) {
    let (iou, difference) = agreement(ours, three);
    assert!(iou >= 0.97, "vrm0={vrm0}: silhouette IoU {iou:.4}");
    assert!(
        difference.iter().all(|&d| d <= 8.0),
        "vrm0={vrm0}: mean colour difference {difference:?} (of 255) in {}",
        dir.display()
    );
    (iou, difference)
}

#[test]
fn mtoon_stills_match_three_vrm_on_both_vrm_versions() {
    if !can_compare() {
        return;
    }
    // Chromium's software WebGL beside our software Vulkan: nothing else heavy at once.
    let _turn = RenderTurn::take();
    let dir = scratch("three-reference-stills");
    let (pose, camera) = pose_and_camera_files(&dir);
    for vrm0 in [false, true] {
        let (tag, model) = avatar_of(&dir, vrm0);
        let mine = ours(&model, &pose, &camera, &dir.join(format!("ours{tag}.png")));
        let three = three_vrm(&model, &pose, &camera, &dir.join(format!("three{tag}.png")));
        three
            .image
            .save(dir.join(format!("three{tag}-reduced.png")))
            .unwrap();
        let (iou, difference) = assert_agreement(&mine, &three.image, vrm0, &dir);
        eprintln!("vrm0={vrm0}: silhouette IoU {iou:.4}, mean difference {difference:.2?}");

        // The outline ring: where three-vrm draws the hull around the figure, so do we.
        let blue = blue_outlines(&model, vrm0);
        let mine = outline_pixels(&ours(&blue, &pose, &camera, &dir.join("ours-blue.png")));
        let three =
            outline_pixels(&three_vrm(&blue, &pose, &camera, &dir.join("three-blue.png")).image);
        let theirs = three.iter().filter(|&&t| t).count();
        let shared = mine.iter().zip(&three).filter(|(m, t)| **m && **t).count();
        let ours_only = mine.iter().zip(&three).filter(|(m, t)| **m && !**t).count();
        eprintln!(
            "vrm0={vrm0}: outline {theirs} pixels in three-vrm's, {shared} shared, {ours_only} ours only"
        );
        // A ring was drawn at all (its width follows the colour texture's green: the
        // dark hair and the blue top draw it thinner than the skin).
        assert!(
            theirs > 1000,
            "vrm0={vrm0}: three-vrm drew {theirs} outline pixels"
        );
        assert!(
            // Tight enough to tell the modes apart: a world outline of the same factor
            // covers 14 % fewer pixels here than the screen one three-vrm draws.
            shared as f64 >= 0.95 * theirs as f64 && (ours_only as f64) <= 0.05 * theirs as f64,
            "vrm0={vrm0}: outline pixels: three-vrm {theirs}, shared {shared}, ours only {ours_only}"
        );
    }
}

/// The generated hair made soft and heavy, so that it hangs and swings.
fn soft_hair(model: &Path, vrm0: bool) -> PathBuf {
    let out = model.with_file_name(if vrm0 { "soft0.vrm" } else { "soft1.vrm" });
    edited_glb(model, out, |root| {
        if vrm0 {
            for group in root["extensions"]["VRM"]["secondaryAnimation"]["boneGroups"]
                .as_array_mut()
                .unwrap()
            {
                group["stiffiness"] = json!(0.3);
                group["gravityPower"] = json!(0.6);
            }
        } else {
            for spring in root["extensions"]["VRMC_springBone"]["springs"]
                .as_array_mut()
                .unwrap()
            {
                for joint in spring["joints"].as_array_mut().unwrap() {
                    joint["stiffness"] = json!(0.3);
                    joint["gravityPower"] = json!(0.6);
                }
            }
        }
    })
}

#[test]
fn springs_settle_where_three_vrm_settles_them_on_both_vrm_versions() {
    if !can_compare() {
        return;
    }
    // Chromium's software WebGL beside our software Vulkan: nothing else heavy at once.
    let _turn = RenderTurn::take();
    let dir = scratch("three-reference-springs");
    let (pose_path, camera) = pose_and_camera_files(&dir);
    let pose =
        vrma_maker::core::body::pose::Pose::from_json(&tilted_pose(), &mut Vec::new()).unwrap();
    for vrm0 in [false, true] {
        let stiff = test_avatar(
            &dir,
            if vrm0 { "a0.vrm" } else { "a1.vrm" },
            vrm0,
            &["--texture-size", "16"],
        );
        let model = soft_hair(&stiff, vrm0);
        let reference = three_vrm(&model, &pose_path, &camera, &dir.join("three.png"));
        let rig = vrma_maker::core::body::rig::load_rig(&model).unwrap();
        // The file frame → the VRM 1.0 frame three-vrm reports in.
        let frame = |v: bevy::math::Vec3| {
            if vrm0 {
                bevy::math::Vec3::new(-v.x, v.y, -v.z)
            } else {
                v
            }
        };
        let settled = vrma_maker::core::body::springs::settled_positions(
            &rig.model.springs,
            &rig,
            &pose,
            SETTLE_SECONDS,
        );
        assert!(settled.len() >= 8, "{} spring joints", settled.len());
        assert_eq!(settled.len(), reference.springs.len(), "joints simulated");
        let point = |v: &Value| {
            let a: Vec<f32> = v
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect();
            bevy::math::Vec3::new(a[0], a[1], a[2])
        };
        // At rest in the pose (no time to swing): the tilted head moved the hair.
        let unsettled = vrma_maker::core::body::springs::settled_positions(
            &rig.model.springs,
            &rig,
            &pose,
            0.0,
        );
        let swing = settled
            .iter()
            .zip(&unsettled)
            .map(|(a, b)| a.2.distance(b.2))
            .fold(0.0f32, f32::max);
        assert!(swing > 0.02, "vrm0={vrm0}: the hair swung {swing} m");
        let mut worst: f32 = 0.0;
        for (node, joint, tail) in settled {
            let name = &rig.model.nodes[node].name;
            let theirs = reference
                .springs
                .iter()
                .find(|s| s["node"].as_str() == Some(name))
                .unwrap_or_else(|| panic!("three-vrm simulates no joint {name}"));
            let dj = frame(joint).distance(point(&theirs["world"]));
            let dt = frame(tail).distance(point(&theirs["tail"]));
            worst = worst.max(dj).max(dt);
        }
        eprintln!(
            "vrm0={vrm0}: hair swung {:.0} mm; joints and tails within {:.4} mm of three-vrm's",
            swing * 1000.0,
            worst * 1000.0
        );
        assert!(
            worst <= 0.01,
            "vrm0={vrm0}: a spring joint settles {:.1} mm from three-vrm's",
            worst * 1000.0
        );
    }
}

/// Sum of the absolute channel differences of two stills of one size.
fn total_difference(a: &image::RgbaImage, b: &image::RgbaImage) -> u64 {
    a.as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(x, y)| x.abs_diff(*y) as u64)
        .sum()
}

#[test]
fn a_close_up_looks_at_the_camera_as_three_vrm_draws_it_and_holds_uv_animation_at_t0() {
    if !can_compare() {
        return;
    }
    use vrma_maker::core::model::humanoid::Bone;
    // Chromium's software WebGL beside our software Vulkan: nothing else heavy at once.
    let _turn = RenderTurn::take();
    let dir = scratch("three-reference-gaze");
    let pose = dir.join("rest.json");
    std::fs::write(&pose, json!({"v": 1}).to_string()).unwrap();
    for vrm0 in [false, true] {
        let (tag, model) = avatar_of(&dir, vrm0);
        // The face from above and to the model's left: the eyes turn up and left.
        let rig = vrma_maker::core::body::rig::load_rig(&model).unwrap();
        let rest = vrma_maker::core::body::pose::Pose::default();
        let head = rig.world_position(&rest, Bone::Head).unwrap();
        let eyes = head + bevy::math::Vec3::new(0.0, 0.06, 0.0);
        let from = eyes + bevy::math::Vec3::new(0.3, 0.15, 0.5);
        let camera = dir.join(format!("close-up{tag}.json"));
        std::fs::write(
            &camera,
            json!({"position": from.to_array(), "target": eyes.to_array(), "fov": 25.0})
                .to_string(),
        )
        .unwrap();
        let size = format!("{}x{}", SIZE.0, SIZE.1);
        let args = ["--size", &size, "--camera-json", camera.to_str().unwrap()];
        let still = |name: &str, eyes: &str| {
            let out = dir.join(format!("{name}{tag}.png"));
            render_png(
                &model,
                &pose,
                &out,
                &[&args[..], &["--eyes", eyes]].concat(),
            )
        };
        let on_camera = still("on-camera", "camera");
        let again = still("again", "camera");
        let as_posed = still("as-posed", "pose");
        // The eyes' UVs scroll: a still is at t = 0 of it, whenever it was captured.
        assert_eq!(
            on_camera.as_raw(),
            again.as_raw(),
            "vrm0={vrm0}: the same still twice"
        );
        assert_ne!(
            on_camera.as_raw(),
            as_posed.as_raw(),
            "vrm0={vrm0}: the eyes turned to the camera"
        );
        let three = three_vrm(&model, &pose, &camera, &dir.join(format!("three{tag}.png")));
        let (iou, difference) = assert_agreement(&on_camera, &three.image, vrm0, &dir);
        let (gazing, posed) = (
            total_difference(&on_camera, &three.image),
            total_difference(&as_posed, &three.image),
        );
        eprintln!(
            "vrm0={vrm0}: close-up IoU {iou:.4}, mean difference {difference:.2?}; \
             against three-vrm {gazing} with the gaze, {posed} without"
        );
        assert!(
            gazing < posed,
            "vrm0={vrm0}: three-vrm's eyes look at the camera, as ours do"
        );
    }
}

/// A tangent-space normal map of ridges across U: the normal tilts ±45° along it, as a
/// sculpted cloth or hair normal map does (glTF convention: +Y is V up, linear).
fn ridged_normal_map() -> Vec<u8> {
    let size = 64u32;
    let img = image::RgbaImage::from_fn(size, size, |x, _| {
        let tilt = (x as f32 / size as f32 * std::f32::consts::TAU * 4.0).sin() * 0.7;
        let n = bevy::math::Vec3::new(tilt, 0.0, 1.0).normalize();
        let c = |v: f32| ((v * 0.5 + 0.5) * 255.0).round() as u8;
        image::Rgba([c(n.x), c(n.y), c(n.z), 255])
    });
    let mut png = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    png
}

/// The model with every material normal-mapped by [`ridged_normal_map`] (VRM 1.0: the
/// glTF `normalTexture`; VRM 0.x: MToon's `_BumpMap`), the image added to the binary.
fn normal_mapped(model: &Path, vrm0: bool) -> PathBuf {
    let out = model.with_file_name(if vrm0 { "bumpy0.vrm" } else { "bumpy1.vrm" });
    let bytes = std::fs::read(model).unwrap();
    let glb = vrma_maker::core::files::glb::split(&bytes).unwrap();
    let mut root: Value = serde_json::from_slice(glb.json).unwrap();
    let mut bin = glb.bin.unwrap().to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let png = ridged_normal_map();
    let views = root["bufferViews"].as_array_mut().unwrap();
    views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": png.len()}));
    let view = views.len() - 1;
    bin.extend_from_slice(&png);
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    root["buffers"][0]["byteLength"] = json!(bin.len());
    let images = root["images"].as_array_mut().unwrap();
    images.push(json!({"bufferView": view, "mimeType": "image/png"}));
    let image = images.len() - 1;
    let textures = root["textures"].as_array_mut().unwrap();
    textures.push(json!({"source": image}));
    let texture = textures.len() - 1;
    if vrm0 {
        for props in root["extensions"]["VRM"]["materialProperties"]
            .as_array_mut()
            .unwrap()
        {
            props["textureProperties"]["_BumpMap"] = json!(texture);
            props["floatProperties"]["_BumpScale"] = json!(1.0);
            props["keywordMap"]["_NORMALMAP"] = json!(true);
        }
    }
    // VRM 0.x files carry the core field too, as UniVRM writes it.
    for m in root["materials"].as_array_mut().unwrap() {
        m["normalTexture"] = json!({"index": texture, "scale": 1.0});
    }
    let json = serde_json::to_vec(&root).unwrap();
    std::fs::write(&out, vrma_maker::core::files::glb::build(&json, &bin)).unwrap();
    out
}

#[test]
fn normal_maps_shade_as_three_vrm_shades_them() {
    if !can_compare() {
        return;
    }
    // Chromium's software WebGL beside our software Vulkan: nothing else heavy at once.
    let _turn = RenderTurn::take();
    let dir = scratch("three-reference-normals");
    let (pose, camera) = pose_and_camera_files(&dir);
    for vrm0 in [false, true] {
        let (tag, plain) = avatar_of(&dir, vrm0);
        let bumpy = normal_mapped(&plain, vrm0);
        let report = node("validate.mjs", &[&bumpy]);
        assert!(
            report.status.success(),
            "{}",
            String::from_utf8_lossy(&report.stdout)
        );
        let flat = ours(&plain, &pose, &camera, &dir.join(format!("flat{tag}.png")));
        let mapped = ours(
            &bumpy,
            &pose,
            &camera,
            &dir.join(format!("mapped{tag}.png")),
        );
        let three = three_vrm(&bumpy, &pose, &camera, &dir.join(format!("three{tag}.png")));
        let (iou, difference) = assert_agreement(&mapped, &three.image, vrm0, &dir);
        let (with_map, without) = (
            total_difference(&mapped, &three.image),
            total_difference(&flat, &three.image),
        );
        eprintln!(
            "vrm0={vrm0}: IoU {iou:.4}, mean difference {difference:.2?}; against three-vrm's \
             normal-mapped still {with_map} with the map, {without} without"
        );
        // three-vrm frames the map by screen derivatives where a file has no tangents,
        // Bevy by MikkTSpace (as glTF asks): on these low-poly limbs the ridges fall a
        // little apart, so the map closes most of the gap, not all of it.
        assert!(
            with_map * 10 < without * 7,
            "vrm0={vrm0}: the normal map shades as three-vrm's does"
        );
    }
}
