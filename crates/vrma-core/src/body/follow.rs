//! Full-body reach ("Body follows"): a hand, foot or the head pulled past what its own
//! chain reaches bends the spine (and the shoulder, for a hand) towards the target, each
//! joint by its own share (most in the waist and chest, little in the neck), then moves
//! the hips when they are free, then the limb reaches. Pinned ends stay where they were.
//! Deterministic: a fixed number of passes, no randomness. Model space, VRM 1.0 frame.

use glam::{Quat, Vec3};

use crate::Refusal;
use crate::body::ik::{self, Limb, MAX_REACH};
use crate::body::limits;
use crate::body::pose::Pose;
use crate::body::rig::{Rig, WorldPose};
use crate::model::humanoid::{Bone, Side};

/// How much of the limb's length the body brings the target within: a little short of
/// straight, so the arm keeps a natural bend where it can.
const LEAN_REACH: f32 = 0.97;
/// Passes over the spine chain; each joint turns its share of what is left each pass.
const PASSES: usize = 6;
/// Halvings when the hips' move is cut back until every pinned foot can still stand.
const HIPS_HALVINGS: usize = 10;

/// An end held where it is (its model-space position and rotation) while the rest moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Held {
    pub end: Bone,
    pub position: Vec3,
    pub rotation: Quat,
}

impl Held {
    /// Where `end` is in `pose`.
    pub fn capture(rig: &Rig, pose: &Pose, end: Bone) -> Option<Held> {
        let (position, rotation) = rig.world_pose(pose)[end.index()]?;
        Some(Held {
            end,
            position,
            rotation,
        })
    }
}

/// What a body-following reach may use.
#[derive(Clone, Debug, Default)]
pub struct Follow {
    /// Ends held in place (pins, planted feet).
    pub held: Vec<Held>,
    /// Keep bones inside their joint limits.
    pub limits: bool,
}

/// The spine joints that lean, from the bottom up, and each one's share of a pass: the
/// waist and the chest most, the upper chest less, then the shoulder (a hand) or the neck
/// (the head) a little.
fn chain(rig: &Rig, end: Bone) -> Vec<(Bone, f32)> {
    let mut joints = vec![
        (Bone::Spine, 0.35),
        (Bone::Chest, 0.35),
        (Bone::UpperChest, 0.2),
    ];
    match end {
        Bone::LeftHand => joints.push((Bone::LeftShoulder, 0.3)),
        Bone::RightHand => joints.push((Bone::RightShoulder, 0.3)),
        Bone::Head => joints.push((Bone::Neck, 0.15)),
        _ => joints.clear(), // a foot: only the hips carry it further
    }
    joints.retain(|(b, _)| rig.has(*b));
    joints
}

/// The bone whose position must come within reach of the target: the upper arm or leg
/// (where the limb starts), or the head itself.
fn root_of(end: Bone) -> Result<(Bone, Option<Limb>), Refusal> {
    if end == Bone::Head {
        return Ok((Bone::Head, None));
    }
    let limb = Limb::ending_at(end).ok_or_else(|| {
        Refusal::new(format!(
            "'{end}' is not a hand, a foot or the head (the ends the body follows)"
        ))
    })?;
    Ok((limb.bones()[0], Some(limb)))
}

/// A limb's length, shoulder or hip to the end.
fn limb_length(rig: &Rig, limb: Limb) -> f32 {
    let rest = Pose::default();
    let [a, b, c] = limb.bones().map(|bone| rig.world_position(&rest, bone));
    match (a, b, c) {
        (Some(a), Some(b), Some(c)) => a.distance(b) + b.distance(c),
        _ => 0.0,
    }
}

/// Where the root must be for the end to reach `target`: on the line to it, `reach` away.
fn wanted_root(root: Vec3, target: Vec3, reach: f32) -> Option<Vec3> {
    let to_target = target - root;
    let excess = to_target.length() - reach;
    (excess > 0.0).then(|| root + to_target.normalize() * excess)
}

/// Turns `bone` (a model-space turn `turn` about itself) in `pose`, whose world is `world`.
fn turn_bone(rig: &Rig, pose: &mut Pose, world: &WorldPose, bone: Bone, turn: Quat, limits: bool) {
    let Some((_, rotation)) = world[bone.index()] else {
        return;
    };
    let parent = rig
        .bone(bone)
        .and_then(|b| b.parent)
        .and_then(|p| world[p.index()])
        .map_or(Quat::IDENTITY, |(_, r)| r);
    let mut local = (parent.inverse() * turn * rotation).normalize();
    if limits {
        local = limits::clamp_rotation(bone, local);
    }
    if local.is_finite() {
        pose.set_rotation(bone, local);
    }
}

