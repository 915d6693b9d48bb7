//! The VR panel: the pose library and the timeline drawn by egui into a texture on a quad
//! in the world, worked with a laser and the trigger (or a pinch) or a bare fingertip's
//! poke. Pure: the panel's layout in egui points (the app draws each control in its
//! rectangle, and the tests aim at the same rectangles), where the panel stands, what a
//! laser or a fingertip touches on it, and when that is a press.
//!
//! Panel coordinates are egui's: points from the top left corner, x right, y down. The
//! quad's own frame has +X right, +Y up and +Z out of its face, towards the user.

use glam::{Quat, Vec2, Vec3};

use crate::vr::{PRESS_AT, Place, Pointer, RELEASE_AT};

/// The panel's size in egui points.
pub const PANEL_POINTS: Vec2 = Vec2::new(1024.0, 576.0);
/// Texture pixels per point: 1280 × 720 pixels, text sharp at arm's length.
pub const PANEL_ZOOM: f32 = 1.25;
/// Metres per point when pinned: the panel is 0.96 m × 0.54 m.
pub const METRES_PER_POINT: f32 = 0.96 / 1024.0;
/// Held in the left hand like a palette, it is drawn at this fraction of its size.
pub const PALETTE_SCALE: f32 = 0.5;

/// A fingertip this close in front of the panel (metres) moves its pointer…
pub const POKE_HOVER: f32 = 0.06;
/// …presses when it comes within this of the face (or through it)…
pub const POKE_PRESS: f32 = 0.008;
/// …and lets go when it is back further than this (hysteresis: no double clicks).
pub const POKE_RELEASE: f32 = 0.02;
/// A fingertip further behind the face than this is not poking it (a hand reaching
/// past the panel for a sphere).
pub const POKE_BEHIND: f32 = 0.05;

/// A press and release is a click when held up to this long (a trigger is pulled more
/// slowly than a mouse button is clicked)…
pub const CLICK_SECONDS: f64 = 2.0;
/// …and when the pointer moved less than this meanwhile (points: a hand-held laser
/// shakes more than a mouse).
pub const CLICK_TRAVEL: f32 = 14.0;

/// The texture's size in pixels.
pub fn panel_pixels() -> (u32, u32) {
    let px = PANEL_POINTS * PANEL_ZOOM;
    (px.x.round() as u32, px.y.round() as u32)
}

/// A rectangle in panel points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PanelRect {
    pub min: Vec2,
    pub size: Vec2,
}

impl PanelRect {
    pub const fn new(x: f32, y: f32, w: f32, h: f32) -> PanelRect {
        PanelRect {
            min: Vec2::new(x, y),
            size: Vec2::new(w, h),
        }
    }

    pub fn max(&self) -> Vec2 {
        self.min + self.size
    }

    pub fn center(&self) -> Vec2 {
        self.min + self.size * 0.5
    }

    pub fn contains(&self, p: Vec2) -> bool {
        p.cmpge(self.min).all() && p.cmple(self.max()).all()
    }
}

/// The title row: what the panel is, and the button that holds it in the left hand or
/// pins it where it is.
pub const HEADER: PanelRect = PanelRect::new(8.0, 6.0, 1008.0, 36.0);
pub const PIN_BUTTON: PanelRect = PanelRect::new(860.0, 6.0, 156.0, 36.0);
/// Exports the timeline as VRMA beside the project (no dialog in the headset).
pub const EXPORT_BUTTON: PanelRect = PanelRect::new(500.0, 6.0, 172.0, 36.0);
/// Snap or smooth turning on the left stick.
pub const TURN_BUTTON: PanelRect = PanelRect::new(680.0, 6.0, 172.0, 36.0);

