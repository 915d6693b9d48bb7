//! The F1 help: every mouse action and every key of the key map.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use crate::app::session::Windows;
use crate::app::session::keymap::{KEYMAP, MOUSE, help_keys};
use crate::tr;

pub(super) fn draw(mut contexts: EguiContexts, mut windows: ResMut<Windows>) -> Result {
    if !windows.help {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?.clone();
    let mut open = true;
    egui::Window::new(tr!("keys-help-title"))
        .id(egui::Id::new("Controls"))
        .open(&mut open)
        .show(&ctx, |ui| {
            egui::Grid::new("help-grid").striped(true).show(ui, |ui| {
                for id in MOUSE {
                    ui.strong(tr!(id));
                    ui.label(tr!(&format!("{id}.does")));
                    ui.end_row();
                }
                for binding in KEYMAP {
                    ui.strong(help_keys(binding));
                    ui.label(binding.description());
                    ui.end_row();
                }
            });
        });
    windows.help = open;
    Ok(())
}
