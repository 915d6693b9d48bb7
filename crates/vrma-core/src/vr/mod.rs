//! VR posing without a headset (SPEC §10): the spheres, grabbing them with controllers or
//! bare hands, following the grab point, the buttons and sticks (hand-tracking joints
//! are steadied by `body::smoothing`); the panel's layout in `panel`. Everything here is pure: the app feeds it poses read from
//! OpenXR once per frame and sends the edits it returns through the one edit path.
//!
//! Coordinates are the model space of the rig (the desktop editor's world). The app puts
//! the player 2 m in front of the avatar by moving the tracking root, not the avatar, so
//! controller poses only need the root's transform to land here.

pub mod panel;

use glam::{Quat, Vec2, Vec3};

use crate::animation::edit::{Edit, Gesture, KeyEdit, Pins, PoseEdit};
pub use crate::animation::handle::{MOVABLE_HANDLES, PoseHandle, TURN_HANDLES, curl_handles};
use crate::animation::project::Settings;
use crate::body::hand::{Finger, FingerShape, HandDirections, fingertip_in, hand_bone};
use crate::body::pose::Pose;
use crate::body::rig::Rig;
use crate::model::humanoid::Bone;

/// How far (metres, from the sphere's surface) a controller may be to grip a sphere.
pub const GRIP_REACH: f32 = 0.2;
/// Squeeze / trigger: pressed above this value, released below [`RELEASE_AT`].
pub const PRESS_AT: f32 = 0.5;
pub const RELEASE_AT: f32 = 0.35;
/// Pinch: index tip and thumb tip closer than this starts a pinch…
pub const PINCH_START: f32 = 0.02;
/// …and it lasts until they are further apart than this (hysteresis: no flicker).
pub const PINCH_END: f32 = 0.035;
/// While a pinch's fingertip gap changes by more than this in a frame, the fingers are
/// closing or opening rather than the hand moving: the grab point moves with them and
/// the sphere stays, so pinching and letting go do not nudge it.
pub const PINCH_FINGERS_MOVING: f32 = 0.0005;
/// A grip-click (squeeze and let go of a hand, foot or head sphere without moving it)
/// pins that end or lets it go: the squeeze lasts at most this long (seconds)…
pub const CLICK_SECONDS: f32 = 1.0;
/// …and moves the sphere less than this (metres), or turns the head less than
/// [`CLICK_TURN`] (radians).
pub const CLICK_TRAVEL: f32 = 0.015;
pub const CLICK_TURN: f32 = 0.09;
/// Sticks ignore deflections below this.
pub const STICK_DEADZONE: f32 = 0.2;
/// Walking speed at full left-stick deflection (m/s).
pub const WALK_SPEED: f32 = 1.5;
/// Playhead speed at full right-stick deflection (seconds of animation per second).
pub const SCRUB_SPEED: f32 = 1.0;

/// A sphere where it is this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    pub handle: PoseHandle,
    pub center: Vec3,
    /// The bone's world rotation: the sphere's local frame.
    pub rotation: Quat,
    /// The parent bone's world rotation (identity for the hips): a turn handle's world
    /// rotation becomes the bone's local one through it.
    pub parent_rotation: Quat,
    pub radius: f32,
    /// Curl handles: the digit's shape now (a twist curls it from there).
    pub finger: Option<FingerShape>,
}

/// Every VR sphere: the ones that move, the ones that turn, the fingers' curls.
pub fn vr_handles() -> impl Iterator<Item = PoseHandle> {
    MOVABLE_HANDLES
        .into_iter()
        .chain(TURN_HANDLES)
        .chain(curl_handles())
}

/// How far to the side a curl handle sits from its fingertip, as a share of the tip's
/// sideways distance from the middle fingertip: fanned out like that, neighbouring
/// fingers' handles stay apart.
const CURL_HANDLE_FAN: f32 = 0.8;
/// How far (metres) past its fingertip, along the hand, a curl handle sits.
const CURL_HANDLE_REACH: f32 = 0.015;
/// A twist of the controller by this much (radians) curls a finger fully.
pub const FULL_CURL_TWIST: f32 = std::f32::consts::FRAC_PI_2;

/// The spheres of a posed rig (bones the model lacks have none); `hands` reads the
/// fingers' curls.
pub fn spheres(rig: &Rig, hands: &HandDirections, pose: &Pose) -> Vec<Sphere> {
    let world = rig.world_pose(pose);
    let tip = |side, finger| fingertip_in(rig, &world, side, finger);
    vr_handles()
        .filter_map(|handle| {
            let bone = handle.bone();
            let (origin, rotation) = world[bone.index()]?;
            let parent_rotation = rig
                .bone(bone)
                .and_then(|b| b.parent)
                .and_then(|p| world[p.index()])
                .map_or(Quat::IDENTITY, |(_, r)| r);
            let (center, finger) = match handle {
                PoseHandle::Curl(_) => {
                    let (finger, side) = Finger::of_bone(bone)?;
                    let at = tip(side, finger)?;
                    let middle = tip(side, Finger::Middle).unwrap_or(at);
                    let wrist = world[hand_bone(side).index()].map_or(at, |w| w.0);
                    let along = (middle - wrist).normalize_or_zero();
                    let aside = (at - middle) - along * (at - middle).dot(along);
                    let center = at + aside * CURL_HANDLE_FAN + along * CURL_HANDLE_REACH;
                    (center, Some(hands.read_finger(pose, side, finger)))
                }
                _ => (origin + rotation * handle.sphere_offset(), None),
            };
            Some(Sphere {
                handle,
                center,
                rotation,
                parent_rotation,
                radius: handle.sphere_radius(),
                finger,
            })
        })
        .collect()
}

/// The sphere nearest to `point` whose surface is within `reach`, skipping `busy` ones.
pub fn nearest_within(
    spheres: &[Sphere],
    point: Vec3,
    reach: f32,
    busy: &[PoseHandle],
) -> Option<usize> {
    spheres
        .iter()
        .enumerate()
        .filter(|(_, s)| !busy.contains(&s.handle))
        .map(|(i, s)| (i, (s.center.distance(point) - s.radius).max(0.0)))
        .filter(|&(_, d)| d <= reach)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// The first sphere a ray (unit `direction`) hits, and the distance along the ray.
pub fn ray_hit(
    spheres: &[Sphere],
    origin: Vec3,
    direction: Vec3,
    busy: &[PoseHandle],
) -> Option<(usize, f32)> {
    let dir = direction.normalize_or_zero();
    if dir == Vec3::ZERO {
        return None;
    }
    spheres
        .iter()
        .enumerate()
        .filter(|(_, s)| !busy.contains(&s.handle))
        .filter_map(|(i, s)| {
            // |o + t d - c|² = r²  →  t² + 2 b t + c = 0 with b = d·(o - c).
            let oc = origin - s.center;
            let b = dir.dot(oc);
            let c = oc.length_squared() - s.radius * s.radius;
            let disc = b * b - c;
            if disc < 0.0 {
                return None;
            }
            let root = disc.sqrt();
            let t = if -b - root >= 0.0 {
                -b - root
            } else {
                -b + root
            };
            (t >= 0.0).then_some((i, t))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// A pose in space (a controller's grip or aim, a pinch).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pointer {
    pub position: Vec3,
    pub rotation: Quat,
}

impl Pointer {
    pub fn new(position: Vec3, rotation: Quat) -> Pointer {
        Pointer { position, rotation }
    }

    /// The laser's direction: the pointer's −Z (OpenXR's aim convention).
    pub fn forward(&self) -> Vec3 {
        self.rotation * Vec3::NEG_Z
    }
}

/// What one hand offers this frame. `None` = not tracked.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HandInput {
    /// The controller's grip pose.
    pub grip: Option<Pointer>,
    /// The controller's aim pose (the laser).
    pub aim: Option<Pointer>,
    pub squeeze: f32,
    pub trigger: f32,
    /// Hand tracking: index tip and thumb tip (already smoothed).
    pub pinch_tips: Option<(Vec3, Vec3)>,
}

/// How a grab started, which decides which pose it follows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GrabSource {
    /// Squeeze: follows the grip pose.
    Grip,
    /// Trigger: follows the laser at the distance it hit.
    Laser { distance: f32 },
    /// Pinch near a sphere: follows the pinch midpoint.
    Pinch,
    /// Pinch far from spheres: the laser from the aim pose.
    PinchLaser { distance: f32 },
}

/// A sphere held by one hand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grab {
    pub handle: PoseHandle,
    pub source: GrabSource,
    /// The grab point in the sphere's local frame (at the moment of the grab).
    pub local_point: Vec3,
    /// The sphere's rotation when grabbed: its frame does not turn while it is dragged.
    pub rotation: Quat,
    /// The last point the sphere was sent to (no edit when the hand is still).
    pub last_center: Vec3,
    /// Pinch grabs: the fingertip gap last frame.
    pub last_gap: f32,
    /// Turn handles: the controller's rotation when it took hold (`None` when it had
    /// none: the sphere then stays as it is).
    pub turn_from: Option<Quat>,
    /// Turn handles: the parent's world rotation when grabbed (used when the sphere
    /// goes missing from a frame's list).
    pub parent_rotation: Quat,
    /// Turn handles: the last local rotation sent (no edit when the hand is still).
    pub last_turn: Quat,
    /// Curl handles: the digit's shape when grabbed.
    pub finger: Option<FingerShape>,
    /// When it took hold, on the grabber's clock (seconds).
    pub taken_at: f32,
    /// How far the grab has taken its sphere all told (metres), or turned its bone
    /// (radians, turn handles): under the click limits, letting go is a click.
    pub travel: f32,
}