/// The pose library: a title row with page buttons, then a grid of thumbnails.
pub const LIBRARY: PanelRect = PanelRect::new(8.0, 48.0, 1008.0, 336.0);
pub const LIBRARY_PREVIOUS: PanelRect = PanelRect::new(860.0, 48.0, 74.0, 30.0);
pub const LIBRARY_NEXT: PanelRect = PanelRect::new(942.0, 48.0, 74.0, 30.0);
pub const LIBRARY_COLUMNS: usize = 8;
pub const LIBRARY_ROWS: usize = 2;
/// A thumbnail (the library's 96 × 128) and its name under it.
pub const LIBRARY_THUMBNAIL: Vec2 = Vec2::new(96.0, 128.0);
const LIBRARY_GRID: Vec2 = Vec2::new(16.0, 84.0);
const LIBRARY_PITCH: Vec2 = Vec2::new(124.0, 150.0);

/// The thumbnail of the `slot`th entry shown on a page (row by row).
pub fn library_slot(slot: usize) -> PanelRect {
    let (col, row) = (slot % LIBRARY_COLUMNS, slot / LIBRARY_COLUMNS);
    let min = LIBRARY_GRID + LIBRARY_PITCH * Vec2::new(col as f32, row as f32);
    PanelRect {
        min,
        size: LIBRARY_THUMBNAIL,
    }
}

pub const LIBRARY_PAGE: usize = LIBRARY_COLUMNS * LIBRARY_ROWS;

/// The timeline's buttons, in one row above its ruler.
pub const PLAY_BUTTON: PanelRect = PanelRect::new(8.0, 390.0, 110.0, 40.0);
pub const ADD_KEY_BUTTON: PanelRect = PanelRect::new(126.0, 390.0, 110.0, 40.0);
pub const DELETE_KEY_BUTTON: PanelRect = PanelRect::new(244.0, 390.0, 110.0, 40.0);
/// Cycles the ease of the selected keys (or the key at the playhead).
pub const EASE_BUTTON: PanelRect = PanelRect::new(362.0, 390.0, 170.0, 40.0);
pub const UNDO_BUTTON: PanelRect = PanelRect::new(540.0, 390.0, 100.0, 40.0);
pub const REDO_BUTTON: PanelRect = PanelRect::new(648.0, 390.0, 100.0, 40.0);
/// The playhead's time and frame, read only.
pub const TIME_LABEL: PanelRect = PanelRect::new(756.0, 390.0, 260.0, 40.0);
/// The desktop timeline's ruler (keys, thumbnails, playhead, drops from the library).
pub const RULER: PanelRect = PanelRect::new(8.0, 438.0, 1008.0, 96.0);
/// One line of help along the bottom.
pub const HINT: PanelRect = PanelRect::new(8.0, 542.0, 1008.0, 28.0);

/// Where the panel is: its centre, its rotation (its face looks along its +Z) and the
/// metres per point it is drawn at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PanelPlace {
    pub center: Vec3,
    pub rotation: Quat,
    pub metres_per_point: f32,
    /// Its size in points ([`PANEL_POINTS`], or [`RADIAL_POINTS`] for the hand menu).
    pub points: Vec2,
}

/// Where a laser or fingertip meets the panel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PanelHit {
    /// Panel points.
    pub at: Vec2,
    /// Along the laser (metres); for a fingertip, how far in front of the face it is
    /// (negative behind it).
    pub distance: f32,
}

/// A rotation whose +Z looks from `from` towards `to`, upright (its +Y as near the world's
/// up as it can be).
pub fn facing(from: Vec3, to: Vec3) -> Quat {
    let z = (to - from).normalize_or(Vec3::Z);
    let x = Vec3::Y.cross(z).normalize_or(Vec3::X);
    let y = z.cross(x);
    Quat::from_mat3(&glam::Mat3::from_cols(x, y, z)).normalize()
}

/// Where the panel is pinned when VR starts, in the player's floor space (the tracking
/// root's frame): to the front left at chest height, turned to face the head, so the
/// avatar 2 m ahead stays in full view.
pub fn pinned_at_start() -> PanelPlace {
    let center = Vec3::new(-0.62, 1.15, -0.48);
    PanelPlace {
        center,
        rotation: facing(center, Vec3::new(0.0, 1.6, 0.0)),
        metres_per_point: METRES_PER_POINT,
        points: PANEL_POINTS,
    }
}

