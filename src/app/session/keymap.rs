//! The one key map: the window's shortcuts, the viewport's modal keys, the F1 help and
//! the menu labels all read this table (SPEC §9). Changing a key is a change here only.
//! What a key does is a message id (`keys.ftl`), put into words when the help is drawn;
//! key names (Ctrl+Z, Left arrow) are not translated.

use bevy::prelude::*;

/// Everything a key can ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    AddKey,
    DeleteKey,
    SelectAllKeys,
    /// Copy the selected keys, or the pose when no key is selected.
    Copy,
    Paste,
    PasteMirrored,
    DuplicateKeys,
    PlayStop,
    PreviousFrame,
    NextFrame,
    Undo,
    Redo,
    Save,
    SaveAs,
    OpenProject,
    Quit,
    Help,
    ViewFront,
    ViewBack,
    ViewRight,
    ViewLeft,
    ViewTop,
    ViewBottom,
    /// Frame the selected bone.
    FrameSelection,
    /// Frame the whole avatar (the view it opened with).
    FrameAll,
    /// Move the selected bone (G).
    Move,
    /// Rotate the selected bone (R).
    Rotate,
    /// Pin or let go of the selected hand, foot or head (P).
    Pin,
    /// Turn the head (and neck, and the chest a little) to look at the pointer (L).
    Look,
    LockX,
    LockY,
    LockZ,
    Confirm,
    Cancel,
}

/// Where a binding applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Anywhere in the window, unless a text field has the keyboard.
    Window,
    /// In the 3D view, with a bone selected.
    Viewport,
    /// During a move or rotation.
    Modal,
}

/// Whether Shift must be held, must not be, or does not matter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shift {
    Any,
    Held,
    Released,
}

/// One key with its modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chord {
    pub key: KeyCode,
    pub ctrl: bool,
    pub shift: Shift,
}

const fn key(key: KeyCode) -> Chord {
    Chord {
        key,
        ctrl: false,
        shift: Shift::Any,
    }
}

const fn ctrl(key: KeyCode, shift: Shift) -> Chord {
    Chord {
        key,
        ctrl: true,
        shift,
    }
}

/// An action, its keys, and what the help says it does.
pub struct Binding {
    pub action: Action,
    pub scope: Scope,
    pub chords: &'static [Chord],
    /// The message id of what it does (see [`Binding::description`]).
    pub does: &'static str,
}

impl Binding {
    /// What it does, in the current language.
    pub fn description(&self) -> String {
        crate::tr!(self.does)
    }
}

