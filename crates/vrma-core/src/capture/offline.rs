//! Pose from a whole video at once (`pose-from-video`): what a live camera cannot do,
//! because it may look ahead. The landmarks are smoothed over time with a centred
//! window (no lag); a limb whose depth jumps from clearly towards the camera to clearly
//! away in one frame (what a picture cannot tell apart, see
//! [`Capture::with_depth_flipped`]) keeps the side it had, since a real turn passes
//! through the picture's plane; and the feet are found standing (slow and low for a
//! span) so they can be planted.

use glam::{Quat, Vec3};

use super::{BODY_POINTS, Capture, FLIPPABLE_LIMBS, LIMB_BONES, MIN_VISIBILITY, pose_from_capture};
use crate::Refusal;
use crate::animation::timeline::{FPS, Timeline};
use crate::body::math::slerp_shortest;
use crate::body::pose::Pose;
use crate::body::rig::Rig;
use crate::formats::motion::KeyPolicy;
use crate::formats::motion::keys::lay_out;
use crate::formats::motion::retarget::{Baked, BakedFrame};
use crate::model::humanoid::{ALL_BONES, Bone, Side};

/// The centred window's spread, in seconds (a Gaussian's sigma): steadies a phone's
/// jitter (a few centimetres frame to frame) and keeps a step's timing.
pub const SMOOTHING_SECONDS: f32 = 0.05;

/// A limb's depth (the z of its direction) this far from zero on both sides of a
/// frame is a jump, not a turn through the picture's plane.
pub const DEPTH_JUMP: f32 = 0.35;

/// A foot moving slower than this (m/s) ...
pub const STANDING_SPEED: f32 = 0.3;
/// ... within this height (m) of the lowest the foot goes ...
pub const STANDING_HEIGHT: f32 = 0.05;
/// ... for at least this long (s) is standing.
pub const STANDING_SECONDS: f32 = 0.25;

/// Each landmark's positions over the frames, averaged over a centred Gaussian window
/// `sigma` seconds wide, weighted by how visible it was; frames without a person are
/// left out (and stay empty).
pub fn smooth_offline(captures: &mut [Option<Capture>], fps: f32, sigma: f32) {
    let sigma_frames = (sigma * fps).max(1e-3);
    let reach = (sigma_frames * 3.0).ceil() as isize;
    let weights: Vec<f32> = (-reach..=reach)
        .map(|d| (-(d as f32).powi(2) / (2.0 * sigma_frames * sigma_frames)).exp())
        .collect();
    let original: Vec<Option<Capture>> = captures.to_vec();
    for (i, capture) in captures.iter_mut().enumerate() {
        let Some(body) = capture.as_mut().and_then(|c| c.body.as_mut()) else {
            continue;
        };
        for point in 0..BODY_POINTS {
            let (mut sum, mut total) = (Vec3::ZERO, 0.0);
            for (k, d) in (-reach..=reach).enumerate() {
                let j = i as isize + d;
                let Some(Some(other)) = usize::try_from(j).ok().and_then(|j| original.get(j))
                else {
                    continue;
                };
                let Some(other) = &other.body else { continue };
                let w = weights[k] * other.visibility[point].max(0.05);
                sum += other.points[point] * w;
                total += w;
            }
            if total > 0.0 {
                body.points[point] = sum / total;
            }
        }
    }
}

/// Keeps each limb bone on its side in depth from frame to frame unless it passes
/// through the picture's plane: a frame whose bone jumps from clearly towards the
/// camera to clearly away (or back) is flipped back. Returns how many were flipped.
pub fn keep_depths_continuous(captures: &mut [Option<Capture>]) -> usize {
    let mut flipped = 0;
    for (limb, &bone) in FLIPPABLE_LIMBS.iter().enumerate() {
        let (root, tip, _) = LIMB_BONES[limb];
        let mut last: Option<f32> = None;
        for capture in captures.iter_mut() {
            let Some(c) = capture.as_mut() else { continue };
            let Some(body) = c.body.as_ref() else {
                continue;
            };
            if body.visibility[root] < MIN_VISIBILITY || body.visibility[tip] < MIN_VISIBILITY {
                continue;
            }
            let Some(direction) = (body.points[tip] - body.points[root]).try_normalize() else {
                continue;
            };
            let mut depth = direction.z;
            if let Some(before) = last
                && before.abs() >= DEPTH_JUMP
                && depth.abs() >= DEPTH_JUMP
                && before.signum() != depth.signum()
                && let Ok(kept) = c.with_depth_flipped(bone)
            {
                *c = kept;
                depth = -depth;
                flipped += 1;
            }
            last = Some(depth);
        }
    }
    flipped
}

/// Keys from video stay within this of every frame (its poses are noisier than a
/// mocap file's, and a key per wobble is not editable).
pub const VIDEO_KEYS: KeyPolicy = KeyPolicy::Reduced {
    degrees: 4.0,
    metres: 0.02,
};

