//! Real motion capture, not made for these tests: the two BVH files the bvhtoolbox
//! package ships on PyPI (MIT; `scripts/fetch-test-mocap`) — a MocapBank capture with
//! Biovision names (LeftCollar, LeftShoulder = the upper arm, LeftHip = the thigh) and
//! a capture on Mixamo's rig with fingers. Blender's own BVH importer plays each; ours,
//! imported onto the VRoid-scale avatar, must move each limb the same way.

use std::collections::BTreeMap;
use std::path::PathBuf;

use bevy::math::{DQuat, DVec3};
use serde_json::Value;

use crate::common::*;
use crate::motion_capture::{
    angle, best_turn, blender, body_turn, percentile, run_blender, vec, world_at,
};

fn mocap_folder() -> Option<PathBuf> {
    let folder = std::env::var_os("VRMA_MAKER_TEST_MOCAP")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/vrma-maker/test-mocap"))
        })
        .filter(|f| f.join("test_mocapbank.bvh").is_file());
    required_or_skip(
        "the registry's motion capture (scripts/fetch-test-mocap)",
        folder.is_some(),
    )
    .then_some(folder?)
}

/// Which source joints span each compared limb, by the file's own convention (written
/// here, not taken from our name detection): (our bone, our next bone, joint, joint).
fn limbs(mixamo: bool) -> Vec<[String; 4]> {
    let mut out = Vec::new();
    for (side, s) in [("left", "Left"), ("right", "Right")] {
        let chain: &[(&str, &str, &str, &str)] = if mixamo {
            &[
                ("Shoulder", "UpperArm", "Shoulder", "Arm"),
                ("UpperArm", "LowerArm", "Arm", "ForeArm"),
                ("LowerArm", "Hand", "ForeArm", "Hand"),
                ("UpperLeg", "LowerLeg", "UpLeg", "Leg"),
                ("LowerLeg", "Foot", "Leg", "Foot"),
                ("Foot", "Toes", "Foot", "ToeBase"),
                (
                    "IndexProximal",
                    "IndexIntermediate",
                    "HandIndex1",
                    "HandIndex2",
                ),
                (
                    "MiddleProximal",
                    "MiddleIntermediate",
                    "HandMiddle1",
                    "HandMiddle2",
                ),
                ("RingProximal", "RingIntermediate", "HandRing1", "HandRing2"),
                (
                    "LittleProximal",
                    "LittleIntermediate",
                    "HandPinky1",
                    "HandPinky2",
                ),
                (
                    "ThumbMetacarpal",
                    "ThumbProximal",
                    "HandThumb1",
                    "HandThumb2",
                ),
            ]
        } else {
            &[
                ("Shoulder", "UpperArm", "Collar", "Shoulder"),
                ("UpperArm", "LowerArm", "Shoulder", "Elbow"),
                ("LowerArm", "Hand", "Elbow", "Wrist"),
                ("UpperLeg", "LowerLeg", "Hip", "Knee"),
                ("LowerLeg", "Foot", "Knee", "Ankle"),
            ]
        };
        let prefix = if mixamo { "mixamorig:" } else { "" };
        for (a, b, sa, sb) in chain {
            out.push([
                format!("{side}{a}"),
                format!("{side}{b}"),
                format!("{prefix}{s}{sa}"),
                format!("{prefix}{s}{sb}"),
            ]);
        }
    }
    let (p, thigh) = if mixamo {
        ("mixamorig:", "UpLeg")
    } else {
        ("", "Hip")
    };
    for [a, b, sa, sb] in [
        ["hips", "neck", "Hips", "Neck"],
        ["neck", "head", "Neck", "Head"],
        [
            "leftUpperLeg",
            "rightUpperLeg",
            &format!("Left{thigh}"),
            &format!("Right{thigh}"),
        ],
    ] {
        out.push([a.into(), b.into(), format!("{p}{sa}"), format!("{p}{sb}")]);
    }
    out
}

