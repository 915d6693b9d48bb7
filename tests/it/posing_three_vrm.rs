//! Issue 44's posing, as three-vrm draws it: full-body reach, joint limits, IK behind the
//! body, a pinned hand while the hips drop and a look at a point, each edited through our
//! CLI's edit path (`apply`) and its pose laid on the model by @pixiv/three-vrm under
//! Node, whose world positions are what is checked. On both mannequins, the VRoid-scale
//! test avatars (every node with a rest rotation of its own) and that avatar with
//! UniVRM-style twist bones driven by node constraints.

use std::path::{Path, PathBuf};

use bevy::math::{Quat, Vec3};
use serde_json::{Value, json};

use crate::common::*;

fn vec3(v: &Value) -> Vec3 {
    let n = |i: usize| v[i].as_f64().expect("a number") as f32;
    Vec3::new(n(0), n(1), n(2))
}

/// Our pose after a script, from the editor's own edit path.
fn our_pose(model: &Path, script: Value, dir: &Path) -> Value {
    apply_script(model, &script, dir)["pose"].clone()
}

/// Each pose laid on the model by three-vrm: its bones' world positions and the head's
/// turn from rest, one entry per pose.
fn three_vrm(model: &Path, poses: &[Value], dir: &Path) -> Vec<(Value, Quat)> {
    let path = dir.join("posing-poses.json");
    std::fs::write(&path, Value::from(poses.to_vec()).to_string()).unwrap();
    let facts = json_stdout(&node("vrm_facts.mjs", &[model, &path]));
    facts["poses"]
        .as_array()
        .expect("three-vrm's poses")
        .iter()
        .map(|p| {
            let q = &p["head_turn"];
            let n = |i: usize| q[i].as_f64().unwrap() as f32;
            (p["world"].clone(), Quat::from_xyzw(n(0), n(1), n(2), n(3)))
        })
        .collect()
}

/// The angle in degrees at `joint` between the bone into it and the bone out of it (0 for
/// a straight limb).
fn bend(before: Vec3, joint: Vec3, after: Vec3) -> f32 {
    (joint - before).angle_between(after - joint).to_degrees()
}

fn models(dir: &Path) -> Vec<PathBuf> {
    let (v1, v0) = mannequins(dir);
    let avatar1 = test_avatar(dir, "vroid1.vrm", false, &["--texture-size", "16"]);
    let avatar0 = test_avatar(dir, "vroid0.vrm", true, &["--texture-size", "16"]);
    let twist =
        crate::interop_three_vrm::with_constraints(&avatar1, dir.join("vroid-twist-bones.vrm"));
    vec![v1, v0, avatar1, avatar0, twist]
}

/// A check of one pose as three-vrm drew it: its bones' world positions and the head's
/// turn.
type Check = Box<dyn Fn(&Value, Quat)>;

/// The pose with no bone turned.
fn rest_pose() -> Value {
    json!({"v": 1, "bones": {}})
}

