//! The standard MMD skeleton a VMD is played on. A VMD holds keys by bone name and no
//! skeleton, so the bones' rest places come from here: the proportions of the common
//! MMD models (about 20 units tall, 1 unit = 8 cm), arms 37° down from the horizontal as
//! those models rest, palms down, knees a little forward. Retargeting matches limb
//! directions, so this rest is what turns an MMD arm's "no rotation" into an arm 37°
//! down on a T-posed VRM; the lengths matter only to the leg IK and the hips height.
//!
//! Places are in MMD's axes (left-handed, Y up, the model facing −Z, its left at +X)
//! and units; [`to_ours`] turns them into the rig's (right-handed, facing +Z, metres).

use glam::{Quat, Vec3};

use crate::formats::motion::SourceJoint;
use crate::model::humanoid::Bone;

/// Metres in one MMD unit (the community's figure: Miku, 158 cm, is about 20 units).
pub const METRES_PER_UNIT: f32 = 0.08;
/// How far below the horizontal the standard model's arms rest.
pub const ARM_REST_DEGREES: f32 = 37.0;

/// An MMD place or offset in the rig's axes and metres: mirrored through Z.
pub fn to_ours(v: Vec3) -> Vec3 {
    Vec3::new(v.x, v.y, -v.z) * METRES_PER_UNIT
}

/// An MMD rotation in the rig's axes: mirroring through Z turns (x, y, z, w) into
/// (−x, −y, z, w).
pub fn rotation_to_ours(q: Quat) -> Quat {
    Quat::from_xyzw(-q.x, -q.y, q.z, q.w)
}

/// A name with full-width Latin letters and digits made half-width, so "左足ＩＫ" and
/// "左足IK", "右人差指１" and "右人差指1" are one bone (writers use both).
pub fn normalized(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
            _ => c,
        })
        .collect()
}

/// One bone of the standard skeleton.
pub struct StandardBone {
    /// As [`normalized`].
    pub name: String,
    pub parent: Option<usize>,
    /// Where it sits at rest, in MMD's axes and units.
    pub place: Vec3,
    /// Where its chain ends, for the bones with no child on the chain.
    pub tip: Option<Vec3>,
    pub humanoid: Option<Bone>,
}

/// The indices of one leg's IK bones and the chain they solve.
#[derive(Clone, Copy, Debug)]
pub struct LegIk {
    pub leg_ik: usize,
    pub toe_ik: usize,
    pub thigh: usize,
    pub knee: usize,
    pub ankle: usize,
    pub toe: usize,
}

pub struct Skeleton {
    pub bones: Vec<StandardBone>,
    /// Left, then right.
    pub legs: [LegIk; 2],
}

impl Skeleton {
    pub fn index(&self, name: &str) -> Option<usize> {
        self.bones.iter().position(|b| b.name == name)
    }

    /// The joints in the rig's axes and metres.
    pub fn joints(&self) -> Vec<SourceJoint> {
        self.bones
            .iter()
            .map(|b| SourceJoint {
                name: b.name.clone(),
                parent: b.parent,
                rest_translation: to_ours(
                    b.place - b.parent.map_or(Vec3::ZERO, |p| self.bones[p].place),
                ),
                rest_rotation: Quat::IDENTITY,
                tip: b.tip.map(to_ours),
            })
            .collect()
    }
}

struct Builder(Vec<StandardBone>);

impl Builder {
    fn add(
        &mut self,
        name: &str,
        parent: Option<&str>,
        place: Vec3,
        humanoid: Option<Bone>,
    ) -> usize {
        let parent = parent.map(|p| {
            let p = normalized(p);
            self.0
                .iter()
                .position(|b| b.name == p)
                .expect("a standard bone's parent comes first")
        });
        self.0.push(StandardBone {
            name: normalized(name),
            parent,
            place,
            tip: None,
            humanoid,
        });
        self.0.len() - 1
    }

    fn tip(&mut self, bone: usize, tip: Vec3) {
        self.0[bone].tip = Some(tip);
    }
}