/// What a whole video's captures become: keys from 0 s, with the standing feet planted.
#[derive(Clone, Debug)]
pub struct VideoKeys {
    pub timeline: Timeline,
    /// Seconds from the first frame to the last.
    pub duration: f32,
    /// How many frames had somebody in them.
    pub found: usize,
    /// How many limb depths were kept from flipping (see [`keep_depths_continuous`]).
    pub depths_kept: usize,
}

/// A video's captures (one per frame, `None` where nobody was found, at `times`
/// seconds from the first) turned into editable keys: smoothed looking ahead, each
/// limb's depth kept continuous, posed onto `rig` (a frame without a person keeps the
/// last pose), resampled on the timeline's grid, reduced to keys within
/// [`VIDEO_KEYS`], and each foot planted where it stands.
pub fn keys_from_video(
    rig: &Rig,
    mut captures: Vec<Option<Capture>>,
    times: &[f32],
    fps: f32,
) -> Result<VideoKeys, Refusal> {
    let found = captures.iter().filter(|c| c.is_some()).count();
    if found == 0 || times.len() != captures.len() {
        return Err(Refusal::new("nobody was found in the video"));
    }
    smooth_offline(&mut captures, fps, SMOOTHING_SECONDS);
    let depths_kept = keep_depths_continuous(&mut captures);
    let mut pose = Pose::default();
    let poses: Vec<Pose> = captures
        .iter()
        .map(|capture| {
            if let Some(posed) = capture
                .as_ref()
                .and_then(|c| pose_from_capture(rig, &pose, c).ok())
            {
                pose = posed.pose;
            }
            pose.clone()
        })
        .collect();
    let baked = bake_on_grid(rig, &poses, times);
    let mut timeline = lay_out(&baked, VIDEO_KEYS)?;
    let grid: Vec<Pose> = baked
        .frames
        .iter()
        .map(|f| Pose {
            bones: f.bones,
            hips: Some(f.hips),
            ..Default::default()
        })
        .collect();
    for (foot, first, last) in standing_spans(rig, &grid, FPS) {
        timeline.set_plant(foot, first as f32 / FPS, last as f32 / FPS, true);
    }
    Ok(VideoKeys {
        timeline,
        duration: (baked.frames.len().max(2) - 1) as f32 / FPS,
        found,
        depths_kept,
    })
}

/// The video's poses on the timeline's grid (each bone slerped, the hips lerped between
/// the two frames around each grid time): a phone's 29.97 or 60 fps becomes keys on
/// whole frames.
fn bake_on_grid(rig: &Rig, poses: &[Pose], times: &[f32]) -> Baked {
    let end = times.last().copied().unwrap_or(0.0).max(0.0);
    let count = (end * FPS).round() as usize + 1;
    let hips_rest = rig.hips_rest();
    let mut next = 0;
    let frames = (0..count)
        .map(|i| {
            let t = i as f32 / FPS;
            while next + 1 < times.len() && times[next + 1] <= t {
                next += 1;
            }
            let (a, b) = (next, (next + 1).min(times.len() - 1));
            let span = (times[b] - times[a]).max(1e-6);
            let w = ((t - times[a]) / span).clamp(0.0, 1.0);
            let (pa, pb) = (&poses[a], &poses[b]);
            BakedFrame {
                bones: std::array::from_fn(|k| slerp_shortest(pa.bones[k], pb.bones[k], w)),
                hips: pa
                    .hips
                    .unwrap_or(hips_rest)
                    .lerp(pb.hips.unwrap_or(hips_rest), w),
                expressions: Vec::new(),
            }
        })
        .collect::<Vec<_>>();
    let moving = ALL_BONES
        .into_iter()
        .filter(|b| {
            frames
                .iter()
                .any(|f| f.bones[b.index()].angle_between(Quat::IDENTITY) > 1e-3)
        })
        .collect();
    Baked {
        frames,
        moving,
        expressions: Vec::new(),
    }
}