/// The panel held like a palette by the left controller: above and a little in front of
/// the hand, tilted towards the user, at half size.
pub fn palette_at(grip: &Pointer) -> PanelPlace {
    let tilt = Quat::from_rotation_x(-std::f32::consts::FRAC_PI_4);
    let scale = METRES_PER_POINT * PALETTE_SCALE;
    let lift = Vec3::new(0.0, PANEL_POINTS.y * scale * 0.5 + 0.04, -0.06);
    PanelPlace {
        center: grip.position + grip.rotation * lift,
        rotation: (grip.rotation * tilt).normalize(),
        metres_per_point: scale,
        points: PANEL_POINTS,
    }
}

/// The hand-preset menu's size in points (a ring of buttons in a square texture).
pub const RADIAL_POINTS: Vec2 = Vec2::new(360.0, 360.0);
/// It is 22 cm across.
pub const RADIAL_METRES_PER_POINT: f32 = 0.22 / 360.0;
/// The preset buttons on the ring…
const RADIAL_ITEM: Vec2 = Vec2::new(96.0, 40.0);
const RADIAL_RADIUS: f32 = 128.0;
/// …and, in the middle, which of the avatar's hands they shape.
pub const RADIAL_SIDE: PanelRect = PanelRect::new(130.0, 160.0, 100.0, 40.0);

/// The `slot`th of `count` preset buttons, clockwise from the top.
pub fn radial_slot(slot: usize, count: usize) -> PanelRect {
    let angle = std::f32::consts::TAU * slot as f32 / count.max(1) as f32;
    let centre = RADIAL_POINTS * 0.5 + Vec2::new(angle.sin(), -angle.cos()) * RADIAL_RADIUS;
    PanelRect {
        min: centre - RADIAL_ITEM * 0.5,
        size: RADIAL_ITEM,
    }
}

/// The hand-preset menu around the left controller: just above it, tilted towards the
/// user like the palette.
pub fn radial_at(grip: &Pointer) -> PanelPlace {
    let tilt = Quat::from_rotation_x(-std::f32::consts::FRAC_PI_4);
    PanelPlace {
        center: grip.position + grip.rotation * Vec3::new(0.0, 0.09, -0.03),
        rotation: (grip.rotation * tilt).normalize(),
        metres_per_point: RADIAL_METRES_PER_POINT,
        points: RADIAL_POINTS,
    }
}

impl PanelPlace {
    /// A place in the player's floor space, in the world the player's `place` puts it.
    pub fn in_world(&self, place: &Place) -> PanelPlace {
        PanelPlace {
            center: place.point(self.center),
            rotation: (place.rotation * self.rotation).normalize(),
            metres_per_point: self.metres_per_point * place.scale,
            points: self.points,
        }
    }

    /// The panel's size in metres.
    pub fn size(&self) -> Vec2 {
        self.points * self.metres_per_point
    }

    pub fn normal(&self) -> Vec3 {
        self.rotation * Vec3::Z
    }

    /// The world point of a panel point.
    pub fn point(&self, at: Vec2) -> Vec3 {
        let local = Vec3::new(
            (at.x - self.points.x * 0.5) * self.metres_per_point,
            (self.points.y * 0.5 - at.y) * self.metres_per_point,
            0.0,
        );
        self.center + self.rotation * local
    }

    /// The panel point under a world point (projected onto the panel's plane), and how
    /// far in front of the face that point is.
    pub fn project(&self, world: Vec3) -> PanelHit {
        let local = self.rotation.inverse() * (world - self.center);
        let at = Vec2::new(
            local.x / self.metres_per_point + self.points.x * 0.5,
            self.points.y * 0.5 - local.y / self.metres_per_point,
        );
        PanelHit {
            at,
            distance: local.z,
        }
    }

