//! Human joint limits in the normalized rig: one table of ranges of motion serves every
//! model, because every normalized rest rotation is the identity, so a bone's local
//! rotation turns about axes parallel to the model's (VRM 1.0: +Y up, the avatar faces
//! +Z, +X is its left; in the T-pose the left arm points along +X, the legs along -Y).
//!
//! A rotation is split into a twist about the bone's own length (the direction from its
//! joint to its child in the T-pose) and a swing of that length, read as a bend and a
//! side turn (the swing's rotation vector on two axes across the bone). A ball joint
//! keeps the swing inside an elliptical cone (a quarter ellipse between each pair of
//! ends); a hinge keeps its bend and its small side play each within their own range.
//! The table gives the left side and the middle; the right side is the left mirrored as
//! `Pose::mirrored` mirrors a rotation. The ranges are generous on purpose: they stop
//! only what no body can do (a knee bent forwards, a head turned round); clamping is the
//! caller's choice, so a stylised pose may go past them.

use std::sync::OnceLock;

use glam::{Quat, Vec3};

use crate::body::pose::Pose;
use crate::model::humanoid::{ALL_BONES, BONE_COUNT, Bone, Side};

/// How far `within_limits` lets a rotation pass a limit (0.5°): a clamped rotation read
/// back after rounding, or saved and loaded, still counts as inside.
pub const TOLERANCE: f32 = 0.5 * std::f32::consts::PI / 180.0;

/// A rotation this close to its limits (radians) is returned by `clamp_rotation` as it
/// is, so clamping twice gives back the same bits.
const LEAVE_ALONE: f32 = 1e-5;

/// How a joint's swing is bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// A ball joint (shoulder, hip, wrist, spine, knuckles): the swing stays inside an
    /// elliptical cone whose four quarter radii are the bend's and the side's ends.
    Ball,
    /// A hinge (elbow, knee, a finger's middle and end joints): the bend and the little
    /// side play each stay within their own range.
    Hinge,
}

impl JointKind {
    fn name(self) -> &'static str {
        match self {
            JointKind::Ball => "ball",
            JointKind::Hinge => "hinge",
        }
    }
}

/// One way a joint turns: about `axis` (a right-handed turn is positive), from `min`
/// to `max` radians (`min ≤ 0 ≤ max`), with what each way is called.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Turn {
    pub axis: Vec3,
    pub min: f32,
    pub max: f32,
    /// What a positive turn is called ("flexion", "forward").
    pub plus: &'static str,
    /// What a negative turn is called.
    pub minus: &'static str,
}

/// A bone's range of motion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointRange {
    pub kind: JointKind,
    /// About the bone's own length; `axis` is its direction at rest (on the right side
    /// the mirror of the left's, which may point back along the bone: the same twist).
    pub twist: Turn,
    /// The main swing across the bone: the flexion of a hinge.
    pub bend: Turn,
    /// The other swing, across both the bone and the bend.
    pub side: Turn,
}

/// A turn as the table writes it: the axis, then the positive way's name and reach,
/// then the negative way's name and reach, in degrees.
struct Degrees {
    axis: Vec3,
    plus: &'static str,
    max: f32,
    minus: &'static str,
    min: f32,
}

const fn turn(axis: Vec3, plus: &'static str, max: f32, minus: &'static str, min: f32) -> Degrees {
    Degrees {
        axis,
        plus,
        max,
        minus,
        min,
    }
}

/// One row of the table: a joint of the left side or the middle.
struct Row {
    /// What the README calls it.
    joint: &'static str,
    bones: &'static [Bone],
    kind: JointKind,
    /// About the bone's direction at rest, which is `twist.axis`.
    twist: Degrees,
    bend: Degrees,
    side: Degrees,
}

use Bone::*;
use JointKind::{Ball, Hinge};

const X: Vec3 = Vec3::X;
const Y: Vec3 = Vec3::Y;
const Z: Vec3 = Vec3::Z;
const NEG_X: Vec3 = Vec3::NEG_X;
const NEG_Y: Vec3 = Vec3::NEG_Y;
const NEG_Z: Vec3 = Vec3::NEG_Z;
const H: f32 = std::f32::consts::FRAC_1_SQRT_2;
/// The left thumb at rest (VRM T-pose: level, halfway between +X and +Z).
const THUMB: Vec3 = Vec3::new(H, 0.0, H);
/// Across the left thumb, turning its tip down under the palm (-Y).
const THUMB_PALMAR: Vec3 = Vec3::new(H, 0.0, -H);

