//! Key edits: a [`KeyEdit`] and how it changes the timeline (keys at the playhead, the
//! selected keys, imported keys, placed poses, planted feet).

use super::{Editor, SelectMode};
use crate::Refusal;
use crate::animation::timeline::{Ease, KeyPick, MAX_TIME, Timeline, frame_of, snap};
use crate::body::pose::{BodyMask, Pose};
use crate::model::humanoid::Side;

/// An edit of the keys: one undo step each.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyEdit {
    /// Add (or overwrite) the key at the playhead with the current pose.
    Add,
    /// Delete the key at the playhead.
    Delete,
    /// Set the ease of the key at the playhead.
    SetEase(Ease),
    /// Move a key from one time to another (both snapped).
    Move { from: f32, to: f32 },
    /// Replace all keys (importing an animation); the length grows to fit them.
    Replace(Box<Timeline>),
    /// Put imported keys at `at` (an import placed at the playhead): the keys already
    /// in the span they cover give way, those after it stay; the length grows to fit.
    InsertAt { timeline: Box<Timeline>, at: f32 },
    /// Put a pose at a time (a library pose dropped on the timeline): the playhead moves
    /// there, the pose is shown and keyed. Expressions the model lacks are dropped.
    PlacePose {
        t: f32,
        pose: Box<Pose>,
        /// The part of the body the pose is of: the rest comes from the timeline there.
        mask: BodyMask,
    },
    /// Change which keys are selected.
    Select { pick: KeyPick, mode: SelectMode },
    /// Move the selected keys by `by` seconds (whole frames), keeping their spacing.
    MoveSelected { by: f32 },
    /// Scale the selected keys' times around `pivot` by `factor`.
    ScaleSelected { factor: f32, pivot: f32 },
    /// Delete the selected keys.
    DeleteSelected,
    /// Give the selected keys one ease.
    EaseSelected(Ease),
    /// Put the copied keys at `t` (keeping their spacing, replacing keys where they land;
    /// mirrored when asked); the pasted keys become the selection.
    Paste { t: f32, mirror: bool },
    /// Copy the selected keys to `t` without touching the clipboard (refused where a copy
    /// would land on a key); the copies become the selection.
    Duplicate { t: f32 },
    /// Plant (`on`) or free a foot over `from..=to`.
    Plant {
        foot: Side,
        from: f32,
        to: f32,
        on: bool,
    },
}

impl Editor {
    /// A key edit; afterwards the timeline is at least as long as its keys, whichever
    /// edit put one later.
    pub(super) fn change_keys(&mut self, edit: KeyEdit) -> Result<(), Refusal> {
        self.change_keys_only(edit)?;
        self.settings.length = self.settings.length.max(self.timeline.end());
        Ok(())
    }