impl Grab {
    /// Grabs `sphere` at the world point `at`.
    pub fn new(sphere: &Sphere, source: GrabSource, at: Vec3) -> Grab {
        Grab {
            handle: sphere.handle,
            source,
            local_point: sphere.rotation.inverse() * (at - sphere.center),
            rotation: sphere.rotation,
            last_center: sphere.center,
            last_gap: 0.0,
            turn_from: None,
            parent_rotation: sphere.parent_rotation,
            last_turn: sphere.parent_rotation.inverse() * sphere.rotation,
            finger: sphere.finger,
            taken_at: 0.0,
            travel: 0.0,
        }
    }

    /// The end a grip-click on this grab's sphere pins or lets go: a squeeze on a hand,
    /// foot or head that was let go soon, having barely moved it.
    fn clicked_end(&self, now: f32) -> Option<Bone> {
        let (bone, limit) = match self.handle {
            PoseHandle::Reach(bone) => (bone, CLICK_TRAVEL),
            PoseHandle::Turn(Bone::Head) => (Bone::Head, CLICK_TURN),
            _ => return None,
        };
        (self.source == GrabSource::Grip
            && self.travel < limit
            && now - self.taken_at <= CLICK_SECONDS)
            .then_some(bone)
    }

    /// A turn handle's new local rotation: the bone turns in the world by the
    /// controller's rotation since it took hold (`parent` is the parent bone's world
    /// rotation now). `None` without a rotation to follow.
    pub fn turned(&self, pointer_now: Quat, parent: Quat) -> Option<Quat> {
        let from = self.turn_from?;
        let world = pointer_now * from.inverse() * self.rotation;
        let local = (parent.inverse() * world).normalize();
        local.is_finite().then_some(local)
    }

    /// A curl handle's edit: the digit curls from its shape when grabbed by the
    /// controller's twist about its own forward axis since then, a quarter turn for a
    /// full curl. The right hand curls turning clockwise (seen along the controller's
    /// forward), the left anticlockwise, as a wrist turns inwards.
    pub fn curled(&self, pointer_now: Quat) -> Option<PoseEdit> {
        let (from, start) = (self.turn_from?, self.finger?);
        let PoseHandle::Curl(bone) = self.handle else {
            return None;
        };
        let forward = from * Vec3::NEG_Z;
        let twist = crate::body::math::twist_angle(pointer_now * from.inverse(), forward);
        let inwards = if bone.side() == Some(crate::model::humanoid::Side::Left) {
            -1.0
        } else {
            1.0
        };
        Some(PoseEdit::Finger {
            bone,
            curl: (start.curl + inwards * twist / FULL_CURL_TWIST).clamp(-0.25, 1.0),
            spread: start.spread,
        })
    }

    /// Where the sphere's centre goes so that its grab point is at `hand_point`.
    pub fn center_for(&self, hand_point: Vec3) -> Vec3 {
        hand_point - self.rotation * self.local_point
    }
}

/// One hand's grab state machine: press/release with hysteresis, what it holds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Hand {
    pub grab: Option<Grab>,
    squeezing: bool,
    triggering: bool,
    pinching: bool,
}

fn pressed(was: bool, value: f32) -> bool {
    if was {
        value > RELEASE_AT
    } else {
        value >= PRESS_AT
    }
}

/// Pinch with hysteresis: starts under [`PINCH_START`], ends over [`PINCH_END`].
pub fn pinch_held(was: bool, tips: Option<(Vec3, Vec3)>) -> bool {
    match tips {
        None => false,
        Some((index, thumb)) => {
            let d = index.distance(thumb);
            if was { d <= PINCH_END } else { d < PINCH_START }
        }
    }
}

/// The rotation a grab from `source` turns with this frame: the grip's for squeezes and
/// pinches, the laser's for trigger grabs.
fn pointer_rotation(source: GrabSource, input: &HandInput) -> Option<Quat> {
    match source {
        GrabSource::Grip | GrabSource::Pinch => input.grip.map(|g| g.rotation),
        GrabSource::Laser { .. } | GrabSource::PinchLaser { .. } => input.aim.map(|a| a.rotation),
    }
}

/// The point a grab from `source` follows this frame.
fn hand_point(source: GrabSource, input: &HandInput) -> Option<Vec3> {
    match source {
        GrabSource::Grip => input.grip.map(|g| g.position),
        GrabSource::Laser { distance } | GrabSource::PinchLaser { distance } => input
            .aim
            .map(|a| a.position + a.forward().normalize_or_zero() * distance),
        GrabSource::Pinch => input.pinch_tips.map(|(i, t)| (i + t) * 0.5),
    }
}

/// Both hands' grabs. Feed it every frame; it returns the edits to apply, in order:
/// `Preview`s while spheres move, `EndGesture` when a hand lets go (one undo step,
/// written back to the key at the playhead).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Grabber {
    pub hands: [Hand; 2],
    /// A preview was sent since the last `EndGesture`.
    gesture_open: bool,
    /// Seconds since the grabber started ([`Grabber::tick`]).
    clock: f32,
    /// The pose's pins as of this frame: a grip-click flips its end's.
    pins: Pins,
}

