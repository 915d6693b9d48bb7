//! Keyboard shortcuts of the editor window (SPEC §9), off while egui has the keyboard
//! (typing in a field).

use bevy::prelude::*;
use bevy_egui::input::EguiWantsInput;

use super::close_guard::QuitRequested;
use super::files::{DialogPurpose, FileDialogs, SaveProject};
use super::session::{EditRequest, Session};
use crate::core::edit::{Edit, Gesture, KeyEdit, PoseEdit};
use crate::core::timeline::FPS;

pub fn plugin(app: &mut App) {
    app.add_systems(Update, shortcuts);
}

/// The action a key press asks for, given the modifiers held.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shortcut {
    Edit(EditShortcut),
    Save { save_as: bool },
    OpenProject,
    Quit,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EditShortcut {
    AddKey,
    DeleteKey,
    TogglePlay,
    StepFrame(i32),
    Undo,
    Redo,
}

/// Maps a pressed key to its action (the table in SPEC §9).
pub fn shortcut_for(key: KeyCode, ctrl: bool, shift: bool) -> Option<Shortcut> {
    use EditShortcut::*;
    Some(match (key, ctrl, shift) {
        (KeyCode::KeyK, false, _) => Shortcut::Edit(AddKey),
        (KeyCode::Delete, false, _) => Shortcut::Edit(DeleteKey),
        (KeyCode::Space, false, _) => Shortcut::Edit(TogglePlay),
        (KeyCode::ArrowLeft, false, _) => Shortcut::Edit(StepFrame(-1)),
        (KeyCode::ArrowRight, false, _) => Shortcut::Edit(StepFrame(1)),
        (KeyCode::KeyZ, true, false) => Shortcut::Edit(Undo),
        (KeyCode::KeyZ, true, true) | (KeyCode::KeyY, true, _) => Shortcut::Edit(Redo),
        (KeyCode::KeyS, true, shift) => Shortcut::Save { save_as: shift },
        (KeyCode::KeyO, true, false) => Shortcut::OpenProject,
        (KeyCode::KeyQ, true, false) => Shortcut::Quit,
        _ => return None,
    })
}

#[allow(clippy::too_many_arguments)]
fn shortcuts(
    keys: Res<ButtonInput<KeyCode>>,
    egui_input: Option<Res<EguiWantsInput>>,
    session: Res<Session>,
    mut edits: MessageWriter<EditRequest>,
    mut saves: MessageWriter<SaveProject>,
    mut quits: MessageWriter<QuitRequested>,
    mut dialogs: ResMut<FileDialogs>,
    posing: Res<super::posing::Posing>,
) {
    if egui_input.is_some_and(|e| e.wants_any_keyboard_input()) || posing.active.is_some() {
        return;
    }
    // A modifier released in the same frame still counts: on a slow frame a quick chord
    // (press Ctrl, tap Z, release Ctrl) arrives all at once.
    let held = |a, b| keys.any_pressed([a, b]) || keys.any_just_released([a, b]);
    let ctrl = held(KeyCode::ControlLeft, KeyCode::ControlRight);
    let shift = held(KeyCode::ShiftLeft, KeyCode::ShiftRight);
    let editor = &session.editor;
    for key in keys.get_just_pressed() {
        let Some(shortcut) = shortcut_for(*key, ctrl, shift) else {
            continue;
        };
        let edit = match shortcut {
            Shortcut::Edit(EditShortcut::AddKey) => Edit::Keys(KeyEdit::Add),
            Shortcut::Edit(EditShortcut::DeleteKey) => Edit::Keys(KeyEdit::Delete),
            Shortcut::Edit(EditShortcut::TogglePlay) => Edit::SetPlaying(!editor.playing),
            Shortcut::Edit(EditShortcut::StepFrame(n)) => {
                Edit::Seek((editor.playhead + n as f32 / FPS).max(0.0))
            }
            Shortcut::Edit(EditShortcut::Undo) => Edit::Undo,
            Shortcut::Edit(EditShortcut::Redo) => Edit::Redo,
            Shortcut::Save { save_as } => {
                saves.write(SaveProject { save_as });
                continue;
            }
            Shortcut::OpenProject => {
                dialogs.open(DialogPurpose::OpenProject);
                continue;
            }
            Shortcut::Quit => {
                quits.write(QuitRequested);
                continue;
            }
        };
        edits.write(EditRequest(edit));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_keys_map_to_their_actions() {
        use EditShortcut::*;
        assert_eq!(
            shortcut_for(KeyCode::KeyK, false, false),
            Some(Shortcut::Edit(AddKey))
        );
        assert_eq!(
            shortcut_for(KeyCode::Space, false, false),
            Some(Shortcut::Edit(TogglePlay))
        );
        assert_eq!(
            shortcut_for(KeyCode::ArrowLeft, false, false),
            Some(Shortcut::Edit(StepFrame(-1)))
        );
        assert_eq!(
            shortcut_for(KeyCode::ArrowRight, false, false),
            Some(Shortcut::Edit(StepFrame(1)))
        );
        assert_eq!(
            shortcut_for(KeyCode::Delete, false, false),
            Some(Shortcut::Edit(DeleteKey))
        );
        assert_eq!(
            shortcut_for(KeyCode::KeyZ, true, false),
            Some(Shortcut::Edit(Undo))
        );
        assert_eq!(
            shortcut_for(KeyCode::KeyY, true, false),
            Some(Shortcut::Edit(Redo))
        );
        assert_eq!(
            shortcut_for(KeyCode::KeyZ, true, true),
            Some(Shortcut::Edit(Redo))
        );
        assert_eq!(
            shortcut_for(KeyCode::KeyS, true, false),
            Some(Shortcut::Save { save_as: false })
        );
        assert_eq!(
            shortcut_for(KeyCode::KeyS, true, true),
            Some(Shortcut::Save { save_as: true })
        );
        assert_eq!(
            shortcut_for(KeyCode::KeyO, true, false),
            Some(Shortcut::OpenProject)
        );
        assert_eq!(shortcut_for(KeyCode::KeyZ, false, false), None);
    }
}