/// The ranges, degrees, from the usual tables of active range of motion (AAOS, Norkin &
/// White, Kapandji), taken at their upper end and rounded up: a limit stops only what no
/// body does. A region the rig splits over several bones (trunk, neck) gives each bone
/// a share large enough that a model without the optional ones still reaches the whole
/// range, so together they allow more than one body can. The axes are VRM's ideal
/// T-pose; fingers and thumbs that fan out or roll differently at rest read their curls
/// partly as side and twist, hence the room there. Hips (the whole body's turn), eyes
/// (driven by the gaze, bounded by the model's own range maps) and jaw are free.
const LIMITS: &[Row] = &[
    // Lower back (lumbar): with `chest` the whole trunk's 80° flexion, 35° side bend, 45° turn.
    Row {
        joint: "lower back",
        bones: &[Spine],
        kind: Ball,
        twist: turn(Y, "turn left", 20.0, "turn right", 20.0),
        bend: turn(X, "forward", 45.0, "back", 20.0),
        side: turn(Z, "right", 20.0, "left", 20.0),
    },
    // Lower thoracic spine.
    Row {
        joint: "chest",
        bones: &[Chest],
        kind: Ball,
        twist: turn(Y, "turn left", 25.0, "turn right", 25.0),
        bend: turn(X, "forward", 40.0, "back", 20.0),
        side: turn(Z, "right", 20.0, "left", 20.0),
    },
    // Upper thoracic spine: a margin on top of spine and chest.
    Row {
        joint: "upper chest",
        bones: &[UpperChest],
        kind: Ball,
        twist: turn(Y, "turn left", 20.0, "turn right", 20.0),
        bend: turn(X, "forward", 25.0, "back", 15.0),
        side: turn(Z, "right", 15.0, "left", 15.0),
    },
    // Lower cervical spine: about two thirds of the neck's 45° flexion, 70° extension,
    // 45° side bend and 80° turn, so that either bone alone makes a natural pose.
    Row {
        joint: "neck",
        bones: &[Neck],
        kind: Ball,
        twist: turn(Y, "turn left", 50.0, "turn right", 50.0),
        bend: turn(X, "forward", 35.0, "back", 45.0),
        side: turn(Z, "right", 30.0, "left", 30.0),
    },
    // Head on the neck (upper cervical): the other two thirds.
    Row {
        joint: "head",
        bones: &[Head],
        kind: Ball,
        twist: turn(Y, "turn left", 50.0, "turn right", 50.0),
        bend: turn(X, "forward", 35.0, "back", 45.0),
        side: turn(Z, "right", 30.0, "left", 30.0),
    },
    // Collarbone: shrug (elevation 40°, depression 10°), protraction and retraction 25°,
    // its backward roll as the arm rises.
    Row {
        joint: "collarbone",
        bones: &[LeftShoulder],
        kind: Ball,
        twist: turn(X, "roll forward", 15.0, "roll back", 40.0),
        bend: turn(NEG_Y, "forward", 25.0, "back", 25.0),
        side: turn(Z, "up", 40.0, "down", 10.0),
    },
    // Shoulder joint, from the T-pose: horizontal flexion 140°, back 90° (60° extension
    // with the arm hanging is 78° back here), abduction to 200° from the side, down past
    // the side. The clinic's internal 90° and external 100° rotation are measured from
    // the arm at the side; read as a twist after the swing from the T-pose, an arm
    // raised with its forearm bent over the head turns further, so 120° and 135°.
    Row {
        joint: "shoulder",
        bones: &[LeftUpperArm],
        kind: Ball,
        twist: turn(X, "inward", 120.0, "outward", 135.0),
        bend: turn(NEG_Y, "forward", 140.0, "back", 90.0),
        side: turn(Z, "up", 110.0, "down", 100.0),
    },
    // Elbow: flexion 150°, never backwards; the forearm's pronation and supination (80°
    // each) are its twist; a little side play for the carrying angle.
    Row {
        joint: "elbow",
        bones: &[LeftLowerArm],
        kind: Hinge,
        twist: turn(X, "pronation", 90.0, "supination", 90.0),
        bend: turn(NEG_Y, "flexion", 150.0, "extension", 0.0),
        side: turn(Z, "up", 10.0, "down", 10.0),
    },
    // Wrist: flexion and extension 85°, radial deviation 25°, ulnar 45°; the forearm's
    // roll carried into the hand (rigs without twist bones show it at the wrist).
    Row {
        joint: "wrist",
        bones: &[LeftHand],
        kind: Ball,
        twist: turn(X, "pronation", 45.0, "supination", 45.0),
        bend: turn(NEG_Z, "flexion", 85.0, "extension", 85.0),
        side: turn(NEG_Y, "radial", 25.0, "ulnar", 45.0),
    },
    // Hip joint: flexion 140° (knee bent), extension 45°, abduction 80° and adduction 45°
    // (as wide as sitting cross-legged needs), internal 50°, external 60° rotation.
    Row {
        joint: "hip",
        bones: &[LeftUpperLeg],
        kind: Ball,
        twist: turn(NEG_Y, "inward", 50.0, "outward", 60.0),
        bend: turn(NEG_X, "forward", 140.0, "back", 45.0),
        side: turn(Z, "out", 80.0, "in", 45.0),
    },
    // Knee: flexion 150°, never backwards; the shin's rotation when bent (30°/40°).
    Row {
        joint: "knee",
        bones: &[LeftLowerLeg],
        kind: Hinge,
        twist: turn(NEG_Y, "inward", 35.0, "outward", 45.0),
        bend: turn(X, "flexion", 150.0, "extension", 0.0),
        side: turn(Z, "out", 10.0, "in", 10.0),
    },
    // Ankle, about the foot's length (+Z): dorsiflexion 40° (20° unloaded, more in a
    // squat), plantarflexion 60°, inversion 40°, eversion 25°, toes out and in.
    Row {
        joint: "ankle",
        bones: &[LeftFoot],
        kind: Ball,
        twist: turn(Z, "eversion", 25.0, "inversion", 40.0),
        bend: turn(NEG_X, "dorsiflexion", 40.0, "plantarflexion", 60.0),
        side: turn(Y, "toes out", 25.0, "toes in", 30.0),
    },
    // Toes (metatarsophalangeal): curl 45°, up 80°.
    Row {
        joint: "toes",
        bones: &[LeftToes],
        kind: Hinge,
        twist: turn(Z, "eversion", 15.0, "inversion", 15.0),
        bend: turn(X, "flexion", 45.0, "extension", 80.0),
        side: turn(Y, "out", 15.0, "in", 15.0),
    },
    // Knuckles (metacarpophalangeal): flexion 100°, hyperextension 45°, spread 30°; a
    // spread finger that curls turns its spread into twist.
    Row {
        joint: "knuckles",
        bones: &[
            LeftIndexProximal,
            LeftMiddleProximal,
            LeftRingProximal,
            LeftLittleProximal,
        ],
        kind: Ball,
        twist: turn(X, "pronation", 30.0, "supination", 30.0),
        bend: turn(NEG_Z, "flexion", 100.0, "extension", 45.0),
        side: turn(NEG_Y, "radial", 30.0, "ulnar", 30.0),
    },
    // Middle finger joints (proximal interphalangeal): flexion 110°, slight hyperextension.
    Row {
        joint: "finger middle joints",
        bones: &[
            LeftIndexIntermediate,
            LeftMiddleIntermediate,
            LeftRingIntermediate,
            LeftLittleIntermediate,
        ],
        kind: Hinge,
        twist: turn(X, "pronation", 25.0, "supination", 25.0),
        bend: turn(NEG_Z, "flexion", 110.0, "extension", 10.0),
        side: turn(NEG_Y, "radial", 20.0, "ulnar", 20.0),
    },
    // Fingertip joints (distal interphalangeal): flexion 90°, hyperextension 20°.
    Row {
        joint: "fingertip joints",
        bones: &[
            LeftIndexDistal,
            LeftMiddleDistal,
            LeftRingDistal,
            LeftLittleDistal,
        ],
        kind: Hinge,
        twist: turn(X, "pronation", 25.0, "supination", 25.0),
        bend: turn(NEG_Z, "flexion", 90.0, "extension", 20.0),
        side: turn(NEG_Y, "radial", 20.0, "ulnar", 20.0),
    },
    // Thumb base (carpometacarpal, a saddle): across the palm 70°, out 50°, under the
    // palm 80°, back 30°; opposition turns it about its length.
    Row {
        joint: "thumb base",
        bones: &[LeftThumbMetacarpal],
        kind: Ball,
        twist: turn(THUMB, "pronation", 90.0, "supination", 90.0),
        bend: turn(Y, "across", 70.0, "out", 50.0),
        side: turn(THUMB_PALMAR, "under", 80.0, "back", 30.0),
    },
    // Thumb middle joint (metacarpophalangeal): which way its curl goes depends on how
    // the model rolls the thumb at rest, so either way toward the palm reaches 90°.
    Row {
        joint: "thumb middle joint",
        bones: &[LeftThumbProximal],
        kind: Ball,
        twist: turn(THUMB, "pronation", 60.0, "supination", 60.0),
        bend: turn(Y, "across", 90.0, "out", 30.0),
        side: turn(THUMB_PALMAR, "under", 90.0, "back", 30.0),
    },
    // Thumb tip joint (interphalangeal): flexion 90°, hyperextension 30°.
    Row {
        joint: "thumb tip joint",
        bones: &[LeftThumbDistal],
        kind: Ball,
        twist: turn(THUMB, "pronation", 60.0, "supination", 60.0),
        bend: turn(Y, "across", 90.0, "out", 30.0),
        side: turn(THUMB_PALMAR, "under", 90.0, "back", 30.0),
    },
];

