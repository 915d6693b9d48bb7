//! Pose from a photo through the CLI (`pose-from-image`): MediaPipe's models, installed
//! by `scripts/setup-pose-models`, on a real photograph (scikit-image's public-domain
//! astronaut, `scripts/fetch-test-photo`), and the refusals: no person, corrupt and huge
//! pictures, missing models — each with a clear message and nothing written.

use std::path::{Path, PathBuf};

use bevy::math::Vec3;
use vrma_maker::core::humanoid::Bone;
use vrma_maker::core::pose::Pose;

use crate::common::*;

/// The installed pose models (`$VRMA_MAKER_POSE_MODELS`, which scripts/test sets, or the
/// user data folder's).
pub fn models() -> Option<PathBuf> {
    let dir = vrma_maker::vision::default_models_dir();
    required_or_skip(
        "the pose models (scripts/setup-pose-models)",
        dir.join(vrma_maker::vision::DETECTOR_FILE).is_file(),
    )
    .then_some(dir)
}

/// The real test photograph (scripts/fetch-test-photo), or `None` when it is missing
/// (and then the test has said so).
pub fn photo() -> Option<PathBuf> {
    let path = std::env::var_os("VRMA_MAKER_TEST_PHOTO")
        .map(PathBuf::from)
        .filter(|p| p.is_file());
    required_or_skip(
        "the test photograph (scripts/fetch-test-photo)",
        path.is_some(),
    )
    .then_some(path?)
}

pub fn pose_from_image(
    model: &Path,
    image: &Path,
    out: &Path,
    models: &Path,
    extra: &[&str],
) -> std::process::Output {
    vision_command("pose-from-image", model, image, out, models, extra)
}

/// A vision subcommand (`pose-from-image`, `follow-frames`) on `input`, writing `out`.
fn vision_command(
    command: &str,
    model: &Path,
    input: &Path,
    out: &Path,
    models: &Path,
    extra: &[&str],
) -> std::process::Output {
    bin()
        .args([command, "--model", model.to_str().unwrap()])
        .arg(input)
        .args(["-o", out.to_str().unwrap()])
        .args(["--models", models.to_str().unwrap()])
        .args(extra)
        .output()
        .unwrap()
}

/// The model-space direction of each upper arm (shoulder → elbow) in a written pose.
fn upper_arms(model: &Path, pose_file: &Path) -> [Vec3; 2] {
    let rig = vrma_maker::core::load_rig(model).unwrap();
    let pose = Pose::from_json(
        &vrma_maker::core::read_json(pose_file).unwrap(),
        &mut Vec::new(),
    )
    .unwrap();
    let world = rig.world_pose(&pose);
    let at = |b: Bone| world[b.index()].unwrap().0;
    [
        (at(Bone::LeftLowerArm) - at(Bone::LeftUpperArm)).normalize(),
        (at(Bone::RightLowerArm) - at(Bone::RightUpperArm)).normalize(),
    ]
}