    fn change_keys_only(&mut self, edit: KeyEdit) -> Result<(), Refusal> {
        let t = self.playhead;
        match edit {
            KeyEdit::Add => {
                self.timeline.set_key(t, self.pose.clone());
            }
            KeyEdit::Delete => {
                if !self.timeline.delete_key_at(t) {
                    return Err(Refusal::new(format!(
                        "there is no key at {t:.3} s to delete"
                    )));
                }
                self.follow_playhead();
            }
            KeyEdit::SetEase(ease) => {
                if !self.timeline.set_ease_at(t, ease) {
                    return Err(Refusal::new(format!(
                        "there is no key at {t:.3} s to set the ease of"
                    )));
                }
            }
            KeyEdit::Move { from, to } => {
                if !from.is_finite() {
                    return Err(Refusal::new("move_key: 'from' must be a finite number"));
                }
                self.timeline.move_key(from, to)?;
                self.follow_playhead();
            }
            KeyEdit::Replace(timeline) => {
                let mut timeline = *timeline;
                timeline.retain_known_expressions(&self.expression_names, &mut Vec::new());
                self.timeline.replace_keys(timeline);
                // The new keys may reuse the old ones' ids.
                self.selection.clear();
                self.follow_playhead();
            }
            KeyEdit::InsertAt { timeline, at } => {
                let mut clip = *timeline;
                clip.retain_known_expressions(&self.expression_names, &mut Vec::new());
                let keys: Vec<_> = clip.keys().iter().map(|k| (**k).clone()).collect();
                let at = snap(at);
                let end = at + clip.end();
                let covered: Vec<u64> = self
                    .timeline
                    .keys()
                    .iter()
                    .filter(|k| (at..=end).contains(&k.t))
                    .map(|k| k.id)
                    .collect();
                let mut timeline = self.timeline.clone();
                timeline.delete_keys(&covered);
                // Checked before anything changes: a clip past the hour is refused whole.
                self.selection = timeline.paste_keys(&keys, at)?;
                // A clip's planted feet (a video's standing spans) come with its keys, in
                // place of what was planted over the time it covers.
                if !clip.plants().is_empty() {
                    for foot in [Side::Left, Side::Right] {
                        timeline.set_plant(foot, at, end, false);
                    }
                    for plant in clip.plants() {
                        timeline.set_plant(plant.foot, at + plant.from, at + plant.to, true);
                    }
                }
                self.timeline = timeline;
                self.follow_playhead();
            }
            KeyEdit::PlacePose { t, pose, mask } => {
                if !t.is_finite() || !(0.0..=MAX_TIME).contains(&t) {
                    return Err(Refusal::new(format!(
                        "cannot place a pose at {t} s (0 to {MAX_TIME} s)"
                    )));
                }
                let pose = match mask {
                    BodyMask::WholeBody => *pose,
                    // A hand pose dropped at t: the body as the timeline has it there.
                    mask => self
                        .sample(snap(t))
                        .unwrap_or_else(|| self.pose.clone())
                        .overlaid(&pose, mask),
                };
                let pose = self.checked_pose(pose)?;
                self.playhead = snap(t);
                self.timeline.set_key(self.playhead, pose.clone());
                self.pose = pose;
            }
            // `apply` takes selections before they get here (they are not saved work).
            KeyEdit::Select { pick, mode } => self.selection = self.picked(&pick, mode),
            KeyEdit::MoveSelected { by } => {
                let ids = self.selected("move")?;
                self.timeline.move_keys(&ids, by)?;
                self.follow_playhead();
            }
            KeyEdit::ScaleSelected { factor, pivot } => {
                let ids = self.selected("scale")?;
                self.timeline.scale_keys(&ids, factor, pivot)?;
                self.follow_playhead();
            }
            KeyEdit::DeleteSelected => {
                let ids = self.selected("delete")?;
                self.timeline.delete_keys(&ids);
                self.selection.clear();
                self.follow_playhead();
            }
            KeyEdit::EaseSelected(ease) => {
                let ids = self.selected("ease")?;
                self.timeline.ease_keys(&ids, ease);
            }
            KeyEdit::Paste { t, mirror } => self.paste_copied_keys(t, mirror)?,
            KeyEdit::Duplicate { t } => self.duplicate(t)?,
            KeyEdit::Plant { foot, from, to, on } => {
                for x in [from, to] {
                    if !x.is_finite() || !(0.0..=MAX_TIME).contains(&x) {
                        return Err(Refusal::new(format!(
                            "plant_foot: {x} is not a time from 0 to {MAX_TIME} s"
                        )));
                    }
                }
                if frame_of(from) == frame_of(to) {
                    return Err(Refusal::new(
                        "plant_foot: the span must be at least a frame",
                    ));
                }
                let before = self.timeline.plants().to_vec();
                if on && before.len() >= crate::animation::timeline::MAX_PLANTS {
                    return Err(Refusal::new(format!(
                        "plant_foot: at most {} planted spans",
                        crate::animation::timeline::MAX_PLANTS
                    )));
                }
                self.timeline.set_plant(foot, from, to, on);
                if self.timeline.plants() == before {
                    return Err(Refusal::new(if on {
                        "the foot is already planted there"
                    } else {
                        "the foot is not planted there"
                    }));
                }
                self.follow_playhead();
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::animation::edit::tests::{arb_frames, editor, key_frames, keyed, select};
    use crate::animation::edit::{Edit, PoseEdit};
    use crate::animation::timeline::FPS;
    use crate::body::math::testing::arb_quat;
    use crate::model::humanoid::Bone;
    use crate::model::mannequin::MannequinVariant;
    use glam::Quat;
    use proptest::prelude::*;

    #[test]
    fn key_edits_refuse_without_a_key_and_change_nothing() {
        let mut ed = editor(MannequinVariant::Vrm1);
        let before = ed.snapshot();
        assert!(ed.apply(Edit::Keys(KeyEdit::Delete)).is_err());
        assert!(
            ed.apply(Edit::Keys(KeyEdit::SetEase(
                crate::animation::timeline::Ease::Hold
            )))
            .is_err()
        );
        assert!(
            ed.apply(Edit::Keys(KeyEdit::Move { from: 1.0, to: 2.0 }))
                .is_err()
        );
        assert!(ed.apply(Edit::Seek(f32::NAN)).is_err());
        assert_eq!(ed.snapshot(), before);
        assert!(!ed.history.can_undo(), "refused edits record nothing");
    }

    #[test]
    fn an_import_inserted_at_the_playhead_replaces_only_the_span_it_covers() {
        let mut ed = keyed(&[0, 30, 60, 150], &[glam::Quat::IDENTITY]);
        let mut pose = Pose::default();
        pose.set_rotation(
            crate::model::humanoid::Bone::Head,
            glam::Quat::from_rotation_y(0.5),
        );
        let clip = Timeline::from_keys(vec![
            crate::animation::timeline::Key {
                id: 1,
                file_id: None,
                t: 0.0,
                ease: Ease::InOut,
                pose: pose.clone(),
            },
            crate::animation::timeline::Key {
                id: 2,
                file_id: None,
                t: 1.5,
                ease: Ease::Linear,
                pose,
            },
        ])
        .unwrap();
        let before = ed.timeline.clone();
        ed.apply(
            KeyEdit::InsertAt {
                timeline: Box::new(clip),
                at: 1.0,
            }
            .into(),
        )
        .unwrap();
        let times: Vec<f32> = ed.timeline.keys().iter().map(|k| k.t).collect();
        assert_eq!(times, vec![0.0, 1.0, 2.5, 5.0]);
        assert_eq!(ed.timeline.key_at(1.0).unwrap().ease, Ease::InOut);
        assert_eq!(ed.selection.len(), 2);
        ed.apply(super::super::Edit::Undo).unwrap();
        // The same keys (ids are never reused, so the next one stays counted on).
        assert_eq!(ed.timeline.keys(), before.keys());
    }

    #[test]
    fn an_inserted_clip_brings_its_planted_feet_in_place_of_those_it_covers() {
        let mut ed = editor(MannequinVariant::Vrm1);
        for t in [0.0, 4.0] {
            ed.timeline.set_key(t, Pose::default());
        }
        ed.timeline.set_plant(Side::Right, 0.5, 3.0, true);
        ed.timeline.set_plant(Side::Left, 3.5, 4.0, true);
        let mut clip = Timeline::default();
        clip.set_key(0.0, Pose::default());
        clip.set_key(1.0, Pose::default());
        clip.set_plant(Side::Left, 0.2, 0.6, true);
        let before = ed.timeline.clone();
        ed.apply(
            KeyEdit::InsertAt {
                timeline: Box::new(clip),
                at: 1.0,
            }
            .into(),
        )
        .unwrap();
        let spans: Vec<(Side, f32, f32)> = ed
            .timeline
            .plants()
            .iter()
            .map(|p| (p.foot, p.from, p.to))
            .collect();
        // The right foot's span loses 1 s–2 s; the clip's left span lands at 1.2 s–1.6 s;
        // the left span after the clip stays.
        assert_eq!(
            spans,
            vec![
                (Side::Left, 1.2, 1.6),
                (Side::Left, 3.5, 4.0),
                (Side::Right, 0.5, 1.0),
                (Side::Right, 2.0, 3.0)
            ]
        );
        ed.apply(super::super::Edit::Undo).unwrap();
        assert_eq!(ed.timeline.plants(), before.plants());
    }

    #[test]
    fn undoing_an_import_restores_the_keys_and_the_length() {
        let mut ed = editor(MannequinVariant::Vrm1);
        let before = ed.snapshot();
        let mut clip = Timeline::default();
        clip.set_key(0.0, Pose::default());
        clip.set_key(12.0, Pose::default());
        ed.apply(KeyEdit::Replace(Box::new(clip)).into()).unwrap();
        assert!(ed.settings.length >= 12.0);
        ed.apply(Edit::Undo).unwrap();
        assert_eq!(ed.snapshot(), before);
        assert_eq!(ed.settings.length, before.length);
    }

    #[test]
    fn placing_a_pose_is_one_undo_step_and_drops_unknown_expressions() {
        let mut ed = editor(MannequinVariant::Vrm1);
        ed.apply(KeyEdit::Add.into()).unwrap();
        let before = ed.snapshot();
        let mut pose = Pose::default();
        pose.set_rotation(Bone::Spine, Quat::from_rotation_y(0.4));
        pose.expressions.insert("happy".into(), 1.0);
        pose.expressions.insert("not-on-this-model".into(), 1.0);
        ed.apply(
            KeyEdit::PlacePose {
                t: 1.5,
                pose: Box::new(pose.clone()),
                mask: BodyMask::WholeBody,
            }
            .into(),
        )
        .unwrap();
        let key = ed
            .timeline
            .key_at(1.5)
            .expect("a key where the pose was dropped");
        assert_eq!(key.pose.rotation(Bone::Spine), pose.rotation(Bone::Spine));
        assert_eq!(ed.playhead, snap(1.5));
        assert!(!key.pose.expressions.contains_key("not-on-this-model"));
        assert_eq!(key.pose.expressions.get("happy"), Some(&1.0));
        ed.apply(Edit::Undo).unwrap();
        assert_eq!(ed.snapshot(), before, "one undo takes it all back");
        // A script's `pose` step is the same edit path.
        ed.apply(PoseEdit::SetPose(Box::new(pose)).into()).unwrap();
        assert!(!ed.pose.expressions.contains_key("not-on-this-model"));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn moving_keys_and_moving_them_back_changes_nothing(
            frames in arb_frames(),
            turns in proptest::collection::vec(arb_quat(), 1..4),
            picked in proptest::collection::vec(any::<bool>(), 12),
            by in -200i32..200,
        ) {
            let mut ed = keyed(&frames, &turns);
            let ids: Vec<u64> = ed.timeline.keys().iter().zip(&picked)
                .filter(|(_, p)| **p).map(|(k, _)| k.id).collect();
            prop_assume!(!ids.is_empty());
            select(&mut ed, KeyPick::Ids(ids));
            let before = ed.timeline.clone();
            let by = by as f32 / FPS;
            if ed.apply(Edit::Keys(KeyEdit::MoveSelected { by })).is_ok() {
                ed.apply(Edit::Keys(KeyEdit::MoveSelected { by: -by })).unwrap();
                prop_assert_eq!(ed.timeline.keys(), before.keys());
            } else {
                prop_assert_eq!(ed.timeline.keys(), before.keys(), "a refused move changes nothing");
            }
        }

        #[test]
        fn scaling_by_f_then_by_its_inverse_changes_nothing(
            frames in arb_frames(),
            turns in proptest::collection::vec(arb_quat(), 1..4),
            factor in 1.0f32..4.0,
            pivot in 0u32..300,
        ) {
            let mut ed = keyed(&frames, &turns);
            select(&mut ed, KeyPick::All);
            let before = ed.timeline.clone();
            let pivot = pivot as f32 / FPS;
            if ed.apply(Edit::Keys(KeyEdit::ScaleSelected { factor, pivot })).is_ok() {
                ed.apply(Edit::Keys(KeyEdit::ScaleSelected { factor: 1.0 / factor, pivot })).unwrap();
                prop_assert_eq!(ed.timeline.keys(), before.keys());
            }
        }
    }

    #[test]
    fn moves_onto_a_key_are_refused_with_a_message() {
        let mut ed = keyed(&[0, 10, 20], &[Quat::from_rotation_x(0.3)]);
        select(&mut ed, KeyPick::Times(vec![10.0 / FPS]));
        let before = ed.snapshot();
        let err = ed
            .apply(Edit::Keys(KeyEdit::MoveSelected { by: 10.0 / FPS }))
            .unwrap_err();
        assert!(err.to_string().contains("both land on"), "{err}");
        assert_eq!(ed.snapshot(), before);
        assert_eq!(key_frames(&ed), vec![0, 10, 20]);
    }

    #[test]
    fn a_key_moved_alone_takes_its_plant_ends_along() {
        let mut ed = keyed(&[0, 10, 20], &[Quat::from_rotation_x(0.3)]);
        ed.apply(Edit::Keys(KeyEdit::Plant {
            foot: Side::Left,
            from: 0.0,
            to: 10.0 / FPS,
            on: true,
        }))
        .unwrap();
        ed.apply(Edit::Keys(KeyEdit::Move {
            from: 10.0 / FPS,
            to: 15.0 / FPS,
        }))
        .unwrap();
        let plant = ed.timeline.plants()[0];
        assert_eq!((frame_of(plant.from), frame_of(plant.to)), (0, 15));
    }
}