#[test]
fn reach_limits_pins_and_look_land_where_three_vrm_draws_them() {
    if !required_or_skip("Node harness (tests/node/node_modules)", node_ready()) {
        return;
    }
    let dir = scratch("posing-three-vrm");
    for model in models(&dir) {
        let name = model.file_name().unwrap().to_string_lossy().into_owned();
        let rest = three_vrm(&model, &[rest_pose()], &dir).remove(0).0;
        let at = |bone: &str| vec3(&rest[bone]);
        let mut poses = Vec::new();
        let mut checks: Vec<Check> = Vec::new();
        let feet_stay = move |world: &Value, what: &str, rest: &Value| {
            for foot in ["leftFoot", "rightFoot"] {
                let moved = vec3(&world[foot]).distance(vec3(&rest[foot]));
                assert!(moved < 1e-3, "{what}: {foot} moved {moved} m");
            }
        };

        // A hand pulled 30 % past the arm's reach, three ways for the left and one for
        // the right: the body leans after it and the pinned feet stay.
        for (side, direction) in [
            ("left", Vec3::new(0.5, -0.2, 1.0)),
            ("left", Vec3::new(1.0, 0.0, 0.2)),
            ("left", Vec3::new(0.3, -0.8, 0.6)),
            ("right", Vec3::new(-0.5, -0.2, 1.0)),
        ] {
            let (upper, lower, hand) = (
                format!("{side}UpperArm"),
                format!("{side}LowerArm"),
                format!("{side}Hand"),
            );
            let arm = at(&upper).distance(at(&lower)) + at(&lower).distance(at(&hand));
            let target = at(&upper) + direction.normalize() * arm * 1.3;
            poses.push(our_pose(
                &model,
                json!([{"op": "ik", "end": hand, "target": target.to_array(), "body": true}]),
                &dir,
            ));
            let (rest, name) = (rest.clone(), name.clone());
            checks.push(Box::new(move |world, _| {
                let what = format!("{name}: {hand} to {target}");
                let miss = vec3(&world[hand.as_str()]).distance(target);
                assert!(miss < 0.01, "{what}: missed by {miss} m");
                feet_stay(world, &what, &rest);
                let shoulder = vec3(&world[upper.as_str()]).distance(vec3(&rest[upper.as_str()]));
                assert!(
                    shoulder > 0.02,
                    "{what}: the shoulder moved only {shoulder} m"
                );
            }));
        }

        // An elbow and a knee turned backwards stay straight; turned forwards they bend.
        // Which turn is backwards is read off the rest limb: the one that swings the
        // forearm behind the body, or the shin in front of it.
        for (upper, lower, end, axis, backwards_is_forward) in [
            ("leftUpperArm", "leftLowerArm", "leftHand", Vec3::Y, false),
            (
                "rightUpperArm",
                "rightLowerArm",
                "rightHand",
                Vec3::Y,
                false,
            ),
            ("leftUpperLeg", "leftLowerLeg", "leftFoot", Vec3::X, true),
        ] {
            let limb = at(end) - at(lower);
            for degrees in [60.0f32, -60.0] {
                let turn = Quat::from_axis_angle(axis, degrees.to_radians());
                let swung_forward = (turn * limb).z > 0.0;
                let backwards = swung_forward == backwards_is_forward;
                poses.push(our_pose(
                    &model,
                    json!([{"op": "rotate", "bone": lower, "quat": turn.to_array()}]),
                    &dir,
                ));
                let name = name.clone();
                checks.push(Box::new(move |world, _| {
                    let angle = bend(vec3(&world[upper]), vec3(&world[lower]), vec3(&world[end]));
                    if backwards {
                        assert!(angle < 0.5, "{name}: {lower} bent backwards by {angle}°");
                    } else {
                        assert!((angle - 60.0).abs() < 1.0, "{name}: {lower} bent {angle}°");
                    }
                }));
            }
        }

        // A foot reached up behind the body: the knee stays in front of the hip–foot line.
        let target = at("leftFoot") + Vec3::new(0.0, 0.3, -0.3);
        poses.push(our_pose(
            &model,
            json!([{"op": "ik", "end": "leftFoot", "target": target.to_array()}]),
            &dir,
        ));
        let name_knee = name.clone();
        checks.push(Box::new(move |world, _| {
            let (hip, knee, foot) = (
                vec3(&world["leftUpperLeg"]),
                vec3(&world["leftLowerLeg"]),
                vec3(&world["leftFoot"]),
            );
            let miss = foot.distance(target);
            assert!(miss < 0.01, "{name_knee}: the foot missed by {miss} m");
            let line = (foot - hip).normalize();
            let nearest = hip + line * (knee - hip).dot(line);
            assert!(
                knee.z - nearest.z > 0.01,
                "{name_knee}: the knee is {} m in front of the hip–foot line",
                knee.z - nearest.z
            );
        }));

        // A hand put on a table and pinned, then the hips dropped 15 cm: the hand stays.
        let table = at("leftUpperArm") + Vec3::new(0.2, -0.3, 0.25);
        let on_table = json!([{"op": "ik", "end": "leftHand", "target": table.to_array()},
                              {"op": "pin", "end": "leftHand"}]);
        poses.push(our_pose(&model, on_table.clone(), &dir));
        let mut dropped = on_table.as_array().unwrap().clone();
        let hips = at("hips") - Vec3::Y * 0.15;
        dropped.push(json!({"op": "move_hips", "to": hips.to_array()}));
        poses.push(our_pose(&model, Value::from(dropped), &dir));
        // The checks run in order: the first notes where three-vrm put the hand.
        let hand_on_table = std::rc::Rc::new(std::cell::Cell::new(Vec3::NAN));
        let hand_seen = hand_on_table.clone();
        checks.push(Box::new(move |world, _| {
            hand_seen.set(vec3(&world["leftHand"]))
        }));
        let (rest_drop, name_drop) = (rest.clone(), name.clone());
        checks.push(Box::new(move |world, _| {
            let drop = vec3(&rest_drop["hips"]).y - vec3(&world["hips"]).y;
            assert!(
                (drop - 0.15).abs() < 1e-3,
                "{name_drop}: hips dropped {drop} m"
            );
            let moved = vec3(&world["leftHand"]).distance(hand_on_table.get());
            assert!(moved < 1e-3, "{name_drop}: the pinned hand moved {moved} m");
            feet_stay(world, &format!("{name_drop}: hips down"), &rest_drop);
        }));

        // A point 45° to either side, a metre out: the face turns to it.
        for side in [1.0f32, -1.0] {
            let aside = Quat::from_rotation_y(side * 45f32.to_radians()) * Vec3::Z;
            let point = at("head") + aside;
            poses.push(our_pose(
                &model,
                json!([{"op": "look", "target": point.to_array()}]),
                &dir,
            ));
            let name = name.clone();
            checks.push(Box::new(move |world, head_turn| {
                let face = head_turn * Vec3::Z;
                let off = face
                    .angle_between(point - vec3(&world["head"]))
                    .to_degrees();
                assert!(off < 15.0, "{name}: the face is {off}° off the point");
                let turned = face.angle_between(Vec3::Z).to_degrees();
                assert!(turned > 30.0, "{name}: the head turned only {turned}°");
            }));
        }

        let drawn = three_vrm(&model, &poses, &dir);
        assert_eq!(drawn.len(), checks.len());
        for ((world, head_turn), check) in drawn.iter().zip(&checks) {
            check(world, *head_turn);
        }
    }
}
