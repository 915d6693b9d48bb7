//! A film: the timeline played frame by frame for a moving picture (`render-anim`, File ▸
//! Export animation as video). Each frame is the keyed pose at its time (planted feet
//! held), its eyes aimed as a still's are, and the springs as a player shows them:
//! settled on the first frame's pose, then simulated through time at 60 Hz with the
//! pose sampled between frames, never settled again per frame (hair swings after a
//! turn and comes to rest).

use glam::{Quat, Vec3};

use crate::Refusal;
use crate::animation::timeline::Timeline;
use crate::body::look::StillEyes;
use crate::body::nodes::NodeWorlds;
use crate::body::pose::Pose;
use crate::body::rig::Rig;
use crate::body::springs::{SpringState, joint_rotations};

/// The springs' simulation rate (as a still's settling and the window's live springs).
const SPRING_HZ: f32 = 60.0;

/// The most frames a film may have: an hour at 30 fps.
pub const MAX_FILM_FRAMES: usize = 108_000;

/// The frame times of `from`..=`to` seconds at `fps`: `(to − from) × fps + 1` frames,
/// the last one at `to`.
pub fn frame_times(from: f32, to: f32, fps: u32) -> Result<Vec<f32>, Refusal> {
    if !from.is_finite() || !to.is_finite() || from < 0.0 || to < from {
        return Err(Refusal::new(format!(
            "the range {from} s to {to} s is not a span of the timeline"
        )));
    }
    if !(1..=120).contains(&fps) {
        return Err(Refusal::new(format!(
            "{fps} frames per second is outside 1 to 120"
        )));
    }
    let spans = ((to - from) as f64 * fps as f64).round();
    if spans + 1.0 > MAX_FILM_FRAMES as f64 {
        return Err(Refusal::new(format!(
            "{} frames is more than a film may have ({MAX_FILM_FRAMES}): shorten the range or lower the rate",
            spans + 1.0
        )));
    }
    let spans = spans as usize;
    Ok((0..=spans)
        .map(|i| from + i as f32 / fps as f32)
        .map(|t| t.min(to))
        .collect())
}

/// Where a film ends unless told: the last key (what the keys animate), or the
/// timeline's length when there are none.
pub fn default_end(timeline: &Timeline, length: f32) -> f32 {
    match timeline.end() {
        end if end > 0.0 => end,
        _ => length.max(0.0),
    }
}

/// One frame of a film.
#[derive(Clone, Debug)]
pub struct FilmFrame {
    pub index: usize,
    pub time: f32,
    /// The pose to draw, its gaze aimed.
    pub pose: Pose,
    /// Each spring joint's local rotation (node index, rotation).
    pub springs: Vec<(usize, Quat)>,
}

/// The timeline played for rendering, one frame at a time.
pub struct Film {
    rig: Rig,
    timeline: Timeline,
    /// The pose of an empty timeline.
    still: Pose,
    times: Vec<f32>,
    camera: Vec3,
    eyes: StillEyes,
    settle_seconds: f32,
    springs: Option<(NodeWorlds, SpringState)>,
    next: usize,
}

impl Film {
    /// A film of `timeline` on `rig` at `times`, seen from `camera` (model space);
    /// `still` is drawn where there are no keys. The springs settle for
    /// `settle_seconds` on the first frame's pose.
    pub fn new(
        rig: Rig,
        timeline: Timeline,
        still: Pose,
        times: Vec<f32>,
        camera: Vec3,
        eyes: StillEyes,
        settle_seconds: f32,
    ) -> Film {
        Film {
            rig,
            timeline,
            still,
            times,
            camera,
            eyes,
            settle_seconds,
            springs: None,
            next: 0,
        }
    }

    /// The keyed pose at `t` (planted feet held), before its gaze.
    pub fn pose_at(&self, t: f32) -> Pose {
        crate::animation::plant::sample(&self.rig, &self.timeline, t)
            .unwrap_or_else(|| self.still.clone())
    }

    /// Every frame's pose before its gaze: what a camera framed over the whole film
    /// must see.
    pub fn poses(&self) -> Vec<Pose> {
        self.times.iter().map(|&t| self.pose_at(t)).collect()
    }

    /// Where the film is seen from (a preset camera is framed over [`Film::poses`]
    /// after the film is made).
    pub fn look_from(&mut self, camera: Vec3) {
        self.camera = camera;
    }

    pub fn len(&self) -> usize {
        self.times.len()
    }

    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    pub fn rig(&self) -> &Rig {
        &self.rig
    }

    /// The next frame, or `None` after the last.
    pub fn next_frame(&mut self) -> Option<FilmFrame> {
        let index = self.next;
        let time = *self.times.get(index)?;
        let pose = self.pose_at(time);
        let springs = self.springs_at(index, time, &pose);
        self.next += 1;
        let pose = crate::body::gaze::still_gaze(&self.rig, &pose, self.eyes, self.camera);
        Some(FilmFrame {
            index,
            time,
            pose,
            springs,
        })
    }