/// Re-solves every held end (but `moving`) to where it was held.
fn keep_held(rig: &Rig, pose: &mut Pose, follow: &Follow, moving: Bone) -> Result<(), Refusal> {
    for held in follow.held.iter().filter(|h| h.end != moving) {
        keep(rig, pose, std::slice::from_ref(held))?;
    }
    Ok(())
}

/// Puts each held hand or foot back where it was held (its limb re-solved), and a held
/// head back to where the face pointed. Ends that have not moved are left alone (a
/// straight leg re-solved would bend a hair).
pub fn keep(rig: &Rig, pose: &mut Pose, held: &[Held]) -> Result<(), Refusal> {
    for held in held {
        let now = rig.world_pose(pose)[held.end.index()];
        if now.is_some_and(|(p, r)| p.distance(held.position) < 1e-6 && r == held.rotation) {
            continue;
        }
        match Limb::ending_at(held.end) {
            Some(limb) => {
                ik::solve_limb(rig, pose, limb, held.position, None, Some(held.rotation))?
            }
            None if held.end == Bone::Head => {
                if let Some((_, now)) = now {
                    let world = rig.world_pose(pose);
                    let turn = held.rotation * now.inverse();
                    turn_bone(rig, pose, &world, Bone::Head, turn, false);
                }
            }
            None => {}
        }
    }
    Ok(())
}

/// How far each held hand or foot may be from its shoulder or hip: what its limb
/// reaches, or as far as it is now when that is already further (a straight leg).
fn held_reach(rig: &Rig, pose: &Pose, follow: &Follow) -> Vec<Option<f32>> {
    let world = rig.world_pose(pose);
    follow
        .held
        .iter()
        .map(|held| {
            let limb = Limb::ending_at(held.end)?;
            let (root, _) = world[limb.bones()[0].index()]?;
            Some((MAX_REACH * limb_length(rig, limb)).max(root.distance(held.position)))
        })
        .collect()
}

/// Whether every held hand and foot can still be reached from its shoulder or hip.
fn held_can_reach(rig: &Rig, pose: &Pose, follow: &Follow, reach: &[Option<f32>]) -> bool {
    let world = rig.world_pose(pose);
    follow.held.iter().zip(reach).all(|(held, reach)| {
        let (Some(limb), Some(reach)) = (Limb::ending_at(held.end), reach) else {
            return true;
        };
        world[limb.bones()[0].index()]
            .is_none_or(|(root, _)| root.distance(held.position) <= reach + 1e-6)
    })
}

/// How far the hips must drop, moved by `step`, for every held foot to stay within
/// reach: the knees bend instead of the feet lifting (0 when they already reach).
fn crouch(rig: &Rig, pose: &Pose, follow: &Follow, step: Vec3, reach: &[Option<f32>]) -> f32 {
    let world = rig.world_pose(pose);
    let mut drop = 0.0f32;
    for (held, reach) in follow.held.iter().zip(reach) {
        let limb = match held.end {
            Bone::LeftFoot => Limb::LeftLeg,
            Bone::RightFoot => Limb::RightLeg,
            _ => continue,
        };
        let (Some((hip, _)), Some(reach)) = (world[limb.bones()[0].index()], reach) else {
            continue;
        };
        let reach = reach * 0.999;
        // |hip + step − d·Y − foot| ≤ reach: the smaller root of the quadratic in d.
        let w = hip + step - held.position;
        let room = w.y * w.y - w.length_squared() + reach * reach;
        if room >= 0.0 {
            drop = drop.max(w.y - room.sqrt());
        }
    }
    drop.max(0.0)
}