/// The fingers' MMD names with the humanoid's three joints of each (the thumb's first is
/// its metacarpal, 親指０, which newer models have).
const FINGERS: [(&str, [(Bone, Bone); 3]); 5] = {
    use Bone::*;
    [
        (
            "親指",
            [
                (LeftThumbMetacarpal, RightThumbMetacarpal),
                (LeftThumbProximal, RightThumbProximal),
                (LeftThumbDistal, RightThumbDistal),
            ],
        ),
        (
            "人差指",
            [
                (LeftIndexProximal, RightIndexProximal),
                (LeftIndexIntermediate, RightIndexIntermediate),
                (LeftIndexDistal, RightIndexDistal),
            ],
        ),
        (
            "中指",
            [
                (LeftMiddleProximal, RightMiddleProximal),
                (LeftMiddleIntermediate, RightMiddleIntermediate),
                (LeftMiddleDistal, RightMiddleDistal),
            ],
        ),
        (
            "薬指",
            [
                (LeftRingProximal, RightRingProximal),
                (LeftRingIntermediate, RightRingIntermediate),
                (LeftRingDistal, RightRingDistal),
            ],
        ),
        (
            "小指",
            [
                (LeftLittleProximal, RightLittleProximal),
                (LeftLittleIntermediate, RightLittleIntermediate),
                (LeftLittleDistal, RightLittleDistal),
            ],
        ),
    ]
};

pub fn standard() -> Skeleton {
    use Bone::*;
    let mut b = Builder(Vec::new());
    let v = Vec3::new;
    b.add("全ての親", None, Vec3::ZERO, None);
    b.add("センター", Some("全ての親"), v(0.0, 8.0, 0.0), None);
    b.add("グルーブ", Some("センター"), v(0.0, 8.2, 0.0), None);
    b.add("腰", Some("グルーブ"), v(0.0, 11.2, 0.0), None);
    b.add("上半身", Some("腰"), v(0.0, 12.0, 0.0), Some(Spine));
    b.add("上半身2", Some("上半身"), v(0.0, 13.4, 0.0), Some(Chest));
    b.add("首", Some("上半身2"), v(0.0, 16.0, 0.0), Some(Neck));
    let head = b.add("頭", Some("首"), v(0.0, 16.9, 0.0), Some(Head));
    b.tip(head, v(0.0, 2.6, 0.0));
    // The lower body turns the legs alone; it is where the legs meet, so the hips.
    b.add("下半身", Some("腰"), v(0.0, 12.0, 0.0), Some(Hips));
    let mut legs = Vec::new();
    for (side, x, left) in [("左", 1.0f32, true), ("右", -1.0, false)] {
        let pick = |l: Bone, r: Bone| Some(if left { l } else { r });
        let n = |name: &str| format!("{side}{name}");
        let down = ARM_REST_DEGREES.to_radians();
        let along = v(x * down.cos(), -down.sin(), 0.0);
        let arm = v(x * 1.55, 15.3, 0.0);
        let elbow = arm + along * 3.0;
        let wrist = elbow + along * 2.6;
        b.add(
            &n("肩"),
            Some("上半身2"),
            v(x * 0.35, 15.6, 0.0),
            pick(LeftShoulder, RightShoulder),
        );
        b.add(
            &n("腕"),
            Some(&n("肩")),
            arm,
            pick(LeftUpperArm, RightUpperArm),
        );
        b.add(&n("腕捩"), Some(&n("腕")), (arm + elbow) * 0.5, None);
        b.add(
            &n("ひじ"),
            Some(&n("腕捩")),
            elbow,
            pick(LeftLowerArm, RightLowerArm),
        );
        b.add(&n("手捩"), Some(&n("ひじ")), (elbow + wrist) * 0.5, None);
        let hand = b.add(
            &n("手首"),
            Some(&n("手捩")),
            wrist,
            pick(LeftHand, RightHand),
        );
        b.tip(hand, along * 1.6);
        // The thumb leaves the wrist towards the front (−Z); the other fingers fan out
        // across the palm, front to back.
        let thumb_way = (along * 0.7 + v(0.0, -0.15, -0.7)).normalize();
        let mut parent = n("手首");
        let mut at = wrist + along * 0.2 + v(0.0, -0.1, -0.25);
        for (k, (length, bones)) in [0.45f32, 0.4, 0.32].iter().zip(FINGERS[0].1).enumerate() {
            let name = n(&format!("{}{k}", FINGERS[0].0));
            let joint = b.add(&name, Some(&parent), at, pick(bones.0, bones.1));
            at += thumb_way * *length;
            if k == 2 {
                b.tip(joint, thumb_way * 0.3);
            }
            parent = name;
        }
        for ((finger, bones), (across, scale)) in
            FINGERS[1..]
                .iter()
                .zip([(-0.25f32, 1.0f32), (-0.08, 1.05), (0.08, 1.0), (0.24, 0.8)])
        {
            let mut parent = n("手首");
            let mut at = wrist + along * 0.85 + v(0.0, 0.0, across);
            for (k, length) in [0.42f32, 0.26, 0.22].iter().enumerate() {
                let name = n(&format!("{finger}{}", k + 1));
                let joint = b.add(&name, Some(&parent), at, pick(bones[k].0, bones[k].1));
                at += along * length * scale;
                if k == 2 {
                    b.tip(joint, along * 0.2 * scale);
                }
                parent = name;
            }
        }
        let thigh = b.add(
            &n("足"),
            Some("下半身"),
            v(x * 0.95, 10.9, 0.0),
            pick(LeftUpperLeg, RightUpperLeg),
        );
        let knee = b.add(
            &n("ひざ"),
            Some(&n("足")),
            v(x * 0.95, 6.1, -0.15),
            pick(LeftLowerLeg, RightLowerLeg),
        );
        let ankle = b.add(
            &n("足首"),
            Some(&n("ひざ")),
            v(x * 0.95, 1.3, 0.2),
            pick(LeftFoot, RightFoot),
        );
        let toe = b.add(&n("つま先"), Some(&n("足首")), v(x * 0.95, 0.0, -1.4), None);
        b.add(&n("足IK親"), Some("全ての親"), v(x * 0.95, 0.0, 0.2), None);
        let leg_ik = b.add(
            &n("足ＩＫ"),
            Some(&n("足IK親")),
            v(x * 0.95, 1.3, 0.2),
            None,
        );
        let toe_ik = b.add(
            &n("つま先ＩＫ"),
            Some(&n("足ＩＫ")),
            v(x * 0.95, 0.0, -1.4),
            None,
        );
        legs.push(LegIk {
            leg_ik,
            toe_ik,
            thigh,
            knee,
            ankle,
            toe,
        });
    }
    Skeleton {
        bones: b.0,
        legs: [legs[0], legs[1]],
    }
}

