//! Two-bone IK on the normalized skeleton (SPEC §8): arms and legs, the pole from the
//! current bend (so a drag never flips it), reach clamped to 99.9%, "keep the hand/foot
//! angle", pole drags with the end fixed, and moving the hips with the feet pinned.
//! Everything is model space, VRM 1.0 frame.

use glam::{Mat3, Quat, Vec3};

use crate::Refusal;
use crate::body::limits;
use crate::body::math::arc;
use crate::body::pose::Pose;
use crate::body::rig::Rig;
use crate::model::humanoid::Bone;

/// The fraction of the chain's length a target may be from its root.
pub const MAX_REACH: f32 = 0.999;

/// An arm or a leg: upper bone, lower bone, end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limb {
    LeftArm,
    RightArm,
    LeftLeg,
    RightLeg,
}

impl Limb {
    pub const ALL: [Limb; 4] = [Limb::LeftArm, Limb::RightArm, Limb::LeftLeg, Limb::RightLeg];

    /// Upper, lower, end.
    pub fn bones(self) -> [Bone; 3] {
        use Bone::*;
        match self {
            Limb::LeftArm => [LeftUpperArm, LeftLowerArm, LeftHand],
            Limb::RightArm => [RightUpperArm, RightLowerArm, RightHand],
            Limb::LeftLeg => [LeftUpperLeg, LeftLowerLeg, LeftFoot],
            Limb::RightLeg => [RightUpperLeg, RightLowerLeg, RightFoot],
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Limb::LeftArm => "leftArm",
            Limb::RightArm => "rightArm",
            Limb::LeftLeg => "leftLeg",
            Limb::RightLeg => "rightLeg",
        }
    }

    pub fn from_name(name: &str) -> Option<Limb> {
        Limb::ALL.into_iter().find(|l| l.name() == name)
    }

    /// The limb a hand or foot ends.
    pub fn ending_at(bone: Bone) -> Option<Limb> {
        Limb::ALL.into_iter().find(|l| l.bones()[2] == bone)
    }

    /// The limb whose elbow or knee this is.
    pub fn bending_at(bone: Bone) -> Option<Limb> {
        Limb::ALL.into_iter().find(|l| l.bones()[1] == bone)
    }

    fn is_arm(self) -> bool {
        matches!(self, Limb::LeftArm | Limb::RightArm)
    }

    /// Bend direction for a nearly straight limb: arms back and down, legs forward.
    fn default_bend(self) -> Vec3 {
        if self.is_arm() {
            Vec3::new(0.0, -1.0, -1.0).normalize()
        } else {
            Vec3::Z
        }
    }
}

/// The part of `v` orthogonal to the unit vector `axis`.
fn orthogonal(v: Vec3, axis: Vec3) -> Vec3 {
    v - axis * v.dot(axis)
}

/// Bend planes tried round the reach line, and the step between them.
const BEND_CANDIDATES: usize = 24;
const BEND_STEP: f32 = std::f32::consts::PI / 12.0;

/// A limb's hinge at rest, in model space: the upper bone's and the forearm's (or
/// shin's) directions, and the axis the elbow or knee flexes about, across the upper.
struct Hinge {
    upper: Vec3,
    forearm: Vec3,
    axis: Vec3,
}

impl Hinge {
    fn of(rig: &Rig, limb: Limb) -> Result<Hinge, Refusal> {
        let [upper, lower, end] = limb.bones();
        let rest = Pose::default();
        let at = |b: Bone| {
            rig.world_position(&rest, b)
                .ok_or_else(|| Refusal::new(format!("the model has no '{b}' bone")))
        };
        let (a, b, c) = (at(upper)?, at(lower)?, at(end)?);
        let upper_dir = (b - a).normalize_or(Vec3::X);
        let forearm = (c - b).normalize_or(upper_dir);
        let flexion = limits::joint_range(lower).map_or(Vec3::Y, |range| range.bend.axis);
        let axis = orthogonal(flexion, upper_dir)
            .try_normalize()
            .unwrap_or_else(|| upper_dir.any_orthonormal_vector());
        Ok(Hinge {
            upper: upper_dir,
            forearm,
            axis,
        })
    }
}