/// Moves `end` (a hand, a foot or the head) to `target`, the body following when the
/// limb alone falls short. `keep_angle` keeps a hand's or foot's world rotation. Held
/// ends stay; the hips move only when no foot is held that could not then stand. A
/// refused reach changes nothing.
pub fn reach_with_body(
    rig: &Rig,
    pose: &mut Pose,
    end: Bone,
    target: Vec3,
    keep_angle: bool,
    follow: &Follow,
) -> Result<(), Refusal> {
    if !target.is_finite() || target.abs().max_element() > 1e4 {
        return Err(Refusal::new(format!(
            "{end}: the target must be a finite point within 10 km"
        )));
    }
    let (root, limb) = root_of(end)?;
    if !rig.has(root) || !rig.has(end) {
        return Err(Refusal::new(format!("the model has no '{end}' bone")));
    }
    let mut next = pose.clone();
    let end_rotation = keep_angle
        .then(|| rig.world_pose(&next)[end.index()].map(|(_, r)| r))
        .flatten();
    let reach = limb.map_or(0.0, |l| LEAN_REACH * limb_length(rig, l));

    // The spine leans: each pass, each joint turns its share of the way that brings the
    // root (shoulder, or the head) to where the end can reach the target.
    // The body follows only a target past the limb's own reach: one within it (a foot
    // lifted from a straight leg) is the limb's alone.
    let beyond = match (limb, rig.world_pose(&next)[root.index()]) {
        (Some(l), Some((at, _))) => at.distance(target) > MAX_REACH * limb_length(rig, l),
        _ => true,
    };
    let joints = if beyond { chain(rig, end) } else { Vec::new() };
    let held_reach = held_reach(rig, &next, follow);
    for _ in 0..if beyond { PASSES } else { 0 } {
        let before_pass = next.clone();
        for &(bone, share) in &joints {
            let world = rig.world_pose(&next);
            let (Some((at, _)), Some((pivot, _))) = (world[root.index()], world[bone.index()])
            else {
                continue;
            };
            let Some(goal) = wanted_root(at, target, reach) else {
                break;
            };
            let (from, to) = (at - pivot, goal - pivot);
            if from.length() < 1e-5 || to.length() < 1e-5 {
                continue;
            }
            let whole = Quat::from_rotation_arc(from.normalize(), to.normalize());
            let part = Quat::IDENTITY.slerp(whole, share);
            turn_bone(rig, &mut next, &world, bone, part, follow.limits);
        }
        // A lean that would pull a held hand or foot out of reach goes no further.
        if !held_can_reach(rig, &next, follow, &held_reach) {
            next = before_pass;
            break;
        }
        keep_held(rig, &mut next, follow, end)?;
    }

    // The hips carry what the spine could not, as far as the held ends allow.
    let world = rig.world_pose(&next);
    if beyond
        && let Some((at, _)) = world[root.index()]
        && let Some(goal) = wanted_root(at, target, reach)
    {
        let hips = next.hips.unwrap_or(rig.hips_rest());
        let mut step = goal - at;
        for _ in 0..HIPS_HALVINGS {
            let mut moved = next.clone();
            moved.hips =
                Some(hips + step - Vec3::Y * crouch(rig, &next, follow, step, &held_reach));
            if held_can_reach(rig, &moved, follow, &held_reach) {
                keep_held(rig, &mut moved, follow, end)?;
                next = moved;
                break;
            }
            step *= 0.5;
        }
    }

    // Then the limb reaches (or, for the head, the neck chain has brought it).
    if let Some(limb) = limb {
        ik::solve_limb(rig, &mut next, limb, target, None, end_rotation)?;
    }
    keep_held(rig, &mut next, follow, end)?;
    if follow.limits {
        for bone in crate::model::humanoid::ALL_BONES {
            if next.rotation(bone) != pose.rotation(bone) {
                let q = limits::clamp_rotation(bone, next.rotation(bone));
                next.set_rotation(bone, q);
            }
        }
    }
    *pose = next;
    Ok(())
}

