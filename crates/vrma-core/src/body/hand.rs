//! Hand shapes: presets (a JSON table, `assets/hand_presets.json`), per-finger curl and
//! spread, thumb opposition, and copying a hand to the other side. Every angle is laid
//! on each model's measured directions (which way a finger curls, spreads, the thumb
//! bends), so one preset reads the same on every rig.

use glam::{Quat, Vec3};
use serde_json::Value;

use crate::Refusal;
use crate::body::pose::Pose;
use crate::body::rig::{Rig, WorldPose};
use crate::model::humanoid::{Bone, Side, finger_bones};

/// The five digits, thumb first (the order of `humanoid::finger_bones`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Finger {
    Thumb,
    Index,
    Middle,
    Ring,
    Little,
}

impl Finger {
    pub const ALL: [Finger; 5] = [
        Finger::Thumb,
        Finger::Index,
        Finger::Middle,
        Finger::Ring,
        Finger::Little,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Finger::Thumb => "thumb",
            Finger::Index => "index",
            Finger::Middle => "middle",
            Finger::Ring => "ring",
            Finger::Little => "little",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Finger::Thumb => "Thumb",
            Finger::Index => "Index",
            Finger::Middle => "Middle",
            Finger::Ring => "Ring",
            Finger::Little => "Little",
        }
    }

    /// Its joints' full curl and its full spread, radians.
    fn full_turns(self) -> ([f32; 3], f32) {
        if self == Finger::Thumb {
            (THUMB_CURL, THUMB_OPPOSITION)
        } else {
            (FINGER_CURL, FINGER_SPREAD)
        }
    }

    fn slot(self) -> usize {
        self as usize
    }

    /// The finger's three bones, from the hand out.
    pub fn bones(self, side: Side) -> [Bone; 3] {
        let all = finger_bones(side);
        let i = self.slot() * 3;
        [all[i], all[i + 1], all[i + 2]]
    }

    /// The finger and side a finger bone belongs to.
    pub fn of_bone(bone: Bone) -> Option<(Finger, Side)> {
        for side in Side::BOTH {
            if let Some(i) = finger_bones(side).iter().position(|b| *b == bone) {
                return Some((Finger::ALL[i / 3], side));
            }
        }
        None
    }
}

/// One finger's shape.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FingerShape {
    /// 0 straight, 1 fully bent; below 0 bends back.
    pub curl: f32,
    /// −1..1: away from the middle finger (the thumb: out to the side, so the opposite
    /// of opposition).
    pub spread: f32,
    /// Extra bend of the knuckle alone (−1..1), for a cupped grip or an OK ring.
    pub base: f32,
}

/// A whole hand: the thumb (its `spread` is −opposition) and four fingers.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HandShape {
    pub fingers: [FingerShape; 5],
}

/// A named preset from the table.
#[derive(Clone, Debug, PartialEq)]
pub struct HandPreset {
    pub name: String,
    pub label: String,
    pub shape: HandShape,
}

/// Full curl of a finger's joints (knuckle, middle, end), radians: a fist.
const FINGER_CURL: [f32; 3] = [1.57, 1.75, 1.2];
/// Full curl of the thumb's joints (metacarpal, proximal, distal).
const THUMB_CURL: [f32; 3] = [0.35, 0.75, 1.1];
/// A full spread of the knuckle, radians (20°).
const FINGER_SPREAD: f32 = 0.35;
/// Full opposition: the thumb's metacarpal swung across the palm (50°).
const THUMB_OPPOSITION: f32 = 0.87;
/// Limits a table or a script may give.
const CURL_RANGE: (f32, f32) = (-0.5, 1.5);

/// The built-in table.
const PRESETS_JSON: &str = include_str!("../../../../assets/hand_presets.json");

/// The built-in presets (read from the table once; it is part of the build, so a bad
/// table fails the tests, not a user).
pub fn presets() -> &'static [HandPreset] {
    static PRESETS: std::sync::OnceLock<Vec<HandPreset>> = std::sync::OnceLock::new();
    PRESETS.get_or_init(|| {
        let value: Value = serde_json::from_str(PRESETS_JSON).expect("hand_presets.json is JSON");
        read_presets(&value).expect("hand_presets.json is a valid table")
    })
}

