//! Undo / redo, 80 deep (SPEC §4), over snapshots of any kind: the editor keeps typed
//! [`crate::animation::edit::Snapshot`]s whose keys are shared between steps.

use std::collections::VecDeque;

/// How many steps can be undone.
pub const UNDO_DEPTH: usize = 80;

/// Snapshots before each change (undo) and of undone states (redo).
#[derive(Clone, Debug)]
pub struct History<T> {
    undo: VecDeque<T>,
    redo: Vec<T>,
}

impl<T> Default for History<T> {
    fn default() -> Self {
        History {
            undo: VecDeque::new(),
            redo: Vec::new(),
        }
    }
}

impl<T> History<T> {
    /// Records the state before a change; a new change drops the redo tail.
    pub fn record(&mut self, before: T) {
        if self.undo.len() == UNDO_DEPTH {
            self.undo.pop_front();
        }
        self.undo.push_back(before);
        self.redo.clear();
    }

    /// Steps back: returns the state to restore, keeping `current` for redo.
    pub fn undo(&mut self, current: T) -> Option<T> {
        let previous = self.undo.pop_back()?;
        self.redo.push(current);
        Some(previous)
    }

    /// Steps forward again: returns the state to restore, keeping `current` for undo.
    pub fn redo(&mut self, current: T) -> Option<T> {
        let next = self.redo.pop()?;
        if self.undo.len() == UNDO_DEPTH {
            self.undo.pop_front();
        }
        self.undo.push_back(current);
        Some(next)
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// The steps that can be undone, oldest first.
    pub fn undo_steps(&self) -> impl Iterator<Item = &T> {
        self.undo.iter()
    }

    pub fn clear(&mut self) {
        self.undo.clear();
        self.redo.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_80_steps_can_be_undone() {
        let mut h = History::<String>::default();
        let mut state = 0;
        for i in 1..=100 {
            h.record(state.to_string());
            state = i;
        }
        let mut undone = 0;
        while let Some(prev) = h.undo(state.to_string()) {
            state = prev.parse().unwrap();
            undone += 1;
        }
        assert_eq!(undone, 80);
        assert_eq!(state, 20);
        for _ in 0..80 {
            state = h.redo(state.to_string()).unwrap().parse().unwrap();
        }
        assert_eq!(state, 100);
        assert!(!h.can_redo());
    }

    #[test]
    fn a_new_change_drops_the_redo_tail() {
        let mut h = History::<String>::default();
        h.record("a".into());
        assert_eq!(h.undo("b".into()).as_deref(), Some("a"));
        assert!(h.can_redo());
        h.record("a".into());
        assert!(!h.can_redo());
    }
}
