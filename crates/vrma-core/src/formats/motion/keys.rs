//! A baked motion as editable keys: every frame, or whole-pose keys only where the
//! motion needs them. Reduction splits a span at its worst frame until the key pair
//! around every frame, with the ease that fits it best, stays within the tolerance on
//! every bone and on the hips — the same eases the timeline plays, so what was checked
//! is what plays.

use glam::Quat;

use super::retarget::{Baked, BakedFrame};
use crate::Refusal;
use crate::animation::timeline::{Ease, FPS, Key, Timeline, snap};
use crate::body::pose::Pose;

/// How the keys are laid out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KeyPolicy {
    /// Keys only where needed: each bone within `degrees`, the hips within `metres`.
    Reduced { degrees: f32, metres: f32 },
    /// A key on every 1/30 s frame.
    EveryFrame,
}

impl Default for KeyPolicy {
    fn default() -> Self {
        KeyPolicy::Reduced {
            degrees: 1.0,
            metres: 0.005,
        }
    }
}

/// The eases tried on a span, cheapest first.
const FITTING_EASES: [Ease; 4] = [Ease::Linear, Ease::InOut, Ease::In, Ease::Out];

/// One bone's slerp from key A to key B, set up once per span (the timeline's
/// `slerp_shortest`, with its trigonometry shared by every frame in between).
struct Arc {
    index: usize,
    a: Quat,
    b: Quat,
    theta: f32,
    /// `1 / sin θ`, or `None` where the keys are so close that it is a normalized lerp.
    inverse_sin: Option<f32>,
}

impl Arc {
    fn new(index: usize, a: Quat, b: Quat) -> Arc {
        let b = if a.dot(b) < 0.0 { -b } else { b };
        let dot = a.dot(b).clamp(-1.0, 1.0);
        let theta = dot.acos();
        Arc {
            index,
            a,
            b,
            theta,
            inverse_sin: (dot <= 0.9995).then(|| 1.0 / theta.sin()),
        }
    }

    /// Exactly what `slerp_shortest(a, b, w)` gives.
    fn at(&self, w: f32) -> Quat {
        match self.inverse_sin {
            None => (self.a * (1.0 - w) + self.b * w).normalize(),
            Some(inv) => {
                let wa = ((1.0 - w) * self.theta).sin() * inv;
                let wb = (w * self.theta).sin() * inv;
                (self.a * wa + self.b * wb).normalize()
            }
        }
    }
}

/// Whether every frame inside `a..b` is within tolerance of the pair `a`, `b` eased by
/// `ease`; for `Linear`, also the worst frame (where a span that does not fit splits)
/// and how far it is over (1 = at the tolerance).
fn span_error(
    frames: &[BakedFrame],
    arcs: &[Arc],
    (a, b): (usize, usize),
    ease: Ease,
    (max_chord_sq, max_metres_sq): (f32, f32),
) -> (bool, usize, f32) {
    let (fa, fb) = (&frames[a], &frames[b]);
    let mut worst = (0.0f32, a + (b - a) / 2);
    let exhaustive = ease == Ease::Linear;
    let mut fits = true;
    for (k, frame) in frames.iter().enumerate().take(b).skip(a + 1) {
        let w = ease.apply((k - a) as f32 / (b - a) as f32);
        let mut excess = 0.0f32;
        for arc in arcs {
            let q = arc.at(w);
            let actual = frame.bones[arc.index];
            let actual = if q.dot(actual) < 0.0 { -actual } else { actual };
            // The chord |q − p| = 2·sin(angle / 4): precise for small angles, no trig.
            excess = excess.max((q - actual).length_squared() / max_chord_sq);
        }
        let hips = fa.hips.lerp(fb.hips, w);
        excess = excess.max((hips - frame.hips).length_squared() / max_metres_sq);
        for ((a, b), actual) in fa
            .expressions
            .iter()
            .zip(&fb.expressions)
            .zip(&frame.expressions)
        {
            let off = a + (b - a) * w - actual;
            excess = excess.max(off * off / (EXPRESSION_TOLERANCE * EXPRESSION_TOLERANCE));
        }
        if excess > 1.0 {
            fits = false;
            if !exhaustive {
                break;
            }
        }
        if excess > worst.0 {
            worst = (excess, k);
        }
    }
    (fits, worst.1, worst.0)
}

/// How far a reduced key's expression weight may stray from the source's: a twentieth,
/// below what shows on a face.
const EXPRESSION_TOLERANCE: f32 = 0.05;

/// Beyond this many times the (squared) tolerance under a straight blend, no ease can
/// bend a span into shape: it splits without trying them.
const HOPELESS: f32 = 400.0;

