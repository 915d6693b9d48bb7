//! Posing in the window with real input: pins (P), Body follows and Limits in the
//! inspector, and the look (L), read back from the saved project and screenshots.

use serde_json::{Value, json};

use super::*;

/// Orange pixels (a pinned end's box) within `half` pixels of a window position.
fn pin_box_pixels(img: &image::RgbaImage, (x, y): (i32, i32), half: i32) -> usize {
    let mut n = 0;
    for py in (y - half).max(0)..(y + half) {
        for px in (x - half).max(0)..(x + half) {
            let p = img.get_pixel(px as u32, py as u32);
            n += (p[0] > 200 && (90..190).contains(&p[1]) && p[2] < 90) as usize;
        }
    }
    n
}

/// P pins the selected hand (an orange box appears round its marker); G on the hips
/// then lowers the body and the pinned hand stays where it was; the pins are saved
/// with the project, and Ctrl+Z lets the hand go again.
#[test]
fn p_pins_a_hand_and_g_on_the_hips_moves_the_body_while_the_hand_stays() {
    let Some((dir, model)) = prepare("window-pins") else {
        return;
    };
    let project = empty_project(&dir, &model);
    let saved = dir.join("saved.json");
    let s = start_for(&dir, &project, &saved, 150);
    // The hips marker: between the hands, as far below them as the rig puts the hips
    // (the hands' markers fix the view's scale; all three are at the same depth).
    let rest = world_of(&model, &json!({"v": 1, "bones": {}}), &dir);
    let at = |bone: &str| -> [f64; 3] { std::array::from_fn(|i| rest[bone][i].as_f64().unwrap()) };
    let (left, right, hips) = (at("leftHand"), at("rightHand"), at("hips"));
    let scale = (LEFT_HAND_MARKER.0 - RIGHT_HAND_MARKER.0) as f64 / (left[0] - right[0]);
    let hips_marker = (
        (LEFT_HAND_MARKER.0 + RIGHT_HAND_MARKER.0) / 2,
        LEFT_HAND_MARKER.1 + ((left[1] - hips[1]) * scale).round() as i32,
    );

    // The hand down by G first (an outstretched arm cannot hold its hand while the body
    // drops), then P.
    s.click_until_changed(LEFT_HAND_MARKER, SELECTED_BONE_LINE, &dir);
    xdotool(&s.display, &["key", "g"]);
    pause(0.5);
    let mut hand_marker = LEFT_HAND_MARKER;
    for _ in 1..=6 {
        hand_marker = (hand_marker.0 - 5, hand_marker.1 + 20);
        s.point(hand_marker);
    }
    xdotool(&s.display, &["click", "1"]);
    pause(1.0);
    let unpinned = s.settled("unpinned.png", &dir);
    xdotool(&s.display, &["key", "p"]);
    pause(1.0);
    let pinned_shot = s.settled("pinned.png", &dir);
    let (before, after) = (
        pin_box_pixels(&unpinned, hand_marker, 45),
        pin_box_pixels(&pinned_shot, hand_marker, 45),
    );
    assert!(
        after > before + 20,
        "an orange box round the pinned hand: {before} → {after} orange pixels"
    );
    let pinned = s.save(&project);
    assert_eq!(
        pinned["pins"],
        json!(["leftHand", "leftFoot", "rightFoot"]),
        "P pinned the hand beside the feet"
    );
    let hand_at = |project: &Value| -> [f64; 3] {
        let world = world_of(&model, &project["pose"], &dir);
        std::array::from_fn(|i| world["leftHand"][i].as_f64().unwrap())
    };
    let hand = hand_at(&pinned);

    // The hips: G, the pointer down, click.
    s.click_until_changed(hips_marker, SELECTED_BONE_LINE, &dir);
    xdotool(&s.display, &["key", "g"]);
    pause(0.5);
    for step in 1..=4 {
        s.point((hips_marker.0, hips_marker.1 + 10 * step));
    }
    xdotool(&s.display, &["click", "1"]);
    pause(1.0);
    let moved = s.save(&project);
    let lowered = hips[1] - moved["pose"]["hips"][1].as_f64().unwrap_or(hips[1]);
    assert!(lowered > 0.03, "the hips went down ({lowered:.3} m)");
    let now = hand_at(&moved);
    let drift = (0..3)
        .map(|i| (now[i] - hand[i]).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(
        drift < 1e-3,
        "the pinned hand stayed: it moved {drift:.4} m while the hips went down {lowered:.3} m"
    );

    // Two Ctrl+Z: the hips come back, then the pin goes.
    ctrl_chord(&s.display, "z");
    ctrl_chord(&s.display, "z");
    let undone = s.save(&project);
    assert_eq!(undone["pins"], json!(["leftFoot", "rightFoot"]));
    s.finish(&saved);
}

/// The inspector's Body follows and Limits checkboxes (the row under Pin feet / Keep
/// hand/foot angle).
const BODY_FOLLOWS_BOX: (i32, i32) = (87, 148);
const LIMITS_BOX: (i32, i32) = (167, 169);
/// Around both checkboxes: a tick changes it.
const POSING_TOGGLES: Region = ((0, 260), (140, 178));
/// The selected hand's Pinned checkbox, on the line that names it.
const PINNED_BOX: (i32, i32) = (130, 199);

/// The face's direction in a saved pose (the head's forward, +Z in the normalized rig).
fn face(model: &Path, project: &Value) -> bevy::math::Vec3 {
    use vrma_maker::core::model::humanoid::Bone;
    let rig = vrma_maker::core::body::rig::load_rig(model).unwrap();
    let pose =
        vrma_maker::core::body::pose::Pose::from_json(&project["pose"], &mut Vec::new()).unwrap();
    let (_, rotation) = rig.world_pose(&pose)[Bone::Head.index()].unwrap();
    rotation * bevy::math::Vec3::Z
}

/// Body follows ticked in the inspector: G on the left hand with the pointer 30 % past
/// the arm's reach leans the waist and chest after it while the feet stay (the saved
/// pose). Then L with the pointer beside the head turns the face that way (a click sets
/// it, one undo step), the selected hand's Pinned checkbox pins it, and unticking Limits
/// is saved with the project.
#[test]
fn body_follows_leans_after_a_far_drag_and_l_turns_the_head_to_the_pointer() {
    let Some((dir, model)) = prepare("window-body-follows") else {
        return;
    };
    let project = empty_project(&dir, &model);
    let saved = dir.join("saved.json");
    let s = start_for(&dir, &project, &saved, 150);
    let rest = world_of(&model, &json!({"v": 1, "bones": {}}), &dir);
    let at = |world: &Value, bone: &str| -> bevy::math::Vec3 {
        let n = |i: usize| world[bone][i].as_f64().unwrap() as f32;
        bevy::math::Vec3::new(n(0), n(1), n(2))
    };
    // Pixels per metre on the plane of the hands (the view faces the avatar).
    let scale = (LEFT_HAND_MARKER.0 - RIGHT_HAND_MARKER.0) as f32
        / (at(&rest, "leftHand").x - at(&rest, "rightHand").x);

    s.click_until_changed(BODY_FOLLOWS_BOX, POSING_TOGGLES, &dir);
    let ticked = s.save(&project);
    assert_eq!(ticked["settings"]["body_follows"], json!(true), "{ticked}");

    // G on the left hand; the pointer out to the side and a little down, to a point on
    // the hand's plane 30 % past the arm's reach from the shoulder.
    let (shoulder, elbow, hand) = (
        at(&rest, "leftUpperArm"),
        at(&rest, "leftLowerArm"),
        at(&rest, "leftHand"),
    );
    let arm = shoulder.distance(elbow) + elbow.distance(hand);
    let out = bevy::math::Vec3::new(1.0, -0.35, 0.0).normalize() * arm * 1.3;
    let target = shoulder + out;
    let marker_at = |p: bevy::math::Vec3| {
        (
            LEFT_HAND_MARKER.0 + ((p.x - hand.x) * scale).round() as i32,
            LEFT_HAND_MARKER.1 - ((p.y - hand.y) * scale).round() as i32,
        )
    };
    s.click_until_changed(LEFT_HAND_MARKER, SELECTED_BONE_LINE, &dir);
    xdotool(&s.display, &["key", "g"]);
    pause(0.5);
    let goal = marker_at(target);
    for step in 1..=8 {
        s.point((
            LEFT_HAND_MARKER.0 + (goal.0 - LEFT_HAND_MARKER.0) * step / 8,
            LEFT_HAND_MARKER.1 + (goal.1 - LEFT_HAND_MARKER.1) * step / 8,
        ));
    }
    xdotool(&s.display, &["click", "1"]);
    pause(1.0);
    let leaned = s.save(&project);
    let world = world_of(&model, &leaned["pose"], &dir);
    let reached = at(&world, "leftHand");
    assert!(
        reached.distance(shoulder) > arm * 1.15,
        "the hand went past the arm's reach from where the shoulder was: {:.3} m against \
         an arm of {arm:.3} m",
        reached.distance(shoulder)
    );
    for foot in ["leftFoot", "rightFoot"] {
        let moved = at(&world, foot).distance(at(&rest, foot));
        assert!(moved < 1e-3, "{foot} moved {moved} m");
    }
    let turned = |bone: &str| {
        let q = &leaned["pose"]["bones"][bone];
        q.as_array().map_or(0.0, |q| {
            2.0 * q[3].as_f64().unwrap().abs().min(1.0).acos().to_degrees()
        })
    };
    assert!(
        turned("spine") + turned("chest") > 3.0,
        "the waist and chest leaned: spine {:.1}°, chest {:.1}°",
        turned("spine"),
        turned("chest")
    );

    // L with the pointer to the left of the head on screen (the avatar's right), then a
    // click: the face turns that way; Ctrl+Z puts it back.
    let head = marker_at(at(&rest, "head"));
    s.point((head.0 - (0.6 * scale) as i32, head.1));
    xdotool(&s.display, &["key", "l"]);
    pause(0.5);
    s.point((head.0 - (0.7 * scale) as i32, head.1));
    xdotool(&s.display, &["click", "1"]);
    pause(1.0);
    let looked = s.save(&project);
    let facing = face(&model, &looked);
    let point = at(&looked["pose"], "look");
    let head_now = at(&world_of(&model, &looked["pose"], &dir), "head");
    let off = facing.angle_between(point - head_now).to_degrees();
    assert!(
        point.x < head_now.x - 0.1 && facing.x < -0.1 && off < 15.0,
        "the face turned to the avatar's right, to the point under the pointer {point}: \
         facing {facing}, {off:.1}° off it"
    );
    s.one_undo_step(&project, "the look", &leaned, &looked);

    // The left hand is still selected: its Pinned checkbox pins it, as P does.
    s.click_until_changed(PINNED_BOX, SELECTED_BONE_LINE, &dir);
    let pinned = s.save(&project);
    assert_eq!(pinned["pins"], json!(["leftHand", "leftFoot", "rightFoot"]));

    s.click_until_changed(LIMITS_BOX, POSING_TOGGLES, &dir);
    let unlimited = s.save(&project);
    assert_eq!(unlimited["settings"]["limits"], json!(false), "{unlimited}");
    s.finish(&saved);
}
