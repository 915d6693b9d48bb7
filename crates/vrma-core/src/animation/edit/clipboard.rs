//! Copy and paste: the clipboard (the keys or pose copied last), pasting it, and
//! duplicating the selected keys.

use super::{Edit, Editor, KeyEdit, PoseEdit};
use crate::Refusal;
use crate::animation::timeline::{Key, snap};
use crate::body::pose::BodyMask;

/// What was copied last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Copied {
    Keys,
    Pose,
}

impl Editor {
    /// What Copy (Ctrl+C) copies: the selected keys, or the pose when none is selected.
    pub fn copy_edit(&self) -> Edit {
        if self.selection.is_empty() {
            Edit::CopyPose
        } else {
            Edit::CopyKeys
        }
    }

    /// Where Duplicate (Ctrl+D) puts the selection's copies: at the playhead when they
    /// land clear of every key there, else a frame after the last key. `None` without a
    /// selection.
    pub fn duplicate_at(&self) -> Option<f32> {
        let copies = self.timeline.copy_keys(&self.selection);
        copies.last()?;
        let at = snap(self.playhead);
        let clear = copies
            .iter()
            .all(|k| self.timeline.key_at(at + k.t).is_none());
        Some(if clear {
            at
        } else {
            self.timeline.end() + 1.0 / crate::animation::timeline::FPS
        })
    }

    /// Applies [`Edit::CopyKeys`].
    pub(super) fn copy_keys(&mut self) -> Result<(), Refusal> {
        if self.selection.is_empty() {
            return Err(Refusal::new("no keys are selected to copy"));
        }
        self.copied_keys = self.timeline.copy_keys(&self.selection);
        self.last_copied = Some(Copied::Keys);
        Ok(())
    }

    /// Applies [`Edit::CopyPose`].
    pub(super) fn copy_pose(&mut self) -> Result<(), Refusal> {
        self.copied_pose = Some(self.pose.clone());
        self.last_copied = Some(Copied::Pose);
        Ok(())
    }

    /// Applies [`Edit::PasteLast`].
    pub(super) fn paste_last(&mut self, mirror: bool, mask: BodyMask) -> Result<(), Refusal> {
        match self.last_copied {
            Some(Copied::Keys) => self.apply(Edit::Keys(KeyEdit::Paste {
                t: self.playhead,
                mirror,
            })),
            Some(Copied::Pose) => self.apply(Edit::PastePose { mirror, mask }),
            None => Err(Refusal::new("nothing has been copied")),
        }
    }

    /// Applies [`Edit::PastePose`].
    pub(super) fn paste_pose(&mut self, mirror: bool, mask: BodyMask) -> Result<(), Refusal> {
        let pose = self
            .copied_pose
            .clone()
            .ok_or_else(|| Refusal::new("no pose has been copied"))?;
        self.apply(Edit::Pose(PoseEdit::ApplyPose {
            pose: Box::new(pose),
            mask,
            mirror,
        }))
    }

    /// Applies [`KeyEdit::Paste`].
    pub(super) fn paste_copied_keys(&mut self, t: f32, mirror: bool) -> Result<(), Refusal> {
        if self.copied_keys.is_empty() {
            return Err(Refusal::new("no keys have been copied"));
        }
        let mut keys = self.copied_keys.clone();
        if mirror {
            for key in &mut keys {
                key.pose = key.pose.mirrored();
            }
        }
        self.paste(&keys, t)
    }

    /// Applies [`KeyEdit::Duplicate`].
    pub(super) fn duplicate(&mut self, t: f32) -> Result<(), Refusal> {
        let ids = self.selected("duplicate")?;
        let keys = self.timeline.copy_keys(&ids);
        // Unlike a paste, a duplicate never replaces a key.
        if let Some(taken) = keys
            .iter()
            .find_map(|k| self.timeline.key_at(snap(t) + k.t))
        {
            return Err(Refusal::new(format!(
                "the copies would land on the key at {} s",
                taken.t
            )));
        }
        self.paste(&keys, t)
    }

    /// Pastes keys at `t`; they become the selection and the pose follows the playhead.
    fn paste(&mut self, keys: &[Key], t: f32) -> Result<(), Refusal> {
        let mut keys = keys.to_vec();
        for key in &mut keys {
            key.pose = self.checked_pose(std::mem::take(&mut key.pose))?;
        }
        self.selection = self.timeline.paste_keys(&keys, t)?;
        self.follow_playhead();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::animation::edit::tests::{arb_frames, keyed, select};
    use crate::animation::timeline::{FPS, KeyPick, frame_of};
    use crate::body::math::testing::arb_quat;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn pasting_mirrored_twice_is_pasting(
            frames in arb_frames(),
            turns in proptest::collection::vec(arb_quat(), 1..4),
            at in 400u32..600,
        ) {
            let mut ed = keyed(&frames, &turns);
            select(&mut ed, KeyPick::All);
            ed.apply(Edit::CopyKeys).unwrap();
            let mut plain = keyed(&frames, &turns);
            select(&mut plain, KeyPick::All);
            plain.apply(Edit::CopyKeys).unwrap();
            let t = at as f32 / FPS;
            plain.apply(Edit::Keys(KeyEdit::Paste { t, mirror: false })).unwrap();

            ed.apply(Edit::Keys(KeyEdit::Paste { t, mirror: true })).unwrap();
            ed.apply(Edit::CopyKeys).unwrap();
            ed.apply(Edit::Keys(KeyEdit::Paste { t, mirror: true })).unwrap();
            let poses = |e: &Editor| e.timeline.keys().iter()
                .map(|k| (frame_of(k.t), k.ease, k.pose.clone())).collect::<Vec<_>>();
            prop_assert_eq!(poses(&ed), poses(&plain));

            // A pose pasted mirrored twice is the pose.
            let copied = ed.pose.clone();
            ed.apply(Edit::CopyPose).unwrap();
            ed.apply(Edit::PastePose { mirror: true, mask: BodyMask::WholeBody }).unwrap();
            ed.apply(Edit::CopyPose).unwrap();
            ed.apply(Edit::PastePose { mirror: true, mask: BodyMask::WholeBody }).unwrap();
            prop_assert_eq!(&ed.pose, &copied);
        }
    }
}