/// An axis of the left side as the right side has it: the turn `Pose::mirrored` makes
/// of a rotation about it (`(x, -y, -z)`), so both sides read one table alike.
fn mirrored_axis(axis: Vec3) -> Vec3 {
    Vec3::new(axis.x, -axis.y, -axis.z)
}

/// Every bone's range, or `None` for a free bone; built from the table once.
fn ranges() -> &'static [Option<JointRange>; BONE_COUNT] {
    static RANGES: OnceLock<[Option<JointRange>; BONE_COUNT]> = OnceLock::new();
    RANGES.get_or_init(|| {
        let mut out = [None; BONE_COUNT];
        for bone in ALL_BONES {
            let right = bone.side() == Some(Side::Right);
            let key = if right { bone.mirror() } else { bone };
            let Some(row) = LIMITS.iter().find(|r| r.bones.contains(&key)) else {
                continue;
            };
            let turn = |d: &Degrees| Turn {
                axis: if right { mirrored_axis(d.axis) } else { d.axis },
                min: -d.min.to_radians(),
                max: d.max.to_radians(),
                plus: d.plus,
                minus: d.minus,
            };
            out[bone.index()] = Some(JointRange {
                kind: row.kind,
                twist: turn(&row.twist),
                bend: turn(&row.bend),
                side: turn(&row.side),
            });
        }
        out
    })
}

