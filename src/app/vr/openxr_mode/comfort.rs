//! Comfort in VR: turning, walking, recentring and scaling the player, that is, where
//! their floor space (the tracking root, a [`Place`]) stands in the world.

use bevy::prelude::*;

use super::{PanelMode, VrInput};
use crate::core::vr::panel::pinned_at_start;
use crate::core::vr::{HandInput, PRESS_AT, Place, Pointer, walk_step};

/// The tracking root's transform for a place of the player.
pub(super) fn root_transform(place: &Place) -> Transform {
    Transform {
        translation: place.translation,
        rotation: place.rotation,
        scale: Vec3::splat(place.scale),
    }
}

/// Scaling the player with both grips (`floor_grips`, in floor space), given what each
/// hand does this frame (`hands`).
pub(super) fn scale_player(
    input: &mut VrInput,
    hands: &[HandInput; 2],
    floor_grips: &[Option<Pointer>; 2],
) {
    // Both grips squeezed with no sphere in either: the pull scales the avatar.
    let free =
        |hand: usize| hands[hand].squeeze >= PRESS_AT && input.grabber.hands[hand].grab.is_none();
    let grips = match (floor_grips[0], floor_grips[1]) {
        (Some(l), Some(r)) if free(0) && free(1) => Some((l.position, r.position)),
        _ => None,
    };
    let place = input.place;
    if let Some(scaled) = input.scale.update(grips, &place) {
        if (scaled.scale - place.scale).abs() > 1e-6 {
            debug!("VR: avatar shown at {:.2}×", scaled.avatar_scale());
        }
        input.place = scaled;
    }
}

/// Turning and walking with the left stick (`left`), from the head in floor space
/// (`head_floor`: where it is, where it looks); not while scaling.
pub(super) fn turn_and_walk(input: &mut VrInput, left: Vec2, head_floor: (Vec3, Vec3), dt: f32) {
    if !input.scale.active() {
        let mode = input.turn_mode;
        let turn = input.turner.step(left.x, mode, dt);
        if turn != 0.0 {
            input.place = input.place.turned(head_floor.0, turn);
        }
        let head_forward = input.place.rotation * head_floor.1;
        input.place.translation += walk_step(Vec2::new(0.0, left.y), head_forward, dt);
    }
}

/// Recentring while the left stick is held down (`held`), from the head in floor space.
pub(super) fn recentre_player(input: &mut VrInput, held: bool, head_floor: (Vec3, Vec3), dt: f32) {
    // Hold the left stick down: back in front of the avatar, facing it; the panel
    // goes back to its first place.
    if input.recentre.update(held, dt) {
        input.place = input.place.recentred(head_floor.0, head_floor.1);
        input.panel = PanelMode::Pinned(pinned_at_start());
        info!("VR: recentred");
    }
}