/// A built-in preset by name.
pub fn preset(name: &str) -> Option<&'static HandPreset> {
    presets().iter().find(|p| p.name == name)
}

/// Reads a preset table (`{"v": 1, "presets": [...]}`).
pub fn read_presets(value: &Value) -> Result<Vec<HandPreset>, Refusal> {
    let list = value["presets"]
        .as_array()
        .ok_or_else(|| Refusal::new("hand presets: expected a \"presets\" list"))?;
    list.iter()
        .map(|entry| {
            let name = entry["name"]
                .as_str()
                .ok_or_else(|| Refusal::new("hand preset: a name is missing"))?;
            let label = entry["label"].as_str().unwrap_or(name);
            let mut shape = HandShape::default();
            for finger in Finger::ALL {
                let f = &entry[finger.name()];
                let number = |key: &str, range: (f32, f32)| -> Result<f32, Refusal> {
                    match f.get(key) {
                        None => Ok(0.0),
                        Some(v) => v
                            .as_f64()
                            .map(|v| v as f32)
                            .filter(|v| v.is_finite() && (range.0..=range.1).contains(v))
                            .ok_or_else(|| {
                                Refusal::new(format!(
                                    "hand preset {name}: {}.{key} must be a number from {} to {}",
                                    finger.name(),
                                    range.0,
                                    range.1
                                ))
                            }),
                    }
                };
                let spread = if finger == Finger::Thumb {
                    -number("opposition", (-1.0, 1.0))?
                } else {
                    number("spread", (-1.0, 1.0))?
                };
                shape.fingers[finger.slot()] = FingerShape {
                    curl: number("curl", CURL_RANGE)?,
                    spread,
                    base: number("base", (-1.0, 1.0))?,
                };
            }
            Ok(HandPreset {
                name: name.to_string(),
                label: label.to_string(),
                shape,
            })
        })
        .collect()
}

/// Each model's directions for one hand, measured on its rest pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandAxes {
    /// Per digit, the knuckle-local axis whose positive turn bends it toward the palm.
    pub curl: [Vec3; 5],
    /// Per digit, the axis whose positive turn spreads it (the thumb: out to the side).
    pub spread: [Vec3; 5],
}

/// Both hands' directions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandDirections {
    pub hands: [HandAxes; 2],
}

impl HandDirections {
    /// Rotates each digit's first bone a little from rest and watches its tip: the
    /// sign that lowers the tip (palms face down in the T-pose) is the curl; the one
    /// that moves it away from the middle finger is the spread.
    pub fn measure(rig: &Rig) -> HandDirections {
        let rest = Pose::default();
        let tip_after = |bone: Bone, turn: Quat, tip: Bone| -> Option<Vec3> {
            let mut moved = Pose::default();
            moved.set_rotation(bone, turn);
            rig.world_position(&moved, tip)
        };
        let mut hands = [HandAxes {
            curl: [Vec3::Z; 5],
            spread: [Vec3::Y; 5],
        }; 2];
        for side in Side::BOTH {
            let axes = &mut hands[side.index()];
            let middle = rig.world_position(&rest, Finger::Middle.bones(side)[0]);
            let hand = rig.world_position(&rest, hand_bone(side));
            for finger in Finger::ALL {
                let [first, second, last] = finger.bones(side);
                let Some(tip) = [last, second].into_iter().find(|b| rig.has(*b)) else {
                    continue;
                };
                let (Some(root), Some(tip_rest)) = (
                    rig.world_position(&rest, first),
                    rig.world_position(&rest, tip),
                ) else {
                    continue;
                };
                // The bend axis: across the digit, in the palm's plane.
                let along = (tip_rest - root).normalize_or(Vec3::X);
                let across = along.cross(Vec3::Y).normalize_or(Vec3::Z);
                let probe = 0.3;
                let down = tip_after(first, Quat::from_axis_angle(across, probe), tip)
                    .is_some_and(|p| p.y < tip_rest.y);
                axes.curl[finger.slot()] = if down { across } else { -across };
                // Spread about the palm normal, away from the middle finger (the middle
                // itself toward the index; the thumb away from the hand's centre line).
                let away = match (finger, middle, hand) {
                    (Finger::Middle, Some(m), _) => rig
                        .world_position(&rest, Finger::Index.bones(side)[0])
                        .map_or(Vec3::Z, |i| i - m),
                    (Finger::Thumb, Some(m), Some(h)) => {
                        let line = (m - h).normalize_or(Vec3::X);
                        let offset = root - h;
                        offset - line * offset.dot(line)
                    }
                    (_, Some(m), _) => root - m,
                    _ => Vec3::Z,
                };
                let spreads = tip_after(first, Quat::from_axis_angle(Vec3::Y, probe), tip)
                    .is_some_and(|p| (p - tip_rest).dot(away) > 0.0);
                axes.spread[finger.slot()] = if spreads { Vec3::Y } else { -Vec3::Y };
            }
        }
        HandDirections { hands }
    }