/// A bone's range of motion; `None` for the free bones (hips, eyes, jaw).
pub fn joint_range(bone: Bone) -> Option<JointRange> {
    ranges()[bone.index()]
}

/// The nearest rotation to `q` inside the bone's limits: its twist and its swing are
/// each taken to the nearest point of their ranges (an angle past a limit goes to the
/// nearer end round the circle, so an elbow bent 200° stops at 150° and one bent
/// backwards comes straight). A rotation already inside comes back unchanged, as does
/// every rotation of a free bone.
pub fn clamp_rotation(bone: Bone, q: Quat) -> Quat {
    joint_range(bone).map_or(q, |range| range.clamp(q))
}

/// Whether `q` is inside the bone's limits, give or take `TOLERANCE`.
pub fn within_limits(bone: Bone, q: Quat) -> bool {
    joint_range(bone).is_none_or(|range| range.contains(q, TOLERANCE))
}

/// Clamps every bone of the pose into its limits.
pub fn clamp_pose(pose: &mut Pose) {
    clamp_pose_bones(pose, &ALL_BONES);
}

/// Clamps the given bones of the pose into their limits (the ones an edit moved).
pub fn clamp_pose_bones(pose: &mut Pose, bones: &[Bone]) {
    for &bone in bones {
        let q = &mut pose.bones[bone.index()];
        *q = clamp_rotation(bone, *q);
    }
}

/// A rotation as the limits read it, `swing * twist`: the twist's angle about the bone
/// (−π..π) and the swing's rotation vector on the bend and side axes.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Split {
    twist: f32,
    bend: f32,
    side: f32,
}

impl JointRange {
    fn split(&self, q: Quat) -> Split {
        let q = if q.w < 0.0 { -q } else { q };
        let along = self.twist.axis;
        let p = along * q.xyz().dot(along);
        let twist = Quat::from_xyzw(p.x, p.y, p.z, q.w);
        let length = twist.length();
        // Swung half way round, the twist has no meaning: all of it is swing.
        let twist = if length > 1e-6 {
            twist / length
        } else {
            Quat::IDENTITY
        };
        let swing = q * twist.conjugate();
        let swing = if swing.w < 0.0 { -swing } else { swing };
        let v = swing.xyz();
        let sin = v.length();
        // atan2 stays accurate for small swings, where acos(w) does not.
        let rotation = if sin > 1e-12 {
            v * (2.0 * sin.atan2(swing.w) / sin)
        } else {
            v * 2.0
        };
        Split {
            twist: 2.0 * twist.xyz().dot(along).atan2(twist.w),
            bend: rotation.dot(self.bend.axis),
            side: rotation.dot(self.side.axis),
        }
    }

    fn join(&self, split: Split) -> Quat {
        let swing = self.bend.axis * split.bend + self.side.axis * split.side;
        Quat::from_scaled_axis(swing) * Quat::from_axis_angle(self.twist.axis, split.twist)
    }

    /// Whether a split rotation is inside, `tolerance` radians past each limit allowed.
    fn holds(&self, split: Split, tolerance: f32) -> bool {
        let within = |angle: f32, turn: &Turn| {
            angle >= turn.min - tolerance && angle <= turn.max + tolerance
        };
        within(split.twist, &self.twist)
            && match self.kind {
                JointKind::Hinge => {
                    within(split.bend, &self.bend) && within(split.side, &self.side)
                }
                JointKind::Ball => {
                    // No swing a way is inside even where that way's reach is 0.
                    let part = |angle: f32, turn: &Turn| {
                        if angle == 0.0 {
                            0.0
                        } else {
                            (angle / (reach(angle, turn) + tolerance)).powi(2)
                        }
                    };
                    part(split.bend, &self.bend) + part(split.side, &self.side) <= 1.0
                }
            }
    }

