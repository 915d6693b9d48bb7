//! The IK guarantees of SPEC §8 on every model we have: the mannequin (1.0 and 0.x) and
//! each fixture, through the core API.

use glam::{Quat, Vec3};
use vrma_core::body::ik::{FootPins, Limb, drag_pole, move_hips, reach};
use vrma_core::body::math::angle_between;
use vrma_core::body::pose::Pose;
use vrma_core::body::rig::Rig;
use vrma_core::model::humanoid::Bone;
use vrma_core::model::mannequin::{self, MannequinVariant};

/// The shared fixtures (`../shared/fixtures` beside the repository), when present.
fn fixture_models() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures");
    let mut out: Vec<_> = ["vrm0", "vrm1"]
        .iter()
        .filter_map(|sub| std::fs::read_dir(dir.join(sub)).ok())
        .flat_map(|entries| entries.flatten().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "vrm"))
        .collect();
    out.sort();
    out
}

fn rigs() -> Vec<(String, Rig)> {
    let mut rigs: Vec<(String, Rig)> = [MannequinVariant::Vrm1, MannequinVariant::Vrm0]
        .into_iter()
        .map(|v| {
            let rig = vrma_core::body::rig::rig_from_bytes(&mannequin::build(v)).unwrap();
            (format!("mannequin {v:?}"), rig)
        })
        .collect();
    for path in fixture_models() {
        rigs.push((
            path.display().to_string(),
            vrma_core::body::rig::load_rig(&path).unwrap(),
        ));
    }
    rigs
}

fn at(rig: &Rig, pose: &Pose, bone: Bone) -> (Vec3, Quat) {
    rig.world_pose(pose)[bone.index()].unwrap()
}

#[test]
fn ik_reaches_keeps_angles_pins_feet_and_drags_poles_on_every_model() {
    for (name, rig) in rigs() {
        // Reachable, out of plane, after the torso turned; the hand keeps its angle.
        let mut pose = Pose::default();
        pose.set_rotation(
            Bone::Spine,
            Quat::from_rotation_y(0.3) * Quat::from_rotation_z(0.1),
        );
        let (shoulder, _) = at(&rig, &pose, Bone::RightUpperArm);
        let length = (at(&rig, &pose, Bone::RightLowerArm).0 - shoulder).length()
            + (at(&rig, &pose, Bone::RightHand).0 - at(&rig, &pose, Bone::RightLowerArm).0)
                .length();
        let (_, hand_rotation) = at(&rig, &pose, Bone::RightHand);
        let target = shoulder + Vec3::new(-0.4, -0.45, 0.35) * length;
        reach(&rig, &mut pose, Bone::RightHand, target, true).unwrap();
        let (hand, rotation) = at(&rig, &pose, Bone::RightHand);
        assert!(
            hand.distance(target) <= 1e-5,
            "{name}: IK error {}",
            hand.distance(target)
        );
        assert!(
            angle_between(rotation, hand_rotation).to_degrees() <= 0.01,
            "{name}: hand turned"
        );

        // Unreachable: 99.9% along the line, no NaN.
        let far = shoulder + Vec3::new(-5.0, 2.0, 1.0);
        reach(&rig, &mut pose, Bone::RightHand, far, true).unwrap();
        let (hand, _) = at(&rig, &pose, Bone::RightHand);
        let expected = shoulder + (far - shoulder).normalize() * length * 0.999;
        assert!(
            hand.distance(expected) <= 1e-5,
            "{name}: clamped reach off by {}",
            hand.distance(expected)
        );

        // Pole: the hand stays, the elbow goes into the plane of shoulder, hand, point.
        let mut pose = Pose::default();
        let (shoulder, _) = at(&rig, &pose, Bone::RightUpperArm);
        reach(
            &rig,
            &mut pose,
            Bone::RightHand,
            shoulder + Vec3::new(-0.4, -0.4, 0.3) * length,
            true,
        )
        .unwrap();
        let (hand, hand_rotation) = at(&rig, &pose, Bone::RightHand);
        let point = shoulder + Vec3::new(-0.3, 0.3, -0.4) * length;
        drag_pole(&rig, &mut pose, Limb::RightArm, point).unwrap();
        let (moved, rotation) = at(&rig, &pose, Bone::RightHand);
        assert!(
            moved.distance(hand) <= 1e-5,
            "{name}: hand moved in a pole drag"
        );
        assert!(angle_between(rotation, hand_rotation).to_degrees() <= 0.01);
        let elbow = at(&rig, &pose, Bone::RightLowerArm).0;
        let normal = (hand - shoulder).cross(point - shoulder).normalize();
        assert!(
            (elbow - shoulder).dot(normal).abs() <= 1e-5,
            "{name}: elbow out of the plane by {} (hand moved {})",
            (elbow - shoulder).dot(normal),
            moved.distance(hand)
        );

        // Hips lowered 0.2, shifted 0.05, turned 20° about Y: the feet stay put.
        let mut pose = Pose::default();
        let pins = FootPins::capture(&rig, &pose).unwrap();
        let to = rig.hips_rest() + Vec3::new(0.05, -0.2, 0.0);
        move_hips(
            &rig,
            &mut pose,
            Some(to),
            Some(Quat::from_rotation_y(20f32.to_radians())),
            Some(&pins),
        )
        .unwrap();
        for (i, foot) in [Bone::LeftFoot, Bone::RightFoot].into_iter().enumerate() {
            let (p, r) = at(&rig, &pose, foot);
            assert!(
                p.distance(pins.0[i].0) <= 1e-5,
                "{name}: {foot} moved {}",
                p.distance(pins.0[i].0)
            );
            assert!(
                angle_between(r, pins.0[i].1).to_degrees() <= 0.01,
                "{name}: {foot} turned"
            );
        }
    }
}