/// Which frames become keys, each with the ease of the span it starts.
pub fn choose_keys(baked: &Baked, policy: KeyPolicy) -> Vec<(usize, Ease)> {
    let n = baked.frames.len();
    let KeyPolicy::Reduced { degrees, metres } = policy else {
        return (0..n).map(|i| (i, Ease::Linear)).collect();
    };
    if n <= 1 {
        return (0..n).map(|i| (i, Ease::Linear)).collect();
    }
    let radians = degrees.max(0.001).to_radians();
    let limits = (
        (2.0 * (radians * 0.25).sin()).powi(2),
        metres.max(1e-5).powi(2),
    );
    let mut keys = Vec::new();
    // Spans left to check, leftmost on top, so keys come out in order.
    let mut spans = vec![(0, n - 1)];
    while let Some((a, b)) = spans.pop() {
        if b - a <= 1 {
            keys.push((a, Ease::Linear));
            continue;
        }
        let (fa, fb) = (&baked.frames[a], &baked.frames[b]);
        let arcs: Vec<Arc> = baked
            .moving
            .iter()
            .map(|bone| Arc::new(bone.index(), fa.bones[bone.index()], fb.bones[bone.index()]))
            .collect();
        let mut split = None;
        let mut fitted = None;
        for ease in FITTING_EASES {
            let (fits, worst, excess) = span_error(&baked.frames, &arcs, (a, b), ease, limits);
            if fits {
                fitted = Some(ease);
                break;
            }
            if ease == Ease::Linear {
                split = Some(worst);
                if excess > HOPELESS {
                    break;
                }
            }
        }
        match fitted {
            Some(ease) => keys.push((a, ease)),
            None => {
                // Split at the worst frame, but never in the span's outer quarters: a
                // curve whose worst frame always sits at one end would otherwise peel
                // one frame at a time (quadratic); this keeps the depth logarithmic.
                let quarter = (b - a) / 4;
                let m = split
                    .unwrap_or(a + (b - a) / 2)
                    .clamp(a + quarter.max(1), b - quarter.max(1));
                spans.push((m, b));
                spans.push((a, m));
            }
        }
    }
    keys.push((n - 1, Ease::Linear));
    keys
}

/// The baked motion as a timeline starting at 0 s.
pub fn lay_out(baked: &Baked, policy: KeyPolicy) -> Result<Timeline, Refusal> {
    let keys = choose_keys(baked, policy)
        .into_iter()
        .enumerate()
        .map(|(i, (frame, ease))| {
            let source = &baked.frames[frame];
            let pose = Pose {
                bones: source.bones.map(Quat::normalize),
                hips: Some(source.hips),
                expressions: baked
                    .expressions
                    .iter()
                    .cloned()
                    .zip(source.expressions.iter().map(|w| w.clamp(0.0, 1.0)))
                    .collect(),
                ..Default::default()
            };
            Key {
                id: i as u64 + 1,
                file_id: None,
                t: snap(frame as f32 / FPS),
                ease,
                pose,
            }
        })
        .collect();
    Timeline::from_keys(keys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::humanoid::{BONE_COUNT, Bone};
    use glam::Vec3;

    fn baked(angles: &[f32]) -> Baked {
        Baked {
            frames: angles
                .iter()
                .map(|&a| {
                    let mut bones = [Quat::IDENTITY; BONE_COUNT];
                    bones[Bone::LeftUpperArm.index()] = Quat::from_rotation_z(a.to_radians());
                    BakedFrame {
                        bones,
                        hips: Vec3::Y,
                        expressions: Vec::new(),
                    }
                })
                .collect(),
            moving: vec![Bone::LeftUpperArm],
            expressions: Vec::new(),
        }
    }

    #[test]
    fn a_steady_turn_needs_two_keys_and_a_corner_three() {
        let steady: Vec<f32> = (0..61).map(|i| i as f32).collect();
        assert_eq!(choose_keys(&baked(&steady), KeyPolicy::default()).len(), 2);
        let corner: Vec<f32> = (0..61).map(|i| 30.0 - (i as f32 - 30.0).abs()).collect();
        let keys = choose_keys(&baked(&corner), KeyPolicy::default());
        assert_eq!(
            keys.iter().map(|k| k.0).collect::<Vec<_>>(),
            vec![0, 30, 60]
        );
    }

    #[test]
    fn an_eased_move_is_one_span_with_its_ease() {
        let eased: Vec<f32> = (0..31)
            .map(|i| 40.0 * Ease::InOut.apply(i as f32 / 30.0))
            .collect();
        let keys = choose_keys(&baked(&eased), KeyPolicy::default());
        assert_eq!(keys, vec![(0, Ease::InOut), (30, Ease::Linear)]);
        let every = choose_keys(&baked(&eased), KeyPolicy::EveryFrame);
        assert_eq!(every.len(), 31);
    }

    #[test]
    fn reduced_keys_replay_within_the_tolerance() {
        let wobble: Vec<f32> = (0..300)
            .map(|i| 50.0 * (i as f32 * 0.07).sin() + 10.0 * (i as f32 * 0.31).cos())
            .collect();
        let motion = baked(&wobble);
        let timeline = lay_out(&motion, KeyPolicy::default()).unwrap();
        assert!(
            timeline.keys().len() < wobble.len() / 3,
            "{}",
            timeline.keys().len()
        );
        for (i, frame) in motion.frames.iter().enumerate() {
            let pose = timeline.sample(i as f32 / FPS, Vec3::Y).unwrap();
            let error = crate::body::math::angle_between(
                pose.rotation(Bone::LeftUpperArm),
                frame.bones[Bone::LeftUpperArm.index()],
            );
            assert!(
                error.to_degrees() <= 1.0 + 1e-3,
                "frame {i}: {}",
                error.to_degrees()
            );
        }
    }
}

#[cfg(test)]
mod arc_tests {
    use super::*;
    use crate::body::math::slerp_shortest;

    proptest::proptest! {
        #[test]
        fn the_shared_set_up_slerps_as_the_timeline_does(
            a in crate::body::math::testing::arb_quat(),
            b in crate::body::math::testing::arb_quat(),
            w in 0.0f32..=1.0,
        ) {
            let arc = Arc::new(0, a, b);
            let q = arc.at(w);
            let timeline = slerp_shortest(a, b, w);
            proptest::prop_assert!((q - timeline).length() < 1e-5 || (q + timeline).length() < 1e-5);
        }
    }
}