/// The foot ends of both sides, as held by "Pin feet".
pub fn both_feet(rig: &Rig, pose: &Pose) -> Vec<Held> {
    Side::BOTH
        .iter()
        .filter_map(|side| {
            let foot = match side {
                Side::Left => Bone::LeftFoot,
                Side::Right => Bone::RightFoot,
            };
            Held::capture(rig, pose, foot)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::humanoid::ALL_BONES;

    use crate::body::rig::testing::mannequin_rigs as rigs;

    fn pos(rig: &Rig, pose: &Pose, b: Bone) -> Vec3 {
        rig.world_position(pose, b).unwrap()
    }

    #[test]
    fn a_hand_30_percent_past_its_reach_is_reached_by_leaning_with_the_feet_kept() {
        for rig in rigs() {
            for (hand, side) in [(Bone::LeftHand, 1.0), (Bone::RightHand, -1.0)] {
                let limb = Limb::ending_at(hand).unwrap();
                let length = limb_length(&rig, limb);
                for direction in [
                    Vec3::new(side * 0.5, -0.2, 1.0),
                    Vec3::new(side, 0.0, 0.2),
                    Vec3::new(side * 0.3, -0.8, 0.6),
                ] {
                    let mut pose = Pose::default();
                    let shoulder = pos(&rig, &pose, limb.bones()[0]);
                    let target = shoulder + direction.normalize() * length * 1.3;
                    let follow = Follow {
                        held: both_feet(&rig, &pose),
                        limits: true,
                    };
                    reach_with_body(&rig, &mut pose, hand, target, false, &follow).unwrap();
                    let error = pos(&rig, &pose, hand).distance(target);
                    assert!(error < 0.01, "{hand} to {target}: {error:.4} m off");
                    for held in &follow.held {
                        let moved = pos(&rig, &pose, held.end).distance(held.position);
                        assert!(moved < 1e-3, "{}: moved {moved:.5} m", held.end);
                    }
                    for bone in ALL_BONES {
                        assert!(
                            limits::within_limits(bone, pose.rotation(bone)),
                            "{bone}: {}",
                            pose.rotation(bone)
                        );
                    }
                    // The lean is mostly in the waist and chest, little in the shoulder.
                    let turned =
                        |b: Bone| pose.rotation(b).angle_between(Quat::IDENTITY).to_degrees();
                    assert!(
                        turned(Bone::Spine) + turned(Bone::Chest) > 3.0,
                        "{hand} {direction}: spine {:.1}° chest {:.1}° shoulder {:.1}°, hips {:?}",
                        turned(Bone::Spine),
                        turned(Bone::Chest),
                        turned(limb.bones()[0]),
                        pose.hips
                    );
                }
            }
        }
    }

    #[test]
    fn the_same_drag_gives_the_same_pose_and_a_reachable_target_leaves_the_spine_alone() {
        let rig = &rigs()[0];
        let start = Pose::default();
        let shoulder = pos(rig, &start, Bone::LeftUpperArm);
        let follow = Follow {
            held: both_feet(rig, &start),
            limits: true,
        };
        let far = shoulder + Vec3::new(0.6, 0.1, 0.5);
        let mut a = start.clone();
        let mut b = start.clone();
        reach_with_body(rig, &mut a, Bone::LeftHand, far, false, &follow).unwrap();
        reach_with_body(rig, &mut b, Bone::LeftHand, far, false, &follow).unwrap();
        assert_eq!(a, b, "deterministic");
        let mut near = start.clone();
        let close = shoulder + Vec3::new(0.25, -0.15, 0.2);
        reach_with_body(rig, &mut near, Bone::LeftHand, close, false, &follow).unwrap();
        for bone in [
            Bone::Spine,
            Bone::Chest,
            Bone::UpperChest,
            Bone::LeftShoulder,
        ] {
            assert_eq!(near.rotation(bone), Quat::IDENTITY, "{bone}");
        }
        assert!(pos(rig, &near, Bone::LeftHand).distance(close) < 1e-4);
    }

    #[test]
    fn a_held_hand_stays_while_another_reaches_far_and_bad_targets_change_nothing() {
        let rig = &rigs()[0];
        let mut pose = Pose::default();
        let right = pos(rig, &pose, Bone::RightUpperArm);
        ik::reach(
            rig,
            &mut pose,
            Bone::RightHand,
            right + Vec3::new(-0.2, -0.3, 0.25),
            false,
        )
        .unwrap();
        let mut held = both_feet(rig, &pose);
        held.push(Held::capture(rig, &pose, Bone::RightHand).unwrap());
        let follow = Follow { held, limits: true };
        let left = pos(rig, &pose, Bone::LeftUpperArm);
        let target = left + Vec3::new(0.55, 0.0, 0.45);
        reach_with_body(rig, &mut pose, Bone::LeftHand, target, false, &follow).unwrap();
        assert!(pos(rig, &pose, Bone::LeftHand).distance(target) < 0.01);
        for h in &follow.held {
            let moved = pos(rig, &pose, h.end).distance(h.position);
            assert!(moved < 1e-3, "{}: moved {moved:.5} m", h.end);
        }
        let before = pose.clone();
        for bad in [Vec3::NAN, Vec3::splat(2e4)] {
            assert!(reach_with_body(rig, &mut pose, Bone::LeftHand, bad, false, &follow).is_err());
        }
        assert!(reach_with_body(rig, &mut pose, Bone::Spine, target, false, &follow).is_err());
        assert_eq!(pose, before);
    }
}