pub const KEYMAP: &[Binding] = &[
    Binding {
        action: Action::ViewFront,
        scope: Scope::Viewport,
        chords: &[key(KeyCode::Numpad1)],
        does: "keys-view-front",
    },
    Binding {
        action: Action::ViewBack,
        scope: Scope::Viewport,
        chords: &[ctrl(KeyCode::Numpad1, Shift::Any)],
        does: "keys-view-back",
    },
    Binding {
        action: Action::ViewRight,
        scope: Scope::Viewport,
        chords: &[key(KeyCode::Numpad3)],
        does: "keys-view-right",
    },
    Binding {
        action: Action::ViewLeft,
        scope: Scope::Viewport,
        chords: &[ctrl(KeyCode::Numpad3, Shift::Any)],
        does: "keys-view-left",
    },
    Binding {
        action: Action::ViewTop,
        scope: Scope::Viewport,
        chords: &[key(KeyCode::Numpad7)],
        does: "keys-view-top",
    },
    Binding {
        action: Action::ViewBottom,
        scope: Scope::Viewport,
        chords: &[ctrl(KeyCode::Numpad7, Shift::Any)],
        does: "keys-view-bottom",
    },
    Binding {
        action: Action::FrameSelection,
        scope: Scope::Viewport,
        chords: &[key(KeyCode::KeyF), key(KeyCode::NumpadDecimal)],
        does: "keys-frame-selection",
    },
    Binding {
        action: Action::FrameAll,
        scope: Scope::Viewport,
        chords: &[key(KeyCode::Home)],
        does: "keys-frame-all",
    },
    Binding {
        action: Action::Move,
        scope: Scope::Viewport,
        chords: &[key(KeyCode::KeyG)],
        does: "keys-move",
    },
    Binding {
        action: Action::Rotate,
        scope: Scope::Viewport,
        chords: &[key(KeyCode::KeyR)],
        does: "keys-rotate",
    },
    Binding {
        action: Action::Pin,
        scope: Scope::Viewport,
        chords: &[key(KeyCode::KeyP)],
        does: "keys-pin",
    },
    Binding {
        action: Action::Look,
        scope: Scope::Viewport,
        chords: &[key(KeyCode::KeyL)],
        does: "keys-look",
    },
    Binding {
        action: Action::LockX,
        scope: Scope::Modal,
        chords: &[key(KeyCode::KeyX)],
        does: "keys-lock-x",
    },
    Binding {
        action: Action::LockY,
        scope: Scope::Modal,
        chords: &[key(KeyCode::KeyY)],
        does: "keys-lock-y",
    },
    Binding {
        action: Action::LockZ,
        scope: Scope::Modal,
        chords: &[key(KeyCode::KeyZ)],
        does: "keys-lock-z",
    },
    Binding {
        action: Action::Confirm,
        scope: Scope::Modal,
        chords: &[key(KeyCode::Enter), key(KeyCode::NumpadEnter)],
        does: "keys-confirm",
    },
    Binding {
        action: Action::Cancel,
        scope: Scope::Modal,
        chords: &[key(KeyCode::Escape)],
        does: "keys-cancel",
    },
    Binding {
        action: Action::AddKey,
        scope: Scope::Window,
        chords: &[key(KeyCode::KeyK)],
        does: "keys-add-key",
    },
    Binding {
        action: Action::DeleteKey,
        scope: Scope::Window,
        chords: &[key(KeyCode::Delete)],
        does: "keys-delete-key",
    },
    Binding {
        action: Action::SelectAllKeys,
        scope: Scope::Window,
        chords: &[ctrl(KeyCode::KeyA, Shift::Released)],
        does: "keys-select-all-keys",
    },
    Binding {
        action: Action::Copy,
        scope: Scope::Window,
        chords: &[ctrl(KeyCode::KeyC, Shift::Released)],
        does: "keys-copy",
    },
    Binding {
        action: Action::Paste,
        scope: Scope::Window,
        chords: &[ctrl(KeyCode::KeyV, Shift::Released)],
        does: "keys-paste",
    },
    Binding {
        action: Action::PasteMirrored,
        scope: Scope::Window,
        chords: &[ctrl(KeyCode::KeyV, Shift::Held)],
        does: "keys-paste-mirrored",
    },
    Binding {
        action: Action::DuplicateKeys,
        scope: Scope::Window,
        chords: &[ctrl(KeyCode::KeyD, Shift::Released)],
        does: "keys-duplicate-keys",
    },
    Binding {
        action: Action::PlayStop,
        scope: Scope::Window,
        chords: &[key(KeyCode::Space)],
        does: "keys-play-stop",
    },
    Binding {
        action: Action::PreviousFrame,
        scope: Scope::Window,
        chords: &[key(KeyCode::ArrowLeft)],
        does: "keys-previous-frame",
    },
    Binding {
        action: Action::NextFrame,
        scope: Scope::Window,
        chords: &[key(KeyCode::ArrowRight)],
        does: "keys-next-frame",
    },
    Binding {
        action: Action::Undo,
        scope: Scope::Window,
        chords: &[ctrl(KeyCode::KeyZ, Shift::Released)],
        does: "keys-undo",
    },
    Binding {
        action: Action::Redo,
        scope: Scope::Window,
        chords: &[
            ctrl(KeyCode::KeyY, Shift::Any),
            ctrl(KeyCode::KeyZ, Shift::Held),
        ],
        does: "keys-redo",
    },
    Binding {
        action: Action::Save,
        scope: Scope::Window,
        chords: &[ctrl(KeyCode::KeyS, Shift::Released)],
        does: "keys-save",
    },
    Binding {
        action: Action::SaveAs,
        scope: Scope::Window,
        chords: &[ctrl(KeyCode::KeyS, Shift::Held)],
        does: "keys-save-as",
    },
    Binding {
        action: Action::OpenProject,
        scope: Scope::Window,
        chords: &[ctrl(KeyCode::KeyO, Shift::Released)],
        does: "keys-open-project",
    },
    Binding {
        action: Action::Quit,
        scope: Scope::Window,
        chords: &[ctrl(KeyCode::KeyQ, Shift::Released)],
        does: "keys-quit",
    },
    Binding {
        action: Action::Help,
        scope: Scope::Window,
        chords: &[key(KeyCode::F1)],
        does: "keys-help",
    },
];

/// Mouse and drag actions, for the help (they have no keys to rebind): message ids,
/// each the gesture with what it does as its `.does` attribute.
pub const MOUSE: &[&str] = &[
    "keys-mouse-select",
    "keys-mouse-gizmo",
    "keys-mouse-orbit",
    "keys-mouse-pan",
    "keys-mouse-zoom",
    "keys-mouse-timeline",
    "keys-mouse-library",
    "keys-mouse-drop-model",
    "keys-mouse-drop-json",
];

impl Chord {
    fn matches(&self, key: KeyCode, ctrl: bool, shift: bool) -> bool {
        self.key == key
            && self.ctrl == ctrl
            && match self.shift {
                Shift::Any => true,
                Shift::Held => shift,
                Shift::Released => !shift,
            }
    }

    /// "Ctrl+Shift+S", "K", "Left arrow".
    pub fn label(&self) -> String {
        let mut label = String::new();
        if self.ctrl {
            label.push_str("Ctrl+");
        }
        if self.shift == Shift::Held {
            label.push_str("Shift+");
        }
        label.push_str(&key_name(self.key));
        label
    }
}

