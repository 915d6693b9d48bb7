//! A pose from body and hand landmarks (a photo, a camera): MediaPipe's 33 body and 21
//! hand landmarks, in metres in the camera's frame, turned into a normalized-rig pose on
//! the current model. Limb directions drive the two-bone IK, so bone lengths stay the
//! model's; the hips, torso and head turn by frames built from the hips, shoulders and
//! face; fingers aim bone by bone. A part whose landmarks are not confident keeps the
//! current pose.
//!
//! The camera frame is MediaPipe's: x to the image's right, y down, z away from the
//! camera. A model faces +Z with its left at +X (VRM 1.0), so a person facing the camera
//! maps to the model by (x, −y, −z).

mod flip;
pub mod offline;
mod synthetic;

pub use synthetic::{landmarks_of_pose, limb_directions};

pub use flip::{FLIPPABLE_LIMBS, limb_points};

use glam::{Mat3, Quat, Vec3};

use crate::Refusal;
use crate::body::hand::{Finger, hand_bone};
use crate::body::ik::{Limb, solve_limb};
use crate::body::limits::clamp_pose_bones;
use crate::body::pose::Pose;
use crate::body::rig::{Rig, WorldPose};
use crate::body::smoothing::{OneEuroParams, OneEuroVec3};
use crate::model::humanoid::{Bone, Side};

pub const BODY_POINTS: usize = 33;
pub const HAND_POINTS: usize = 21;

/// A landmark this confident (MediaPipe's visibility) or more is used.
pub const MIN_VISIBILITY: f32 = 0.5;

/// BlazePose's body landmarks, by index.
pub mod body {
    pub const NOSE: usize = 0;
    pub const LEFT_EYE: usize = 2;
    pub const RIGHT_EYE: usize = 5;
    pub const LEFT_EAR: usize = 7;
    pub const RIGHT_EAR: usize = 8;
    pub const LEFT_SHOULDER: usize = 11;
    pub const RIGHT_SHOULDER: usize = 12;
    pub const LEFT_ELBOW: usize = 13;
    pub const RIGHT_ELBOW: usize = 14;
    pub const LEFT_WRIST: usize = 15;
    pub const RIGHT_WRIST: usize = 16;
    pub const LEFT_PINKY: usize = 17;
    pub const RIGHT_PINKY: usize = 18;
    pub const LEFT_INDEX: usize = 19;
    pub const RIGHT_INDEX: usize = 20;
    pub const LEFT_THUMB: usize = 21;
    pub const RIGHT_THUMB: usize = 22;
    pub const LEFT_HIP: usize = 23;
    pub const RIGHT_HIP: usize = 24;
    pub const LEFT_KNEE: usize = 25;
    pub const RIGHT_KNEE: usize = 26;
    pub const LEFT_ANKLE: usize = 27;
    pub const RIGHT_ANKLE: usize = 28;
    pub const LEFT_HEEL: usize = 29;
    pub const RIGHT_HEEL: usize = 30;
    pub const LEFT_FOOT_INDEX: usize = 31;
    pub const RIGHT_FOOT_INDEX: usize = 32;

    /// The same landmark on the other side (the face's middle, the nose, is itself).
    pub fn mirror(i: usize) -> usize {
        match i {
            0 => 0,
            1..=3 => i + 3,
            4..=6 => i - 3,
            7 => 8,
            8 => 7,
            9 => 10,
            10 => 9,
            11..=32 if i % 2 == 1 => i + 1,
            11..=32 => i - 1,
            _ => i,
        }
    }
}

/// The hand landmarks of each digit, from its root out: the thumb's CMC, MCP, IP, tip;
/// a finger's MCP, PIP, DIP, tip. The wrist is 0.
fn digit_points(finger: Finger) -> [usize; 4] {
    match finger {
        Finger::Thumb => [1, 2, 3, 4],
        Finger::Index => [5, 6, 7, 8],
        Finger::Middle => [9, 10, 11, 12],
        Finger::Ring => [13, 14, 15, 16],
        Finger::Little => [17, 18, 19, 20],
    }
}

/// The 33 body landmarks of one person, camera frame, metres (any origin).
#[derive(Clone, Debug, PartialEq)]
pub struct BodyLandmarks {
    pub points: [Vec3; BODY_POINTS],
    /// 0..1: how sure the model is that each landmark is visible and where it says.
    pub visibility: [f32; BODY_POINTS],
}

/// The 21 landmarks of one hand, camera frame, metres (any origin).
#[derive(Clone, Debug, PartialEq)]
pub struct HandLandmarks {
    /// The person's hand (not the side of the image it shows on).
    pub side: Side,
    pub points: [Vec3; HAND_POINTS],
    /// 0..1: how sure the model is that this is a hand.
    pub score: f32,
}

/// What one photo or camera frame showed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Capture {
    pub body: Option<BodyLandmarks>,
    pub hands: Vec<HandLandmarks>,
}

impl Capture {
    /// Left and right swapped (a mirror image: a selfie camera, or an avatar that should
    /// mirror the person in front of it).
    pub fn mirrored(&self) -> Capture {
        let flip = |p: Vec3| Vec3::new(-p.x, p.y, p.z);
        Capture {
            body: self.body.as_ref().map(|b| BodyLandmarks {
                points: std::array::from_fn(|i| flip(b.points[body::mirror(i)])),
                visibility: std::array::from_fn(|i| b.visibility[body::mirror(i)]),
            }),
            hands: self
                .hands
                .iter()
                .map(|h| HandLandmarks {
                    side: h.side.other(),
                    points: h.points.map(flip),
                    score: h.score,
                })
                .collect(),
        }
    }
}

/// A part of the body a capture poses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Torso,
    Head,
    LeftArm,
    RightArm,
    LeftLeg,
    RightLeg,
    LeftHand,
    RightHand,
}

impl Part {
    pub const ALL: [Part; 8] = [
        Part::Torso,
        Part::Head,
        Part::LeftArm,
        Part::RightArm,
        Part::LeftLeg,
        Part::RightLeg,
        Part::LeftHand,
        Part::RightHand,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Part::Torso => "torso",
            Part::Head => "head",
            Part::LeftArm => "left arm",
            Part::RightArm => "right arm",
            Part::LeftLeg => "left leg",
            Part::RightLeg => "right leg",
            Part::LeftHand => "left fingers",
            Part::RightHand => "right fingers",
        }
    }
}