/// The orthonormal frame with `x` and `y` as its first two columns.
fn frame(x: Vec3, y: Vec3) -> Mat3 {
    Mat3::from_cols(x, y, x.cross(y))
}

/// The part of `q` that turns about `axis` (swing-twist split).
fn twist_part(q: Quat, axis: Vec3) -> Quat {
    let along = axis * q.xyz().dot(axis);
    let twist = Quat::from_xyzw(along.x, along.y, along.z, q.w);
    // Swung half way round, the twist has no meaning.
    if twist.length() > 1e-6 {
        twist.normalize()
    } else {
        Quat::IDENTITY
    }
}

/// Solves one limb so its end reaches `target` (clamped to 99.9% of the chain).
/// `pole`: a point the elbow/knee should bend towards; `None` keeps the current bend.
/// `end_rotation`: the end's world rotation to keep; `None` lets it follow the forearm.
pub fn solve_limb(
    rig: &Rig,
    pose: &mut Pose,
    limb: Limb,
    target: Vec3,
    pole: Option<Vec3>,
    end_rotation: Option<Quat>,
) -> Result<(), Refusal> {
    if !target.is_finite() || pole.is_some_and(|p| !p.is_finite()) {
        return Err(Refusal::new(format!(
            "{}: the IK target must be finite",
            limb.name()
        )));
    }
    let [upper, lower, end] = limb.bones();
    let world = rig.world_pose(pose);
    let get = |b: Bone| {
        world[b.index()].ok_or_else(|| Refusal::new(format!("the model has no '{b}' bone")))
    };
    let ((a, _), (b, _), (c, _)) = (get(upper)?, get(lower)?, get(end)?);
    let parent_rotation = rig
        .bone(upper)
        .and_then(|rb| rb.parent)
        .and_then(|p| world[p.index()])
        .map_or(Quat::IDENTITY, |(_, r)| r);
    let l1 = (b - a).length();
    let l2 = (c - b).length();
    if l1 < 1e-6 || l2 < 1e-6 {
        return Err(Refusal::new(format!(
            "{}: the limb has a zero-length bone",
            limb.name()
        )));
    }

    let to_target = target - a;
    let current_axis = (c - a).normalize_or(limb.default_bend());
    let dir = to_target.try_normalize().unwrap_or(current_axis);
    let dist = to_target
        .length()
        .clamp((l1 - l2).abs() + 1e-5, MAX_REACH * (l1 + l2));

    // Bend plane: the dragged pole, or the current elbow's offset from the shoulder→hand
    // line; a default when that offset (nearly) vanishes.
    let hint = match pole {
        Some(p) => orthogonal(p - a, dir),
        None => orthogonal(orthogonal(b - a, current_axis), dir),
    };
    let bend = if hint.length() > 1e-4 * l1 {
        hint.normalize()
    } else {
        let fallback = orthogonal(limb.default_bend(), dir);
        fallback
            .try_normalize()
            .unwrap_or_else(|| dir.any_orthonormal_vector())
    };

    let cos_a = ((l1 * l1 + dist * dist - l2 * l2) / (2.0 * l1 * dist)).clamp(-1.0, 1.0);
    let sin_a = (1.0 - cos_a * cos_a).max(0.0).sqrt();
    let new_c = a + dist * dir;
    let hinge = Hinge::of(rig, limb)?;
    let kept_twist = twist_part(pose.rotation(lower), hinge.forearm);
    let end_local = pose.rotation(end);

    // The elbow or knee bends about its hinge only: the upper bone turns so that the
    // hinge lies across the bend plane. A pole (a dragged elbow, a seen one) sets the
    // plane; otherwise, of the planes nearest the current bend, the first whose
    // upper-bone turn is humanly possible wins, so a reach never bends a knee backwards
    // or twists an arm round.
    let solve = |bend: Vec3| {
        let elbow = a + l1 * (cos_a * dir + sin_a * bend);
        let along = (elbow - a) / l1;
        let across = bend.cross(dir).normalize();
        let w1_new = frame(along, across) * frame(hinge.upper, hinge.axis).inverse();
        let w1_new = Quat::from_mat3(&w1_new).normalize();
        let reach_dir = (new_c - elbow).normalize();
        let folded = w1_new * hinge.forearm;
        let angle = folded
            .cross(reach_dir)
            .dot(across)
            .atan2(folded.dot(reach_dir));
        let hinged = w1_new * Quat::from_axis_angle(hinge.axis, angle) * kept_twist;
        // Rest limbs a little bent (VRoid's) leave the forearm a hair off: swing it on.
        let w2_new = arc((hinged * hinge.forearm).normalize(), reach_dir) * hinged;
        let w2_new = w2_new.normalize();
        (
            w1_new,
            w2_new,
            (parent_rotation.inverse() * w1_new).normalize(),
        )
    };
    let tried = if pole.is_some() { 1 } else { BEND_CANDIDATES };
    let candidates = (0..tried).map(|i| {
        // 0, +15°, −15°, +30°, … round the reach line from the wanted bend.
        let step = (i as f32 / 2.0).ceil() * if i % 2 == 1 { 1.0 } else { -1.0 };
        Quat::from_axis_angle(dir, step * BEND_STEP) * bend
    });
    let mut chosen = None;
    for candidate in candidates {
        let solved = solve(candidate);
        // Strictly inside: what the editor's clamp then leaves exactly as it is.
        let possible = limits::joint_range(upper).is_none_or(|r| r.contains(solved.2, 1e-5));
        if chosen.is_none() || possible {
            chosen = Some(solved);
        }
        if possible {
            break;
        }
    }
    let (w1_new, w2_new, n_upper) = chosen.expect("at least one bend plane is tried");
    let w3_new = end_rotation.unwrap_or(w2_new * end_local);

    let n_lower = (w1_new.inverse() * w2_new).normalize();
    let n_end = (w2_new.inverse() * w3_new).normalize();
    if !(n_upper.is_finite() && n_lower.is_finite() && n_end.is_finite()) {
        return Err(Refusal::new(format!(
            "{}: no IK solution for this target",
            limb.name()
        )));
    }
    pose.set_rotation(upper, n_upper);
    pose.set_rotation(lower, n_lower);
    pose.set_rotation(end, n_end);
    Ok(())
}

