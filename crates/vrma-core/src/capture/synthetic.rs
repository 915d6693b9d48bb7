//! Landmarks made from a posed model rather than a picture, and the limb directions
//! poses are compared by: what the capture tests, the benches and the picture tests read
//! back.

use super::*;

/// The landmarks a person posed as `pose` on `rig` would show to a camera in front of
/// the model (camera frame, hips' middle at the origin, all visible; hands included).
/// Tests pose a model, read these back, and must get the pose again.
pub fn landmarks_of_pose(rig: &Rig, pose: &Pose) -> Capture {
    let world = rig.world_pose(pose);
    let get = |b: Bone| world[b.index()];
    let position = |b: Bone| get(b).map_or(Vec3::ZERO, |(p, _)| p);
    let rotation = |b: Bone| get(b).map_or(Quat::IDENTITY, |(_, r)| r);
    let mut points = [Vec3::ZERO; BODY_POINTS];
    use body::*;
    let head = rotation(Bone::Head);
    let head_at = position(Bone::Head) + head * Vec3::new(0.0, 0.08, 0.0);
    let nose_forward = Quat::from_rotation_x(NOSE_BELOW_EARS) * Vec3::Z;
    points[LEFT_EAR] = head_at + head * Vec3::new(0.07, 0.0, 0.0);
    points[RIGHT_EAR] = head_at + head * Vec3::new(-0.07, 0.0, 0.0);
    points[NOSE] = head_at + head * (nose_forward * 0.1);
    points[LEFT_EYE] = head_at + head * Vec3::new(0.03, 0.03, 0.08);
    points[RIGHT_EYE] = head_at + head * Vec3::new(-0.03, 0.03, 0.08);
    for (i, offset) in [(1, 0.02), (3, 0.045), (4, -0.02), (6, -0.045)] {
        points[i] = head_at + head * Vec3::new(offset, 0.03, 0.08);
    }
    points[9] = head_at + head * Vec3::new(0.025, -0.06, 0.08);
    points[10] = head_at + head * Vec3::new(-0.025, -0.06, 0.08);
    for side in Side::BOTH {
        let pick = |left: usize, right: usize| if side == Side::Left { left } else { right };
        let s = if side == Side::Left { 1.0 } else { -1.0 };
        let [upper, lower, hand] = if side == Side::Left {
            Limb::LeftArm.bones()
        } else {
            Limb::RightArm.bones()
        };
        points[pick(LEFT_SHOULDER, RIGHT_SHOULDER)] = position(upper);
        points[pick(LEFT_ELBOW, RIGHT_ELBOW)] = position(lower);
        let wrist = position(hand);
        let turn = rotation(hand);
        points[pick(LEFT_WRIST, RIGHT_WRIST)] = wrist;
        points[pick(LEFT_INDEX, RIGHT_INDEX)] = wrist + turn * Vec3::new(s * 0.08, 0.0, 0.03);
        points[pick(LEFT_PINKY, RIGHT_PINKY)] = wrist + turn * Vec3::new(s * 0.07, 0.0, -0.03);
        points[pick(LEFT_THUMB, RIGHT_THUMB)] = wrist + turn * Vec3::new(s * 0.04, 0.0, 0.05);
        let [thigh, shin, foot] = if side == Side::Left {
            Limb::LeftLeg.bones()
        } else {
            Limb::RightLeg.bones()
        };
        points[pick(LEFT_HIP, RIGHT_HIP)] = position(thigh);
        points[pick(LEFT_KNEE, RIGHT_KNEE)] = position(shin);
        let ankle = position(foot);
        let turn = rotation(foot);
        points[pick(LEFT_ANKLE, RIGHT_ANKLE)] = ankle;
        points[pick(LEFT_HEEL, RIGHT_HEEL)] = ankle + turn * Vec3::new(0.0, -0.06, -0.05);
        points[pick(LEFT_FOOT_INDEX, RIGHT_FOOT_INDEX)] =
            ankle + turn * Vec3::new(0.0, -0.06, 0.15);
    }
    let middle = (points[LEFT_HIP] + points[RIGHT_HIP]) * 0.5;
    let to_camera = |p: Vec3| to_model(p - middle);
    let rest = rig.world_pose(&Pose::default());
    let hands = Side::BOTH
        .into_iter()
        .filter_map(|side| {
            let wrist = get(hand_bone(side))?;
            let mut points = [Vec3::ZERO; HAND_POINTS];
            points[0] = wrist.0;
            for finger in Finger::ALL {
                let bones = finger.bones(side);
                let slots = digit_points(finger);
                for (k, bone) in bones.into_iter().enumerate() {
                    points[slots[k]] = get(bone)?.0;
                }
                // The tip: as far on from the last joint as that joint is from the one
                // before, turned with the last bone.
                let (last, turn) = get(bones[2])?;
                let rest_step = rest[bones[2].index()]?.0 - rest[bones[1].index()]?.0;
                points[slots[3]] = last + turn * rest_step;
            }
            Some(HandLandmarks {
                side,
                points: points.map(to_camera),
                score: 1.0,
            })
        })
        .collect();
    Capture {
        body: Some(BodyLandmarks {
            points: points.map(to_camera),
            visibility: [1.0; BODY_POINTS],
        }),
        hands,
    }
}

/// The model-space direction of each limb bone of `pose` (upper and lower arm and leg, in
/// `Limb::ALL` order): what a recovered pose is compared by.
pub fn limb_directions(rig: &Rig, pose: &Pose) -> Vec<(Bone, Vec3)> {
    let world = rig.world_pose(pose);
    Limb::ALL
        .into_iter()
        .flat_map(|limb| {
            let [a, b, c] = limb.bones();
            let at = |x: Bone| world[x.index()].map_or(Vec3::ZERO, |(p, _)| p);
            [(a, at(b) - at(a)), (b, at(c) - at(b))]
        })
        .map(|(bone, d)| (bone, d.normalize_or_zero()))
        .collect()
}