/// The pose a capture gave, and what it was made from.
#[derive(Clone, Debug, PartialEq)]
pub struct Posed {
    pub pose: Pose,
    /// The parts posed from the capture; the others kept the current pose.
    pub posed: Vec<Part>,
    /// Per body landmark: it was confident enough to be used (the overlay's colours).
    pub used: [bool; BODY_POINTS],
}

impl Posed {
    /// The parts that kept the current pose.
    pub fn kept(&self) -> Vec<Part> {
        Part::ALL
            .into_iter()
            .filter(|p| !self.posed.contains(p))
            .collect()
    }
}

/// Camera frame to model frame, for a person facing the camera.
pub fn to_model(p: Vec3) -> Vec3 {
    Vec3::new(p.x, -p.y, -p.z)
}

/// The rotation whose x axis is `x` and whose y axis is as near `y` as it can be.
fn frame(x: Vec3, y: Vec3) -> Option<Quat> {
    let x = x.try_normalize()?;
    let z = x.cross(y).try_normalize()?;
    let y = z.cross(x);
    Some(Quat::from_mat3(&Mat3::from_cols(x, y, z)).normalize())
}

/// The rotation whose x axis is `x` and whose z axis is as near `z` as it can be.
fn frame_xz(x: Vec3, z: Vec3) -> Option<Quat> {
    let x = x.try_normalize()?;
    let y = z.cross(x).try_normalize()?;
    let z = x.cross(y);
    Some(Quat::from_mat3(&Mat3::from_cols(x, y, z)).normalize())
}

/// How far below the line between the ears a resting head's nose points (radians): the
/// nose tip sits lower than the ear canals.
pub const NOSE_BELOW_EARS: f32 = 0.35;

/// A hand's frame from a wrist, the index and little fingers' bases: x along the left
/// hand towards the fingers (the right hand: towards the wrist), z from the little
/// finger to the index (forward in the T-pose, palms down). Identity for a T-posed hand.
fn hand_frame(side: Side, wrist: Vec3, index: Vec3, little: Vec3) -> Option<Quat> {
    let along = (index + little) * 0.5 - wrist;
    let across = index - little;
    match side {
        Side::Left => frame_xz(along, across),
        Side::Right => frame_xz(-along, across),
    }
}

/// The rest frames of the model's own landmarks, so that a person standing straight
/// maps to the model's rest, whatever its proportions.
struct RestFrames {
    /// The rig at rest, in model space.
    world: WorldPose,
    hips: Quat,
    chest: Quat,
    /// From the hand landmarks' wrist and finger bases (the model's finger bones).
    hands: [Quat; 2],
}

impl RestFrames {
    fn measure(rig: &Rig) -> RestFrames {
        let rest = rig.world_pose(&Pose::default());
        let at = |b: Bone| rest[b.index()].map(|(p, _)| p);
        let torso = || -> Option<(Quat, Quat)> {
            let (lh, rh) = (at(Bone::LeftUpperLeg)?, at(Bone::RightUpperLeg)?);
            let (ls, rs) = (at(Bone::LeftUpperArm)?, at(Bone::RightUpperArm)?);
            let up = (ls + rs) * 0.5 - (lh + rh) * 0.5;
            Some((frame(lh - rh, up)?, frame(ls - rs, up)?))
        };
        let (hips, chest) = torso().unwrap_or((Quat::IDENTITY, Quat::IDENTITY));
        let hands = Side::BOTH.map(|side| {
            (|| {
                hand_frame(
                    side,
                    at(hand_bone(side))?,
                    at(Finger::Index.bones(side)[0])?,
                    at(Finger::Little.bones(side)[0])?,
                )
            })()
            .unwrap_or(Quat::IDENTITY)
        });
        RestFrames {
            world: rest,
            hips,
            chest,
            hands,
        }
    }
}

/// The world rotation of a bone's nearest humanoid parent (identity for the root).
fn parent_rotation(rig: &Rig, world: &WorldPose, bone: Bone) -> Quat {
    rig.bone(bone)
        .and_then(|b| b.parent)
        .and_then(|p| world[p.index()])
        .map_or(Quat::IDENTITY, |(_, r)| r)
}

/// Sets a bone's world rotation by its local one (the rig's other bones stay).
fn set_world_rotation(rig: &Rig, pose: &mut Pose, world: &WorldPose, bone: Bone, rotation: Quat) {
    let parent = parent_rotation(rig, world, bone);
    pose.set_rotation(bone, (parent.inverse() * rotation).normalize());
}

/// Spreads a rotation over a chain of bones (each turns an equal share, as a back bends
/// along its length); the missing bones of the chain are skipped.
fn spread_over(rig: &Rig, pose: &mut Pose, chain: &[Bone], rotation: Quat) {
    let present: Vec<Bone> = chain.iter().copied().filter(|b| rig.has(*b)).collect();
    if present.is_empty() {
        return;
    }
    let share = Quat::IDENTITY.slerp(rotation.normalize(), 1.0 / present.len() as f32);
    for bone in present {
        pose.set_rotation(bone, share);
    }
}

fn world_rotation(world: &WorldPose, bone: Bone) -> Quat {
    world[bone.index()].map_or(Quat::IDENTITY, |(_, r)| r)
}

