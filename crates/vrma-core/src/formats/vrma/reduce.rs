//! Keyframe reduction: drop frames that linear interpolation between the kept
//! neighbours reproduces within tolerance (SPEC §7). Frames marked as required (key
//! times, first and last) are always kept, so authored keys play back exactly.

use glam::{Quat, Vec3};

#[cfg(test)]
use crate::body::math::{angle_between, slerp_shortest};

/// Rotation tolerance (radians).
pub const ROTATION_TOLERANCE: f32 = 0.0015;
/// Position tolerance (metres).
pub const POSITION_TOLERANCE: f32 = 0.0008;
/// Expression weight tolerance.
pub const WEIGHT_TOLERANCE: f32 = 0.001;

/// Indices of the frames to keep. `error(i, k, j)` is how far interpolating between
/// frames `i` and `j` misses frame `k`.
fn keep_frames(
    len: usize,
    required: &[bool],
    tolerance: f32,
    error: impl Fn(usize, usize, usize) -> f32,
) -> Vec<usize> {
    if len <= 2 {
        return (0..len).collect();
    }
    let mut kept = vec![0];
    let mut start = 0;
    let mut end = 1;
    while end < len {
        // Try to extend the segment start..=end+1 past `end`.
        let next = end + 1;
        let extendable = next < len
            && !required[end]
            && (start + 1..next).all(|k| error(start, k, next) <= tolerance);
        if extendable {
            end = next;
        } else {
            kept.push(end);
            start = end;
            end += 1;
        }
    }
    kept
}

/// Reduces a rotation track. The track should be sign-continuous already.
pub fn reduce_rotations(values: &[Quat], required: &[bool]) -> Vec<usize> {
    // The chord between two unit quaternions, |q - v| = 2·sin(angle / 4), measures small
    // angles precisely in f32 (a dot product near 1 does not) and costs no trigonometry;
    // the slerp set-up is shared by the whole span.
    let max_chord_sq = (2.0 * (ROTATION_TOLERANCE * 0.25).sin()).powi(2);
    let len = values.len();
    if len <= 2 {
        return (0..len).collect();
    }
    let span_fits = |i: usize, j: usize| {
        let a = values[i];
        let b = if a.dot(values[j]) < 0.0 {
            -values[j]
        } else {
            values[j]
        };
        let dot = a.dot(b).clamp(-1.0, 1.0);
        let nearly_equal = dot > 0.9995;
        let theta = dot.acos();
        let sin = theta.sin();
        (i + 1..j).all(|k| {
            let t = (k - i) as f32 / (j - i) as f32;
            let q = if nearly_equal {
                (a * (1.0 - t) + b * t).normalize()
            } else {
                (a * (((1.0 - t) * theta).sin() / sin) + b * ((t * theta).sin() / sin)).normalize()
            };
            let v = values[k];
            let chord = if q.dot(v) < 0.0 { q + v } else { q - v };
            chord.length_squared() <= max_chord_sq
        })
    };
    let mut kept = vec![0];
    let (mut start, mut end) = (0, 1);
    while end < len {
        let next = end + 1;
        if next < len && !required[end] && span_fits(start, next) {
            end = next;
        } else {
            kept.push(end);
            start = end;
            end += 1;
        }
    }
    kept
}

/// Reduces a position track.
pub fn reduce_positions(values: &[Vec3], required: &[bool]) -> Vec<usize> {
    keep_frames(values.len(), required, POSITION_TOLERANCE, |i, k, j| {
        let w = (k - i) as f32 / (j - i) as f32;
        values[i].lerp(values[j], w).distance(values[k])
    })
}

/// Reduces a scalar (expression weight) track.
pub fn reduce_scalars(values: &[f32], required: &[bool]) -> Vec<usize> {
    keep_frames(values.len(), required, WEIGHT_TOLERANCE, |i, k, j| {
        let w = (k - i) as f32 / (j - i) as f32;
        (values[i] + (values[j] - values[i]) * w - values[k]).abs()
    })
}

/// Flips quaternion signs so consecutive samples never differ by more than half a turn
/// in 4D: then every player's interpolation takes the short way (SPEC §7).
pub fn make_sign_continuous(values: &mut [Quat]) {
    for i in 1..values.len() {
        if values[i - 1].dot(values[i]) < 0.0 {
            values[i] = -values[i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_straight_line_reduces_to_its_ends_and_required_frames() {
        let values: Vec<Vec3> = (0..100)
            .map(|i| Vec3::new(i as f32 * 0.01, 0.0, 0.0))
            .collect();
        let mut required = vec![false; 100];
        assert_eq!(reduce_positions(&values, &required), vec![0, 99]);
        required[40] = true;
        assert_eq!(reduce_positions(&values, &required), vec![0, 40, 99]);
    }

    proptest! {
        #[test]
        fn every_dropped_frame_is_reproduced_within_tolerance(
            raw in proptest::collection::vec((-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0), 3..60),
        ) {
            // A smooth-ish random walk of rotations.
            let mut q = Quat::IDENTITY;
            let mut values = Vec::new();
            for (x, y, z, s) in raw {
                q = (Quat::from_scaled_axis(Vec3::new(x, y, z) * 0.02 * s) * q).normalize();
                values.push(q);
            }
            make_sign_continuous(&mut values);
            let required = vec![false; values.len()];
            let kept = reduce_rotations(&values, &required);
            prop_assert_eq!(kept[0], 0);
            prop_assert_eq!(*kept.last().unwrap(), values.len() - 1);
            for pair in kept.windows(2) {
                let (i, j) = (pair[0], pair[1]);
                for k in i + 1..j {
                    let w = (k - i) as f32 / (j - i) as f32;
                    let err = angle_between(slerp_shortest(values[i], values[j], w), values[k]);
                    prop_assert!(err <= ROTATION_TOLERANCE + 1e-6);
                }
            }
        }
    }
}