    /// Whether `q` is inside, `tolerance` radians past each limit allowed.
    pub fn contains(&self, q: Quat, tolerance: f32) -> bool {
        self.holds(self.split(q), tolerance)
    }

    /// The nearest rotation inside (see [`clamp_rotation`]), on the same side of the
    /// quaternion sphere as `q`; a non-finite `q` comes back as it is.
    pub fn clamp(&self, q: Quat) -> Quat {
        if !q.is_finite() {
            return q;
        }
        let split = self.split(q);
        if self.holds(split, LEAVE_ALONE) {
            return q;
        }
        let (bend, side) = match self.kind {
            JointKind::Hinge => (
                nearest_angle(split.bend, &self.bend),
                split.side.clamp(self.side.min, self.side.max),
            ),
            JointKind::Ball => {
                let (bend, side) = nearest_in_quarter_ellipse(
                    reach(split.bend, &self.bend),
                    reach(split.side, &self.side),
                    split.bend.abs(),
                    split.side.abs(),
                );
                (bend.copysign(split.bend), side.copysign(split.side))
            }
        };
        let twist = nearest_angle(split.twist, &self.twist);
        let out = self.join(Split { twist, bend, side });
        if out.dot(q) < 0.0 { -out } else { out }
    }
}

/// How far the turn reaches on the side of `angle` (a positive radius).
fn reach(angle: f32, turn: &Turn) -> f32 {
    if angle >= 0.0 { turn.max } else { -turn.min }
}

/// The end of the range nearer to `angle` round the circle, or `angle` when inside:
/// straight for a knee bent a little backwards, full flexion for one bent past it.
fn nearest_angle(angle: f32, turn: &Turn) -> f32 {
    if (turn.min..=turn.max).contains(&angle) {
        return angle;
    }
    let tau = std::f32::consts::TAU;
    let past_max = (angle - turn.max).rem_euclid(tau);
    let short_of_min = (turn.min - angle).rem_euclid(tau);
    if short_of_min <= past_max {
        turn.min
    } else {
        turn.max
    }
}

/// The point of the quarter ellipse `(x/a)² + (y/b)² ≤ 1, x, y ≥ 0` nearest to `(x, y)`
/// (both ≥ 0). Outside, it is `(a²x/(t+a²), b²y/(t+b²))` for the `t > 0` that puts it on
/// the ellipse, found by bisection (Eberly, "Distance from a point to an ellipse").
fn nearest_in_quarter_ellipse(a: f32, b: f32, x: f32, y: f32) -> (f32, f32) {
    if a <= 0.0 || b <= 0.0 {
        // A flat cone: the segment along the other axis.
        return (x.min(a.max(0.0)), y.min(b.max(0.0)));
    }
    let (a, b, x, y) = (f64::from(a), f64::from(b), f64::from(x), f64::from(y));
    if (x / a).powi(2) + (y / b).powi(2) <= 1.0 {
        return (x as f32, y as f32);
    }
    let outside = |t: f64| (a * x / (t + a * a)).powi(2) + (b * y / (t + b * b)).powi(2) > 1.0;
    let (mut low, mut high) = (0.0, (a * x).hypot(b * y));
    for _ in 0..64 {
        let middle = 0.5 * (low + high);
        if outside(middle) {
            low = middle;
        } else {
            high = middle;
        }
    }
    // `high` is never outside, so the point found is on the ellipse or just within.
    let t = high;
    (
        (a * a * x / (t + a * a)) as f32,
        (b * b * y / (t + b * b)) as f32,
    )
}

/// The table as Markdown, degrees, for the README: one row per joint of the left side
/// (the right side is its mirror) and the middle.
pub fn limits_table_markdown() -> String {
    let mut out = String::from(
        "| Joint | Bones | Kind | Bend | Side | Twist |\n| --- | --- | --- | --- | --- | --- |\n",
    );
    let cell = |d: &Degrees| format!("{} {}° · {} {}°", d.plus, d.max, d.minus, d.min);
    for row in LIMITS {
        let bones: Vec<String> = row
            .bones
            .iter()
            .map(|b| format!("`{}`", without_side(b.name())))
            .collect();
        out += &format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            row.joint,
            bones.join(", "),
            row.kind.name(),
            cell(&row.bend),
            cell(&row.side),
            cell(&row.twist),
        );
    }
    out
}