/// The pose `capture` shows, on `rig`, starting from `current` (which the parts without
/// confident landmarks keep). Every bone it turns stays within human joint limits
/// (`body::limits`), whatever the editor's Limits toggle: a person's joints are human, so
/// a reading outside them is a misread. The hips keep their place, lowered or raised so the lower
/// foot stays at its height.
pub fn pose_from_capture(rig: &Rig, current: &Pose, capture: &Capture) -> Result<Posed, Refusal> {
    let mut pose = current.clone();
    let mut posed = Vec::new();
    let mut used = [false; BODY_POINTS];
    let Some(found) = &capture.body else {
        return Err(Refusal::new("no person was found in the picture"));
    };
    if found.points.iter().any(|p| !p.is_finite())
        || found.visibility.iter().any(|v| !v.is_finite())
    {
        return Err(Refusal::new("the landmarks hold a non-finite number"));
    }
    let sure = |i: usize| found.visibility[i] >= MIN_VISIBILITY;
    // A leg counts as seen down to its toes, not by a knee alone, nor with an ankle at
    // the picture's edge: in a half-length picture the model may put a knee on whatever
    // lies by the hips (a helmet held there) and fold the shin up to the bottom edge, and
    // turning the hips and legs on that would seat the avatar on the floor.
    let leg_seen = |knee: usize| {
        let [ankle, toes] = if knee == body::LEFT_KNEE {
            [body::LEFT_ANKLE, body::LEFT_FOOT_INDEX]
        } else {
            [body::RIGHT_ANKLE, body::RIGHT_FOOT_INDEX]
        };
        sure(knee) && sure(ankle) && sure(toes)
    };
    let at = |i: usize| to_model(found.points[i]);
    let mut mark = |points: &[usize]| {
        for &i in points {
            used[i] = true;
        }
    };
    let feet_before = lowest_foot(rig, &pose);
    let rest = RestFrames::measure(rig);

    use body::*;
    // The hips and the back: the hips' line and the shoulders' line, each with the
    // torso's up.
    let torso = [LEFT_HIP, RIGHT_HIP, LEFT_SHOULDER, RIGHT_SHOULDER];
    if torso.iter().all(|&i| sure(i)) {
        let hips_middle = (at(LEFT_HIP) + at(RIGHT_HIP)) * 0.5;
        let shoulders_middle = (at(LEFT_SHOULDER) + at(RIGHT_SHOULDER)) * 0.5;
        let up = shoulders_middle - hips_middle;
        if let (Some(hips), Some(chest)) = (
            frame(at(LEFT_HIP) - at(RIGHT_HIP), up),
            frame(at(LEFT_SHOULDER) - at(RIGHT_SHOULDER), up),
        ) {
            let (hips, chest) = (hips * rest.hips.inverse(), chest * rest.chest.inverse());
            let world = rig.world_pose(&pose);
            // Without the legs in the picture (a half-length photo, a webcam) the hips
            // keep their turn and the back alone takes the torso's: turning the hips
            // would swing legs nobody saw.
            let legs_seen = leg_seen(LEFT_KNEE) || leg_seen(RIGHT_KNEE);
            let hips = if legs_seen {
                set_world_rotation(rig, &mut pose, &world, Bone::Hips, hips);
                hips
            } else {
                world_rotation(&world, Bone::Hips)
            };
            let back = [Bone::Spine, Bone::Chest, Bone::UpperChest];
            spread_over(rig, &mut pose, &back, hips.inverse() * chest);
            // A person's back bends within human limits; a torso turned further is turned
            // at the hips (more than a back can twist is the whole body turning). With the
            // legs seen, the hips are as measured and the back stops at its limits.
            clamp_pose_bones(&mut pose, &back);
            if !legs_seen {
                let world = rig.world_pose(&pose);
                let top = back.into_iter().rev().find(|b| rig.has(*b));
                if let Some(top) = top {
                    let rest_of_turn = chest * world_rotation(&world, top).inverse();
                    if rest_of_turn.angle_between(Quat::IDENTITY) > 1f32.to_radians() {
                        set_world_rotation(rig, &mut pose, &world, Bone::Hips, rest_of_turn * hips);
                    }
                }
            }
            posed.push(Part::Torso);
            mark(&torso);
        }
    }

    // The head: the ears' line, and the nose forward of it.
    let face = [LEFT_EAR, RIGHT_EAR, NOSE];
    if face.iter().all(|&i| sure(i)) {
        let ears = (at(LEFT_EAR) + at(RIGHT_EAR)) * 0.5;
        if let Some(measured) = frame_xz(at(LEFT_EAR) - at(RIGHT_EAR), at(NOSE) - ears) {
            let head = measured * Quat::from_rotation_x(NOSE_BELOW_EARS).inverse();
            let world = rig.world_pose(&pose);
            let below = [Bone::UpperChest, Bone::Chest, Bone::Spine, Bone::Hips]
                .into_iter()
                .find(|b| rig.has(*b))
                .map_or(Quat::IDENTITY, |b| world_rotation(&world, b));
            spread_over(
                rig,
                &mut pose,
                &[Bone::Neck, Bone::Head],
                below.inverse() * head,
            );
            clamp_pose_bones(&mut pose, &[Bone::Neck, Bone::Head]);
            posed.push(Part::Head);
            mark(&face);
        }
    }

    // Arms and legs: upper and lower directions drive the two-bone IK (the elbow or
    // knee is the pole, so the bend is the person's); the hand's or foot's angle
    // from its own landmarks where they are sure.
    let hands: [Option<&HandLandmarks>; 2] = Side::BOTH.map(|side| {
        capture
            .hands
            .iter()
            .filter(|h| h.side == side && h.score >= MIN_VISIBILITY)
            .filter(|h| h.points.iter().all(|p| p.is_finite()))
            .max_by(|a, b| a.score.total_cmp(&b.score))
    });
    for (limb, part, [root, bend, end], extra) in [
        (
            Limb::LeftArm,
            Part::LeftArm,
            [LEFT_SHOULDER, LEFT_ELBOW, LEFT_WRIST],
            [LEFT_INDEX, LEFT_PINKY],
        ),
        (
            Limb::RightArm,
            Part::RightArm,
            [RIGHT_SHOULDER, RIGHT_ELBOW, RIGHT_WRIST],
            [RIGHT_INDEX, RIGHT_PINKY],
        ),
        (
            Limb::LeftLeg,
            Part::LeftLeg,
            [LEFT_HIP, LEFT_KNEE, LEFT_ANKLE],
            [LEFT_FOOT_INDEX, LEFT_HEEL],
        ),
        (
            Limb::RightLeg,
            Part::RightLeg,
            [RIGHT_HIP, RIGHT_KNEE, RIGHT_ANKLE],
            [RIGHT_FOOT_INDEX, RIGHT_HEEL],
        ),
    ] {
        let is_leg = matches!(limb, Limb::LeftLeg | Limb::RightLeg);
        if !(sure(root) && sure(bend)) || (is_leg && !leg_seen(bend)) {
            continue;
        }
        let Some(upper_direction) = (at(bend) - at(root)).try_normalize() else {
            continue;
        };
        let [upper, lower, tip] = limb.bones();
        let world = rig.world_pose(&pose);
        let lower_direction = (at(end) - at(bend)).try_normalize().filter(|_| sure(end));
        let Some(lower_direction) = lower_direction else {
            // The hand or foot is not seen: the upper bone alone turns onto its
            // direction, the rest of the limb bent as it was.
            let (Some((a, turn)), Some((b, _))) = (world[upper.index()], world[lower.index()])
            else {
                continue;
            };
            let Some(now) = (b - a).try_normalize() else {
                continue;
            };
            let turned = Quat::from_rotation_arc(now, upper_direction) * turn;
            set_world_rotation(rig, &mut pose, &world, upper, turned);
            posed.push(part);
            mark(&[root, bend]);
            continue;
        };
        let (Some((a, _)), Some((b, _)), Some((c, _))) = (
            world[upper.index()],
            world[lower.index()],
            world[tip.index()],
        ) else {
            continue;
        };
        let elbow = a + upper_direction * (b - a).length();
        let target = elbow + lower_direction * (c - b).length();
        let is_arm = matches!(limb, Limb::LeftArm | Limb::RightArm);
        let end_rotation = if is_arm {
            let side = if limb == Limb::LeftArm {
                Side::Left
            } else {
                Side::Right
            };
            match hands[side.index()] {
                Some(h) => hand_frame(
                    side,
                    to_model(h.points[0]),
                    to_model(h.points[5]),
                    to_model(h.points[17]),
                )
                .map(|q| q * rest.hands[side.index()].inverse()),
                None if extra.iter().all(|&i| sure(i)) => {
                    mark(&extra);
                    hand_frame(side, at(end), at(extra[0]), at(extra[1]))
                }
                None => None,
            }
        } else if extra.iter().all(|&i| sure(i)) {
            mark(&extra);
            // The foot turns the rest's forward onto heel → toes, keeping its up.
            let forward = at(extra[0]) - at(extra[1]);
            frame_xz(Vec3::Y.cross(forward), forward).or_else(|| {
                forward
                    .try_normalize()
                    .map(|f| Quat::from_rotation_arc(Vec3::Z, f))
            })
        } else {
            None
        };
        solve_limb(rig, &mut pose, limb, target, Some(elbow), end_rotation)?;
        // Within human limits: an elbow or knee read bent backwards comes straight.
        clamp_pose_bones(&mut pose, &limb.bones());
        posed.push(part);
        mark(&[root, bend, end]);
    }

    // Fingers: each bone aims at the next landmark, from its parent as it now is.
    for side in Side::BOTH {
        let Some(hand) = hands[side.index()] else {
            continue;
        };
        let rest = &rest.world;
        for finger in Finger::ALL {
            let bones = finger.bones(side);
            let points = digit_points(finger);
            for (k, bone) in bones.into_iter().enumerate() {
                let Some((rest_at, _)) = rest[bone.index()] else {
                    continue;
                };
                // The rest direction: to the next bone, or (the last) on from the one before.
                let rest_direction = match bones.get(k + 1).and_then(|b| rest[b.index()]) {
                    Some((next, _)) => next - rest_at,
                    None => match k.checked_sub(1).and_then(|j| rest[bones[j].index()]) {
                        Some((before, _)) => rest_at - before,
                        None => continue,
                    },
                };
                let measured = to_model(hand.points[points[k + 1]] - hand.points[points[k]]);
                let (Some(rest_direction), Some(measured)) =
                    (rest_direction.try_normalize(), measured.try_normalize())
                else {
                    continue;
                };
                let parent = parent_rotation(rig, &rig.world_pose(&pose), bone);
                let local = Quat::from_rotation_arc(rest_direction, parent.inverse() * measured);
                pose.set_rotation(bone, local.normalize());
                clamp_pose_bones(&mut pose, &[bone]);
            }
        }
        posed.push(match side {
            Side::Left => Part::LeftHand,
            Side::Right => Part::RightHand,
        });
    }

    // The lower foot keeps its height (a crouch lowers the hips, not lifts the feet).
    if let (Some(before), Some(after)) = (feet_before, lowest_foot(rig, &pose)) {
        let hips = pose.hips.unwrap_or(rig.hips_rest());
        pose.hips = Some(hips + Vec3::Y * (before - after));
    }
    if pose.bones.iter().any(|q| !q.is_finite()) || pose.hips.is_some_and(|h| !h.is_finite()) {
        return Err(Refusal::new("the landmarks gave no usable pose"));
    }
    if posed.is_empty() {
        return Err(Refusal::new(
            "a person was found, but no part of the body clearly enough to pose",
        ));
    }
    Ok(Posed { pose, posed, used })
}