    /// The rotations of one digit's three bones for a shape.
    fn digit_rotations(&self, side: Side, finger: Finger, shape: FingerShape) -> [Quat; 3] {
        let axes = &self.hands[side.index()];
        let curl_axis = axes.curl[finger.slot()];
        let spread_axis = axes.spread[finger.slot()];
        let curl = clamp_or_zero(shape.curl, CURL_RANGE);
        let spread = clamp_or_zero(shape.spread, (-1.0, 1.0));
        let base = clamp_or_zero(shape.base, (-1.0, 1.0));
        let (full, spread_angle) = finger.full_turns();
        let first = Quat::from_axis_angle(spread_axis, spread * spread_angle)
            * Quat::from_axis_angle(curl_axis, (curl + base * 0.5) * full[0]);
        [
            first,
            Quat::from_axis_angle(curl_axis, curl * full[1]),
            Quat::from_axis_angle(curl_axis, curl * full[2]),
        ]
    }

    /// Lays a hand shape on one hand (`amount` of the way from straight), replacing its
    /// finger rotations.
    pub fn shape_hand(&self, pose: &mut Pose, side: Side, shape: &HandShape, amount: f32) {
        let amount = clamp_or_zero(amount, (0.0, 1.0));
        for finger in Finger::ALL {
            let rotations = self.digit_rotations(side, finger, shape.fingers[finger.slot()]);
            for (bone, q) in finger.bones(side).into_iter().zip(rotations) {
                pose.set_rotation(bone, Quat::IDENTITY.slerp(q, amount));
            }
        }
    }

    /// Sets one digit's curl and spread (the thumb's spread is −opposition).
    pub fn shape_finger(&self, pose: &mut Pose, side: Side, finger: Finger, shape: FingerShape) {
        let rotations = self.digit_rotations(side, finger, shape);
        for (bone, q) in finger.bones(side).into_iter().zip(rotations) {
            pose.set_rotation(bone, q);
        }
    }

    /// The curl and spread a digit's bones show now (what the sliders display): the
    /// knuckle's spread and its bend, read back along the measured axes.
    pub fn read_finger(&self, pose: &Pose, side: Side, finger: Finger) -> FingerShape {
        let axes = &self.hands[side.index()];
        let [first, second, _] = finger.bones(side);
        let (full, spread_angle) = finger.full_turns();
        let curl = crate::body::math::twist_angle(pose.rotation(second), axes.curl[finger.slot()])
            / full[1];
        let spread =
            crate::body::math::twist_angle(pose.rotation(first), axes.spread[finger.slot()])
                / spread_angle;
        FingerShape {
            curl,
            spread,
            base: 0.0,
        }
    }
}

fn clamp_or_zero(x: f32, range: (f32, f32)) -> f32 {
    if x.is_finite() {
        x.clamp(range.0, range.1)
    } else {
        0.0
    }
}

/// A side's hand bone.
pub fn hand_bone(side: Side) -> Bone {
    match side {
        Side::Left => Bone::LeftHand,
        Side::Right => Bone::RightHand,
    }
}