impl Grabber {
    /// The handles held by hands other than `hand`.
    fn busy(&self, hand: usize) -> Vec<PoseHandle> {
        self.hands
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != hand)
            .filter_map(|(_, h)| h.grab.map(|g| g.handle))
            .collect()
    }

    /// The frame's time step and the pose's pins, before [`Grabber::update`] (grip-clicks
    /// are timed, and flip a pin).
    pub fn tick(&mut self, dt: f32, pins: Pins) {
        if dt.is_finite() && dt > 0.0 {
            self.clock += dt;
        }
        self.pins = pins;
    }

    /// Whether any hand holds a sphere.
    pub fn holding(&self) -> bool {
        self.hands.iter().any(|h| h.grab.is_some())
    }

    /// One frame: `inputs[0]` is the left hand, `inputs[1]` the right; `spheres` as the
    /// pose stands now.
    pub fn update(
        &mut self,
        inputs: [&HandInput; 2],
        spheres: &[Sphere],
        settings: &Settings,
    ) -> Vec<Edit> {
        // In the headset the body follows a pulled hand by its own setting (on by default).
        let settings = &Settings {
            body_follows: settings.body_follows_vr,
            ..*settings
        };
        let mut edits = Vec::new();
        let mut released = false;
        let mut clicked = Vec::new();
        let clock = self.clock;
        for (i, input) in inputs.into_iter().enumerate() {
            let busy = self.busy(i);
            let hand = &mut self.hands[i];
            let squeezing = pressed(hand.squeezing, input.squeeze) && input.grip.is_some();
            let triggering = pressed(hand.triggering, input.trigger) && input.aim.is_some();
            let pinching = pinch_held(hand.pinching, input.pinch_tips);
            let started = (squeezing && !hand.squeezing, triggering && !hand.triggering);
            let pinch_started = pinching && !hand.pinching;
            hand.squeezing = squeezing;
            hand.triggering = triggering;
            hand.pinching = pinching;

            // Let go: the source that started the grab was released (or lost tracking).
            if let Some(grab) = hand.grab {
                let still_held = match grab.source {
                    GrabSource::Grip => squeezing,
                    GrabSource::Laser { .. } => triggering,
                    GrabSource::Pinch | GrabSource::PinchLaser { .. } => pinching,
                };
                if !still_held {
                    hand.grab = None;
                    released = true;
                    clicked.extend(grab.clicked_end(clock));
                }
            }

            // Take hold.
            if hand.grab.is_none() {
                hand.grab = if started.0 {
                    let at = input.grip.map(|g| g.position).unwrap_or_default();
                    nearest_within(spheres, at, GRIP_REACH, &busy)
                        .map(|s| Grab::new(&spheres[s], GrabSource::Grip, at))
                } else if started.1 {
                    input.aim.and_then(|aim| {
                        ray_hit(spheres, aim.position, aim.forward(), &busy).map(|(s, t)| {
                            let at = aim.position + aim.forward().normalize() * t;
                            Grab::new(&spheres[s], GrabSource::Laser { distance: t }, at)
                        })
                    })
                } else if pinch_started {
                    let (index, thumb) = input.pinch_tips.unwrap_or_default();
                    let mid = (index + thumb) * 0.5;
                    match nearest_within(spheres, mid, GRIP_REACH, &busy) {
                        Some(s) => Some(Grab {
                            last_gap: index.distance(thumb),
                            ..Grab::new(&spheres[s], GrabSource::Pinch, mid)
                        }),
                        None => input.aim.and_then(|aim| {
                            ray_hit(spheres, aim.position, aim.forward(), &busy).map(|(s, t)| {
                                let at = aim.position + aim.forward().normalize() * t;
                                let source = GrabSource::PinchLaser { distance: t };
                                Grab::new(&spheres[s], source, at)
                            })
                        }),
                    }
                } else {
                    None
                };
                if let Some(grab) = hand.grab.as_mut() {
                    grab.taken_at = clock;
                    grab.turn_from = pointer_rotation(grab.source, input);
                    if let (PoseHandle::Curl(_), Some(from)) = (grab.handle, grab.turn_from) {
                        grab.last_turn = from;
                    }
                }
            }

            // Fingers of a pinch closing or opening: the grab point moves with them.
            if let Some(grab) = hand.grab.as_mut()
                && grab.source == GrabSource::Pinch
                && let Some((index, thumb)) = input.pinch_tips
            {
                let gap = index.distance(thumb);
                let fingers_moving = (gap - grab.last_gap).abs() > PINCH_FINGERS_MOVING;
                grab.last_gap = gap;
                if fingers_moving {
                    let mid = (index + thumb) * 0.5;
                    grab.local_point = grab.rotation.inverse() * (mid - grab.last_center);
                    continue;
                }
            }

            // Turn: the bone follows the controller's rotation, it does not move.
            if let Some(grab) = hand.grab.as_mut()
                && !grab.handle.moves()
            {
                let parent = spheres
                    .iter()
                    .find(|s| s.handle == grab.handle)
                    .map_or(grab.parent_rotation, |s| s.parent_rotation);
                let now = pointer_rotation(grab.source, input);
                if let PoseHandle::Curl(_) = grab.handle {
                    // The turn is the controller's; it stands in for the last one sent.
                    if let Some(now) = now
                        && now.angle_between(grab.last_turn) > 1e-4
                        && let Some(edit) = grab.curled(now)
                    {
                        grab.last_turn = now;
                        edits.push(Edit::preview(edit));
                        self.gesture_open = true;
                    }
                } else if let Some(local) = now.and_then(|now| grab.turned(now, parent))
                    && local.angle_between(grab.last_turn) > 1e-4
                {
                    grab.travel += local.angle_between(grab.last_turn);
                    grab.last_turn = local;
                    edits.push(Edit::preview(grab.handle.turn_to(local)));
                    self.gesture_open = true;
                }
                continue;
            }

            // Follow.
            if let Some(grab) = hand.grab.as_mut()
                && let Some(point) = hand_point(grab.source, input)
            {
                let center = grab.center_for(point);
                if center.is_finite() && center.distance(grab.last_center) > 1e-5 {
                    grab.travel += center.distance(grab.last_center);
                    grab.last_center = center;
                    edits.push(
                        grab.handle
                            .move_to(center, settings)
                            .map_or(Edit::Gesture(Gesture::End), Edit::preview),
                    );
                    self.gesture_open = true;
                }
            }
        }
        if released && self.gesture_open {
            // A click's jitter is no edit; a drag still held by the other hand goes on.
            let gesture = if !clicked.is_empty() && !self.holding() {
                Gesture::Cancel
            } else {
                Gesture::End
            };
            edits.push(Edit::Gesture(gesture));
            self.gesture_open = false;
        }
        for end in clicked {
            if let Ok(ends) = Pins::of(end) {
                edits.push(Edit::Pin {
                    ends,
                    on: !self.pins.contains(end),
                });
            }
        }
        edits
    }
}

/// The face buttons as read this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Buttons {
    pub a: bool,
    pub b: bool,
    pub x: bool,
    pub y: bool,
}

/// What a face button does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ButtonCommand {
    AddKey,
    Undo,
    PlayStop,
    Redo,
}

impl ButtonCommand {
    /// The edit, given whether playback is running now.
    pub fn edit(self, playing: bool) -> Edit {
        match self {
            ButtonCommand::AddKey => Edit::Keys(KeyEdit::Add),
            ButtonCommand::Undo => Edit::Undo,
            ButtonCommand::PlayStop => Edit::SetPlaying(!playing),
            ButtonCommand::Redo => Edit::Redo,
        }
    }
}

/// A = add key, B = undo, X = play/stop, Y = redo; each on the press, not while held.
pub fn button_commands(before: Buttons, now: Buttons) -> Vec<ButtonCommand> {
    [
        (before.a, now.a, ButtonCommand::AddKey),
        (before.b, now.b, ButtonCommand::Undo),
        (before.x, now.x, ButtonCommand::PlayStop),
        (before.y, now.y, ButtonCommand::Redo),
    ]
    .into_iter()
    .filter(|&(was, is, _)| is && !was)
    .map(|(_, _, command)| command)
    .collect()
}

fn deadzone(v: f32) -> f32 {
    if v.abs() < STICK_DEADZONE || !v.is_finite() {
        0.0
    } else {
        // Rescaled so speed starts at zero at the edge of the dead zone.
        v.signum() * ((v.abs() - STICK_DEADZONE) / (1.0 - STICK_DEADZONE)).min(1.0)
    }
}

/// Left stick: how far the player walks this frame, on the floor, relative to where the
/// head looks (`head_forward`, any vector; only its horizontal direction counts).
pub fn walk_step(stick: Vec2, head_forward: Vec3, dt: f32) -> Vec3 {
    let forward = Vec3::new(head_forward.x, 0.0, head_forward.z).normalize_or(Vec3::NEG_Z);
    let right = forward.cross(Vec3::Y);
    (right * deadzone(stick.x) + forward * deadzone(stick.y)) * WALK_SPEED * dt
}

/// Right stick left/right: how far the playhead moves this frame (seconds).
pub fn scrub_step(stick: Vec2, dt: f32) -> f32 {
    deadzone(stick.x) * SCRUB_SPEED * dt
}

/// The player stands this far in front of the avatar when VR starts or recentres.
pub const PLAYER_DISTANCE: f32 = 2.0;
/// Snap turn: one step of the left stick to the side turns the player this far.
pub const SNAP_TURN: f32 = std::f32::consts::FRAC_PI_6;
/// Smooth turn at full deflection (radians per second).
pub const SMOOTH_TURN_SPEED: f32 = std::f32::consts::FRAC_PI_2;
/// The stick must go past this to snap, and come back under [`SNAP_REARM`] to snap again.
pub const SNAP_AT: f32 = 0.7;
pub const SNAP_REARM: f32 = 0.3;
/// Holding the left stick down this long recentres the player.
pub const RECENTER_HOLD: f32 = 1.0;
/// The avatar can be seen from half to twice its size (a two-handed pull).
pub const AVATAR_SCALE_RANGE: (f32, f32) = (0.5, 2.0);

