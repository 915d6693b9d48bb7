//! The key selection: which keys the selection edits act on. It is part of each undo
//! step (a new selection is a step to undo) but not saved work.

use super::{Editor, Gesture};
use crate::Refusal;
use crate::animation::timeline::KeyPick;

/// How a pick combines with the keys already selected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SelectMode {
    /// The pick becomes the selection (a click).
    #[default]
    Replace,
    /// The pick joins the selection (Shift-click, Shift-box).
    Add,
    /// Each picked key flips in or out (Ctrl-click).
    Toggle,
}

impl Editor {
    /// Applies [`KeyEdit::Select`](super::KeyEdit::Select) (see [`Editor::apply`]).
    pub(super) fn select(&mut self, pick: KeyPick, mode: SelectMode) -> Result<(), Refusal> {
        let ids = self.picked(&pick, mode);
        if ids != self.selection {
            // A drag in progress ends first, as its own step.
            self.apply_gesture(Gesture::End)?;
            let before = self.gesture_start.take().unwrap_or_else(|| self.snapshot());
            self.gesture_pins = None;
            self.selection = ids;
            self.history.record(before);
        }
        Ok(())
    }

    /// The selection `pick` makes in `mode`, in time order.
    pub(super) fn picked(&self, pick: &KeyPick, mode: SelectMode) -> Vec<u64> {
        use std::collections::HashSet;
        let picked = self.timeline.pick(pick);
        let ids = match mode {
            SelectMode::Replace => return picked,
            SelectMode::Add => [self.selection.clone(), picked].concat(),
            SelectMode::Toggle => {
                let had: HashSet<u64> = self.selection.iter().copied().collect();
                let flip: HashSet<u64> = picked.into_iter().collect();
                had.symmetric_difference(&flip).copied().collect()
            }
        };
        // In time order, each once.
        self.timeline.pick(&KeyPick::Ids(ids))
    }

    /// The selected keys, or why `action` needs some.
    pub(super) fn selected(&self, action: &str) -> Result<Vec<u64>, Refusal> {
        if self.selection.is_empty() {
            return Err(Refusal::new(format!("no keys are selected to {action}")));
        }
        Ok(self.selection.clone())
    }
}

#[cfg(test)]
mod tests {
    use crate::animation::edit::tests::{keyed, select};
    use crate::animation::edit::{Edit, KeyEdit};
    use crate::animation::timeline::{KeyPick, Timeline};
    use crate::body::pose::Pose;
    use glam::Quat;

    #[test]
    fn selecting_is_undoable_but_not_unsaved_work_and_an_import_clears_it() {
        let mut ed = keyed(&[0, 10, 20], &[Quat::from_rotation_x(0.3)]);
        ed.dirty = false;
        select(&mut ed, KeyPick::All);
        assert!(!ed.dirty, "a selection is not a change to save");
        ed.apply(Edit::Undo).unwrap();
        assert!(ed.selection.is_empty() && !ed.dirty, "nor is undoing one");
        ed.apply(Edit::Redo).unwrap();
        assert_eq!(ed.selection.len(), 3);
        let mut other = Timeline::default();
        other.set_key(0.0, Pose::default());
        ed.apply(Edit::Keys(KeyEdit::Replace(Box::new(other))))
            .unwrap();
        assert!(
            ed.selection.is_empty(),
            "imported keys reuse ids: nothing stays selected"
        );
    }
}