/// Moves a hand or foot to `target` (SPEC §8); `keep_angle` keeps its world rotation.
pub fn reach(
    rig: &Rig,
    pose: &mut Pose,
    end: Bone,
    target: Vec3,
    keep_angle: bool,
) -> Result<(), Refusal> {
    let limb = Limb::ending_at(end).ok_or_else(|| {
        Refusal::new(format!(
            "'{end}' is not a hand or a foot (IK ends are hands and feet)"
        ))
    })?;
    let keep = keep_angle
        .then(|| rig.world_pose(pose)[end.index()].map(|(_, r)| r))
        .flatten();
    solve_limb(rig, pose, limb, target, None, keep)
}

/// Swings an elbow or knee towards `point` with the hand or foot fixed in place and angle.
pub fn drag_pole(rig: &Rig, pose: &mut Pose, limb: Limb, point: Vec3) -> Result<(), Refusal> {
    let end = limb.bones()[2];
    let (c, r) = rig.world_pose(pose)[end.index()]
        .ok_or_else(|| Refusal::new(format!("the model has no '{end}' bone")))?;
    solve_limb(rig, pose, limb, c, Some(point), Some(r))
}

/// Both feet's world position and rotation, captured when a hips drag starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FootPins(pub [(Vec3, Quat); 2]);

