//! Turning the head to face a point: the chest, the neck and the head each take a fixed
//! share of the turn, as a body does (the head most, the chest a little), and the head
//! ends facing the point. Model space, VRM 1.0 frame (the face looks along +Z at rest).

use glam::{Quat, Vec3};

use crate::Refusal;
use crate::body::pose::Pose;
use crate::body::rig::Rig;
use crate::model::humanoid::Bone;

/// The shares of the turn, from the bottom of the chain: what is left after the chest
/// and the neck goes to the head, so the face ends on the point.
const SHARES: [(Bone, f32); 3] = [
    (Bone::UpperChest, 0.15),
    (Bone::Neck, 0.35),
    (Bone::Head, 1.0),
];

/// The farthest a look point may be (10 km), as for the hips.
const MAX_POINT: f32 = 1e4;

/// Where the face points (from the head bone) and from where.
pub fn face(rig: &Rig, pose: &Pose) -> Option<(Vec3, Vec3)> {
    let (position, rotation) = rig.world_pose(pose)[Bone::Head.index()]?;
    Some((position, rotation * Vec3::Z))
}

/// Turns the upper chest (the chest on a model without one), the neck and the head so
/// the face points at `target`. A target at the head itself changes nothing.
pub fn look_at_point(rig: &Rig, pose: &mut Pose, target: Vec3) -> Result<(), Refusal> {
    if !target.is_finite() || target.abs().max_element() > MAX_POINT {
        return Err(Refusal::new(
            "look: the target must be a finite point within 10 km",
        ));
    }
    if !rig.has(Bone::Head) {
        return Err(Refusal::new("the model has no 'head' bone"));
    }
    let mut next = pose.clone();
    let mut share_left = 1.0;
    for (bone, share) in SHARES {
        let bone = match bone {
            Bone::UpperChest if !rig.has(Bone::UpperChest) => Bone::Chest,
            other => other,
        };
        if !rig.has(bone) {
            continue;
        }
        let world = rig.world_pose(&next);
        let (Some((head, head_rotation)), Some((_, rotation))) =
            (world[Bone::Head.index()], world[bone.index()])
        else {
            continue;
        };
        let Some(wanted) = (target - head).try_normalize() else {
            return Ok(()); // at the head: no direction to face
        };
        let facing = head_rotation * Vec3::Z;
        let whole = Quat::from_rotation_arc(facing, wanted);
        // This joint's part of what is still to turn.
        let part = Quat::IDENTITY.slerp(whole, (share / share_left).min(1.0));
        share_left = (share_left - share).max(f32::EPSILON);
        let parent = rig
            .bone(bone)
            .and_then(|b| b.parent)
            .and_then(|p| world[p.index()])
            .map_or(Quat::IDENTITY, |(_, r)| r);
        let local = (parent.inverse() * part * rotation).normalize();
        if !local.is_finite() {
            return Err(Refusal::new("look: no turn faces this target"));
        }
        next.set_rotation(bone, local);
    }
    *pose = next;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::limits;

    use crate::body::rig::testing::mannequin_rigs as rigs;

    #[test]
    fn a_point_45_degrees_aside_is_faced_by_neck_head_and_a_little_chest_within_limits() {
        for rig in rigs() {
            let mut pose = Pose::default();
            let (head, _) = face(&rig, &pose).unwrap();
            for (yaw, pitch) in [(45f32, 0f32), (-45.0, 10.0), (30.0, -25.0)] {
                let direction = Quat::from_rotation_y(yaw.to_radians())
                    * Quat::from_rotation_x(-pitch.to_radians())
                    * Vec3::Z;
                let target = head + direction * 1.5;
                look_at_point(&rig, &mut pose, target).unwrap();
                let (from, facing) = face(&rig, &pose).unwrap();
                let off = facing.angle_between(target - from).to_degrees();
                assert!(off < 1.0, "{yaw}°, {pitch}°: the face is {off:.2}° off");
                let turned = |b: Bone| pose.rotation(b).angle_between(Quat::IDENTITY).to_degrees();
                let (chest, neck, head_turn) = (
                    turned(Bone::UpperChest),
                    turned(Bone::Neck),
                    turned(Bone::Head),
                );
                assert!(
                    chest > 1.0 && chest < neck && neck < head_turn + 1.0,
                    "{yaw}°: chest {chest:.1}°, neck {neck:.1}°, head {head_turn:.1}°"
                );
                for b in [Bone::UpperChest, Bone::Neck, Bone::Head] {
                    assert!(limits::within_limits(b, pose.rotation(b)), "{b}");
                }
            }
        }
    }

    #[test]
    fn looking_again_at_the_same_point_changes_nothing_and_bad_points_are_refused() {
        let rig = &rigs()[0];
        let mut pose = Pose::default();
        let (head, _) = face(rig, &pose).unwrap();
        let target = head + Vec3::new(0.8, 0.3, 1.0);
        look_at_point(rig, &mut pose, target).unwrap();
        let once = pose.clone();
        look_at_point(rig, &mut pose, target).unwrap();
        for b in [Bone::UpperChest, Bone::Neck, Bone::Head] {
            assert!(
                pose.rotation(b).angle_between(once.rotation(b)) < 1e-3,
                "{b}"
            );
        }
        let again = pose.clone();
        for bad in [Vec3::NAN, Vec3::splat(1e5)] {
            assert!(look_at_point(rig, &mut pose, bad).is_err());
        }
        assert_eq!(pose, again, "a refused look changes nothing");
    }
}