/// One hand's fingers copied onto the other hand, mirrored (as `Pose::mirrored` mirrors
/// them): the other hand's fingers are replaced, nothing else changes.
pub fn copy_hand_to_other_side(pose: &mut Pose, from: Side) {
    let mirrored = pose.mirrored();
    let to = from.other();
    for &bone in finger_bones(to) {
        pose.bones[bone.index()] = mirrored.bones[bone.index()];
    }
}

/// Where a digit's tip is (model space): its last bone's segment continued by the one
/// before it (models have no tip bone), as long as that segment.
pub fn fingertip(rig: &Rig, pose: &Pose, side: Side, finger: Finger) -> Option<Vec3> {
    fingertip_in(rig, &rig.world_pose(pose), side, finger)
}

/// [`fingertip`] in a world pose already computed.
pub fn fingertip_in(rig: &Rig, world: &WorldPose, side: Side, finger: Finger) -> Option<Vec3> {
    let last = finger.bones(side)[2];
    let (end, rotation) = world[last.index()]?;
    // The last bone's rest offset is the previous segment; the tip continues it.
    Some(end + rotation * rig.bone(last)?.rest_offset)
}

/// The palm's box in model space for a pose: the wrist and the four knuckles, as thick
/// as half the palm is long on each side (a fist's curled fingers lie under the palm).
pub fn palm_box(rig: &Rig, pose: &Pose, side: Side) -> Option<(Vec3, Vec3)> {
    let world = rig.world_pose(pose);
    let (wrist, rotation) = world[hand_bone(side).index()]?;
    let knuckles: Vec<Vec3> = [Finger::Index, Finger::Middle, Finger::Ring, Finger::Little]
        .iter()
        .filter_map(|f| world[f.bones(side)[0].index()].map(|(p, _)| p))
        .collect();
    if knuckles.is_empty() {
        return None;
    }
    // In the hand's own frame, so a turned hand keeps its box.
    let local = |p: Vec3| rotation.inverse() * (p - wrist);
    let mut lo = Vec3::ZERO;
    let mut hi = Vec3::ZERO;
    for k in &knuckles {
        lo = lo.min(local(*k));
        hi = hi.max(local(*k));
    }
    let length = knuckles
        .iter()
        .map(|k| (*k - wrist).length())
        .fold(0.0, f32::max);
    let pad = Vec3::splat(length * 0.5);
    Some((lo - pad, hi + pad))
}

/// How far the five tips are from the palm box's centre, on average: an open hand
/// reaches further than a straight one.
pub fn mean_tip_distance(rig: &Rig, pose: &Pose, side: Side) -> Option<f32> {
    let (lo, hi) = palm_box(rig, pose, side)?;
    let (wrist, rotation) = rig.world_pose(pose)[hand_bone(side).index()]?;
    let centre = wrist + rotation * ((lo + hi) * 0.5);
    let mut sum = 0.0;
    for finger in Finger::ALL {
        sum += fingertip(rig, pose, side, finger)?.distance(centre);
    }
    Some(sum / Finger::ALL.len() as f32)
}