impl FootPins {
    pub fn capture(rig: &Rig, pose: &Pose) -> Option<FootPins> {
        let world = rig.world_pose(pose);
        Some(FootPins([
            world[Bone::LeftFoot.index()]?,
            world[Bone::RightFoot.index()]?,
        ]))
    }
}

/// Sets the hips position and/or normalized rotation (both absolute), then re-solves both
/// legs to the pinned feet when given: lowering the hips bends the knees, raising them
/// beyond reach lifts the feet.
pub fn move_hips(
    rig: &Rig,
    pose: &mut Pose,
    to: Option<Vec3>,
    rotate: Option<Quat>,
    pins: Option<&FootPins>,
) -> Result<(), Refusal> {
    if to.is_some_and(|p| !p.is_finite() || p.abs().max_element() > 1e4) {
        return Err(Refusal::new(
            "move_hips: the position must be finite and within 10 km",
        ));
    }
    if rotate.is_some_and(|q| !q.is_finite() || q.length() < 1e-6) {
        return Err(Refusal::new(
            "move_hips: the rotation must be a non-zero finite quaternion",
        ));
    }
    let mut next = pose.clone();
    if let Some(p) = to {
        next.hips = Some(p);
    }
    if let Some(q) = rotate {
        next.set_rotation(Bone::Hips, q.normalize());
    }
    if let Some(FootPins(feet)) = pins {
        for (limb, (position, rotation)) in [Limb::LeftLeg, Limb::RightLeg].into_iter().zip(feet) {
            solve_limb(rig, &mut next, limb, *position, None, Some(*rotation))?;
        }
    }
    *pose = next;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::math::angle_between;

    use crate::body::rig::testing::mannequin_rigs as rigs;

    fn pos(rig: &Rig, pose: &Pose, b: Bone) -> Vec3 {
        rig.world_position(pose, b).unwrap()
    }

    #[test]
    fn reachable_targets_are_hit_including_out_of_plane_and_after_torso_turns() {
        for rig in rigs() {
            let mut pose = Pose::default();
            pose.set_rotation(
                Bone::Spine,
                Quat::from_rotation_y(0.4) * Quat::from_rotation_x(0.2),
            );
            pose.set_rotation(Bone::Chest, Quat::from_rotation_z(0.3));
            let shoulder = pos(&rig, &pose, Bone::LeftUpperArm);
            for target in [
                shoulder + Vec3::new(0.3, -0.2, 0.25),
                shoulder + Vec3::new(-0.1, 0.3, 0.3),
                shoulder + Vec3::new(0.2, 0.1, -0.35),
            ] {
                reach(&rig, &mut pose, Bone::LeftHand, target, true).unwrap();
                let err = pos(&rig, &pose, Bone::LeftHand).distance(target);
                assert!(err <= 1e-5, "{:?}: error {err}", rig.version());
            }
        }
    }

    #[test]
    fn unreachable_targets_stop_at_99_9_percent_on_the_line() {
        for rig in rigs() {
            let mut pose = Pose::default();
            let shoulder = pos(&rig, &pose, Bone::RightUpperArm);
            let chain = (pos(&rig, &pose, Bone::RightLowerArm) - shoulder).length()
                + (pos(&rig, &pose, Bone::RightHand) - pos(&rig, &pose, Bone::RightLowerArm))
                    .length();
            let target = shoulder + Vec3::new(-3.0, 1.0, 2.0);
            reach(&rig, &mut pose, Bone::RightHand, target, false).unwrap();
            let hand = pos(&rig, &pose, Bone::RightHand);
            assert!(hand.is_finite());
            let expected = shoulder + (target - shoulder).normalize() * chain * MAX_REACH;
            assert!(hand.distance(expected) <= 1e-5, "{hand} vs {expected}");
        }
    }

    #[test]
    fn the_bend_does_not_flip_over_a_long_drag() {
        let rig = &rigs()[0];
        let mut pose = Pose::default();
        let start = pos(rig, &pose, Bone::LeftHand);
        reach(
            rig,
            &mut pose,
            Bone::LeftHand,
            start + Vec3::new(-0.15, -0.05, 0.1),
            true,
        )
        .unwrap();
        let side = |pose: &Pose| {
            let (a, b, c) = (
                pos(rig, pose, Bone::LeftUpperArm),
                pos(rig, pose, Bone::LeftLowerArm),
                pos(rig, pose, Bone::LeftHand),
            );
            orthogonal(b - a, (c - a).normalize()).normalize()
        };
        let mut previous = side(&pose);
        for i in 0..100 {
            let t = i as f32 / 100.0;
            let target = start
                + Vec3::new(
                    -0.15 - 0.2 * t,
                    -0.05 - 0.3 * t,
                    0.1 + 0.1 * (t * 6.0).sin(),
                );
            reach(rig, &mut pose, Bone::LeftHand, target, true).unwrap();
            let now = side(&pose);
            assert!(now.dot(previous) > 0.9, "step {i}: the bend flipped");
            previous = now;
        }
    }

    #[test]
    fn keep_angle_keeps_the_hand_world_rotation() {
        let rig = &rigs()[1];
        let mut pose = Pose::default();
        pose.set_rotation(Bone::LeftHand, Quat::from_rotation_x(0.5));
        let before = rig.world_pose(&pose)[Bone::LeftHand.index()].unwrap().1;
        let target = pos(rig, &pose, Bone::LeftHand) + Vec3::new(-0.2, -0.25, 0.15);
        reach(rig, &mut pose, Bone::LeftHand, target, true).unwrap();
        let after = rig.world_pose(&pose)[Bone::LeftHand.index()].unwrap().1;
        assert!(angle_between(before, after).to_degrees() < 0.01);
    }

    #[test]
    fn pinned_feet_stay_while_the_hips_move_and_turn() {
        for rig in rigs() {
            let mut pose = Pose::default();
            let pins = FootPins::capture(&rig, &pose).unwrap();
            let hips = rig.hips_rest() + Vec3::new(0.05, -0.2, 0.0);
            move_hips(
                &rig,
                &mut pose,
                Some(hips),
                Some(Quat::from_rotation_y(20f32.to_radians())),
                Some(&pins),
            )
            .unwrap();
            let world = rig.world_pose(&pose);
            for (i, foot) in [Bone::LeftFoot, Bone::RightFoot].into_iter().enumerate() {
                let (p, r) = world[foot.index()].unwrap();
                assert!(
                    p.distance(pins.0[i].0) <= 1e-5,
                    "{foot} moved {}",
                    p.distance(pins.0[i].0)
                );
                assert!(
                    angle_between(r, pins.0[i].1).to_degrees() <= 0.01,
                    "{foot} turned"
                );
            }
            let knee = pos(&rig, &pose, Bone::LeftLowerLeg);
            assert!(
                knee.z > 0.01,
                "lowering the hips bends the knees forward: {knee}"
            );
        }
    }

    #[test]
    fn pole_drag_keeps_the_hand_and_puts_the_elbow_on_the_dragged_side() {
        for rig in rigs() {
            let mut pose = Pose::default();
            let shoulder = pos(&rig, &pose, Bone::LeftUpperArm);
            reach(
                &rig,
                &mut pose,
                Bone::LeftHand,
                shoulder + Vec3::new(0.3, -0.3, 0.2),
                true,
            )
            .unwrap();
            let (hand, hand_rot) = rig.world_pose(&pose)[Bone::LeftHand.index()].unwrap();
            let point = shoulder + Vec3::new(0.3, 0.2, -0.3);
            drag_pole(&rig, &mut pose, Limb::LeftArm, point).unwrap();
            let world = rig.world_pose(&pose);
            let (new_hand, new_rot) = world[Bone::LeftHand.index()].unwrap();
            assert!(new_hand.distance(hand) <= 1e-5);
            assert!(angle_between(hand_rot, new_rot).to_degrees() <= 0.01);
            let elbow = world[Bone::LeftLowerArm.index()].unwrap().0;
            let normal = (hand - shoulder).cross(point - shoulder).normalize();
            assert!(
                (elbow - shoulder).dot(normal).abs() <= 1e-5,
                "elbow in the plane"
            );
            let axis = (hand - shoulder).normalize();
            assert!(
                orthogonal(elbow - shoulder, axis).dot(orthogonal(point - shoulder, axis)) > 0.0,
                "on the dragged side"
            );
        }
    }

    /// Every bone of the limb inside its joint limits.
    fn limb_within_limits(pose: &Pose, limb: Limb) -> bool {
        limb.bones()[..2]
            .iter()
            .all(|&b| limits::within_limits(b, pose.rotation(b)))
    }

    #[test]
    fn reaches_bend_elbows_and_knees_about_their_hinges_within_human_limits() {
        for rig in rigs() {
            for limb in Limb::ALL {
                let [upper, _, end] = limb.bones();
                let mut pose = Pose::default();
                let root = pos(&rig, &pose, upper);
                let side = if pos(&rig, &pose, end).x > 0.0 {
                    1.0
                } else {
                    -1.0
                };
                let targets = if limb.is_arm() {
                    [
                        root + Vec3::new(side * 0.3, -0.2, 0.25),
                        root + Vec3::new(side * 0.1, -0.45, 0.1),
                        root + Vec3::new(-side * 0.2, 0.0, 0.3),
                        root + Vec3::new(side * 0.35, 0.3, -0.1),
                    ]
                } else {
                    [
                        root + Vec3::new(0.0, -0.6, 0.3),
                        root + Vec3::new(0.0, -0.5, -0.35),
                        root + Vec3::new(side * 0.2, -0.7, 0.0),
                        root + Vec3::new(0.0, -0.3, 0.45),
                    ]
                };
                for target in targets {
                    reach(&rig, &mut pose, end, target, false).unwrap();
                    let err = pos(&rig, &pose, end).distance(target);
                    assert!(err <= 1e-4, "{limb:?} to {target}: error {err}");
                    assert!(
                        limb_within_limits(&pose, limb),
                        "{limb:?} to {target}: {:?}",
                        limb.bones().map(|b| pose.rotation(b))
                    );
                }
            }
        }
    }

    #[test]
    fn a_foot_reaching_behind_the_body_keeps_its_knee_forward() {
        for rig in rigs() {
            let mut pose = Pose::default();
            let hip = pos(&rig, &pose, Bone::LeftUpperLeg);
            // Behind and up: a kick back, the heel towards the seat.
            for target in [
                hip + Vec3::new(0.0, -0.45, -0.3),
                hip + Vec3::new(0.0, -0.25, -0.35),
            ] {
                reach(&rig, &mut pose, Bone::LeftFoot, target, false).unwrap();
                let (knee, foot) = (
                    pos(&rig, &pose, Bone::LeftLowerLeg),
                    pos(&rig, &pose, Bone::LeftFoot),
                );
                // The knee lies in front of the hip-to-foot line.
                let line = (foot - hip).normalize();
                let out = orthogonal(knee - hip, line);
                let forward = orthogonal(Vec3::Z, line).normalize();
                assert!(
                    out.dot(forward) > 0.0,
                    "{:?} to {target}: knee {knee}, hip {hip}, foot {foot}",
                    rig.version()
                );
                assert!(limb_within_limits(&pose, Limb::LeftLeg));
            }
        }
    }
}