    fn inside(&self, at: Vec2) -> bool {
        PanelRect {
            min: Vec2::ZERO,
            size: self.points,
        }
        .contains(at)
    }

    /// Where a laser from in front of the panel meets it (`None` when it misses, points
    /// away or comes from behind).
    pub fn ray_hit(&self, origin: Vec3, direction: Vec3) -> Option<PanelHit> {
        let normal = self.normal();
        let dir = direction.normalize_or_zero();
        let facing = dir.dot(normal);
        if facing > -1e-4 || normal.dot(origin - self.center) <= 0.0 {
            return None;
        }
        let t = normal.dot(self.center - origin) / facing;
        let hit = self.project(origin + dir * t);
        (t.is_finite() && t >= 0.0 && self.inside(hit.at)).then_some(PanelHit {
            at: hit.at,
            distance: t,
        })
    }

    /// A fingertip over the panel: where, and how far in front of its face (from
    /// [`POKE_HOVER`] in front to [`POKE_BEHIND`] behind).
    pub fn poke(&self, tip: Vec3) -> Option<PanelHit> {
        let hit = self.project(tip);
        (self.inside(hit.at) && hit.distance <= POKE_HOVER && hit.distance >= -POKE_BEHIND)
            .then_some(hit)
    }
}

/// What egui is told about the panel's pointer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PanelEvent {
    Moved(Vec2),
    Pressed(Vec2),
    Released(Vec2),
    /// Nothing points at the panel any more.
    Gone,
}

/// One hand at the panel this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PanelReach {
    /// The laser's hit, when it reaches the panel before any sphere.
    pub laser: Option<PanelHit>,
    /// Trigger value, or 1 while the hand pinches.
    pub press: f32,
    /// The index fingertip over the panel (hand tracking).
    pub poke: Option<PanelHit>,
}

/// How a hand is pressing the panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Press {
    Laser,
    Poke,
}

/// The panel's one pointer, worked by either hand: the hand pressing it owns it until it
/// lets go; otherwise the one pointing at it (the right hand first). A press that
/// starts on the panel stays the panel's (its drags follow the laser over the edge),
/// and a hand is the panel's while it points at it, so the laser and trigger never
/// also grab a sphere behind it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PanelPointer {
    owner: Option<usize>,
    press: Option<Press>,
    /// The last position sent, and whether something pointed at the panel.
    last: Option<Vec2>,
    /// The trigger was already down when the laser came onto the panel: it is not a
    /// press until it has been let go.
    held_outside: [bool; 2],
}

impl PanelPointer {
    /// Whether `hand`'s laser and trigger belong to the panel this frame (after
    /// [`PanelPointer::update`]): the grabber must not see them.
    pub fn takes(&self, hand: usize, reach: &PanelReach) -> bool {
        self.owner == Some(hand) || reach.laser.is_some() || reach.poke.is_some()
    }

    /// Whether a press is on the panel now.
    pub fn pressing(&self) -> bool {
        self.press.is_some()
    }

    /// Whether `hand` is pressing the panel with its laser: its laser then counts where
    /// it crosses the panel's plane ([`on_plane`]), so a drag follows it over the edge.
    pub fn laser_pressing(&self, hand: usize) -> bool {
        self.owner == Some(hand) && self.press == Some(Press::Laser)
    }

