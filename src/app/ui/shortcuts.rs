//! The window's keyboard shortcuts (SPEC §9), read from the key map; off while egui has
//! the keyboard (typing in a field) or a modal G / R owns it. Key *events* are read, not
//! once-per-frame key state, so two presses within one slow frame are two presses.

use bevy::input::ButtonState;
use bevy::input::keyboard::KeyboardInput;
use bevy::prelude::*;
use bevy_egui::input::EguiWantsInput;

use super::Requests;
use crate::app::session::keymap::{Action, window_action};
use crate::app::session::{
    DialogPurpose, EditRequest, FileRequest, ModalTool, PasteMask, PlacingKeys, QuitRequested,
    Session, Windows,
};
use crate::core::animation::edit::{Edit, KeyEdit, SelectMode};
use crate::core::animation::timeline::{FPS, KeyPick};

pub(super) fn shortcuts(
    mut presses: MessageReader<KeyboardInput>,
    keys: Res<ButtonInput<KeyCode>>,
    egui_input: Option<Res<EguiWantsInput>>,
    modal: Res<ModalTool>,
    (session, paste_mask, mut placing, camera): (
        Res<Session>,
        Res<PasteMask>,
        ResMut<PlacingKeys>,
        Res<crate::app::session::CameraFollow>,
    ),
    mut windows: ResMut<Windows>,
    mut out: Requests,
) {
    if egui_input.is_some_and(|e| e.wants_any_keyboard_input()) || modal.0 {
        presses.clear();
        return;
    }
    // A modifier released in the same frame still counts: on a slow frame a quick chord
    // (press Ctrl, tap Z, release Ctrl) arrives all at once.
    let held = |a, b| keys.any_pressed([a, b]) || keys.any_just_released([a, b]);
    let ctrl = held(KeyCode::ControlLeft, KeyCode::ControlRight);
    let shift = held(KeyCode::ShiftLeft, KeyCode::ShiftRight);
    // The playhead as this frame's earlier presses left it (the edits apply later).
    let mut playhead = session.editor.playhead;
    let playing = session.editor.playing;
    let pressed = presses
        .read()
        .filter(|k| k.state == ButtonState::Pressed)
        .map(|k| (k.key_code, k.repeat))
        .collect::<Vec<_>>();
    for (key, repeat) in pressed {
        let Some(action) = window_action(key, ctrl, shift) else {
            continue;
        };
        // Holding a frame step repeats it; every other action happens once per press.
        if repeat && !matches!(action, Action::PreviousFrame | Action::NextFrame) {
            continue;
        }
        let edit = match action {
            Action::AddKey => Edit::Keys(KeyEdit::Add),
            Action::DeleteKey if !session.editor.selection.is_empty() => {
                Edit::Keys(KeyEdit::DeleteSelected)
            }
            Action::DeleteKey => Edit::Keys(KeyEdit::Delete),
            Action::SelectAllKeys => Edit::Keys(KeyEdit::Select {
                pick: KeyPick::All,
                mode: SelectMode::Replace,
            }),
            Action::Copy => session.editor.copy_edit(),
            Action::Paste | Action::PasteMirrored => Edit::PasteLast {
                mirror: action == Action::PasteMirrored,
                mask: paste_mask.0,
            },
            Action::DuplicateKeys => match session.editor.duplicate_at() {
                Some(t) => {
                    placing.active = true;
                    Edit::Keys(KeyEdit::Duplicate { t })
                }
                None => continue,
            },
            // Following the camera, Space keeps the pose as a key instead.
            Action::PlayStop if camera.wanted => {
                out.captures.write(crate::app::session::CaptureKey);
                continue;
            }
            Action::PlayStop => Edit::SetPlaying(!playing),
            Action::PreviousFrame => {
                playhead = (playhead - 1.0 / FPS).max(0.0);
                Edit::Seek(playhead)
            }
            Action::NextFrame => {
                playhead += 1.0 / FPS;
                Edit::Seek(playhead)
            }
            Action::Undo => Edit::Undo,
            Action::Redo => Edit::Redo,
            Action::Save | Action::SaveAs => {
                out.files.write(FileRequest::Save {
                    save_as: action == Action::SaveAs,
                    then_quit: false,
                });
                continue;
            }
            Action::OpenProject => {
                out.files
                    .write(FileRequest::Dialog(DialogPurpose::OpenProject));
                continue;
            }
            Action::Quit => {
                out.quits.write(QuitRequested);
                continue;
            }
            Action::Help => {
                windows.help = !windows.help;
                continue;
            }
            // Viewport and modal keys are the viewport's.
            Action::ViewFront
            | Action::ViewBack
            | Action::ViewRight
            | Action::ViewLeft
            | Action::ViewTop
            | Action::ViewBottom
            | Action::FrameSelection
            | Action::FrameAll
            | Action::Move
            | Action::Rotate
            | Action::Pin
            | Action::Look
            | Action::LockX
            | Action::LockY
            | Action::LockZ
            | Action::Confirm
            | Action::Cancel => continue,
        };
        out.edits.write(EditRequest(edit));
    }
}