fn lowest_foot(rig: &Rig, pose: &Pose) -> Option<f32> {
    let world = rig.world_pose(pose);
    [Bone::LeftFoot, Bone::RightFoot]
        .into_iter()
        .filter_map(|b| world[b.index()].map(|(p, _)| p.y))
        .reduce(f32::min)
}

/// A limb bone pointing out of the picture by at least this much (the z of its world
/// direction; 0.4 ≈ 24°) by the world landmarks ...
pub const OUT_OF_PICTURE: f32 = 0.4;

/// ... and shown at most this fraction of its length by the picture (≈ 37° out of it)
/// takes its depth from how short the picture shows it.
pub const FORESHORTENED: f32 = 0.8;

/// Each limb bone, root to tip, with the landmarks that move when its tip moves: the tip
/// and all beyond it (the rest of the limb, the hand's or the foot's).
const LIMB_BONES: [(usize, usize, &[usize]); 8] = {
    use body::*;
    [
        (
            LEFT_SHOULDER,
            LEFT_ELBOW,
            &[LEFT_ELBOW, LEFT_WRIST, LEFT_PINKY, LEFT_INDEX, LEFT_THUMB],
        ),
        (
            LEFT_ELBOW,
            LEFT_WRIST,
            &[LEFT_WRIST, LEFT_PINKY, LEFT_INDEX, LEFT_THUMB],
        ),
        (
            RIGHT_SHOULDER,
            RIGHT_ELBOW,
            &[
                RIGHT_ELBOW,
                RIGHT_WRIST,
                RIGHT_PINKY,
                RIGHT_INDEX,
                RIGHT_THUMB,
            ],
        ),
        (
            RIGHT_ELBOW,
            RIGHT_WRIST,
            &[RIGHT_WRIST, RIGHT_PINKY, RIGHT_INDEX, RIGHT_THUMB],
        ),
        (
            LEFT_HIP,
            LEFT_KNEE,
            &[LEFT_KNEE, LEFT_ANKLE, LEFT_HEEL, LEFT_FOOT_INDEX],
        ),
        (
            LEFT_KNEE,
            LEFT_ANKLE,
            &[LEFT_ANKLE, LEFT_HEEL, LEFT_FOOT_INDEX],
        ),
        (
            RIGHT_HIP,
            RIGHT_KNEE,
            &[RIGHT_KNEE, RIGHT_ANKLE, RIGHT_HEEL, RIGHT_FOOT_INDEX],
        ),
        (
            RIGHT_KNEE,
            RIGHT_ANKLE,
            &[RIGHT_ANKLE, RIGHT_HEEL, RIGHT_FOOT_INDEX],
        ),
    ]
};

