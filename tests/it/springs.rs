//! Spring bones in stills: the pose is held from rest until hair and skirts hang as a
//! player would show them, so soft hair falls under gravity where stiff hair keeps its
//! shape (the core's tests measure how far), and the same pose gives the same still
//! every time.

use std::path::Path;

use serde_json::json;

use crate::common::*;

fn still(model: &Path, pose: &Path, out: &Path) -> image::RgbaImage {
    render_png(model, pose, out, &["--size", "300x400", "--camera", "side"])
}

/// Pixels that differ clearly between two stills.
fn differing(a: &image::RgbaImage, b: &image::RgbaImage) -> usize {
    a.pixels()
        .zip(b.pixels())
        .filter(|(p, q)| (0..4).any(|c| (p[c] as i32 - q[c] as i32).abs() > 40))
        .count()
}

#[test]
fn soft_hair_hangs_in_a_still_and_the_same_pose_gives_the_same_still() {
    if !required_or_skip("a Vulkan driver (mesa-vulkan-drivers)", have_vulkan()) {
        return;
    }
    let dir = scratch("springs-still");
    for vrm0 in [false, true] {
        let stiff = test_avatar(&dir, "stiff.vrm", vrm0, &["--texture-size", "64"]);
        let soft = edited_glb(&stiff, dir.join("soft.vrm"), |root| {
            let extensions = root["extensions"].as_object_mut().unwrap();
            if let Some(v1) = extensions.get_mut("VRMC_springBone") {
                for spring in v1["springs"].as_array_mut().unwrap() {
                    for joint in spring["joints"].as_array_mut().unwrap() {
                        joint["stiffness"] = json!(0.05);
                        joint["gravityPower"] = json!(1.0);
                    }
                }
            }
            if let Some(v0) = extensions.get_mut("VRM") {
                for group in v0["secondaryAnimation"]["boneGroups"]
                    .as_array_mut()
                    .unwrap()
                {
                    group["stiffiness"] = json!(0.05);
                    group["gravityPower"] = json!(1.0);
                }
            }
        });
        // The head bowed forward: stiff hair turns with it, soft hair falls.
        let pose = dir.join("bow.json");
        std::fs::write(
            &pose,
            json!({"bones": {"head": [0.5646, 0.0, 0.0, 0.8253]}}).to_string(),
        )
        .unwrap();
        let kept = still(&stiff, &pose, &dir.join("stiff.png"));
        let hung = still(&soft, &pose, &dir.join("soft.png"));
        let moved = differing(&kept, &hung);
        assert!(
            moved > 300,
            "vrm0={vrm0}: the soft hair hangs elsewhere ({moved} px)"
        );
        // The hair moved, not the body: below the head far less changed. (The generated
        // avatar has coplanar layers whose z-fight can come out either way, about a
        // thousand pixels along the body's back; not yet tracked down.)
        let (w, h) = kept.dimensions();
        let body = |img: &image::RgbaImage| {
            image::imageops::crop_imm(img, 0, h / 3, w, h - h / 3).to_image()
        };
        let below = differing(&body(&kept), &body(&hung));
        assert!(
            below < moved / 2,
            "vrm0={vrm0}: {below} px changed below the head"
        );
        let again = still(&soft, &pose, &dir.join("soft-again.png"));
        let unequal = hung
            .pixels()
            .zip(again.pixels())
            .filter(|(p, q)| p != q)
            .count();
        assert_eq!(
            unequal, 0,
            "vrm0={vrm0}: the same still ({unequal} pixels differ)"
        );
    }
}