    /// The springs at frame `index`: settled on the first, then stepped from the frame
    /// before with the pose sampled at each step.
    fn springs_at(&mut self, index: usize, time: f32, pose: &Pose) -> Vec<(usize, Quat)> {
        let springs = &self.rig.model.springs;
        if springs.chains.is_empty() {
            return Vec::new();
        }
        let step = 1.0 / SPRING_HZ;
        if index == 0 || self.springs.is_none() {
            let mut worlds = NodeWorlds::new(&self.rig);
            worlds.pose(&self.rig, pose);
            let mut state = SpringState::reset(springs, &worlds);
            let steps = (self.settle_seconds.clamp(0.0, 10.0) * SPRING_HZ).round() as usize;
            for _ in 0..steps {
                state.step(springs, &self.rig, &mut worlds, step);
            }
            self.springs = Some((worlds, state));
        } else {
            let before = self.times[index - 1];
            let span = (time - before).max(0.0);
            let steps = (span * SPRING_HZ).ceil().max(1.0) as usize;
            let dt = span / steps as f32;
            let mut between: Vec<Pose> = (1..steps)
                .map(|k| self.pose_at(before + span * k as f32 / steps as f32))
                .collect();
            between.push(pose.clone());
            if let Some((worlds, state)) = self.springs.as_mut() {
                for step_pose in &between {
                    worlds.pose(&self.rig, step_pose);
                    state.step(springs, &self.rig, worlds, dt);
                }
            }
        }
        let (worlds, _) = self.springs.as_ref().expect("set above");
        joint_rotations(springs, worlds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::humanoid::Bone;
    use crate::model::mannequin::MannequinVariant;
    use crate::model::test_avatar::{TestAvatarSpec, build};
    use crate::model::vrm::Model;

    #[test]
    fn a_film_has_duration_times_rate_plus_one_frames_ending_on_the_last_moment() {
        let times = frame_times(0.0, 2.0, 30).unwrap();
        assert_eq!(times.len(), 61);
        assert_eq!(*times.last().unwrap(), 2.0);
        assert_eq!(frame_times(1.0, 1.0, 24).unwrap(), vec![1.0]);
        assert!(
            frame_times(0.0, 1e9, 30).is_err(),
            "runaway counts are refused"
        );
        assert!(frame_times(2.0, 1.0, 30).is_err());
        assert!(frame_times(0.0, f32::NAN, 30).is_err());
        assert!(frame_times(0.0, 1.0, 0).is_err());
    }

    /// The test avatar with its hair: a head turn keyed at 0 s and 0.5 s, then held.
    fn turning_film(fps: u32) -> Film {
        let bytes = build(&TestAvatarSpec {
            texture_size: 8,
            ..TestAvatarSpec::vroid(MannequinVariant::Vrm1)
        });
        let rig = Rig::new(Model::from_bytes(&bytes).expect("the test avatar")).unwrap();
        let mut timeline = Timeline::default();
        let rest = Pose::default();
        let mut turned = Pose::default();
        turned.set_rotation(Bone::Hips, Quat::from_rotation_y(1.2));
        timeline.set_key(0.0, rest.clone());
        timeline.set_key(0.5, turned);
        let times = frame_times(0.0, 2.5, fps).unwrap();
        Film::new(
            rig,
            timeline,
            rest,
            times,
            Vec3::new(0.0, 1.3, 3.0),
            StillEyes::AsPosed,
            1.5,
        )
    }

    #[test]
    fn springs_swing_after_a_turn_and_come_to_rest_instead_of_being_settled_per_frame() {
        let mut film = turning_film(30);
        assert!(
            !film.rig().model.springs.chains.is_empty(),
            "the avatar has hair"
        );
        let frames: Vec<FilmFrame> = std::iter::from_fn(|| film.next_frame()).collect();
        assert_eq!(frames.len(), 76);
        // Settled per frame, the hair at 0.6 s (turn just ended) would equal the hair
        // held in that pose; through time it still lags behind the turn.
        let settled = crate::body::springs::settle(
            &film.rig().model.springs,
            film.rig(),
            &film.pose_at(0.6),
            1.5,
        );
        let gap = |a: &[(usize, Quat)], b: &[(usize, Quat)]| {
            a.iter()
                .zip(b)
                .map(|((_, x), (_, y))| x.angle_between(*y))
                .fold(0f32, f32::max)
        };
        let at_stop = &frames[18].springs;
        let at_end = &frames[75].springs;
        assert!(
            gap(at_stop, &settled) > 0.05,
            "swinging just after the turn"
        );
        assert!(
            gap(at_end, &settled) < gap(at_stop, &settled) / 3.0,
            "coming to rest"
        );
        // The first frame is the still's settled hair.
        let first = crate::body::springs::settle(
            &film.rig().model.springs,
            film.rig(),
            &film.pose_at(0.0),
            1.5,
        );
        let g = gap(&frames[0].springs, &first);
        assert!(g < 2e-3, "{g} rad (angle_between is this coarse near zero)");
    }

    #[test]
    fn the_springs_move_alike_at_any_frame_rate() {
        let hair_at = |fps: u32| {
            let mut film = turning_film(fps);
            let frames: Vec<FilmFrame> = std::iter::from_fn(|| film.next_frame()).collect();
            frames
                .into_iter()
                .find(|f| (f.time - 1.0).abs() < 1e-4)
                .expect("a frame at 1 s")
                .springs
        };
        let (a, b) = (hair_at(30), hair_at(60));
        let gap = a
            .iter()
            .zip(&b)
            .map(|((_, x), (_, y))| x.angle_between(*y))
            .fold(0f32, f32::max);
        assert!(gap < 0.02, "{gap} rad apart at 30 and 60 fps");
    }
}