#[test]
fn a_real_photograph_gives_upper_arms_pointing_down_and_out() {
    let (Some(models), Some(photo)) = (models(), photo()) else {
        return;
    };
    let dir = scratch("pose_photo_astronaut");
    let (model, _) = mannequins(&dir);
    let out = dir.join("pose.json");
    let result = pose_from_image(&model, &photo, &out, &models, &["--hands"]);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let report = json_stdout(&result);
    let posed: Vec<&str> = report["posed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for part in ["torso", "head", "left arm", "right arm"] {
        assert!(posed.contains(&part), "{part} not posed: {report}");
    }
    // The photo shows no feet: the legs keep the rest pose.
    let kept: Vec<&str> = report["kept"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        kept.contains(&"left leg") && kept.contains(&"right leg"),
        "{report}"
    );
    // Both upper arms hang down beside the body (she stands with her arms lowered);
    // neither crosses to the other side, so left and right were not swapped.
    let [left, right] = upper_arms(&model, &out);
    println!("upper arms from the photo: left {left}, right {right}");
    for (name, arm, outward) in [("left", left, 1.0), ("right", right, -1.0)] {
        let from_down = arm.angle_between(Vec3::NEG_Y).to_degrees();
        assert!(
            from_down < 40.0,
            "{name} upper arm {arm} is {from_down}° from straight down"
        );
        assert!(
            arm.x * outward > -0.1,
            "{name} upper arm {arm} points across the body"
        );
    }
    assert!(
        -right.x > 0.1,
        "the right upper arm {right} points out, as in the photo"
    );
    // The whole run, models loaded, stays well under a second on this CPU (measured in
    // the note by benches; here only a generous bound against a hang).
    assert!(
        report["seconds"]["total"].as_f64().unwrap() < 30.0,
        "{report}"
    );

    // Mirrored, the same photo gives each arm the other's direction, reflected.
    let mirrored_out = dir.join("mirrored.json");
    let result = pose_from_image(&model, &photo, &mirrored_out, &models, &["--mirror"]);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let [mirrored_left, mirrored_right] = upper_arms(&model, &mirrored_out);
    let reflect = |v: Vec3| Vec3::new(-v.x, v.y, v.z);
    assert!(
        mirrored_left.angle_between(reflect(right)) < 0.02,
        "{mirrored_left} vs {right}"
    );
    assert!(
        mirrored_right.angle_between(reflect(left)) < 0.02,
        "{mirrored_right} vs {left}"
    );
}

#[test]
fn a_picture_without_a_person_is_refused_and_nothing_is_written() {
    let Some(models) = models() else { return };
    let dir = scratch("pose_photo_nobody");
    let (model, _) = mannequins(&dir);
    // A sky-to-ground gradient with soft noise: a picture, but nobody in it.
    let picture = image::RgbImage::from_fn(480, 360, |x, y| {
        let n = ((x * 7919 + y * 104_729) % 23) as u8;
        image::Rgb([90 + (y / 4) as u8 + n, 140 + n, 200 - (y / 3) as u8])
    });
    let empty = dir.join("empty.png");
    picture.save(&empty).unwrap();
    let out = dir.join("pose.json");
    let result = pose_from_image(&model, &empty, &out, &models, &[]);
    assert_eq!(result.status.code(), Some(1));
    let message = String::from_utf8_lossy(&result.stderr);
    assert!(message.contains("no person was found"), "{message}");
    assert!(!out.exists());
}

#[test]
fn corrupt_huge_and_missing_inputs_are_refused_with_a_clear_message() {
    let dir = scratch("pose_photo_refusals");
    let (model, _) = mannequins(&dir);
    let out = dir.join("pose.json");
    let models_dir = models().unwrap_or_else(|| dir.join("no-models"));
    let corrupt = dir.join("corrupt.png");
    std::fs::write(&corrupt, b"\x89PNG\r\n\x1a\nthis is not really a picture").unwrap();
    // A PNG whose header claims 60,000 × 60,000 pixels: refused from the header.
    let huge = dir.join("huge.png");
    std::fs::write(
        &huge,
        vrma_maker::vision::crafted::png_header(60_000, 60_000),
    )
    .unwrap();
    for (picture, expected) in [
        (&corrupt, "picture"),
        (&huge, "60000 × 60000"),
        (&dir.join("absent.png"), "absent.png"),
    ] {
        let result = pose_from_image(&model, picture, &out, &models_dir, &[]);
        assert_eq!(result.status.code(), Some(1), "{}", picture.display());
        let message = String::from_utf8_lossy(&result.stderr);
        assert!(
            message.contains(expected),
            "{}: {message}",
            picture.display()
        );
        assert_eq!(message.trim().lines().count(), 1, "one line: {message}");
        assert!(!out.exists());
    }
    // Without the models the message says how to install them.
    let person = dir.join("gray.png");
    image::RgbImage::from_pixel(64, 64, image::Rgb([128, 128, 128]))
        .save(&person)
        .unwrap();
    let result = pose_from_image(&model, &person, &out, &dir.join("no-models"), &[]);
    assert_eq!(result.status.code(), Some(1));
    let message = String::from_utf8_lossy(&result.stderr);
    assert!(message.contains("scripts/setup-pose-models"), "{message}");
    assert!(!out.exists());
}