/// Limb directions read from both of the pose model's outputs. The landmarks in the
/// picture (`pixels`, in the world landmarks' x and y axes) are its surest reading, so
/// each limb bone takes its direction across the picture from them and keeps the world
/// landmarks' angle out of it; where both say a bone points well out of the picture,
/// its depth comes from how short the picture shows it against its length (the longer
/// of it and its twin on the other side: a foreshortened bone's world length runs
/// short). The depth's sign stays the world landmarks'. Bones keep their world length;
/// the landmarks beyond a moved joint move with it. Nothing changes without enough
/// sure limb bones to measure the picture's scale by.
///
/// Measured on 44 stills of the test avatar (11 poses, 4 camera angles): median limb
/// bone error 16.1° → 14.0°, within 20° 62 % → 68 % (`tests/it/pose_photo.rs`).
pub fn align_limbs_to_picture(body: &mut BodyLandmarks, pixels: &[glam::Vec2; BODY_POINTS]) {
    if pixels.iter().any(|p| !p.is_finite()) {
        return;
    }
    let sure = |i: usize| body.visibility[i] >= MIN_VISIBILITY;
    let bones = || LIMB_BONES.iter().filter(|&&(a, b, _)| sure(a) && sure(b));
    let given = body.points;
    let (mut across_picture, mut across_world) = (0.0, 0.0);
    for &(a, b, _) in bones() {
        across_picture += (pixels[b] - pixels[a]).length();
        across_world += (given[b] - given[a]).truncate().length();
    }
    if bones().count() < 2 || across_picture < 1e-6 || across_world < 1e-6 {
        return;
    }
    let metres_per_pixel = across_world / across_picture;
    for &(a, b, moving) in bones() {
        let bone = given[b] - given[a];
        let twin = given[body::mirror(b)] - given[body::mirror(a)];
        let length = bone.length().max(twin.length());
        let seen = (pixels[b] - pixels[a]) * metres_per_pixel;
        let (Some(direction), Some(across)) = (bone.try_normalize(), seen.try_normalize()) else {
            continue;
        };
        let depth = if seen.length() < FORESHORTENED * length && direction.z.abs() >= OUT_OF_PICTURE
        {
            (1.0 - (seen.length() / length).powi(2))
                .max(0.0)
                .sqrt()
                .copysign(direction.z)
        } else {
            direction.z
        };
        let in_plane = (1.0 - depth * depth).max(0.0).sqrt();
        let aligned = (across * in_plane).extend(depth);
        let shift = body.points[a] + aligned * bone.length() - body.points[b];
        for &i in moving {
            body.points[i] += shift;
        }
    }
}

/// The One Euro settings for camera landmarks (metres, ~30 frames a second). Steadier
/// than VR's: a camera's landmarks shake by centimetres, a controller's by millimetres,
/// so the filter rests lower (0.3 Hz) and lets speed open it less (β 3), with a quicker
/// speed estimate (2 Hz) so that a real move still opens it within a frame or two.
/// Measured on shaken stills of the test avatar (`tests/it/pose_photo.rs`): arm jitter
/// 6–13× lower, a 27–34° arm move 80 % followed within 2 frames.
pub const CAMERA_SMOOTHING: OneEuroParams = OneEuroParams {
    min_cutoff: 0.3,
    beta: 3.0,
    d_cutoff: 2.0,
};

/// One Euro filters on every landmark of a live capture (seed 003: smoothed at the
/// landmarks, not the bones). Visibility and scores pass through.
#[derive(Clone, Debug, Default)]
pub struct CaptureSmoother {
    body: Vec<OneEuroVec3>,
    hands: [Vec<OneEuroVec3>; 2],
}