/// Where the player's floor space (the tracking root) is in the world: floor-space
/// points land at `translation + rotation · (scale · p)`. A scale below 1 makes the
/// player small, so the avatar looks big.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Place {
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: f32,
}

impl Place {
    /// Where VR starts: [`PLAYER_DISTANCE`] in front of the avatar, facing it.
    pub fn at_start() -> Place {
        Place {
            translation: Vec3::new(0.0, 0.0, PLAYER_DISTANCE),
            rotation: Quat::IDENTITY,
            scale: 1.0,
        }
    }

    pub fn point(&self, floor: Vec3) -> Vec3 {
        self.translation + self.rotation * (floor * self.scale)
    }

    /// The floor-space point that lands on the world point `world`.
    pub fn floor(&self, world: Vec3) -> Vec3 {
        self.rotation.inverse() * (world - self.translation) / self.scale
    }

    /// The same place turned about the vertical line through the floor-space point
    /// `pivot` (the head): positive angles turn the player to the right.
    pub fn turned(&self, pivot: Vec3, angle: f32) -> Place {
        let world_pivot = self.point(pivot);
        let rotation = (Quat::from_rotation_y(-angle) * self.rotation).normalize();
        Place {
            translation: world_pivot - rotation * (pivot * self.scale),
            rotation,
            scale: self.scale,
        }
    }

    /// The place that puts the head (floor space) back where VR starts it: on the floor
    /// [`PLAYER_DISTANCE`] in front of the avatar, looking at it. The scale stays.
    pub fn recentred(&self, head: Vec3, head_forward: Vec3) -> Place {
        let forward = Vec3::new(head_forward.x, 0.0, head_forward.z).normalize_or(Vec3::NEG_Z);
        // The yaw that turns the head's forward to −Z.
        let yaw = Quat::from_rotation_arc(forward, Vec3::NEG_Z);
        let rotation = Quat::from_rotation_y(yaw.to_euler(glam::EulerRot::YXZ).0).normalize();
        let floor_head = Vec3::new(head.x, 0.0, head.z) * self.scale;
        Place {
            translation: Vec3::new(0.0, 0.0, PLAYER_DISTANCE) - rotation * floor_head,
            rotation,
            scale: self.scale,
        }
    }

    /// The avatar's apparent size: the inverse of the player's.
    pub fn avatar_scale(&self) -> f32 {
        1.0 / self.scale
    }
}

/// How the left stick turns the player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TurnMode {
    /// Steps of [`SNAP_TURN`] (comfortable for most).
    #[default]
    Snap,
    /// Continuous, [`SMOOTH_TURN_SPEED`] at full deflection.
    Smooth,
}

/// The left stick's sideways turn.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Turner {
    /// A snap happened; the stick must come back to the middle first.
    snapped: bool,
}

impl Turner {
    /// This frame's turn (radians, positive to the right).
    pub fn step(&mut self, stick_x: f32, mode: TurnMode, dt: f32) -> f32 {
        let x = if stick_x.is_finite() { stick_x } else { 0.0 };
        match mode {
            TurnMode::Smooth => {
                self.snapped = false;
                deadzone(x) * SMOOTH_TURN_SPEED * dt
            }
            TurnMode::Snap => {
                if self.snapped {
                    self.snapped = x.abs() > SNAP_REARM;
                    0.0
                } else if x.abs() >= SNAP_AT {
                    self.snapped = true;
                    x.signum() * SNAP_TURN
                } else {
                    0.0
                }
            }
        }
    }
}

/// Holding a button for [`RECENTER_HOLD`]: true once, on the frame the hold is long enough.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Hold {
    held_for: Option<f32>,
}

impl Hold {
    pub fn update(&mut self, down: bool, dt: f32) -> bool {
        if !down {
            self.held_for = None;
            return false;
        }
        let before = self.held_for.unwrap_or(0.0);
        let now = before + dt.max(0.0);
        self.held_for = Some(now);
        before < RECENTER_HOLD && now >= RECENTER_HOLD
    }
}

/// Scaling the avatar with both hands: squeeze both grips away from every sphere and
/// pull them apart (bigger) or together (smaller); the world point between the hands
/// stays put.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ScaleGesture {
    /// Hands' distance (floor space) and the place when it began, and the world point
    /// between the hands then.
    start: Option<(f32, Place, Vec3)>,
}

impl ScaleGesture {
    /// Whether a pull is in progress.
    pub fn active(&self) -> bool {
        self.start.is_some()
    }