/// Whether a model-space point lies in the palm's box of that pose.
pub fn in_palm(rig: &Rig, pose: &Pose, side: Side, point: Vec3) -> bool {
    let world = rig.world_pose(pose);
    let (Some((wrist, rotation)), Some((lo, hi))) =
        (world[hand_bone(side).index()], palm_box(rig, pose, side))
    else {
        return false;
    };
    let p = rotation.inverse() * (point - wrist);
    p.cmpge(lo).all() && p.cmple(hi).all()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::body::rig::testing::mannequin_rigs as mannequins;

    fn shaped(rig: &Rig, name: &str, side: Side) -> Pose {
        let mut pose = Pose::default();
        HandDirections::measure(rig).shape_hand(&mut pose, side, &preset(name).unwrap().shape, 1.0);
        pose
    }

    #[test]
    fn a_fist_ends_its_fingertips_in_the_palm_and_open_reaches_further_than_rest() {
        for rig in mannequins() {
            for side in Side::BOTH {
                let fist = shaped(&rig, "fist", side);
                for finger in [Finger::Index, Finger::Middle, Finger::Ring, Finger::Little] {
                    let tip = fingertip(&rig, &fist, side, finger).unwrap();
                    assert!(in_palm(&rig, &fist, side, tip), "{side:?} {finger:?} {tip}");
                    let rest_tip = fingertip(&rig, &Pose::default(), side, finger).unwrap();
                    assert!(
                        !in_palm(&rig, &Pose::default(), side, rest_tip),
                        "rest is outside"
                    );
                }
                let open = shaped(&rig, "open", side);
                assert!(
                    mean_tip_distance(&rig, &open, side).unwrap()
                        > mean_tip_distance(&rig, &Pose::default(), side).unwrap(),
                    "{side:?}"
                );
            }
        }
    }

    #[test]
    fn point_keeps_the_index_straight_and_curls_the_rest() {
        for rig in mannequins() {
            for side in Side::BOTH {
                let point = shaped(&rig, "point", side);
                let rest = Pose::default();
                let reach = |pose: &Pose, f: Finger| {
                    let knuckle = rig.world_position(pose, f.bones(side)[0]).unwrap();
                    fingertip(&rig, pose, side, f).unwrap().distance(knuckle)
                };
                assert!((reach(&point, Finger::Index) - reach(&rest, Finger::Index)).abs() < 1e-4);
                for f in [Finger::Middle, Finger::Ring, Finger::Little] {
                    assert!(reach(&point, f) < reach(&rest, f) * 0.6, "{f:?}");
                }
            }
        }
    }

    #[test]
    fn both_hands_curl_the_same_way_and_a_copied_hand_is_the_mirrored_one() {
        for rig in mannequins() {
            let dirs = HandDirections::measure(&rig);
            let mut pose = Pose::default();
            dirs.shape_hand(&mut pose, Side::Left, &preset("ok").unwrap().shape, 0.8);
            let mut both = pose.clone();
            dirs.shape_hand(&mut both, Side::Right, &preset("ok").unwrap().shape, 0.8);
            // The right hand shaped on its own axes equals the left one mirrored.
            let mirrored = pose.mirrored();
            for &bone in finger_bones(Side::Right) {
                assert!(
                    both.rotation(bone).angle_between(mirrored.rotation(bone)) < 1e-3,
                    "{bone}"
                );
            }
            copy_hand_to_other_side(&mut pose, Side::Left);
            for &bone in finger_bones(Side::Right) {
                assert_eq!(pose.rotation(bone), mirrored.rotation(bone), "{bone}");
            }
        }
    }

    #[test]
    fn a_finger_reads_back_the_curl_and_spread_it_was_given() {
        for rig in mannequins() {
            let dirs = HandDirections::measure(&rig);
            for side in Side::BOTH {
                for finger in Finger::ALL {
                    let mut pose = Pose::default();
                    let shape = FingerShape {
                        curl: 0.4,
                        spread: -0.3,
                        base: 0.0,
                    };
                    dirs.shape_finger(&mut pose, side, finger, shape);
                    let read = dirs.read_finger(&pose, side, finger);
                    assert!(
                        (read.curl - 0.4).abs() < 1e-3,
                        "{side:?} {finger:?} {read:?}"
                    );
                    assert!(
                        (read.spread + 0.3).abs() < 0.05,
                        "{side:?} {finger:?} {read:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_table_has_every_preset_the_hand_panel_offers() {
        let names: Vec<&str> = presets().iter().map(|p| p.name.as_str()).collect();
        for name in [
            "relaxed",
            "open",
            "fist",
            "point",
            "peace",
            "ok",
            "thumbs_up",
            "grip",
            "pinch",
        ] {
            assert!(names.contains(&name), "{name} missing from {names:?}");
        }
    }

    #[test]
    fn a_bad_table_is_refused_with_the_field_named() {
        let bad = serde_json::json!({"presets": [{"name": "x", "index": {"curl": "a lot"}}]});
        let err = read_presets(&bad).unwrap_err().to_string();
        assert!(err.contains("index.curl"), "{err}");
        let far = serde_json::json!({"presets": [{"name": "x", "thumb": {"opposition": 9}}]});
        assert!(read_presets(&far).is_err());
    }
}