    /// One frame: `reach[0]` is the left hand, `reach[1]` the right. Returns what egui
    /// should be told, in order.
    pub fn update(&mut self, reach: [PanelReach; 2]) -> Vec<PanelEvent> {
        let mut events = Vec::new();
        for (hand, r) in reach.iter().enumerate() {
            let over = r.laser.is_some() || r.poke.is_some();
            if !over || r.press < RELEASE_AT {
                self.held_outside[hand] = false;
            }
            if !over && r.press >= PRESS_AT && self.owner != Some(hand) {
                self.held_outside[hand] = true;
            }
        }
        // A press in progress: follow it, end it.
        if let (Some(hand), Some(press)) = (self.owner, self.press) {
            let r = &reach[hand];
            let (at, still) = match press {
                Press::Poke => match r.poke {
                    Some(p) => (Some(p.at), p.distance <= POKE_RELEASE),
                    None => (None, false),
                },
                Press::Laser => (r.laser.map(|h| h.at), r.press > RELEASE_AT),
            };
            let at = at.or(self.last).unwrap_or(Vec2::ZERO);
            if self.last != Some(at) {
                events.push(PanelEvent::Moved(at));
            }
            self.last = Some(at);
            if still {
                return events;
            }
            events.push(PanelEvent::Released(at));
            self.press = None;
        }
        // Who points at the panel now: a poking fingertip first, then a laser; the
        // right hand before the left.
        let pointing = [1, 0]
            .into_iter()
            .find_map(|hand| reach[hand].poke.map(|p| (hand, p, Press::Poke)))
            .or_else(|| {
                [1, 0]
                    .into_iter()
                    .find_map(|hand| reach[hand].laser.map(|p| (hand, p, Press::Laser)))
            });
        let Some((hand, hit, kind)) = pointing else {
            if self.last.take().is_some() {
                events.push(PanelEvent::Gone);
            }
            self.owner = None;
            return events;
        };
        self.owner = Some(hand);
        if self.last != Some(hit.at) {
            events.push(PanelEvent::Moved(hit.at));
            self.last = Some(hit.at);
        }
        let pressed = match kind {
            Press::Poke => hit.distance <= POKE_PRESS,
            Press::Laser => reach[hand].press >= PRESS_AT && !self.held_outside[hand],
        };
        if pressed {
            events.push(PanelEvent::Pressed(hit.at));
            self.press = Some(kind);
        }
        events
    }
}

