//! Planted feet (SPEC §11 foot locking): over a planted span a foot keeps the world
//! position and rotation it has at the span's start, and its leg is re-solved by two-bone
//! IK at every sampled time. The hips move as keyed; a foot lifts only when the planted
//! point is out of the leg's reach (the IK clamps at 99.9%).

use crate::animation::timeline::Timeline;
use crate::body::ik::{self, Limb};
use crate::body::pose::Pose;
use crate::body::rig::Rig;
use crate::model::humanoid::{Bone, Side};

/// The pose at `t`: the keys' interpolation, then every planted foot held in place.
pub fn sample(rig: &Rig, timeline: &Timeline, t: f32) -> Option<Pose> {
    let mut pose = timeline.sample(t, rig.hips_rest())?;
    hold_planted_feet(rig, timeline, t, &mut pose);
    Some(pose)
}

/// Re-solves the legs of `pose` (the keyed pose at `t`) so each foot planted at `t`
/// stays where the keys put it at its span's start. A leg the model cannot solve (a
/// missing bone) is left as keyed.
pub fn hold_planted_feet(rig: &Rig, timeline: &Timeline, t: f32, pose: &mut Pose) {
    for plant in Side::BOTH
        .into_iter()
        .filter_map(|foot| timeline.plant_at(foot, t))
    {
        let Some(start) = timeline.sample(plant.from, rig.hips_rest()) else {
            return;
        };
        let (foot, limb) = match plant.foot {
            Side::Left => (Bone::LeftFoot, Limb::LeftLeg),
            Side::Right => (Bone::RightFoot, Limb::RightLeg),
        };
        if let Some((position, rotation)) = rig.world_pose(&start)[foot.index()] {
            let mut solved = pose.clone();
            if ik::solve_limb(rig, &mut solved, limb, position, None, Some(rotation)).is_ok() {
                *pose = solved;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::math::angle_between;
    use crate::model::mannequin::{self, MannequinVariant};
    use glam::{Quat, Vec3};

    #[test]
    fn a_planted_foot_stays_while_the_hips_move_and_turn() {
        for variant in [MannequinVariant::Vrm1, MannequinVariant::Vrm0] {
            let rig = crate::body::rig::rig_from_bytes(&mannequin::build(variant)).unwrap();
            let rest = rig.hips_rest();
            let mut timeline = Timeline::default();
            let a = Pose {
                hips: Some(rest),
                ..Default::default()
            };
            let mut b = Pose {
                hips: Some(rest + Vec3::new(0.12, -0.08, 0.15)),
                ..Default::default()
            };
            b.set_rotation(Bone::Hips, Quat::from_rotation_y(0.4));
            b.set_rotation(Bone::LeftUpperLeg, Quat::from_rotation_x(-0.5));
            timeline.set_key(0.0, a);
            timeline.set_key(1.0, b);
            timeline.set_key(2.0, Pose::default());
            timeline.set_plant(Side::Left, 0.0, 1.0, true);
            let start = rig.world_pose(&sample(&rig, &timeline, 0.0).unwrap())
                [Bone::LeftFoot.index()]
            .unwrap();
            for f in 0..=30 {
                let t = f as f32 / 30.0;
                let pose = sample(&rig, &timeline, t).unwrap();
                let (p, r) = rig.world_pose(&pose)[Bone::LeftFoot.index()].unwrap();
                assert!(
                    p.distance(start.0) < 1e-3,
                    "{variant:?} t={t}: {p} vs {}",
                    start.0
                );
                assert!(
                    angle_between(r, start.1).to_degrees() < 0.1,
                    "{variant:?} t={t}"
                );
                let keyed = timeline.sample(t, rest).unwrap();
                assert_eq!(pose.hips, keyed.hips, "the hips stay as keyed");
            }
            let after = sample(&rig, &timeline, 1.5).unwrap();
            assert_eq!(
                after,
                timeline.sample(1.5, rest).unwrap(),
                "outside the span: as keyed"
            );
        }
    }
}