fn key_name(key: KeyCode) -> String {
    match key {
        KeyCode::ArrowLeft => "Left arrow".into(),
        KeyCode::ArrowRight => "Right arrow".into(),
        KeyCode::Escape => "Esc".into(),
        KeyCode::NumpadEnter => "Keypad Enter".into(),
        KeyCode::NumpadDecimal => "Keypad .".into(),
        KeyCode::Numpad1 => "Keypad 1".into(),
        KeyCode::Numpad3 => "Keypad 3".into(),
        KeyCode::Numpad7 => "Keypad 7".into(),
        other => {
            let name = format!("{other:?}");
            name.strip_prefix("Key").map(str::to_string).unwrap_or(name)
        }
    }
}

fn binding(action: Action) -> &'static Binding {
    KEYMAP
        .iter()
        .find(|b| b.action == action)
        .expect("every action has a binding")
}

/// The window-wide action a key press asks for, given the modifiers held.
pub fn window_action(key: KeyCode, ctrl: bool, shift: bool) -> Option<Action> {
    KEYMAP
        .iter()
        .filter(|b| b.scope == Scope::Window)
        .find(|b| b.chords.iter().any(|c| c.matches(key, ctrl, shift)))
        .map(|b| b.action)
}

/// Whether a viewport or modal action's key was just pressed (Ctrl not held).
pub fn just_pressed(action: Action, keys: &ButtonInput<KeyCode>) -> bool {
    let ctrl = keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]);
    binding(action)
        .chords
        .iter()
        .any(|c| c.ctrl == ctrl && keys.just_pressed(c.key))
}

/// The first chord of an action, as menus show it ("Ctrl+Z").
pub fn menu_keys(action: Action) -> String {
    binding(action)
        .chords
        .first()
        .map(Chord::label)
        .unwrap_or_default()
}

/// Every chord of an action, as the help lists them ("Ctrl+Y, Ctrl+Shift+Z").
pub fn help_keys(binding: &Binding) -> String {
    binding
        .chords
        .iter()
        .map(Chord::label)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A menu entry's text: the label and its keys, e.g. "Undo   Ctrl+Z".
pub fn menu_label(label: &str, action: Action) -> String {
    format!("{label}   {}", menu_keys(action))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_keys_map_to_their_actions() {
        use Action::*;
        for (key, ctrl, shift, wanted) in [
            (KeyCode::KeyK, false, false, Some(AddKey)),
            (KeyCode::Space, false, false, Some(PlayStop)),
            (KeyCode::ArrowLeft, false, false, Some(PreviousFrame)),
            (KeyCode::ArrowRight, false, false, Some(NextFrame)),
            (KeyCode::Delete, false, false, Some(DeleteKey)),
            (KeyCode::KeyZ, true, false, Some(Undo)),
            (KeyCode::KeyY, true, false, Some(Redo)),
            (KeyCode::KeyZ, true, true, Some(Redo)),
            (KeyCode::KeyS, true, false, Some(Save)),
            (KeyCode::KeyS, true, true, Some(SaveAs)),
            (KeyCode::KeyO, true, false, Some(OpenProject)),
            (KeyCode::KeyQ, true, false, Some(Quit)),
            (KeyCode::F1, false, false, Some(Help)),
            // Plain Z is an axis lock during G / R, not a window shortcut.
            (KeyCode::KeyZ, false, false, None),
            (KeyCode::KeyG, false, false, None),
        ] {
            assert_eq!(
                window_action(key, ctrl, shift),
                wanted,
                "{key:?} {ctrl} {shift}"
            );
        }
    }

    #[test]
    fn labels_come_from_the_chords() {
        assert_eq!(menu_keys(Action::Undo), "Ctrl+Z");
        assert_eq!(menu_keys(Action::SaveAs), "Ctrl+Shift+S");
        assert_eq!(help_keys(binding(Action::Redo)), "Ctrl+Y, Ctrl+Shift+Z");
        assert_eq!(menu_keys(Action::PreviousFrame), "Left arrow");
        assert_eq!(menu_label("Quit", Action::Quit), "Quit   Ctrl+Q");
    }

    #[test]
    fn the_help_has_words_for_every_binding_and_mouse_action_in_both_languages() {
        use crate::app::session::language::{Language, lookup};
        let ids = KEYMAP.iter().map(|b| b.does.to_string()).chain(
            MOUSE
                .iter()
                .flat_map(|id| [id.to_string(), format!("{id}.does")]),
        );
        for id in ids {
            for language in Language::ALL {
                assert!(
                    lookup(language, &id, None).is_some_and(|t| !t.trim().is_empty()),
                    "{id} in {}",
                    language.tag()
                );
            }
        }
    }

    #[test]
    fn no_chord_asks_for_two_actions_in_one_scope() {
        for a in KEYMAP {
            for b in KEYMAP
                .iter()
                .filter(|b| b.scope == a.scope && b.action != a.action)
            {
                for ca in a.chords {
                    assert!(
                        !b.chords.iter().any(|cb| cb.key == ca.key
                            && cb.ctrl == ca.ctrl
                            && (cb.shift == ca.shift
                                || cb.shift == Shift::Any
                                || ca.shift == Shift::Any)),
                        "{:?} and {:?} share {}",
                        a.action,
                        b.action,
                        ca.label()
                    );
                }
            }
        }
    }
}