/// A laser that left the panel mid-drag: where it crosses the panel's plane (clamped to
/// the panel), so the drag follows it over the edge.
pub fn on_plane(place: &PanelPlace, origin: Vec3, direction: Vec3) -> Option<PanelHit> {
    let normal = place.normal();
    let dir = direction.normalize_or_zero();
    let facing = dir.dot(normal);
    if facing.abs() < 1e-4 {
        return None;
    }
    let t = normal.dot(place.center - origin) / facing;
    (t > 0.0).then(|| PanelHit {
        at: place
            .project(origin + dir * t)
            .at
            .clamp(Vec2::ZERO, place.points),
        distance: t,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn laser_at(place: &PanelPlace, at: Vec2, from: f32) -> PanelHit {
        let origin = place.point(at) + place.normal() * from;
        place.ray_hit(origin, -place.normal()).expect("hits")
    }

    #[test]
    fn the_controls_fit_the_panel_and_do_not_overlap() {
        let mut rects = vec![
            PIN_BUTTON,
            TURN_BUTTON,
            EXPORT_BUTTON,
            LIBRARY_PREVIOUS,
            LIBRARY_NEXT,
            PLAY_BUTTON,
            ADD_KEY_BUTTON,
            DELETE_KEY_BUTTON,
            EASE_BUTTON,
            UNDO_BUTTON,
            REDO_BUTTON,
            TIME_LABEL,
            RULER,
            HINT,
        ];
        rects.extend((0..LIBRARY_PAGE).map(library_slot));
        let whole = PanelRect {
            min: Vec2::ZERO,
            size: PANEL_POINTS,
        };
        for (i, a) in rects.iter().enumerate() {
            assert!(whole.contains(a.min) && whole.contains(a.max()), "{a:?}");
            for b in &rects[i + 1..] {
                let apart = a.max().x <= b.min.x
                    || b.max().x <= a.min.x
                    || a.max().y <= b.min.y
                    || b.max().y <= a.min.y;
                assert!(apart, "{a:?} overlaps {b:?}");
            }
        }
        for slot in 0..LIBRARY_PAGE {
            assert!(LIBRARY.contains(library_slot(slot).max()), "slot {slot}");
        }
        assert_eq!(panel_pixels(), (1280, 720));
    }

    #[test]
    fn a_point_on_the_panel_projects_back_to_itself_and_a_laser_finds_it() {
        let place = pinned_at_start();
        for at in [
            Vec2::ONE,
            PANEL_POINTS - 1.0,
            RULER.center(),
            library_slot(9).min,
        ] {
            let back = place.project(place.point(at));
            assert!(back.at.distance(at) < 1e-3, "{at} → {back:?}");
            assert!(back.distance.abs() < 1e-5);
            let hit = laser_at(&place, at, 0.4);
            assert!(hit.at.distance(at) < 1e-2, "{at} → {hit:?}");
            assert!((hit.distance - 0.4).abs() < 1e-4);
        }
        // From behind, pointing away, or past the edge: no hit.
        let centre = place.point(PANEL_POINTS * 0.5);
        let n = place.normal();
        assert!(place.ray_hit(centre - n * 0.3, n).is_none());
        assert!(place.ray_hit(centre + n * 0.3, n).is_none());
        let outside = place.point(Vec2::new(-20.0, 100.0)) + n * 0.3;
        assert!(place.ray_hit(outside, -n).is_none());
    }

    #[test]
    fn the_pinned_panel_faces_the_head_and_keeps_out_of_the_avatars_way() {
        let place = pinned_at_start();
        let head = Vec3::new(0.0, 1.6, 0.0);
        let to_head = (head - place.center).normalize();
        assert!(place.normal().dot(to_head) > 0.999);
        // Its right edge stays left of the line from the head to the avatar 2 m ahead.
        let right_edge = place.point(Vec2::new(PANEL_POINTS.x, PANEL_POINTS.y * 0.5));
        assert!(right_edge.x < -0.05, "{right_edge}");
        // Upright: its top edge is level.
        let top_left = place.point(Vec2::ZERO);
        let top_right = place.point(Vec2::new(PANEL_POINTS.x, 0.0));
        assert!((top_left.y - top_right.y).abs() < 1e-5);
    }

    #[test]
    fn the_palette_sits_above_the_left_hand_facing_back_and_up() {
        let grip = Pointer::new(Vec3::new(-0.3, 1.0, -0.3), Quat::IDENTITY);
        let place = palette_at(&grip);
        assert!(place.center.y > grip.position.y);
        assert!(place.normal().y > 0.5 && place.normal().z > 0.5);
        assert!((place.size().x - 0.48).abs() < 1e-4);
    }

    #[test]
    fn the_hand_menu_rings_its_presets_around_the_side_switch_inside_its_square() {
        let whole = PanelRect {
            min: Vec2::ZERO,
            size: RADIAL_POINTS,
        };
        let count = 9;
        let slots: Vec<PanelRect> = (0..count).map(|i| radial_slot(i, count)).collect();
        for (i, a) in slots.iter().enumerate() {
            assert!(whole.contains(a.min) && whole.contains(a.max()), "{a:?}");
            assert!(!a.contains(RADIAL_SIDE.center()));
            for b in &slots[i + 1..] {
                assert!(
                    a.center().distance(b.center()) > RADIAL_ITEM.y,
                    "{a:?} {b:?}"
                );
            }
        }
        let grip = Pointer::new(Vec3::new(-0.3, 1.0, -0.3), Quat::IDENTITY);
        let menu = radial_at(&grip);
        let top = menu.point(radial_slot(0, count).center());
        assert!(top.y > menu.center.y);
        let hit = menu
            .ray_hit(top + menu.normal() * 0.3, -menu.normal())
            .expect("a laser reaches the menu");
        assert!(hit.at.distance(radial_slot(0, count).center()) < 0.01);
    }

    fn laser(hit: PanelHit, press: f32) -> PanelReach {
        PanelReach {
            laser: Some(hit),
            press,
            poke: None,
        }
    }

    #[test]
    fn a_trigger_pull_on_the_panel_is_one_click_and_a_drag_follows_over_the_edge() {
        let place = pinned_at_start();
        let mut pointer = PanelPointer::default();
        let at = library_slot(0).center();
        let hit = laser_at(&place, at, 0.5);
        let none = PanelReach::default();
        assert_eq!(
            pointer.update([none, laser(hit, 0.0)]),
            vec![PanelEvent::Moved(hit.at)]
        );
        assert!(pointer.takes(1, &laser(hit, 0.0)));
        assert_eq!(
            pointer.update([none, laser(hit, 0.9)]),
            vec![PanelEvent::Pressed(hit.at)]
        );
        // Held: no second press; the trigger sagging into the hysteresis band holds.
        assert!(pointer.update([none, laser(hit, 0.4)]).is_empty());
        // Off the panel while held: the last point stays, it still belongs to the panel.
        let held_off = PanelReach { press: 1.0, ..none };
        assert!(pointer.update([none, held_off]).is_empty());
        assert!(pointer.takes(1, &held_off));
        assert_eq!(
            pointer.update([none, PanelReach { press: 0.1, ..none }]),
            vec![PanelEvent::Released(hit.at), PanelEvent::Gone]
        );
        assert!(!pointer.takes(1, &none));
    }

    #[test]
    fn a_trigger_already_held_when_the_laser_arrives_does_not_click() {
        let place = pinned_at_start();
        let mut pointer = PanelPointer::default();
        let hit = laser_at(&place, RULER.center(), 0.5);
        let none = PanelReach::default();
        let held_off = PanelReach { press: 1.0, ..none };
        assert!(pointer.update([none, held_off]).is_empty());
        assert_eq!(
            pointer.update([none, laser(hit, 1.0)]),
            vec![PanelEvent::Moved(hit.at)]
        );
        assert!(pointer.update([none, laser(hit, 0.0)]).is_empty());
        assert_eq!(
            pointer.update([none, laser(hit, 1.0)]),
            vec![PanelEvent::Pressed(hit.at)]
        );
    }

    #[test]
    fn a_fingertip_presses_at_the_face_and_lets_go_when_drawn_back() {
        let place = pinned_at_start();
        let mut pointer = PanelPointer::default();
        let at = PLAY_BUTTON.center();
        let poke = |depth: f32| PanelReach {
            laser: None,
            press: 0.0,
            poke: place.poke(place.point(at) + place.normal() * depth),
        };
        let none = PanelReach::default();
        assert_eq!(pointer.update([none, poke(0.04)]).len(), 1);
        assert!(!pointer.pressing());
        let events = pointer.update([none, poke(0.004)]);
        assert!(matches!(events.last(), Some(PanelEvent::Pressed(_))));
        // Through the face and back within the release distance: still one press.
        pointer.update([none, poke(-0.01)]);
        pointer.update([none, poke(0.015)]);
        assert!(pointer.pressing());
        let events = pointer.update([none, poke(0.03)]);
        assert!(matches!(events.last(), Some(PanelEvent::Released(_))));
        // Far from the panel: nothing.
        assert!(place.poke(place.point(at) + place.normal() * 0.2).is_none());
    }

    #[test]
    fn the_hand_pressing_keeps_the_pointer_while_the_other_points() {
        let place = pinned_at_start();
        let mut pointer = PanelPointer::default();
        let a = laser_at(&place, RULER.center(), 0.5);
        let b = laser_at(&place, PLAY_BUTTON.center(), 0.5);
        pointer.update([laser(a, 0.0), PanelReach::default()]);
        pointer.update([laser(a, 1.0), PanelReach::default()]);
        let events = pointer.update([laser(a, 1.0), laser(b, 0.0)]);
        assert!(events.is_empty(), "{events:?}");
        let events = pointer.update([laser(a, 0.0), laser(b, 0.0)]);
        assert_eq!(
            events,
            vec![PanelEvent::Released(a.at), PanelEvent::Moved(b.at)]
        );
    }
}