    /// One frame: both grips (floor space) when both are squeezed and neither hand holds
    /// a sphere, else `None`. Returns the new place while pulling.
    pub fn update(&mut self, grips: Option<(Vec3, Vec3)>, place: &Place) -> Option<Place> {
        let Some((left, right)) = grips else {
            self.start = None;
            return None;
        };
        let distance = left.distance(right);
        let middle = (left + right) * 0.5;
        let (from, start, world_middle) =
            *self
                .start
                .get_or_insert((distance, *place, place.point(middle)));
        if from < 0.05 || !distance.is_finite() {
            return None; // hands too close together to measure a pull
        }
        let (lo, hi) = AVATAR_SCALE_RANGE;
        // Pulling apart makes the avatar bigger: the player smaller.
        let scale = (start.scale * from / distance.max(1e-3)).clamp(1.0 / hi, 1.0 / lo);
        let rotation = start.rotation;
        Some(Place {
            translation: world_middle - rotation * (middle * scale),
            rotation,
            scale,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snap_turn_turns_once_per_push_about_the_head() {
        let mut turner = Turner::default();
        let start = Place::at_start();
        let head = Vec3::new(0.1, 1.6, -0.2);
        let angle = turner.step(0.9, TurnMode::Snap, 0.016);
        assert_eq!(angle, SNAP_TURN);
        // Held over: no more turns; back to the middle, then again to the left.
        assert_eq!(turner.step(1.0, TurnMode::Snap, 0.016), 0.0);
        assert_eq!(turner.step(0.5, TurnMode::Snap, 0.016), 0.0);
        assert_eq!(turner.step(0.1, TurnMode::Snap, 0.016), 0.0);
        assert_eq!(turner.step(-0.8, TurnMode::Snap, 0.016), -SNAP_TURN);
        let turned = start.turned(head, angle);
        let p = Vec3::new(0.3, 1.1, -0.7);
        assert!(turned.floor(turned.point(p)).distance(p) < 1e-5);
        // The head stays where it was in the world…
        assert!(turned.point(head).distance(start.point(head)) < 1e-5);
        // …and what was ahead (−Z) is now to the right of ahead in the world, turned 30°.
        let ahead = turned.rotation * Vec3::NEG_Z;
        assert!(ahead.x > 0.0);
        assert!((ahead.angle_between(Vec3::NEG_Z) - SNAP_TURN).abs() < 1e-5);
    }

    #[test]
    fn a_smooth_turn_follows_the_stick() {
        let mut turner = Turner::default();
        let a = turner.step(1.0, TurnMode::Smooth, 0.5);
        assert!((a - SMOOTH_TURN_SPEED * 0.5).abs() < 1e-5);
        assert_eq!(turner.step(0.1, TurnMode::Smooth, 0.5), 0.0);
        assert_eq!(turner.step(f32::NAN, TurnMode::Smooth, 0.5), 0.0);
    }

    #[test]
    fn recentring_puts_the_head_back_in_front_of_the_avatar_looking_at_it() {
        let wandered = Place::at_start()
            .turned(Vec3::new(0.0, 1.6, 0.0), 1.2)
            .turned(Vec3::new(0.5, 1.6, 0.3), -0.4);
        let head = Vec3::new(0.4, 1.7, -0.3);
        let forward = Quat::from_rotation_y(0.7) * Vec3::NEG_Z;
        let back = Place {
            scale: 0.8,
            ..wandered
        }
        .recentred(head, forward);
        let world_head = back.point(head);
        assert!((world_head.x).abs() < 1e-5 && (world_head.z - PLAYER_DISTANCE).abs() < 1e-5);
        let world_forward = back.rotation * forward;
        assert!(
            world_forward.angle_between(Vec3::NEG_Z) < 1e-4,
            "{world_forward}"
        );
        assert_eq!(back.scale, 0.8);
    }

    #[test]
    fn a_hold_fires_once_after_a_second() {
        let mut hold = Hold::default();
        let fired: Vec<bool> = (0..80).map(|_| hold.update(true, 0.02)).collect();
        assert_eq!(fired.iter().filter(|f| **f).count(), 1);
        assert!(fired[..49].iter().all(|f| !f));
        assert!(!hold.update(false, 0.02));
        assert!(!hold.update(true, 0.5));
    }

    #[test]
    fn pulling_both_grips_apart_scales_the_avatar_up_to_twice_keeping_the_middle() {
        let mut gesture = ScaleGesture::default();
        let place = Place::at_start();
        let (l, r) = (Vec3::new(-0.2, 1.0, -0.3), Vec3::new(0.2, 1.0, -0.3));
        let middle = (l + r) * 0.5;
        let world_middle = place.point(middle);
        assert_eq!(gesture.update(Some((l, r)), &place), Some(place));
        let apart = Vec3::X * 0.1;
        let bigger = gesture
            .update(Some((l - apart, r + apart)), &place)
            .unwrap();
        assert!((bigger.avatar_scale() - 1.5).abs() < 1e-4);
        assert!(bigger.point(middle).distance(world_middle) < 1e-5);
        let far = gesture.update(Some((l * 4.0, r * 4.0)), &place).unwrap();
        assert!((far.avatar_scale() - AVATAR_SCALE_RANGE.1).abs() < 1e-5);
        let near = gesture
            .update(
                Some((middle - Vec3::X * 0.05, middle + Vec3::X * 0.05)),
                &place,
            )
            .unwrap();
        assert!((near.avatar_scale() - AVATAR_SCALE_RANGE.0).abs() < 1e-5);
        assert_eq!(gesture.update(None, &place), None);
        assert!(!gesture.active());
    }
    use crate::animation::edit::PoseEdit;
    use crate::body::ik::Limb;
    use crate::model::humanoid::Bone;
    use crate::model::mannequin::{self, MannequinVariant};

    fn rig() -> Rig {
        crate::body::rig::rig_from_bytes(&mannequin::build(MannequinVariant::Vrm1)).unwrap()
    }

    fn sphere(handle: PoseHandle, center: Vec3) -> Sphere {
        Sphere {
            handle,
            center,
            rotation: Quat::IDENTITY,
            parent_rotation: Quat::IDENTITY,
            radius: handle.sphere_radius(),
            finger: None,
        }
    }

    fn controller(at: Vec3, squeeze: f32) -> HandInput {
        HandInput {
            grip: Some(Pointer::new(at, Quat::IDENTITY)),
            aim: Some(Pointer::new(at, Quat::IDENTITY)),
            squeeze,
            ..HandInput::default()
        }
    }

    #[test]
    fn every_handle_has_a_sphere_on_its_bone_with_the_spec_radius() {
        let rig = rig();
        let pose = Pose::default();
        let world = rig.world_pose(&pose);
        let spheres = spheres(&rig, &HandDirections::measure(&rig), &pose);
        let present = vr_handles()
            .filter(|h| rig.bone(h.bone()).is_some())
            .count();
        assert_eq!(spheres.len(), present);
        assert!(
            present > MOVABLE_HANDLES.len() + 4,
            "turn handles: {present}"
        );
        for s in &spheres {
            let (at, _) = world[s.handle.bone().index()].unwrap();
            let offset = s.center.distance(at);
            if s.handle.moves() {
                assert!(offset < 1e-6);
            } else if let PoseHandle::Curl(bone) = s.handle {
                // By its own fingertip: within 5 cm of it, nearer to it than to any other.
                let (finger, side) = Finger::of_bone(bone).unwrap();
                let tip = |f| crate::body::hand::fingertip(&rig, &pose, side, f).unwrap();
                let own = s.center.distance(tip(finger));
                assert!(own < 0.05, "{bone}: {own}");
                for other in Finger::ALL.into_iter().filter(|f| *f != finger) {
                    assert!(s.center.distance(tip(other)) > own, "{bone} by {other:?}");
                }
                assert!(s.finger.is_some());
            } else {
                // In front of (or above) its bone, within reach of it.
                assert!((0.05..0.25).contains(&offset), "{:?}: {offset}", s.handle);
            }
        }
        // No two spheres overlap: a grab at one's centre takes that one.
        for (i, a) in spheres.iter().enumerate() {
            for b in &spheres[i + 1..] {
                let gap = a.center.distance(b.center) - a.radius - b.radius;
                assert!(gap > 0.01, "{:?} and {:?}: {gap}", a.handle, b.handle);
            }
            let held = nearest_within(&spheres, a.center, GRIP_REACH, &[]);
            assert_eq!(held.map(|k| spheres[k].handle), Some(a.handle));
        }
        let radius = |h| spheres.iter().find(|s| s.handle == h).unwrap().radius;
        assert_eq!(radius(PoseHandle::Reach(Bone::LeftHand)), 0.05);
        assert_eq!(radius(PoseHandle::Pole(Limb::RightLeg)), 0.04);
        assert_eq!(radius(PoseHandle::Hips), 0.07);
    }

    #[test]
    fn grip_takes_the_nearest_sphere_within_reach_only() {
        let spheres = [
            sphere(PoseHandle::Reach(Bone::LeftHand), Vec3::new(0.0, 1.0, 0.0)),
            sphere(PoseHandle::Pole(Limb::LeftArm), Vec3::new(0.3, 1.0, 0.0)),
        ];
        // 0.1 m from the hand's surface, 0.16 m from the elbow's: the hand.
        let at = Vec3::new(0.15, 1.0, 0.0);
        assert_eq!(nearest_within(&spheres, at, GRIP_REACH, &[]), Some(0));
        // Just outside reach of both surfaces: nothing.
        let far = Vec3::new(0.0, 1.0, 0.0 + 0.05 + GRIP_REACH + 0.01);
        assert_eq!(nearest_within(&spheres, far, GRIP_REACH, &[]), None);
        // Just inside: the hand.
        let near = Vec3::new(0.0, 1.0, 0.05 + GRIP_REACH - 0.01);
        assert_eq!(nearest_within(&spheres, near, GRIP_REACH, &[]), Some(0));
        // A sphere the other hand holds is skipped.
        let busy = [PoseHandle::Reach(Bone::LeftHand)];
        assert_eq!(nearest_within(&spheres, at, GRIP_REACH, &busy), Some(1));
    }

    #[test]
    fn the_laser_hits_the_first_sphere_on_the_ray() {
        let spheres = [
            sphere(PoseHandle::Hips, Vec3::new(0.0, 1.0, -3.0)),
            sphere(
                PoseHandle::Reach(Bone::RightHand),
                Vec3::new(0.0, 1.0, -2.0),
            ),
            sphere(PoseHandle::Reach(Bone::LeftHand), Vec3::new(0.5, 1.0, -1.0)),
        ];
        let origin = Vec3::new(0.0, 1.0, 0.0);
        let (i, t) = ray_hit(&spheres, origin, Vec3::NEG_Z, &[]).unwrap();
        assert_eq!(i, 1);
        assert!((t - (2.0 - 0.05)).abs() < 1e-5, "{t}");
        // Pointing away or beside: nothing.
        assert_eq!(ray_hit(&spheres, origin, Vec3::Z, &[]), None);
        assert_eq!(ray_hit(&spheres, origin, Vec3::X, &[]), None);
        // Grazing the edge of the left hand's sphere (radius 0.05) still hits it.
        let d = (Vec3::new(0.5 - 0.049, 1.0, -1.0) - origin).normalize();
        assert_eq!(ray_hit(&spheres, origin, d, &[]).map(|h| h.0), Some(2));
        // From inside a sphere, the exit point.
        let (_, t) = ray_hit(&spheres[..1], Vec3::new(0.0, 1.0, -3.0), Vec3::NEG_Z, &[]).unwrap();
        assert!((t - 0.07).abs() < 1e-5);
    }

    #[test]
    fn pinch_has_hysteresis() {
        let tips = |d: f32| Some((Vec3::ZERO, Vec3::new(d, 0.0, 0.0)));
        assert!(!pinch_held(false, tips(0.025)), "not yet");
        assert!(pinch_held(false, tips(0.015)), "starts");
        assert!(
            pinch_held(true, tips(0.03)),
            "still held between the thresholds"
        );
        assert!(!pinch_held(true, tips(0.04)), "released");
        assert!(!pinch_held(true, None), "lost tracking releases");
    }

    /// Squeezes the sphere at `at`, holds it `hold` seconds with the controller moved by
    /// `jitter`, lets go; every edit the grabber sent.
    fn grip_click(
        grabber: &mut Grabber,
        sphere: Sphere,
        pins: Pins,
        hold: f32,
        jitter: Vec3,
    ) -> Vec<Edit> {
        let (settings, idle, at) = (Settings::default(), HandInput::default(), sphere.center);
        let mut edits = Vec::new();
        for (dt, offset, squeeze) in [
            (0.011, Vec3::ZERO, 1.0),
            (hold, jitter, 1.0),
            (0.011, jitter, 0.0),
        ] {
            grabber.tick(dt, pins);
            edits.extend(grabber.update(
                [&controller(at + offset, squeeze), &idle],
                &[sphere],
                &settings,
            ));
        }
        edits
    }

    #[test]
    fn a_grip_click_pins_a_hand_or_the_head_and_lets_it_go_but_a_drag_or_a_long_hold_does_not() {
        let hand = sphere(PoseHandle::Reach(Bone::LeftHand), Vec3::new(0.3, 1.0, 0.0));
        let ends = Pins::of(Bone::LeftHand).unwrap();
        let mut grabber = Grabber::default();
        assert_eq!(
            grip_click(&mut grabber, hand, Pins::FEET, 0.2, Vec3::ZERO),
            vec![Edit::Pin { ends, on: true }]
        );
        // Pinned, a click with a few millimetres of shake lets it go, and the shake's
        // preview is cancelled rather than kept as an undo step.
        let pinned = Pins::FEET.with(ends, true);
        assert_eq!(
            grip_click(&mut grabber, hand, pinned, 0.2, Vec3::new(0.004, 0.0, 0.0))[1..],
            [
                Edit::Gesture(Gesture::Cancel),
                Edit::Pin { ends, on: false }
            ]
        );
        // A drag, or a squeeze held still for longer than a click, pins nothing.
        let dragged = grip_click(
            &mut grabber,
            hand,
            Pins::FEET,
            0.2,
            Vec3::new(0.0, -0.1, 0.0),
        );
        assert_eq!(
            dragged.last(),
            Some(&Edit::Gesture(Gesture::End)),
            "{dragged:?}"
        );
        let held = grip_click(&mut grabber, hand, Pins::FEET, 1.5, Vec3::ZERO);
        assert!(held.is_empty(), "{held:?}");
        // The head's turn handle clicks the same; an elbow is no end to pin.
        let head = sphere(PoseHandle::Turn(Bone::Head), Vec3::new(0.0, 1.5, 0.0));
        assert_eq!(
            grip_click(&mut grabber, head, Pins::FEET, 0.2, Vec3::ZERO),
            vec![Edit::Pin {
                ends: Pins::of(Bone::Head).unwrap(),
                on: true
            }]
        );
        let elbow = sphere(PoseHandle::Pole(Limb::LeftArm), Vec3::new(0.4, 1.3, 0.0));
        assert!(grip_click(&mut grabber, elbow, Pins::FEET, 0.2, Vec3::ZERO).is_empty());
    }

    #[test]
    fn a_gripped_sphere_keeps_its_grab_point_under_the_hand() {
        let settings = Settings::default();
        let hand_sphere = sphere(PoseHandle::Reach(Bone::LeftHand), Vec3::new(0.3, 1.0, 0.0));
        let mut grabber = Grabber::default();
        let idle = HandInput::default();
        // Squeeze 3 cm to the side of the centre: the sphere keeps that offset.
        let start = Vec3::new(0.33, 1.0, 0.0);
        let edits = grabber.update([&controller(start, 1.0), &idle], &[hand_sphere], &settings);
        assert!(edits.is_empty(), "no movement yet: {edits:?}");
        let moved = start + Vec3::new(0.0, -0.2, 0.1);
        let edits = grabber.update([&controller(moved, 1.0), &idle], &[hand_sphere], &settings);
        match &edits[..] {
            [Edit::Gesture(Gesture::Preview(inner))] => match *inner {
                PoseEdit::Ik { end, target, .. } => {
                    assert_eq!(end, Bone::LeftHand);
                    assert!(target.distance(Vec3::new(0.3, 0.8, 0.1)) < 1e-6, "{target}");
                }
                ref other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
        // Squeeze eases off but stays above the release threshold: still held.
        let edits = grabber.update([&controller(moved, 0.4), &idle], &[hand_sphere], &settings);
        assert!(edits.is_empty() && grabber.holding());
        // Released: one EndGesture commits the drag as one undo step.
        let edits = grabber.update([&controller(moved, 0.1), &idle], &[hand_sphere], &settings);
        assert_eq!(edits, vec![Edit::Gesture(Gesture::End)]);
        assert!(!grabber.holding());
    }

    #[test]
    fn a_laser_grab_drags_the_sphere_at_its_distance() {
        let settings = Settings::default();
        let hips = sphere(PoseHandle::Hips, Vec3::new(0.0, 1.0, -2.0));
        let aim = |rotation: Quat| HandInput {
            aim: Some(Pointer::new(Vec3::new(0.0, 1.0, 0.0), rotation)),
            grip: Some(Pointer::new(Vec3::new(0.0, 1.0, 0.0), rotation)),
            trigger: 1.0,
            ..HandInput::default()
        };
        let mut grabber = Grabber::default();
        let idle = HandInput::default();
        grabber.update([&idle, &aim(Quat::IDENTITY)], &[hips], &settings);
        assert!(grabber.hands[1].grab.is_some());
        // Tilt the controller down: the hips move down along the arc of the laser.
        let down = Quat::from_rotation_x(-0.1);
        let edits = grabber.update([&idle, &aim(down)], &[hips], &settings);
        let Some(Edit::Gesture(Gesture::Preview(inner))) = edits.first() else {
            panic!("{edits:?}")
        };
        let PoseEdit::MoveHips {
            to: Some(to),
            hold_pins,
            ..
        } = *inner
        else {
            panic!("{inner:?}")
        };
        assert!(hold_pins);
        let hit = 2.0 - 0.07;
        let expected =
            Vec3::new(0.0, 1.0, 0.0) + down * Vec3::NEG_Z * hit + Vec3::new(0.0, 0.0, -0.07);
        assert!(to.distance(expected) < 1e-5, "{to} vs {expected}");
    }

    #[test]
    fn two_hands_hold_two_spheres_independently() {
        let settings = Settings::default();
        let left = sphere(PoseHandle::Reach(Bone::LeftHand), Vec3::new(0.3, 1.0, 0.0));
        let right = sphere(
            PoseHandle::Reach(Bone::RightHand),
            Vec3::new(-0.3, 1.0, 0.0),
        );
        let spheres = [left, right];
        let mut grabber = Grabber::default();
        let l0 = controller(left.center, 1.0);
        let r0 = controller(right.center, 1.0);
        grabber.update([&l0, &r0], &spheres, &settings);
        assert_eq!(grabber.hands[0].grab.unwrap().handle, left.handle);
        assert_eq!(grabber.hands[1].grab.unwrap().handle, right.handle);
        // Both move: one preview each, each for its own hand.
        let l1 = controller(left.center + Vec3::Y * 0.1, 1.0);
        let r1 = controller(right.center - Vec3::Y * 0.1, 1.0);
        let edits = grabber.update([&l1, &r1], &spheres, &settings);
        let targets: Vec<(Bone, Vec3)> = edits
            .iter()
            .map(|e| match e {
                Edit::Gesture(Gesture::Preview(inner)) => match *inner {
                    PoseEdit::Ik { end, target, .. } => (end, target),
                    ref other => panic!("{other:?}"),
                },
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(targets.len(), 2);
        assert_eq!(targets[0].0, Bone::LeftHand);
        assert!(targets[0].1.distance(left.center + Vec3::Y * 0.1) < 1e-6);
        assert_eq!(targets[1].0, Bone::RightHand);
        assert!(targets[1].1.distance(right.center - Vec3::Y * 0.1) < 1e-6);
        // The left lets go: the right keeps holding and keeps moving its sphere.
        let edits = grabber.update(
            [&controller(l1.grip.unwrap().position, 0.0), &r1],
            &spheres,
            &settings,
        );
        assert_eq!(edits, vec![Edit::Gesture(Gesture::End)]);
        assert!(grabber.hands[0].grab.is_none() && grabber.hands[1].grab.is_some());
        let r2 = controller(right.center - Vec3::Y * 0.2, 1.0);
        let edits = grabber.update([&HandInput::default(), &r2], &spheres, &settings);
        assert_eq!(edits.len(), 1);
        // A hand cannot take the sphere the other holds: it gets the next nearest or none.
        let mut grabber = Grabber::default();
        grabber.update(
            [&HandInput::default(), &controller(left.center, 1.0)],
            &spheres,
            &settings,
        );
        grabber.update(
            [&controller(left.center, 1.0), &controller(left.center, 1.0)],
            &spheres,
            &settings,
        );
        assert_eq!(grabber.hands[1].grab.unwrap().handle, left.handle);
        assert!(
            grabber.hands[0].grab.is_none(),
            "the right sphere is 0.6 m away"
        );
    }

    #[test]
    fn a_pinch_grabs_near_spheres_at_the_midpoint_and_far_ones_by_laser() {
        let settings = Settings::default();
        let knee = sphere(PoseHandle::Pole(Limb::LeftLeg), Vec3::new(0.1, 0.5, 0.0));
        let pinch = |mid: Vec3, gap: f32| HandInput {
            pinch_tips: Some((mid - Vec3::X * gap / 2.0, mid + Vec3::X * gap / 2.0)),
            aim: Some(Pointer::new(Vec3::new(0.1, 0.5, 1.0), Quat::IDENTITY)),
            ..HandInput::default()
        };
        let idle = HandInput::default();
        let mut grabber = Grabber::default();
        // Near: open hand first, then close.
        grabber.update([&pinch(knee.center, 0.06), &idle], &[knee], &settings);
        assert!(grabber.hands[0].grab.is_none());
        grabber.update([&pinch(knee.center, 0.01), &idle], &[knee], &settings);
        let grab = grabber.hands[0].grab.unwrap();
        assert_eq!(grab.source, GrabSource::Pinch);
        let edits = grabber.update(
            [&pinch(knee.center + Vec3::Z * 0.1, 0.01), &idle],
            &[knee],
            &settings,
        );
        assert_eq!(
            edits,
            vec![Edit::preview(PoseEdit::Pole {
                limb: Limb::LeftLeg,
                point: knee.center + Vec3::Z * 0.1
            })]
        );
        let edits = grabber.update([&pinch(knee.center, 0.05), &idle], &[knee], &settings);
        assert_eq!(edits.last(), Some(&Edit::Gesture(Gesture::End)));
        // Far: the pinch is 1 m from the knee, the aim ray points at it.
        let mut grabber = Grabber::default();
        let far = Vec3::new(0.1, 0.5, 1.0);
        grabber.update([&pinch(far, 0.06), &idle], &[knee], &settings);
        grabber.update([&pinch(far, 0.01), &idle], &[knee], &settings);
        assert!(matches!(
            grabber.hands[0].grab.unwrap().source,
            GrabSource::PinchLaser { .. }
        ));
    }

    #[test]
    fn closing_the_fingers_of_a_pinch_does_not_move_the_sphere() {
        let settings = Settings::default();
        let foot = sphere(PoseHandle::Reach(Bone::LeftFoot), Vec3::new(0.1, 0.05, 0.0));
        let idle = HandInput::default();
        // The fingers close from a 19 mm gap to 9 mm while their midpoint drifts 2 cm.
        let tips = |gap: f32, mid: Vec3| HandInput {
            pinch_tips: Some((mid - Vec3::X * gap / 2.0, mid + Vec3::X * gap / 2.0)),
            ..HandInput::default()
        };
        let start = foot.center + Vec3::new(0.02, 0.03, 0.0);
        let mut grabber = Grabber::default();
        for frame in 0..=5 {
            let k = frame as f32 / 5.0;
            let gap = 0.019 - 0.010 * k;
            let mid = start + Vec3::new(0.0, -0.02, 0.01) * k;
            let edits = grabber.update([&tips(gap, mid), &idle], &[foot], &settings);
            assert!(
                edits.is_empty(),
                "frame {frame}: the sphere moved: {edits:?}"
            );
        }
        assert!(grabber.hands[0].grab.is_some());
        // Then the hand moves: the sphere follows it exactly, from where it was.
        let end = start + Vec3::new(0.0, -0.02, 0.01);
        let moved = end + Vec3::new(0.0, 0.15, 0.1);
        // (the gap holds still, so the pinch has settled)
        grabber.update([&tips(0.009, end), &idle], &[foot], &settings);
        let edits = grabber.update([&tips(0.009, moved), &idle], &[foot], &settings);
        let Some(Edit::Gesture(Gesture::Preview(inner))) = edits.first() else {
            panic!("{edits:?}")
        };
        let PoseEdit::Ik { target, .. } = *inner else {
            panic!("{inner:?}")
        };
        let expected = foot.center + Vec3::new(0.0, 0.15, 0.1);
        assert!(target.distance(expected) < 1e-5, "{target} vs {expected}");
        // Opening the fingers (their midpoint drifting) lets go without a nudge.
        for frame in 1..=8 {
            let k = frame as f32 / 8.0;
            let gap = 0.009 + 0.04 * k;
            let mid = moved + Vec3::new(0.0, 0.02, -0.01) * k;
            let edits = grabber.update([&tips(gap, mid), &idle], &[foot], &settings);
            assert!(
                edits.iter().all(|e| *e == Edit::Gesture(Gesture::End)),
                "frame {frame}: {edits:?}"
            );
        }
        assert!(grabber.hands[0].grab.is_none());
    }

    #[test]
    fn dragging_the_hips_sphere_through_the_editor_keeps_the_feet() {
        let rig = rig();
        let mut editor = crate::animation::edit::Editor::new(rig.clone());
        let settings = editor.settings;
        let before = rig.world_pose(&editor.pose);
        let all = spheres(&rig, &editor.hands, &editor.pose);
        let hips = *all.iter().find(|s| s.handle == PoseHandle::Hips).unwrap();
        let mut grabber = Grabber::default();
        let idle = HandInput::default();
        for step in 0..=20 {
            let at = hips.center - Vec3::Y * 0.01 * step as f32;
            let spheres_now = spheres(&rig, &editor.hands, &editor.pose);
            for edit in grabber.update([&idle, &controller(at, 1.0)], &spheres_now, &settings) {
                editor.apply(edit).unwrap();
            }
        }
        let end = hips.center - Vec3::Y * 0.2;
        for edit in grabber.update(
            [&idle, &controller(end, 0.0)],
            &spheres(&rig, &editor.hands, &editor.pose),
            &settings,
        ) {
            editor.apply(edit).unwrap();
        }
        let after = rig.world_pose(&editor.pose);
        let hips_after = after[Bone::Hips.index()].unwrap().0;
        assert!((hips_after.y - (hips.center.y - 0.2)).abs() < 1e-4);
        for foot in [Bone::LeftFoot, Bone::RightFoot] {
            let (a, _) = before[foot.index()].unwrap();
            let (b, _) = after[foot.index()].unwrap();
            assert!(a.distance(b) < 1e-4, "{foot:?} moved {}", a.distance(b));
        }
        // One undo step puts everything back.
        editor.apply(Edit::Undo).unwrap();
        let undone = rig.world_pose(&editor.pose);
        assert!(undone[Bone::Hips.index()].unwrap().0.distance(hips.center) < 1e-6);
    }

    /// A grip on the head's sphere, twisted 30° about the controller's forward axis
    /// (and carried a little, which does not matter): the head turns 30° about that
    /// axis in the world, its parents stay, and letting go is one undo step.
    #[test]
    fn a_gripped_turn_handle_turns_its_bone_by_the_controllers_twist_only() {
        let rig = rig();
        let mut editor = crate::animation::edit::Editor::new(rig.clone());
        // A bent neck first, so that world and local rotations differ.
        editor
            .apply(Edit::Pose(PoseEdit::Rotate {
                bone: Bone::Neck,
                rotation: Quat::from_rotation_x(0.4),
            }))
            .unwrap();
        let settings = editor.settings;
        let before = rig.world_pose(&editor.pose);
        let head = *spheres(&rig, &editor.hands, &editor.pose)
            .iter()
            .find(|s| s.handle == PoseHandle::Turn(Bone::Head))
            .unwrap();
        // The controller held tilted, its forward (−Z) pointing at the avatar.
        let held = Quat::from_rotation_y(0.3) * Quat::from_rotation_x(-0.2);
        let forward = held * Vec3::NEG_Z;
        let input = |turn: f32, squeeze: f32| {
            let rotation = Quat::from_axis_angle(forward, turn) * held;
            let at = head.center + Vec3::new(0.0, 0.0, 0.02) * turn;
            HandInput {
                grip: Some(Pointer::new(at, rotation)),
                aim: Some(Pointer::new(at, rotation)),
                squeeze,
                ..HandInput::default()
            }
        };
        let mut grabber = Grabber::default();
        let idle = HandInput::default();
        let twist = 30f32.to_radians();
        for step in 0..=10 {
            let turn = twist * step as f32 / 10.0;
            let now = spheres(&rig, &editor.hands, &editor.pose);
            for edit in grabber.update([&input(turn, 1.0), &idle], &now, &settings) {
                editor.apply(edit).unwrap();
            }
        }
        let now = spheres(&rig, &editor.hands, &editor.pose);
        let released = grabber.update([&input(twist, 0.0), &idle], &now, &settings);
        assert_eq!(released.last(), Some(&Edit::Gesture(Gesture::End)));
        for edit in released {
            editor.apply(edit).unwrap();
        }
        let after = rig.world_pose(&editor.pose);
        let turned = |bone: Bone| {
            let (_, a) = before[bone.index()].unwrap();
            let (_, b) = after[bone.index()].unwrap();
            b * a.inverse()
        };
        let (axis, angle) = turned(Bone::Head).to_axis_angle();
        assert!((angle - twist).abs() < 1e-4, "{}", angle.to_degrees());
        assert!(axis.dot(forward) > 0.9999, "about {axis}, not {forward}");
        for bone in [Bone::Neck, Bone::UpperChest, Bone::Chest, Bone::Spine] {
            assert!(turned(bone).angle_between(Quat::IDENTITY) < 1e-6, "{bone}");
        }
        // Each frame replaced the last: one undo step back to the bent neck.
        editor.apply(Edit::Undo).unwrap();
        assert_eq!(editor.pose.rotation(Bone::Head), Quat::IDENTITY);
        assert!(
            editor
                .pose
                .rotation(Bone::Neck)
                .angle_between(Quat::from_rotation_x(0.4))
                < 1e-6
        );
    }

    /// A grip on a curl sphere, twisted an eighth of a turn inwards: that finger is
    /// half curled, the others are as they were; the left hand's inwards is the other
    /// way; each grab is one undo step.
    #[test]
    fn twisting_a_curl_handle_curls_that_finger_only() {
        use crate::body::hand::Finger;
        use crate::model::humanoid::Side;
        let rig = rig();
        let mut editor = crate::animation::edit::Editor::new(rig.clone());
        let settings = editor.settings;
        let idle = HandInput::default();
        for (side, inwards) in [(Side::Right, 1.0), (Side::Left, -1.0)] {
            let bone = Finger::Index.bones(side)[0];
            let handle = PoseHandle::Curl(bone);
            let sphere = *spheres(&rig, &editor.hands, &editor.pose)
                .iter()
                .find(|s| s.handle == handle)
                .unwrap();
            let before = editor.pose.clone();
            let held = Quat::from_rotation_x(-0.3);
            let forward = held * Vec3::NEG_Z;
            let input = |turn: f32, squeeze: f32| {
                let rotation = Quat::from_axis_angle(forward, turn) * held;
                HandInput {
                    grip: Some(Pointer::new(sphere.center, rotation)),
                    aim: Some(Pointer::new(sphere.center, rotation)),
                    squeeze,
                    ..HandInput::default()
                }
            };
            let mut grabber = Grabber::default();
            let eighth = std::f32::consts::FRAC_PI_4 * inwards;
            for step in 0..=8 {
                let turn = eighth * step as f32 / 8.0;
                let now = spheres(&rig, &editor.hands, &editor.pose);
                for edit in grabber.update([&idle, &input(turn, 1.0)], &now, &settings) {
                    editor.apply(edit).unwrap();
                }
            }
            let now = spheres(&rig, &editor.hands, &editor.pose);
            for edit in grabber.update([&idle, &input(eighth, 0.0)], &now, &settings) {
                editor.apply(edit).unwrap();
            }
            let curl = editor
                .hands
                .read_finger(&editor.pose, side, Finger::Index)
                .curl;
            assert!((curl - 0.5).abs() < 0.01, "{side:?} index curl {curl}");
            for finger in Finger::ALL.into_iter().filter(|f| *f != Finger::Index) {
                for bone in finger.bones(side) {
                    assert_eq!(editor.pose.rotation(bone), before.rotation(bone), "{bone}");
                }
            }
            editor.apply(Edit::Undo).unwrap();
            assert_eq!(editor.pose, before, "one undo step");
        }
    }

    #[test]
    fn buttons_act_once_per_press() {
        let none = Buttons::default();
        let a = Buttons { a: true, ..none };
        assert_eq!(button_commands(none, a), vec![ButtonCommand::AddKey]);
        assert!(
            button_commands(a, a).is_empty(),
            "held is not pressed again"
        );
        let all = Buttons {
            a: true,
            b: true,
            x: true,
            y: true,
        };
        assert_eq!(
            button_commands(none, all),
            vec![
                ButtonCommand::AddKey,
                ButtonCommand::Undo,
                ButtonCommand::PlayStop,
                ButtonCommand::Redo
            ]
        );
        assert_eq!(ButtonCommand::PlayStop.edit(false), Edit::SetPlaying(true));
        assert_eq!(ButtonCommand::PlayStop.edit(true), Edit::SetPlaying(false));
        assert_eq!(ButtonCommand::Undo.edit(true), Edit::Undo);
    }

    #[test]
    fn sticks_walk_where_the_head_looks_and_scrub_the_playhead() {
        let dt = 0.5;
        // Full forward while looking along -Z (the head pitched down does not matter).
        let step = walk_step(Vec2::new(0.0, 1.0), Vec3::new(0.0, -0.5, -1.0), dt);
        assert!(
            step.distance(Vec3::new(0.0, 0.0, -WALK_SPEED * dt)) < 1e-5,
            "{step}"
        );
        // Right while looking along +X: towards +Z.
        let step = walk_step(Vec2::new(1.0, 0.0), Vec3::X, dt);
        assert!(
            step.distance(Vec3::new(0.0, 0.0, WALK_SPEED * dt)) < 1e-5,
            "{step}"
        );
        assert_eq!(
            walk_step(Vec2::new(0.1, -0.15), Vec3::NEG_Z, dt),
            Vec3::ZERO
        );
        assert_eq!(
            scrub_step(Vec2::new(0.1, 1.0), dt),
            0.0,
            "dead zone, and y is ignored"
        );
        assert!((scrub_step(Vec2::new(-1.0, 0.0), dt) + SCRUB_SPEED * dt).abs() < 1e-6);
        assert_eq!(scrub_step(Vec2::new(f32::NAN, 0.0), dt), 0.0);
    }
}