#[test]
fn real_mocap_from_a_registry_package_moves_each_limb_as_blender_plays_it() {
    let (Some(folder), Some(python)) = (mocap_folder(), blender()) else {
        return;
    };
    let work = scratch("motion-real");
    let avatar = test_avatar(&work, "vroid.vrm", false, &[]);
    for (file, mixamo) in [("test_mocapbank.bvh", false), ("test_freebvh.bvh", true)] {
        let bvh = folder.join(file);
        let truth_path = work.join(format!("{file}.json"));
        run_blender(
            &python,
            &[
                "read-bvh",
                bvh.to_str().unwrap(),
                truth_path.to_str().unwrap(),
            ],
        );
        let truth: Value = serde_json::from_slice(&std::fs::read(&truth_path).unwrap()).unwrap();
        let fps = truth["fps"].as_f64().unwrap();
        // Blender's scene runs on to its default end (250) past a shorter capture.
        let text = std::fs::read_to_string(&bvh).unwrap();
        let captured: usize = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("Frames:"))
            .and_then(|n| n.trim().parse().ok())
            .unwrap();
        let source: Vec<BTreeMap<String, DVec3>> = truth["frames"]
            .as_array()
            .unwrap()
            .iter()
            .take(captured)
            .map(|f| {
                f.as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| (k.clone(), vec(v)))
                    .collect()
            })
            .collect();
        let project = work.join(format!("{file}.project.json"));
        let facts = import_anim(&avatar, &bvh, &project);
        let frames = source.len();
        // Captured motion jitters by more than the tolerance here and there: fewer keys
        // than frames, not the handful a clean curve needs.
        let keys = facts["keys"].as_u64().unwrap();
        assert!(keys < frames as u64, "{file}: keys are reduced ({facts})");
        eprintln!("{file}: {keys} keys for {frames} frames");
        // Every fourth source frame, at its own time.
        let picked: Vec<usize> = (0..frames).step_by(4).collect();
        let times: Vec<f64> = picked.iter().map(|&f| f as f64 / fps).collect();
        let ours = world_at(&avatar, &project, &times);
        let limbs = limbs(mixamo);
        let (mut pairs, mut finger_pairs) = (Vec::new(), Vec::new());
        for (ours, &f) in ours.iter().zip(&picked) {
            for [a, b, sa, sb] in &limbs {
                let pair = (source[f][sb] - source[f][sa], ours[b] - ours[a]);
                if sa.contains("Hand") && !sa.ends_with("Hand") {
                    finger_pairs.push(pair);
                } else {
                    pairs.push(pair);
                }
            }
        }
        let turn = best_turn(&pairs);
        let mut errors: Vec<f64> = pairs.iter().map(|(s, o)| angle(turn * *s, *o)).collect();
        let (median, p95) = (percentile(&mut errors, 0.5), percentile(&mut errors, 0.95));
        eprintln!(
            "{file}: {} frames, limbs median {median:.2}°, p95 {p95:.2}°",
            picked.len()
        );
        assert!(
            median <= 2.0 && p95 <= 6.0,
            "{file}: median {median:.2}°, p95 {p95:.2}°"
        );
        if mixamo {
            let mut errors: Vec<f64> = finger_pairs
                .iter()
                .map(|(s, o)| angle(turn * *s, *o))
                .collect();
            let p95 = percentile(&mut errors, 0.95);
            eprintln!("{file}: fingers p95 {p95:.2}°");
            assert!(p95 <= 5.0, "{file}: fingers p95 {p95:.2}°");
        }
        // Turns of the body relative to the first frame, within 5°.
        let thigh = |side: &str| {
            limbs
                .iter()
                .find(|l| l[0] == format!("{side}UpperLeg"))
                .map(|l| l[2].clone())
                .unwrap()
        };
        let (hips, neck) = (&limbs[limbs.len() - 3][2], &limbs[limbs.len() - 3][3]);
        let source_body = |f: usize| {
            let w = &source[f];
            body_turn(w[&thigh("right")] - w[&thigh("left")], w[neck] - w[hips])
        };
        let our_body = |w: &BTreeMap<String, DVec3>| {
            body_turn(
                w["rightUpperLeg"] - w["leftUpperLeg"],
                w["neck"] - w["hips"],
            )
        };
        let mut worst_turn: f64 = 0.0;
        for (k, &f) in picked.iter().enumerate() {
            let theirs: DQuat = turn * source_body(f) * source_body(0).inverse() * turn.inverse();
            let mine = our_body(&ours[k]) * our_body(&ours[0]).inverse();
            worst_turn = worst_turn.max(theirs.angle_between(mine).to_degrees());
        }
        eprintln!("{file}: body turns off by at most {worst_turn:.2}°");
        assert!(
            worst_turn <= 5.0,
            "{file}: body turn off by {worst_turn:.2}°"
        );
    }
}