/// The spans (first and last frame) each foot stands: its sole slow and low for at
/// least [`STANDING_SECONDS`].
pub fn standing_spans(rig: &Rig, poses: &[Pose], fps: f32) -> Vec<(Side, usize, usize)> {
    let mut spans = Vec::new();
    let feet = [(Side::Left, Bone::LeftFoot), (Side::Right, Bone::RightFoot)];
    let places: Vec<Vec<Option<Vec3>>> = feet
        .iter()
        .map(|(_, foot)| {
            poses
                .iter()
                .map(|p| rig.world_pose(p)[foot.index()].map(|(position, _)| position))
                .collect()
        })
        .collect();
    // The ground: the lowest either foot goes (a foot held up all along never stands).
    let lowest = places
        .iter()
        .flatten()
        .flatten()
        .map(|p| p.y)
        .fold(f32::INFINITY, f32::min);
    for ((side, _), at) in feet.into_iter().zip(&places) {
        let standing: Vec<bool> = (0..at.len())
            .map(|i| {
                let (Some(here), Some(next)) = (at[i], at[(i + 1).min(at.len() - 1)].or(at[i]))
                else {
                    return false;
                };
                let before = i.checked_sub(1).and_then(|j| at[j]).unwrap_or(here);
                let speed = (next - before).length() * fps / 2.0;
                speed <= STANDING_SPEED && here.y <= lowest + STANDING_HEIGHT
            })
            .collect();
        let shortest = (STANDING_SECONDS * fps).ceil() as usize;
        let mut i = 0;
        while i < standing.len() {
            if !standing[i] {
                i += 1;
                continue;
            }
            let start = i;
            while i < standing.len() && standing[i] {
                i += 1;
            }
            if i - start >= shortest.max(2) {
                spans.push((side, start, i - 1));
            }
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::landmarks_of_pose;
    use crate::model::mannequin::{self, MannequinVariant};
    use glam::Quat;

    fn rig() -> Rig {
        crate::body::rig::rig_from_bytes(&mannequin::build(MannequinVariant::Vrm1)).unwrap()
    }

    /// An arm swinging forward and back over 2 s at 30 fps.
    fn swing(rig: &Rig) -> Vec<Option<Capture>> {
        (0..60)
            .map(|i| {
                let mut pose = Pose::default();
                let a = (i as f32 / 60.0 * std::f32::consts::TAU).sin() * 0.8;
                pose.set_rotation(
                    Bone::LeftUpperArm,
                    Quat::from_rotation_z(1.2) * Quat::from_rotation_y(a),
                );
                Some(landmarks_of_pose(rig, &pose))
            })
            .collect()
    }

    #[test]
    fn jitter_is_smoothed_away_without_lag() {
        let rig = rig();
        let clean = swing(&rig);
        let mut noisy = clean.clone();
        let mut state = 12345u32;
        for capture in noisy.iter_mut().flatten() {
            for p in capture.body.as_mut().unwrap().points.iter_mut() {
                let mut r = || {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    (state as f32 / u32::MAX as f32 - 0.5) * 0.04
                };
                *p += Vec3::new(r(), r(), r());
            }
        }
        let error = |a: &[Option<Capture>], b: &[Option<Capture>]| {
            let mut sum = 0.0;
            for (x, y) in a.iter().zip(b).skip(5).take(50) {
                let (x, y) = (
                    x.as_ref().unwrap().body.as_ref().unwrap(),
                    y.as_ref().unwrap().body.as_ref().unwrap(),
                );
                sum += x.points[super::super::body::LEFT_WRIST]
                    .distance(y.points[super::super::body::LEFT_WRIST]);
            }
            sum / 50.0
        };
        let before = error(&noisy, &clean);
        smooth_offline(&mut noisy, 30.0, SMOOTHING_SECONDS);
        let after = error(&noisy, &clean);
        assert!(after < before / 2.0, "jitter {before} m → {after} m");
        // No lag: smoothing the clean swing barely moves it.
        let mut smoothed = clean.clone();
        smooth_offline(&mut smoothed, 30.0, SMOOTHING_SECONDS);
        assert!(error(&smoothed, &clean) < 0.01);
    }

    #[test]
    fn a_one_frame_depth_jump_is_flipped_back_and_a_real_turn_is_kept() {
        let rig = rig();
        let mut pose = Pose::default();
        pose.set_rotation(Bone::LeftUpperArm, Quat::from_rotation_y(-1.0));
        let forward = landmarks_of_pose(&rig, &pose);
        let backward = forward.with_depth_flipped(Bone::LeftUpperArm).unwrap();
        let mut frames = vec![Some(forward.clone()); 10];
        frames[5] = Some(backward.clone());
        assert_eq!(keep_depths_continuous(&mut frames), 1);
        assert_eq!(frames[5], Some(forward.clone()));
        // Turning through the picture's plane (depth passing near zero) is kept.
        let turn: Vec<Option<Capture>> = (0..20)
            .map(|i| {
                let mut p = Pose::default();
                p.set_rotation(
                    Bone::LeftUpperArm,
                    Quat::from_rotation_y(-1.0 + i as f32 * 0.1),
                );
                Some(landmarks_of_pose(&rig, &p))
            })
            .collect();
        let mut kept = turn.clone();
        assert_eq!(keep_depths_continuous(&mut kept), 0);
        assert_eq!(kept, turn);
    }

    #[test]
    fn a_foot_that_stays_put_stands_and_a_swinging_one_does_not() {
        let rig = rig();
        let poses: Vec<Pose> = (0..30)
            .map(|i| {
                let mut p = Pose::default();
                let a = if i < 15 { 0.0 } else { (i - 15) as f32 * 0.08 };
                p.set_rotation(Bone::RightUpperLeg, Quat::from_rotation_x(-a));
                p
            })
            .collect();
        let spans = standing_spans(&rig, &poses, 30.0);
        assert!(spans.contains(&(Side::Left, 0, 29)), "{spans:?}");
        let right: Vec<_> = spans.iter().filter(|s| s.0 == Side::Right).collect();
        assert_eq!(right.len(), 1, "{spans:?}");
        assert!(
            right[0].1 == 0 && (13..=16).contains(&right[0].2),
            "{spans:?}"
        );
    }
}