/// `leftUpperArm` → `upperArm`; a middle bone's name as it is.
fn without_side(name: &str) -> String {
    match name.strip_prefix("left") {
        Some(rest) => {
            let mut chars = rest.chars();
            chars.next().map_or(String::new(), |first| {
                first.to_ascii_lowercase().to_string() + chars.as_str()
            })
        }
        None => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::hand::{HandDirections, presets};
    use crate::body::math::{angle_between, testing::arb_quat};
    use proptest::prelude::*;

    fn degrees(d: f32) -> f32 {
        d.to_radians()
    }

    fn range(bone: Bone) -> JointRange {
        joint_range(bone).unwrap_or_else(|| panic!("{bone} has limits"))
    }

    /// Where a turn of `angle` about one of the bone's axes takes `v`.
    fn turned(axis: Vec3, angle: f32, v: Vec3) -> Vec3 {
        Quat::from_axis_angle(axis, degrees(angle)) * v
    }

    fn assert_near(a: Vec3, b: Vec3, what: &str) {
        assert!(a.distance(b) < 1e-5, "{what}: {a} is not {b}");
    }

    #[test]
    fn each_positive_turn_moves_the_limb_the_way_its_name_says() {
        #[derive(Debug)]
        enum Which {
            Bend,
            Sideways,
            Twist,
        }
        use Which::*;
        let (diagonal, palmar) = (Vec3::new(H, 0.0, H), Vec3::new(H, 0.0, -H));
        // (bone, the turn, what it moves at rest, where 90° of it takes that)
        let cases = [
            // The left elbow flexes the forearm forward: +X to +Z, a turn about -Y.
            (LeftLowerArm, Bend, X, Z),
            (RightLowerArm, Bend, NEG_X, Z),
            // The knee flexes the shin backwards: -Y to -Z, a turn about +X.
            (LeftLowerLeg, Bend, NEG_Y, NEG_Z),
            (RightLowerLeg, Bend, NEG_Y, NEG_Z),
            (LeftUpperArm, Bend, X, Z),
            (LeftUpperArm, Sideways, X, Y),
            (RightUpperArm, Sideways, NEG_X, Y),
            // Inward rotation lowers a forearm held forward.
            (LeftUpperArm, Twist, Z, NEG_Y),
            (RightUpperArm, Twist, Z, NEG_Y),
            (LeftShoulder, Sideways, X, Y),
            // Pronation turns the palm (-Y) backwards.
            (LeftLowerArm, Twist, NEG_Y, NEG_Z),
            (RightLowerArm, Twist, NEG_Y, NEG_Z),
            // Wrist flexion toward the palm, radial deviation toward the thumb (+Z).
            (LeftHand, Bend, X, NEG_Y),
            (RightHand, Bend, NEG_X, NEG_Y),
            (LeftHand, Sideways, X, Z),
            (LeftIndexProximal, Bend, X, NEG_Y),
            (RightLittleDistal, Bend, NEG_X, NEG_Y),
            (LeftUpperLeg, Bend, NEG_Y, Z),
            (LeftUpperLeg, Sideways, NEG_Y, X),
            (RightUpperLeg, Sideways, NEG_Y, NEG_X),
            // Inward rotation turns the toes (+Z) toward the middle.
            (LeftUpperLeg, Twist, Z, NEG_X),
            (RightUpperLeg, Twist, Z, X),
            (LeftFoot, Bend, Z, Y),
            (LeftFoot, Sideways, Z, X),
            // Eversion turns the sole (-Y) outwards.
            (LeftFoot, Twist, NEG_Y, X),
            (RightFoot, Twist, NEG_Y, NEG_X),
            (LeftToes, Bend, Z, NEG_Y),
            (Spine, Bend, Y, Z),
            (Spine, Sideways, Y, NEG_X),
            (Spine, Twist, Z, X),
            // The head nods the face (+Z) down.
            (Head, Bend, Z, NEG_Y),
            (LeftThumbDistal, Bend, diagonal, palmar),
            (LeftThumbDistal, Sideways, diagonal, NEG_Y),
            (
                RightThumbDistal,
                Bend,
                Vec3::new(-H, 0.0, H),
                Vec3::new(-H, 0.0, -H),
            ),
        ];
        for (bone, which, from, to) in cases {
            let r = range(bone);
            let axis = match which {
                Bend => r.bend.axis,
                Sideways => r.side.axis,
                Twist => r.twist.axis,
            };
            assert_near(turned(axis, 90.0, from), to, &format!("{bone} {which:?}"));
        }
    }

    #[test]
    fn every_bone_but_hips_eyes_and_jaw_has_limits_that_hold_the_rest_pose() {
        for bone in ALL_BONES {
            let free = matches!(bone, Hips | LeftEye | RightEye | Jaw);
            assert_eq!(joint_range(bone).is_none(), free, "{bone}");
            let Some(r) = joint_range(bone) else {
                assert_eq!(
                    clamp_rotation(bone, Quat::from_rotation_x(3.0)),
                    Quat::from_rotation_x(3.0)
                );
                continue;
            };
            for t in [r.twist, r.bend, r.side] {
                assert!(t.min <= 0.0 && t.max >= 0.0, "{bone}: {t:?}");
                assert!((t.axis.length() - 1.0).abs() < 1e-6, "{bone}");
            }
            if r.kind == JointKind::Ball {
                assert!(
                    r.bend.min < 0.0 && r.side.min < 0.0 && r.side.max > 0.0,
                    "{bone}"
                );
            }
            assert!(r.twist.axis.dot(r.bend.axis).abs() < 1e-6, "{bone}");
            assert!(r.twist.axis.dot(r.side.axis).abs() < 1e-6, "{bone}");
            assert!(r.bend.axis.dot(r.side.axis).abs() < 1e-6, "{bone}");
            assert_eq!(
                clamp_rotation(bone, Quat::IDENTITY),
                Quat::IDENTITY,
                "{bone}"
            );
            assert!(within_limits(bone, Quat::IDENTITY));
        }
        let named: Vec<Bone> = LIMITS
            .iter()
            .flat_map(|r| r.bones.iter().copied())
            .collect();
        for bone in &named {
            assert_eq!(
                named.iter().filter(|b| *b == bone).count(),
                1,
                "{bone} twice"
            );
            assert_ne!(
                bone.side(),
                Some(Side::Right),
                "{bone}: the right side is derived"
            );
        }
    }

    #[test]
    fn an_elbow_or_knee_bent_backwards_comes_straight_keeping_its_twist() {
        for bone in [LeftLowerArm, RightLowerArm, LeftLowerLeg, RightLowerLeg] {
            let r = range(bone);
            let twist = Quat::from_axis_angle(r.twist.axis, degrees(30.0));
            for back in [5.0, 30.0, 60.0, 100.0] {
                let q = Quat::from_axis_angle(r.bend.axis, -degrees(back)) * twist;
                assert!(!within_limits(bone, q), "{bone} {back}");
                let clamped = clamp_rotation(bone, q);
                assert!(
                    angle_between(clamped, twist) < 1e-5,
                    "{bone} {back}°: {clamped}"
                );
            }
        }
    }

    #[test]
    fn an_elbow_or_knee_bent_200_degrees_stops_at_150() {
        for bone in [LeftLowerArm, RightLowerArm, LeftLowerLeg, RightLowerLeg] {
            let axis = range(bone).bend.axis;
            let clamped = clamp_rotation(bone, Quat::from_axis_angle(axis, degrees(200.0)));
            let full = Quat::from_axis_angle(axis, degrees(150.0));
            assert!(angle_between(clamped, full) < 1e-5, "{bone}: {clamped}");
            // Bent 120° the elbow is fine as it is.
            let bent = Quat::from_axis_angle(axis, degrees(120.0));
            assert_eq!(clamp_rotation(bone, bent), bent);
        }
    }

    #[test]
    fn a_ball_joint_past_its_cone_stops_on_its_edge() {
        // The arm swung 170° forward (through the chest) stops at 140°.
        let r = range(LeftUpperArm);
        let q = Quat::from_axis_angle(r.bend.axis, degrees(170.0));
        let clamped = clamp_rotation(LeftUpperArm, q);
        assert!(angle_between(clamped, Quat::from_axis_angle(r.bend.axis, degrees(140.0))) < 1e-5);
        // A head turned round 120° turns back to 50°, its nod kept.
        let r = range(Head);
        let nod = Quat::from_axis_angle(r.bend.axis, degrees(20.0));
        let q = nod * Quat::from_axis_angle(r.twist.axis, degrees(120.0));
        let want = nod * Quat::from_axis_angle(r.twist.axis, degrees(50.0));
        assert!(angle_between(clamp_rotation(Head, q), want) < 1e-5);
    }

    #[test]
    fn natural_poses_are_inside_and_come_back_unchanged() {
        let arm = range(LeftUpperArm);
        let leg = range(LeftUpperLeg);
        let poses = [
            // Arms down at the side, palms to the thighs; hands on the hips.
            (
                LeftUpperArm,
                Quat::from_axis_angle(arm.side.axis, -degrees(80.0)),
            ),
            (
                RightUpperArm,
                Quat::from_axis_angle(range(RightUpperArm).side.axis, -degrees(45.0))
                    * Quat::from_axis_angle(range(RightUpperArm).bend.axis, -degrees(30.0)),
            ),
            // Sitting cross-legged: the thigh forward, out and turned out.
            (
                LeftUpperLeg,
                Quat::from_axis_angle((leg.bend.axis + leg.side.axis).normalize(), degrees(90.0))
                    * Quat::from_axis_angle(leg.twist.axis, -degrees(45.0)),
            ),
            (
                LeftLowerLeg,
                Quat::from_axis_angle(range(LeftLowerLeg).bend.axis, degrees(140.0)),
            ),
            (
                Spine,
                Quat::from_rotation_x(0.5) * Quat::from_rotation_y(0.2),
            ),
            (Neck, Quat::from_rotation_y(-0.6)),
            (
                LeftHand,
                Quat::from_axis_angle(range(LeftHand).bend.axis, degrees(60.0)),
            ),
        ];
        for (bone, q) in poses {
            assert!(within_limits(bone, q), "{bone}");
            assert_eq!(clamp_rotation(bone, q), q, "{bone}");
            assert_eq!(clamp_rotation(bone, -q), -q, "{bone}: the other sign");
        }
    }

    use crate::body::rig::testing::mannequin_rigs as mannequins;

    #[test]
    fn the_hand_presets_grip_and_arms_down_stay_within_the_limits() {
        for rig in mannequins() {
            let hands = HandDirections::measure(&rig);
            let directions = crate::body::pose::PoseDirections::measure(&rig);
            for side in Side::BOTH {
                for preset in presets() {
                    let mut pose = Pose::default();
                    hands.shape_hand(&mut pose, side, &preset.shape, 1.0);
                    for bone in ALL_BONES {
                        let q = pose.rotation(bone);
                        assert!(within_limits(bone, q), "{} on {bone}: {q}", preset.name);
                    }
                }
                let mut pose = Pose::default();
                directions.grip(&mut pose, side, 1.0);
                directions.arms_down(&mut pose);
                for bone in ALL_BONES {
                    assert!(within_limits(bone, pose.rotation(bone)), "grip: {bone}");
                }
            }
        }
    }

    #[test]
    fn clamping_a_pose_clamps_its_bones_and_leaves_the_rest() {
        let mut pose = Pose::default();
        let back = Quat::from_axis_angle(range(LeftLowerLeg).bend.axis, -0.5);
        let twisted = Quat::from_rotation_y(2.5);
        pose.set_rotation(LeftLowerLeg, back);
        pose.set_rotation(Spine, twisted);
        pose.set_rotation(Hips, twisted);
        let mut some = pose.clone();
        clamp_pose_bones(&mut some, &[LeftLowerLeg]);
        assert!(angle_between(some.rotation(LeftLowerLeg), Quat::IDENTITY) < 1e-5);
        assert_eq!(some.rotation(Spine), twisted);
        clamp_pose(&mut pose);
        assert!(within_limits(Spine, pose.rotation(Spine)));
        assert_eq!(pose.rotation(Hips), twisted, "the hips are free");
    }

    #[test]
    fn the_readme_lists_the_table() {
        let readme = include_str!("../../../../README.md");
        let table = limits_table_markdown();
        assert!(
            readme.contains(&table),
            "README.md's joint limits differ from the table; paste in:\n{table}"
        );
        assert!(table.contains("| elbow | `lowerArm` | hinge | flexion 150° · extension 0° |"));
    }

    proptest! {
        #[test]
        fn any_rotation_clamps_into_the_limits_and_stays_there(q in arb_quat()) {
            for bone in ALL_BONES {
                let once = clamp_rotation(bone, q);
                prop_assert!(within_limits(bone, once), "{bone}: {q} -> {once}");
                prop_assert!((once.length() - 1.0).abs() < 1e-5);
                prop_assert_eq!(clamp_rotation(bone, once), once, "{} twice", bone);
                if within_limits(bone, q) {
                    prop_assert!(angle_between(once, q) <= TOLERANCE * 3.0, "{bone}");
                }
            }
        }

        #[test]
        fn the_right_side_clamps_as_the_mirror_of_the_left(q in arb_quat()) {
            for bone in ALL_BONES.into_iter().filter(|b| b.side() != Some(Side::Right)) {
                let mut pose = Pose::default();
                pose.bones[bone.index()] = q;
                let mirrored = pose.mirrored();
                let mut clamped = pose.clone();
                clamp_pose(&mut clamped);
                let mut clamped_mirror = mirrored.clone();
                clamp_pose(&mut clamped_mirror);
                let want = clamped.mirrored().rotation(bone.mirror());
                let got = clamped_mirror.rotation(bone.mirror());
                prop_assert!(angle_between(got, want) < 1e-6, "{bone}: {got} vs {want}");
                prop_assert_eq!(
                    within_limits(bone, q),
                    within_limits(bone.mirror(), mirrored.rotation(bone.mirror()))
                );
            }
        }

        #[test]
        fn the_clamp_is_the_nearest_twist_and_cone_point(q in arb_quat(), r in arb_quat()) {
            // Any rotation inside, split the same way, is no nearer in twist and swing.
            for bone in [LeftUpperArm, LeftLowerLeg, Neck, LeftHand] {
                let limits = range(bone);
                let (a, inside) = (limits.split(q), limits.split(clamp_rotation(bone, r)));
                let got = limits.split(clamp_rotation(bone, q));
                let swing = |s: Split| glam::Vec2::new(s.bend, s.side);
                let gap = |x: f32, y: f32| {
                    let d = (x - y).rem_euclid(std::f32::consts::TAU);
                    d.min(std::f32::consts::TAU - d)
                };
                prop_assert!(gap(got.twist, a.twist) <= gap(inside.twist, a.twist) + 1e-4);
                if limits.kind == JointKind::Ball {
                    prop_assert!(
                        swing(got).distance(swing(a)) <= swing(inside).distance(swing(a)) + 1e-4,
                        "{bone}"
                    );
                }
            }
        }
    }
}