impl CaptureSmoother {
    /// The capture with its landmarks filtered; `dt` seconds since the last frame.
    pub fn filter(&mut self, capture: &Capture, dt: f32, params: &OneEuroParams) -> Capture {
        let mut out = capture.clone();
        match &mut out.body {
            Some(body) => {
                self.body.resize(BODY_POINTS, OneEuroVec3::default());
                for (point, filter) in body.points.iter_mut().zip(&mut self.body) {
                    *point = filter.filter(*point, dt, params);
                }
            }
            None => self.body.clear(),
        }
        for side in Side::BOTH {
            let filters = &mut self.hands[side.index()];
            match out.hands.iter_mut().find(|h| h.side == side) {
                Some(hand) => {
                    filters.resize(HAND_POINTS, OneEuroVec3::default());
                    for (point, filter) in hand.points.iter_mut().zip(filters.iter_mut()) {
                        *point = filter.filter(*point, dt, params);
                    }
                }
                None => filters.clear(),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::mannequin::{self, MannequinVariant};

    fn rig() -> Rig {
        crate::body::rig::rig_from_bytes(&mannequin::build(MannequinVariant::Vrm1)).unwrap()
    }

    fn known_poses() -> Vec<(&'static str, Pose)> {
        let mut arms_up = Pose::default();
        arms_up.set_rotation(Bone::LeftUpperArm, Quat::from_rotation_z(1.2));
        arms_up.set_rotation(Bone::RightUpperArm, Quat::from_rotation_z(-1.2));
        // Bent forwards: a person's elbow bends no other way (the read is clamped so).
        arms_up.set_rotation(Bone::LeftLowerArm, Quat::from_rotation_y(-0.5));
        let mut reach = Pose::default();
        reach.set_rotation(Bone::RightUpperArm, Quat::from_rotation_y(1.4));
        reach.set_rotation(Bone::LeftUpperArm, Quat::from_rotation_z(-1.1));
        reach.set_rotation(Bone::RightLowerArm, Quat::from_rotation_y(0.6));
        reach.set_rotation(Bone::Spine, Quat::from_rotation_y(0.3));
        let mut crouch = Pose::default();
        for (thigh, shin) in [
            (Bone::LeftUpperLeg, Bone::LeftLowerLeg),
            (Bone::RightUpperLeg, Bone::RightLowerLeg),
        ] {
            crouch.set_rotation(thigh, Quat::from_rotation_x(-1.3));
            crouch.set_rotation(shin, Quat::from_rotation_x(1.9));
        }
        crouch.set_rotation(Bone::Head, Quat::from_rotation_x(0.3));
        let mut sitting = Pose::default();
        sitting.set_rotation(
            Bone::LeftUpperLeg,
            Quat::from_euler(glam::EulerRot::XYZ, -1.5, 0.0, 0.2),
        );
        sitting.set_rotation(Bone::RightUpperLeg, Quat::from_rotation_x(-1.4));
        sitting.set_rotation(Bone::LeftLowerLeg, Quat::from_rotation_x(1.5));
        sitting.set_rotation(Bone::RightLowerLeg, Quat::from_rotation_x(1.2));
        sitting.set_rotation(Bone::Hips, Quat::from_rotation_y(-0.4));
        let poses = vec![
            ("arms up", arms_up),
            ("reach", reach),
            ("crouch", crouch),
            ("sitting", sitting),
        ];
        for (name, pose) in &poses {
            for bone in crate::model::humanoid::ALL_BONES {
                let q = pose.rotation(bone);
                assert!(
                    crate::body::limits::within_limits(bone, q),
                    "{name}: {bone:?} {q} is no human pose"
                );
            }
        }
        poses
    }

    /// A straight limb comes back just bent: the IK never reaches past `MAX_REACH` of the
    /// chain (a 0.045 rad bend for a straight arm), so directions agree within 0.05.
    const READ_BACK: f32 = 0.05;

    #[test]
    fn a_pose_read_back_from_its_own_landmarks_has_the_same_limb_directions() {
        let rig = rig();
        for (name, known) in known_poses() {
            let capture = landmarks_of_pose(&rig, &known);
            let posed = pose_from_capture(&rig, &Pose::default(), &capture).unwrap();
            assert_eq!(posed.kept(), Vec::<Part>::new(), "{name}");
            for ((bone, want), (_, got)) in limb_directions(&rig, &known)
                .into_iter()
                .zip(limb_directions(&rig, &posed.pose))
            {
                assert!(
                    want.angle_between(got) < READ_BACK,
                    "{name}: {bone:?} points {got}, {want} posed"
                );
            }
            // The torso and head turn as posed.
            let (w0, w1) = (rig.world_pose(&known), rig.world_pose(&posed.pose));
            for bone in [Bone::Hips, Bone::UpperChest, Bone::Head] {
                let (a, b) = (w0[bone.index()].unwrap().1, w1[bone.index()].unwrap().1);
                assert!(
                    a.angle_between(b) < 0.01,
                    "{name}: {bone:?} turned {b}, {a} posed"
                );
            }
        }
    }

    #[test]
    fn fingers_and_hands_follow_their_landmarks() {
        let rig = rig();
        let mut known = Pose::default();
        // The wrist bent (a wrist hardly twists: the forearm does).
        known.set_rotation(Bone::LeftHand, Quat::from_rotation_z(-0.5));
        let directions = crate::body::hand::HandDirections::measure(&rig);
        let fist = crate::body::hand::preset("fist").unwrap().shape;
        directions.shape_hand(&mut known, Side::Left, &fist, 0.8);
        let point = crate::body::hand::preset("point").unwrap().shape;
        directions.shape_hand(&mut known, Side::Right, &point, 1.0);
        let capture = landmarks_of_pose(&rig, &known);
        let posed = pose_from_capture(&rig, &Pose::default(), &capture).unwrap();
        let (w0, w1) = (rig.world_pose(&known), rig.world_pose(&posed.pose));
        for side in Side::BOTH {
            for finger in Finger::ALL {
                let [a, b, c] = finger.bones(side);
                for (from, to) in [(a, b), (b, c)] {
                    let d = |w: &WorldPose| w[to.index()].unwrap().0 - w[from.index()].unwrap().0;
                    let (want, got) = (d(&w0), d(&w1));
                    assert!(
                        want.angle_between(got) < 0.02,
                        "{side:?} {finger:?}: {from:?} points {got}, {want} posed"
                    );
                }
            }
        }
    }

    #[test]
    fn a_mirrored_capture_gives_the_mirrored_pose_and_never_swaps_sides_otherwise() {
        let rig = rig();
        let (_, reach) = known_poses().remove(1);
        let capture = landmarks_of_pose(&rig, &reach);
        let posed = pose_from_capture(&rig, &Pose::default(), &capture.mirrored()).unwrap();
        let mut mirrored = reach.mirrored();
        for ((bone, want), (_, got)) in limb_directions(&rig, &mirrored)
            .into_iter()
            .zip(limb_directions(&rig, &posed.pose))
        {
            assert!(
                want.angle_between(got) < READ_BACK,
                "{bone:?}: {got} vs {want}"
            );
        }
        // The face mirrors too (its ears change sides with the rest): a head turned and
        // tilted to one side reads back turned and tilted to the other.
        let mut looking = reach.clone();
        looking.set_rotation(
            Bone::Head,
            Quat::from_euler(glam::EulerRot::YXZ, 0.5, 0.2, 0.15),
        );
        let capture = landmarks_of_pose(&rig, &looking);
        let posed = pose_from_capture(&rig, &Pose::default(), &capture.mirrored()).unwrap();
        mirrored = looking.mirrored();
        let head = |pose: &Pose| rig.world_pose(pose)[Bone::Head.index()].unwrap().1;
        let off = head(&mirrored).angle_between(head(&posed.pose));
        assert!(
            off < READ_BACK,
            "the mirrored head is {:.0}° off",
            off.to_degrees()
        );
    }

    #[test]
    fn an_unsure_limb_keeps_the_current_pose_and_no_person_changes_nothing() {
        let rig = rig();
        let (_, arms_up) = known_poses().remove(0);
        let mut capture = landmarks_of_pose(&rig, &arms_up);
        capture.body.as_mut().unwrap().visibility[body::RIGHT_ELBOW] = 0.1;
        let mut current = Pose::default();
        current.set_rotation(Bone::RightLowerArm, Quat::from_rotation_y(-0.7));
        let posed = pose_from_capture(&rig, &current, &capture).unwrap();
        assert_eq!(posed.kept(), vec![Part::RightArm]);
        // An unseen hand: the upper arm still follows the elbow, the forearm keeps its bend.
        let mut no_hand = landmarks_of_pose(&rig, &arms_up);
        no_hand.body.as_mut().unwrap().visibility[body::RIGHT_WRIST] = 0.1;
        no_hand.hands.clear();
        let upper_only = pose_from_capture(&rig, &current, &no_hand).unwrap();
        assert_eq!(upper_only.kept(), vec![Part::LeftHand, Part::RightHand]);
        assert!(!upper_only.used[body::RIGHT_WRIST] && upper_only.used[body::RIGHT_ELBOW]);
        let direction = |pose: &Pose| {
            let directions = limb_directions(&rig, pose);
            directions
                .into_iter()
                .find(|(b, _)| *b == Bone::RightUpperArm)
                .unwrap()
                .1
        };
        assert!(direction(&upper_only.pose).angle_between(direction(&arms_up)) < 1e-3);
        assert_eq!(
            upper_only.pose.rotation(Bone::RightLowerArm),
            current.rotation(Bone::RightLowerArm)
        );
        assert!(!posed.used[body::RIGHT_ELBOW] && posed.used[body::LEFT_ELBOW]);
        assert_eq!(
            posed.pose.rotation(Bone::RightLowerArm),
            current.rotation(Bone::RightLowerArm)
        );
        let none = pose_from_capture(&rig, &current, &Capture::default());
        assert!(none.unwrap_err().0.contains("no person"));
        capture.body.as_mut().unwrap().points[3] = Vec3::NAN;
        assert!(pose_from_capture(&rig, &current, &capture).is_err());
    }

    #[test]
    fn without_the_legs_in_the_picture_the_hips_keep_their_turn_and_the_back_bends() {
        let rig = rig();
        let mut leaning = Pose::default();
        leaning.set_rotation(Bone::Hips, Quat::from_rotation_z(0.25));
        leaning.set_rotation(Bone::Chest, Quat::from_rotation_y(0.3));
        let mut capture = landmarks_of_pose(&rig, &leaning);
        for i in [
            body::LEFT_KNEE,
            body::RIGHT_KNEE,
            body::LEFT_ANKLE,
            body::RIGHT_ANKLE,
        ] {
            capture.body.as_mut().unwrap().visibility[i] = 0.05;
        }
        let posed = pose_from_capture(&rig, &Pose::default(), &capture).unwrap();
        assert!(posed.kept().contains(&Part::LeftLeg) && posed.kept().contains(&Part::RightLeg));
        assert_eq!(posed.pose.rotation(Bone::Hips), Quat::IDENTITY);
        // The shoulders still turn as the photo shows them.
        let (w0, w1) = (rig.world_pose(&leaning), rig.world_pose(&posed.pose));
        let chest = |w: &WorldPose| w[Bone::UpperChest.index()].unwrap().1;
        assert!(chest(&w0).angle_between(chest(&w1)) < 0.01);
    }

    #[test]
    fn a_knee_without_its_ankle_or_toes_leaves_the_legs_and_the_hips_as_they_were() {
        // A half-length picture where the model found knees by the hips (something held
        // there) but no ankles, or ankles at the picture's edge with the toes beyond it:
        // the legs, the hips' turn and height stay; the rest is read.
        for unseen in [
            [body::LEFT_ANKLE, body::RIGHT_ANKLE],
            [body::LEFT_FOOT_INDEX, body::RIGHT_FOOT_INDEX],
        ] {
            leg_without(unseen);
        }
    }

    fn leg_without(unseen: [usize; 2]) {
        let rig = rig();
        let (_, crouch) = known_poses().remove(2);
        let mut capture = landmarks_of_pose(&rig, &crouch);
        for i in unseen {
            capture.body.as_mut().unwrap().visibility[i] = 0.05;
        }
        let current = Pose::default();
        let posed = pose_from_capture(&rig, &current, &capture).unwrap();
        assert!(posed.kept().contains(&Part::LeftLeg) && posed.kept().contains(&Part::RightLeg));
        assert!(posed.posed.contains(&Part::LeftArm) && posed.posed.contains(&Part::Torso));
        for bone in [
            Bone::Hips,
            Bone::LeftUpperLeg,
            Bone::LeftLowerLeg,
            Bone::RightUpperLeg,
            Bone::RightLowerLeg,
        ] {
            assert_eq!(
                posed.pose.rotation(bone),
                current.rotation(bone),
                "{bone:?}"
            );
        }
        let hips_at = |pose: &Pose| pose.hips.unwrap_or(rig.hips_rest());
        assert!(hips_at(&posed.pose).distance(hips_at(&current)) < 1e-6);
        assert!(!posed.used[body::LEFT_KNEE] && !posed.used[body::RIGHT_KNEE]);
    }

    /// The picture of `body`: straight on, 300 pixels a metre.
    fn picture_of(body: &BodyLandmarks) -> [glam::Vec2; BODY_POINTS] {
        body.points
            .map(|p| p.truncate() * 300.0 + glam::Vec2::new(200.0, 260.0))
    }

    /// Each limb bone's direction in the camera's frame.
    fn limb_bone_directions(body: &BodyLandmarks) -> Vec<Vec3> {
        LIMB_BONES
            .iter()
            .map(|&(a, b, _)| (body.points[b] - body.points[a]).normalize())
            .collect()
    }

    fn largest_angle(a: &[Vec3], b: &[Vec3]) -> f32 {
        a.iter()
            .zip(b)
            .map(|(x, y)| x.angle_between(*y).to_degrees())
            .fold(0.0, f32::max)
    }

    #[test]
    fn limbs_take_their_direction_across_the_picture_from_it_and_depth_from_foreshortening() {
        let rig = rig();
        for (name, pose) in known_poses() {
            let truth = landmarks_of_pose(&rig, &pose).body.unwrap();
            let pixels = picture_of(&truth);
            // Landmarks that agree with their picture stay as they are.
            let mut same = truth.clone();
            align_limbs_to_picture(&mut same, &pixels);
            let moved = largest_angle(&limb_bone_directions(&same), &limb_bone_directions(&truth));
            assert!(moved < 0.1, "{name}: {moved}°");

            // World landmarks as a pose model reads them: every limb bone turned 12°
            // across the picture, and the left thigh's depth read half as deep.
            let mut read = truth.clone();
            for (a, b, moving) in LIMB_BONES {
                let mut bone = truth.points[b] - truth.points[a];
                if b == body::LEFT_KNEE {
                    bone.z *= 0.5;
                }
                let turned = Quat::from_rotation_z(12f32.to_radians()) * bone;
                let shift = read.points[a] + turned - read.points[b];
                for &i in moving {
                    read.points[i] += shift;
                }
            }
            let before = largest_angle(&limb_bone_directions(&read), &limb_bone_directions(&truth));
            assert!(before > 11.0, "{name}: {before}°");
            align_limbs_to_picture(&mut read, &pixels);
            let after = largest_angle(&limb_bone_directions(&read), &limb_bone_directions(&truth));
            assert!(after < 0.5, "{name}: {before}° before, {after}° after");
        }
    }

    #[test]
    fn unsure_or_unusable_landmarks_are_not_aligned() {
        let rig = rig();
        let (_, reach) = &known_poses()[1];
        let truth = landmarks_of_pose(&rig, reach).body.unwrap();
        let mut pixels = picture_of(&truth);
        for p in &mut pixels {
            *p = glam::Vec2::new(p.x, 520.0 - p.y); // the picture upside down
        }
        let mut unsure = truth.clone();
        unsure.visibility[body::LEFT_ELBOW] = 0.1;
        align_limbs_to_picture(&mut unsure, &pixels);
        for i in [body::LEFT_SHOULDER, body::LEFT_ELBOW, body::LEFT_WRIST] {
            assert_eq!(unsure.points[i], truth.points[i]);
        }
        assert_ne!(
            unsure.points[body::RIGHT_WRIST],
            truth.points[body::RIGHT_WRIST]
        );

        let mut broken = truth.clone();
        pixels[body::NOSE] = glam::Vec2::NAN;
        align_limbs_to_picture(&mut broken, &pixels);
        assert_eq!(broken, truth);

        let mut half_seen = truth.clone();
        half_seen.visibility = [0.0; BODY_POINTS];
        half_seen.visibility[body::LEFT_SHOULDER] = 1.0;
        half_seen.visibility[body::LEFT_ELBOW] = 1.0;
        align_limbs_to_picture(&mut half_seen, &picture_of(&truth).map(|p| p * -1.0));
        assert_eq!(half_seen.points, truth.points, "one bone gives no scale");
    }

    #[test]
    fn a_crouch_lowers_the_hips_so_the_feet_stay_down() {
        let rig = rig();
        let (_, crouch) = known_poses().remove(2);
        let capture = landmarks_of_pose(&rig, &crouch);
        let posed = pose_from_capture(&rig, &Pose::default(), &capture).unwrap();
        let before = lowest_foot(&rig, &Pose::default()).unwrap();
        let after = lowest_foot(&rig, &posed.pose).unwrap();
        assert!((before - after).abs() < 1e-4, "{before} → {after}");
        assert!(posed.pose.hips.unwrap().y < rig.hips_rest().y - 0.1);
    }

    #[test]
    fn the_camera_smoothing_steadies_jitter_and_follows_a_step() {
        let params = CAMERA_SMOOTHING;
        let rig = rig();
        let base = landmarks_of_pose(&rig, &Pose::default());
        let mut smoother = CaptureSmoother::default();
        let mut raw_jitter = 0.0;
        let mut smooth_jitter = 0.0;
        let mut last: Option<(Vec3, Vec3)> = None;
        for frame in 0..120 {
            let mut capture = base.clone();
            // A deterministic ±1 cm wobble on the left wrist.
            let wobble = if frame % 2 == 0 { 0.01 } else { -0.01 };
            capture.body.as_mut().unwrap().points[body::LEFT_WRIST].x += wobble;
            let out = smoother.filter(&capture, 1.0 / 30.0, &params);
            let raw = capture.body.unwrap().points[body::LEFT_WRIST];
            let smooth = out.body.unwrap().points[body::LEFT_WRIST];
            if let Some((r, s)) = last
                && frame > 30
            {
                raw_jitter += (raw - r).length();
                smooth_jitter += (smooth - s).length();
            }
            last = Some((raw, smooth));
        }
        assert!(
            smooth_jitter * 5.0 < raw_jitter,
            "{smooth_jitter} vs {raw_jitter}"
        );
        // A 20 cm step of the wrist: most of it shows within three frames.
        let mut stepped = base.clone();
        stepped.body.as_mut().unwrap().points[body::LEFT_WRIST].x += 0.2;
        let before = base.body.as_ref().unwrap().points[body::LEFT_WRIST].x;
        let mut reached = 0.0;
        for _ in 0..3 {
            let out = smoother.filter(&stepped, 1.0 / 30.0, &params);
            reached = (out.body.unwrap().points[body::LEFT_WRIST].x - before) / 0.2;
        }
        assert!(
            reached > 0.8,
            "after three frames {:.0} % of the step",
            reached * 100.0
        );
    }
}
