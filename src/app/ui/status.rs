//! The error banner under the menu and the status line at the bottom: work in progress
//! (a spinner, an export's bar) and the latest notice.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use crate::app::session::{Banner, UiSpace};
use crate::tr;

pub(super) fn draw(
    mut contexts: EguiContexts,
    mut space: ResMut<UiSpace>,
    mut banner: ResMut<Banner>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    space.show(&ctx, "banner-and-status", |root| {
        if let Some(error) = banner.error.clone() {
            egui::Panel::top("error-banner")
                .frame(
                    egui::Frame::new()
                        .fill(egui::Color32::from_rgb(120, 28, 28))
                        .inner_margin(6.0),
                )
                .show(root, |ui| {
                    ui.horizontal(|ui| {
                        ui.colored_label(egui::Color32::WHITE, format!("⚠ {error}"));
                        if ui.button(tr!("ui-status-dismiss")).clicked() {
                            banner.error = None;
                        }
                    });
                });
        }
        egui::Panel::bottom("status").show(root, |ui| {
            if let Some(line) = &banner.progress {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label(line);
                });
            }
            if let Some((label, fraction)) = banner.bar.clone() {
                ui.horizontal(|ui| {
                    if let Some(cancel) = &banner.cancel
                        && ui.button(tr!("ui-status-cancel")).clicked()
                    {
                        cancel.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                    ui.add(
                        egui::ProgressBar::new(fraction)
                            .text(format!("{label}… {:.0}%", fraction * 100.0)),
                    );
                });
            }
            let notice = banner
                .notice
                .clone()
                .unwrap_or_else(|| tr!("ui-status-hint"));
            ui.label(notice);
        });
    });
    Ok(())
}