/// The picture turned by `degrees` about its centre (grey outside), as a shaking camera
/// would show it.
pub fn turned(picture: &image::RgbImage, degrees: f32) -> image::RgbImage {
    let (w, h) = picture.dimensions();
    let (sin, cos) = degrees.to_radians().sin_cos();
    let (cx, cy) = (w as f32 / 2.0, h as f32 / 2.0);
    image::RgbImage::from_fn(w, h, |x, y| {
        let (dx, dy) = (x as f32 + 0.5 - cx, y as f32 + 0.5 - cy);
        let (sx, sy) = (cos * dx + sin * dy + cx, -sin * dx + cos * dy + cy);
        if sx < 0.0 || sy < 0.0 || sx >= w as f32 || sy >= h as f32 {
            image::Rgb([128, 128, 128])
        } else {
            *picture.get_pixel(sx as u32, sy as u32)
        }
    })
}

/// The right upper arm's model-space direction in each frame's pose.
fn right_upper_arm_per_frame(model: &Path, poses: &Path) -> Vec<Vec3> {
    let rig = vrma_maker::core::load_rig(model).unwrap();
    let written = vrma_maker::core::read_json(poses).unwrap();
    written["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|frame| {
            let pose = Pose::from_json(&frame["pose"], &mut Vec::new()).unwrap();
            let world = rig.world_pose(&pose);
            let at = |b: Bone| world[b.index()].unwrap().0;
            (at(Bone::RightLowerArm) - at(Bone::RightUpperArm)).normalize()
        })
        .collect()
}

/// A folder of frames stands in for a camera: every frame is found and posed, tracked
/// from the last, and the landmark filter makes the pose steadier than the frames are.
#[test]
fn a_folder_of_shaking_frames_is_followed_and_the_filter_steadies_it() {
    let (Some(models), Some(photo)) = (models(), photo()) else {
        return;
    };
    let dir = scratch("pose_photo_frames");
    let (model, _) = mannequins(&dir);
    let picture = image::open(&photo).unwrap().to_rgb8();
    let frames = dir.join("frames");
    std::fs::create_dir_all(&frames).unwrap();
    // ±2.5° of shake, from a fixed sequence.
    let mut seed = 7u32;
    for i in 0..16 {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let shake = (seed >> 8) as f32 / (1 << 24) as f32 * 5.0 - 2.5;
        turned(&picture, shake)
            .save(frames.join(format!("frame-{i:03}.png")))
            .unwrap();
    }
    let mut jitter = Vec::new();
    for extra in [&["--unfiltered"][..], &[]] {
        let out = dir.join("poses.json");
        let result = vision_command("follow-frames", &model, &frames, &out, &models, extra);
        assert!(
            result.status.success(),
            "{}",
            String::from_utf8_lossy(&result.stderr)
        );
        let report = json_stdout(&result);
        assert_eq!(
            (report["frames"].as_u64(), report["found"].as_u64()),
            (Some(16), Some(16)),
            "{report}"
        );
        let arm = right_upper_arm_per_frame(&model, &out);
        let steps: Vec<f32> = arm
            .windows(2)
            .skip(3)
            .map(|w| w[0].angle_between(w[1]))
            .collect();
        jitter.push(steps.iter().sum::<f32>() / steps.len() as f32);
    }
    println!(
        "frame-to-frame change of the right upper arm: {:.2}° raw, {:.2}° filtered",
        jitter[0].to_degrees(),
        jitter[1].to_degrees()
    );
    assert!(
        jitter[1] * 1.5 < jitter[0],
        "filtered {} vs raw {}",
        jitter[1],
        jitter[0]
    );
}