/// MMD's standard face morphs and the VRM expressions they are (several may feed one:
/// the strongest wins).
pub const MORPHS: [(&str, &str); 14] = [
    ("あ", "aa"),
    ("い", "ih"),
    ("う", "ou"),
    ("え", "ee"),
    ("お", "oh"),
    ("まばたき", "blink"),
    ("ウィンク", "blinkLeft"),
    ("ウィンク２", "blinkLeft"),
    ("ウィンク右", "blinkRight"),
    ("ｳｨﾝｸ２右", "blinkRight"),
    ("笑い", "happy"),
    ("怒り", "angry"),
    ("困る", "sad"),
    ("びっくり", "surprised"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arms_rest_37_degrees_down_and_every_humanoid_bone_is_named_once() {
        let skeleton = standard();
        let joints = skeleton.joints();
        let arm = skeleton.index("左腕").unwrap();
        let elbow = skeleton.index("左ひじ").unwrap();
        let twist = joints[elbow].parent.unwrap();
        let way = joints[elbow].rest_translation + joints[twist].rest_translation;
        assert!(way.x > 0.0, "the left arm is on +X");
        let below = (-way.y).atan2(way.x).to_degrees();
        assert!((below - ARM_REST_DEGREES).abs() < 0.01, "{below}");
        assert_eq!(joints[twist].parent, Some(arm));
        let mut seen = std::collections::BTreeSet::new();
        for bone in &skeleton.bones {
            if let Some(h) = bone.humanoid {
                assert!(seen.insert(h), "{h:?} twice");
            }
        }
        assert_eq!(seen.len(), 5 + 2 * (4 + 15 + 3));
        assert_eq!(normalized("右人差指１"), "右人差指1");
        assert!(skeleton.index("左足IK").is_some() && skeleton.index("左親指0").is_some());
        // Facing +Z in the rig's axes: the toes are in front of the ankles.
        let toe = skeleton.legs[0].toe;
        assert!(joints[toe].rest_translation.z > 0.0);
    }
}
