//! Keys, eases and sampling (SPEC §4). Keys are kept sorted by time; sampling finds the
//! pair around `t` by binary search, so a 100,000-key timeline samples in O(log n).

use std::collections::BTreeSet;
use std::sync::Arc;

use glam::Vec3;
use serde_json::{Map, Value, json};

use crate::Refusal;
use crate::body::math::slerp_shortest;
use crate::body::pose::Pose;
use crate::model::humanoid::{ALL_BONES, Side};
use crate::num;

/// Frames per second of the timeline grid; key times snap to it.
pub const FPS: f32 = 30.0;

/// The most planted spans a timeline holds.
pub const MAX_PLANTS: usize = 100_000;

/// The longest timeline: one hour (108,000 frames). Every time read from a file or typed
/// is checked against it, so no input can make export sample billions of frames.
pub const MAX_TIME: f32 = 3600.0;

/// Snaps a time to the nearest 1/30 s frame.
pub fn snap(t: f32) -> f32 {
    frame_of(t) as f32 / FPS
}

/// The frame number nearest to `t`.
pub fn frame_of(t: f32) -> i64 {
    (t as f64 * FPS as f64).round() as i64
}

/// How the weight moves from key A to key B (A's ease applies).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Ease {
    #[default]
    Linear,
    InOut,
    In,
    Out,
    Hold,
}

impl Ease {
    pub const ALL: [Ease; 5] = [Ease::Linear, Ease::InOut, Ease::In, Ease::Out, Ease::Hold];

    pub fn name(self) -> &'static str {
        match self {
            Ease::Linear => "LINEAR",
            Ease::InOut => "IN-OUT",
            Ease::In => "IN",
            Ease::Out => "OUT",
            Ease::Hold => "HOLD",
        }
    }

    pub fn from_name(name: &str) -> Option<Ease> {
        Ease::ALL.into_iter().find(|e| e.name() == name)
    }

    /// The eased weight for `x` in [0, 1].
    pub fn apply(self, x: f32) -> f32 {
        let x = x.clamp(0.0, 1.0);
        match self {
            Ease::Linear => x,
            Ease::InOut => x * x * (3.0 - 2.0 * x),
            Ease::In => x * x,
            Ease::Out => 1.0 - (1.0 - x) * (1.0 - x),
            Ease::Hold => 0.0,
        }
    }
}

/// The largest key id taken from a file as the editor's own (JSON's safe integers):
/// ids above it are kept only to be written back, so counting on from the highest id
/// never overflows.
pub const MAX_FILE_KEY_ID: u64 = (1 << 53) - 1;

/// The longest key id string kept from a file.
pub const MAX_KEY_ID_BYTES: usize = 256;

/// One keyframe.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    /// The editor's identity of the key (selections and edits name it).
    pub id: u64,
    /// The id the key had in the file it came from when that was not a small integer
    /// (another tool's `"k1"`, a negative or huge number): written back as it was.
    pub file_id: Option<Value>,
    /// Seconds, on the 1/30 s grid.
    pub t: f32,
    pub ease: Ease,
    pub pose: Pose,
}

/// The keys of an animation, sorted by time, at most one per frame. Keys are shared
/// (`Arc`): an undo step or a clone holds the same keys, and an edit replaces only the
/// keys it changes, so a step costs what changed, not the whole timeline.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timeline {
    keys: Vec<Arc<Key>>,
    next_id: u64,
    /// Where a foot is planted (SPEC §11 foot locking): sorted by foot, then time; the
    /// spans of one foot never overlap.
    plants: Vec<Plant>,
}

/// A foot planted over a span of time: it keeps its world position and rotation from
/// `from` until `to` (both on frames, `from < to`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plant {
    pub foot: Side,
    pub from: f32,
    pub to: f32,
}

impl Plant {
    /// `"leftFoot"` / `"rightFoot"`, as edit scripts and files name it.
    pub fn foot_name(foot: Side) -> &'static str {
        match foot {
            Side::Left => "leftFoot",
            Side::Right => "rightFoot",
        }
    }

    pub fn foot_from_name(name: &str) -> Option<Side> {
        match name {
            "leftFoot" | "left" => Some(Side::Left),
            "rightFoot" | "right" => Some(Side::Right),
            _ => None,
        }
    }

    pub fn covers(&self, t: f32) -> bool {
        self.from <= t && t <= self.to
    }

    pub fn to_json(&self) -> Value {
        json!({"foot": Plant::foot_name(self.foot), "from": num(self.from), "to": num(self.to)})
    }

    /// Spans as files write them: `[{foot, from, to}]` (read by `Timeline::read_plants`).
    pub fn list_json(plants: &[Plant]) -> Value {
        Value::Array(plants.iter().map(Plant::to_json).collect())
    }

    /// Reads `{foot, from, to}`; `what` names it in errors.
    pub fn from_json(value: &Value, what: &str) -> Result<Plant, Refusal> {
        let foot = value["foot"]
            .as_str()
            .and_then(Plant::foot_from_name)
            .ok_or_else(|| Refusal::new(format!("{what}.foot: expected leftFoot or rightFoot")))?;
        let time = |name: &str| {
            value[name]
                .as_f64()
                .map(|t| t as f32)
                .filter(|t| t.is_finite() && (0.0..=MAX_TIME).contains(t))
                .ok_or_else(|| {
                    Refusal::new(format!(
                        "{what}.{name}: expected a time from 0 to {MAX_TIME} s"
                    ))
                })
        };
        let (from, to) = (snap(time("from")?), snap(time("to")?));
        if frame_of(to) <= frame_of(from) {
            return Err(Refusal::new(format!(
                "{what}: the span must end after it starts ({from} to {to} s)"
            )));
        }
        Ok(Plant { foot, from, to })
    }
}

/// Which keys a selection names.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyPick {
    /// The keys on these times' frames (times without a key are ignored).
    Times(Vec<f32>),
    /// Every key from `from` to `to`, both included.
    Range {
        from: f32,
        to: f32,
    },
    /// These key ids.
    Ids(Vec<u64>),
    All,
    None,
}

impl Timeline {
    pub fn keys(&self) -> &[Arc<Key>] {
        &self.keys
    }

    pub fn plants(&self) -> &[Plant] {
        &self.plants
    }

    /// The ids of the keys `pick` names, in time order.
    pub fn pick(&self, pick: &KeyPick) -> Vec<u64> {
        match pick {
            KeyPick::Times(times) => {
                let frames: BTreeSet<i64> = times
                    .iter()
                    .filter(|t| t.is_finite())
                    .map(|t| frame_of(*t))
                    .collect();
                self.keys
                    .iter()
                    .filter(|k| frames.contains(&frame_of(k.t)))
                    .map(|k| k.id)
                    .collect()
            }
            KeyPick::Range { from, to } => {
                let (a, b) = (frame_of(from.min(*to)), frame_of(from.max(*to)));
                self.keys
                    .iter()
                    .filter(|k| (a..=b).contains(&frame_of(k.t)))
                    .map(|k| k.id)
                    .collect()
            }
            KeyPick::Ids(ids) => {
                let ids = id_set(ids);
                self.keys
                    .iter()
                    .filter(|k| ids.contains(&k.id))
                    .map(|k| k.id)
                    .collect()
            }
            KeyPick::All => self.keys.iter().map(|k| k.id).collect(),
            KeyPick::None => Vec::new(),
        }
    }

    /// Gives the keys in `ids` new frames (`retime(old frame) -> new frame`), keeping
    /// the rest; plant ends on a retimed key's frame go with it. Refused, changing
    /// nothing, when a key would leave 0..MAX_TIME or two keys would share a frame.
    fn retime(&mut self, ids: &[u64], retime: impl Fn(i64) -> i64) -> Result<(), Refusal> {
        let ids = id_set(ids);
        let max_frame = frame_of(MAX_TIME);
        let mut moved = std::collections::BTreeMap::new();
        for key in self.keys.iter().filter(|k| ids.contains(&k.id)) {
            let (old, new) = (frame_of(key.t), retime(frame_of(key.t)));
            if !(0..=max_frame).contains(&new) {
                return Err(Refusal::new(format!(
                    "the key at {} s would move to {} s, outside 0 to {MAX_TIME} s",
                    key.t,
                    new as f32 / FPS
                )));
            }
            moved.insert(old, new);
        }
        let mut taken = std::collections::BTreeMap::new();
        for key in &self.keys {
            let frame = frame_of(key.t);
            let new = if ids.contains(&key.id) {
                moved[&frame]
            } else {
                frame
            };
            if let Some(other) = taken.insert(new, key.t) {
                return Err(Refusal::new(format!(
                    "the keys at {} s and {} s would both land on {} s",
                    other.min(key.t),
                    other.max(key.t),
                    new as f32 / FPS
                )));
            }
        }
        for key in &mut self.keys {
            if ids.contains(&key.id) {
                Arc::make_mut(key).t = moved[&frame_of(key.t)] as f32 / FPS;
            }
        }
        self.keys.sort_by_key(|k| frame_of(k.t));
        let moved_time = |t: f32| {
            moved
                .get(&frame_of(t))
                .map_or(t, |frame| *frame as f32 / FPS)
        };
        let plants: Vec<Plant> = self
            .plants
            .iter()
            .map(|p| Plant {
                from: moved_time(p.from),
                to: moved_time(p.to),
                ..*p
            })
            .collect();
        self.set_plants(plants);
        Ok(())
    }

    /// Moves the keys in `ids` by `by` seconds (snapped to whole frames), keeping their
    /// spacing.
    pub fn move_keys(&mut self, ids: &[u64], by: f32) -> Result<(), Refusal> {
        if !by.is_finite() || by.abs() > MAX_TIME {
            return Err(Refusal::new(format!("cannot move keys by {by} s")));
        }
        let frames = frame_of(by);
        self.retime(ids, |f| f + frames)
    }

    /// Scales the times of the keys in `ids` around `pivot` by `factor`, each landing on
    /// the nearest frame.
    pub fn scale_keys(&mut self, ids: &[u64], factor: f32, pivot: f32) -> Result<(), Refusal> {
        if !factor.is_finite() || !(0.001..=1000.0).contains(&factor) {
            return Err(Refusal::new(format!(
                "cannot scale key times by {factor} (0.001 to 1000)"
            )));
        }
        if !pivot.is_finite() || !(0.0..=MAX_TIME).contains(&pivot) {
            return Err(Refusal::new(format!(
                "cannot scale around {pivot} s (0 to {MAX_TIME} s)"
            )));
        }
        let pivot = pivot as f64 * FPS as f64;
        self.retime(ids, |f| {
            (pivot + (f as f64 - pivot) * factor as f64).round() as i64
        })
    }

    /// Removes the keys in `ids`; returns how many there were.
    pub fn delete_keys(&mut self, ids: &[u64]) -> usize {
        let ids = id_set(ids);
        let before = self.keys.len();
        self.keys.retain(|k| !ids.contains(&k.id));
        before - self.keys.len()
    }

    /// Sets the ease of the keys in `ids`.
    pub fn ease_keys(&mut self, ids: &[u64], ease: Ease) {
        let ids = id_set(ids);
        for key in &mut self.keys {
            if ids.contains(&key.id) && key.ease != ease {
                Arc::make_mut(key).ease = ease;
            }
        }
    }

    /// Copies of the keys in `ids` with times relative to the first of them.
    pub fn copy_keys(&self, ids: &[u64]) -> Vec<Key> {
        let ids = id_set(ids);
        let picked: Vec<&Arc<Key>> = self.keys.iter().filter(|k| ids.contains(&k.id)).collect();
        let start = picked.first().map_or(0, |k| frame_of(k.t));
        picked
            .into_iter()
            .map(|k| Key {
                t: (frame_of(k.t) - start) as f32 / FPS,
                file_id: None,
                ..(**k).clone()
            })
            .collect()
    }

    /// Puts copied keys (times relative to the first) at `at`, replacing keys on the
    /// frames they land on; returns the new keys' ids. Refused when one would pass
    /// `MAX_TIME`.
    pub fn paste_keys(&mut self, keys: &[Key], at: f32) -> Result<Vec<u64>, Refusal> {
        if !at.is_finite() || !(0.0..=MAX_TIME).contains(&at) {
            return Err(Refusal::new(format!(
                "cannot paste at {at} s (0 to {MAX_TIME} s)"
            )));
        }
        let start = frame_of(at);
        if let Some(last) = keys.last()
            && start + frame_of(last.t) > frame_of(MAX_TIME)
        {
            return Err(Refusal::new(format!(
                "the pasted keys would end after {MAX_TIME} s"
            )));
        }
        // One merge, not an insert per key: pasting 100,000 keys stays linear.
        let landing: BTreeSet<i64> = keys.iter().map(|k| start + frame_of(k.t)).collect();
        let mut merged: Vec<Arc<Key>> = self
            .keys
            .drain(..)
            .filter(|k| !landing.contains(&frame_of(k.t)))
            .collect();
        let mut ids = Vec::with_capacity(keys.len());
        for key in keys {
            self.next_id += 1;
            ids.push(self.next_id);
            merged.push(Arc::new(Key {
                id: self.next_id,
                file_id: None,
                t: (start + frame_of(key.t)) as f32 / FPS,
                ease: key.ease,
                pose: key.pose.clone(),
            }));
        }
        merged.sort_by_key(|k| frame_of(k.t));
        merged.dedup_by_key(|k| frame_of(k.t));
        self.keys = merged;
        Ok(ids)
    }

    /// Plants (`on`) or frees a foot over `from..=to`: planting merges with the foot's
    /// spans it touches; freeing cuts that time out of them.
    pub fn set_plant(&mut self, foot: Side, from: f32, to: f32, on: bool) {
        let (a, b) = (frame_of(from.min(to)), frame_of(from.max(to)));
        let span = |s: i64, e: i64| Plant {
            foot,
            from: s as f32 / FPS,
            to: e as f32 / FPS,
        };
        let mut plants = Vec::with_capacity(self.plants.len() + 2);
        for p in &self.plants {
            let (s, e) = (frame_of(p.from), frame_of(p.to));
            if on || p.foot != foot || e <= a || s >= b {
                plants.push(*p);
            } else {
                // What lies outside a..b stays; `set_plants` drops the empty pieces.
                plants.extend([span(s, a), span(b, e)]);
            }
        }
        if on {
            plants.push(span(a, b));
        }
        self.set_plants(plants);
    }

    /// The span planting `foot` at `t`, if any: a binary search (spans are sorted by
    /// foot, then time, and one foot's never overlap).
    pub fn plant_at(&self, foot: Side, t: f32) -> Option<Plant> {
        let key = |p: &Plant| (p.foot == Side::Right, p.from);
        let right = foot == Side::Right;
        let after = self.plants.partition_point(|p| key(p) <= (right, t));
        let candidate = self.plants.get(after.checked_sub(1)?)?;
        (candidate.foot == foot && candidate.covers(t)).then_some(*candidate)
    }

    /// Reads planted spans (`what` names the list in errors): absent or null is none, an
    /// array of at most [`MAX_PLANTS`] spans replaces them, anything else is refused.
    pub fn read_plants(&mut self, value: Option<&Value>, what: &str) -> Result<(), Refusal> {
        match value {
            None | Some(Value::Null) => Ok(()),
            Some(Value::Array(list)) if list.len() <= MAX_PLANTS => {
                let plants = list
                    .iter()
                    .enumerate()
                    .map(|(i, p)| Plant::from_json(p, &format!("{what}[{i}]")))
                    .collect::<Result<_, _>>()?;
                self.set_plants(plants);
                Ok(())
            }
            Some(_) => Err(Refusal::new(format!(
                "{what}: expected an array of at most {MAX_PLANTS} spans"
            ))),
        }
    }

    /// Replaces the planted spans: empty ones dropped, overlapping ones of a foot
    /// merged, in O(n log n).
    pub fn set_plants(&mut self, plants: Vec<Plant>) {
        let mut spans: Vec<(bool, i64, i64)> = plants
            .iter()
            .map(|p| {
                let (a, b) = (frame_of(p.from), frame_of(p.to));
                (p.foot == Side::Right, a.min(b), a.max(b))
            })
            .filter(|(_, a, b)| b > a)
            .collect();
        spans.sort();
        let mut merged: Vec<(bool, i64, i64)> = Vec::with_capacity(spans.len());
        for (right, a, b) in spans {
            match merged.last_mut() {
                Some(last) if last.0 == right && a <= last.2 => last.2 = last.2.max(b),
                _ => merged.push((right, a, b)),
            }
        }
        self.plants = merged
            .into_iter()
            .map(|(right, a, b)| Plant {
                foot: if right { Side::Right } else { Side::Left },
                from: a as f32 / FPS,
                to: b as f32 / FPS,
            })
            .collect();
    }

    /// The highest key id handed out so far (undo keeps ids unique across steps).
    pub fn next_id(&self) -> u64 {
        self.next_id
    }

    /// A timeline of keys that came from a timeline (an undo step): already sorted, on
    /// frames and unique, so they are taken as they are.
    pub fn from_shared(keys: &[Arc<Key>], plants: &[Plant], next_id: u64) -> Timeline {
        let next_id = keys.iter().map(|k| k.id).max().unwrap_or(0).max(next_id);
        Timeline {
            keys: keys.to_vec(),
            next_id,
            plants: plants.to_vec(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Drops, from every key, expressions the model does not have (a warning each).
    pub fn retain_known_expressions(&mut self, known: &[String], warnings: &mut Vec<String>) {
        for key in &mut self.keys {
            if key
                .pose
                .expressions
                .keys()
                .any(|name| !known.contains(name))
            {
                Arc::make_mut(key)
                    .pose
                    .retain_known_expressions(known, warnings);
            }
        }
    }

    /// Takes another timeline's keys; ids handed out later stay unique.
    pub fn replace_keys(&mut self, other: Timeline) {
        let next_id = self.next_id.max(other.next_id);
        *self = other;
        self.next_id = next_id;
    }

    /// Time of the last key (0 without keys).
    pub fn end(&self) -> f32 {
        self.keys.last().map_or(0.0, |k| k.t)
    }

    /// Index of the key on the frame of `t`.
    pub fn key_index_at(&self, t: f32) -> Option<usize> {
        let frame = frame_of(t);
        self.keys
            .binary_search_by_key(&frame, |k| frame_of(k.t))
            .ok()
    }

    pub fn key_at(&self, t: f32) -> Option<&Key> {
        self.key_index_at(t).map(|i| &*self.keys[i])
    }

    pub fn key_by_id(&self, id: u64) -> Option<&Key> {
        self.keys.iter().find(|k| k.id == id).map(|k| &**k)
    }

    /// Writes `pose` into the key on `t`'s frame, or inserts a LINEAR key there.
    /// Returns the key's id.
    pub fn set_key(&mut self, t: f32, pose: Pose) -> u64 {
        let t = snap(t);
        match self
            .keys
            .binary_search_by_key(&frame_of(t), |k| frame_of(k.t))
        {
            Ok(i) => {
                Arc::make_mut(&mut self.keys[i]).pose = pose;
                self.keys[i].id
            }
            Err(i) => {
                self.next_id += 1;
                let id = self.next_id;
                self.keys.insert(
                    i,
                    Arc::new(Key {
                        id,
                        file_id: None,
                        t,
                        ease: Ease::Linear,
                        pose,
                    }),
                );
                id
            }
        }
    }

    /// Removes the key on `t`'s frame; returns whether there was one.
    pub fn delete_key_at(&mut self, t: f32) -> bool {
        match self.key_index_at(t) {
            Some(i) => {
                self.keys.remove(i);
                true
            }
            None => false,
        }
    }

    /// Sets the ease of the key on `t`'s frame.
    pub fn set_ease_at(&mut self, t: f32, ease: Ease) -> bool {
        match self.key_index_at(t) {
            Some(i) => {
                Arc::make_mut(&mut self.keys[i]).ease = ease;
                true
            }
            None => false,
        }
    }

    /// Moves the key on `from`'s frame to `to` (snapped). Refused when `to` is negative,
    /// not finite, or another key is already there.
    pub fn move_key(&mut self, from: f32, to: f32) -> Result<(), Refusal> {
        if !to.is_finite() || !(0.0..=MAX_TIME).contains(&to) {
            return Err(Refusal::new(format!(
                "cannot move a key to {to} s (0 to {MAX_TIME} s)"
            )));
        }
        let i = self
            .key_index_at(from)
            .ok_or_else(|| Refusal::new(format!("no key at {} s", snap(from))))?;
        let to = snap(to);
        if frame_of(to) == frame_of(self.keys[i].t) {
            return Ok(());
        }
        if self.key_index_at(to).is_some() {
            return Err(Refusal::new(format!("there is already a key at {to} s")));
        }
        // As a selection of one, so that planted spans ending on it move with it.
        let id = self.keys[i].id;
        self.retime(&[id], |_| frame_of(to))
    }

    /// Builds a timeline from keys in any order; times snap to frames; two keys on one
    /// frame, negative or non-finite times are errors.
    pub fn from_keys(mut keys: Vec<Key>) -> Result<Timeline, Refusal> {
        for k in &mut keys {
            if !k.t.is_finite() || !(0.0..=MAX_TIME).contains(&k.t) {
                return Err(Refusal::new(format!(
                    "key {}: time {} is not between 0 and {MAX_TIME} s",
                    k.id, k.t
                )));
            }
            k.t = snap(k.t);
        }
        keys.sort_by_key(|k| frame_of(k.t));
        for pair in keys.windows(2) {
            if frame_of(pair[0].t) == frame_of(pair[1].t) {
                return Err(Refusal::new(format!(
                    "keys {} and {} are on the same frame ({} s)",
                    pair[0].id, pair[1].id, pair[0].t
                )));
            }
        }
        let mut ids = BTreeSet::new();
        let mut next_id = keys
            .iter()
            .map(|k| k.id.min(MAX_FILE_KEY_ID))
            .max()
            .unwrap_or(0);
        for k in &mut keys {
            // No id, or one already taken (a duplicate is harmless): a fresh one.
            if k.id == 0 || k.id > MAX_FILE_KEY_ID || !ids.insert(k.id) {
                next_id += 1;
                k.id = next_id;
                ids.insert(k.id);
            }
        }
        Ok(Timeline {
            keys: keys.into_iter().map(Arc::new).collect(),
            next_id,
            plants: Vec::new(),
        })
    }

    /// The pose at time `t` (SPEC §4). `rest_hips` stands in for keys without hips.
    pub fn sample(&self, t: f32, rest_hips: Vec3) -> Option<Pose> {
        let first = self.keys.first()?;
        let last = self.keys.last().expect("non-empty");
        if t.is_nan() {
            return None;
        }
        if t <= first.t {
            return Some(with_hips(&first.pose, rest_hips));
        }
        if t >= last.t {
            return Some(with_hips(&last.pose, rest_hips));
        }
        // The first key after t; A is the one before it.
        let b_index = self.keys.partition_point(|k| k.t <= t);
        let (a, b) = (&self.keys[b_index - 1], &self.keys[b_index]);
        if t == a.t {
            return Some(with_hips(&a.pose, rest_hips));
        }
        let x = (t - a.t) / (b.t - a.t);
        Some(interpolate(&a.pose, &b.pose, a.ease.apply(x), rest_hips))
    }
}

fn id_set(ids: &[u64]) -> std::collections::HashSet<u64> {
    ids.iter().copied().collect()
}

fn with_hips(pose: &Pose, rest_hips: Vec3) -> Pose {
    let mut out = pose.clone();
    out.hips = Some(pose.hips.unwrap_or(rest_hips));
    out
}

/// Blends two poses with weight `w` (0 = a): shortest-path slerp per bone over the
/// union of bones (absent = identity, which the fixed bone array already is), hips and
/// expressions linear (absent expression = 0).
pub fn interpolate(a: &Pose, b: &Pose, w: f32, rest_hips: Vec3) -> Pose {
    let mut out = Pose::default();
    for bone in ALL_BONES {
        out.bones[bone.index()] = slerp_shortest(a.rotation(bone), b.rotation(bone), w);
    }
    let (ha, hb) = (a.hips.unwrap_or(rest_hips), b.hips.unwrap_or(rest_hips));
    out.hips = Some(ha.lerp(hb, w));
    for name in a.expressions.keys().chain(b.expressions.keys()) {
        let va = a.expressions.get(name).copied().unwrap_or(0.0);
        let vb = b.expressions.get(name).copied().unwrap_or(0.0);
        out.expressions.insert(name.clone(), va + (vb - va) * w);
    }
    out.look = crate::body::look::Look::between(a.look.as_ref(), b.look.as_ref(), w);
    out
}

impl Key {
    /// `{id, t, ease, pose}`; the pose without the model's title, which the project
    /// holds once.
    pub fn to_json(&self) -> Value {
        let mut pose = self.pose.to_json("");
        if let Some(fields) = pose.as_object_mut() {
            fields.remove("model");
        }
        match &self.file_id {
            // The editor's own id goes with it, so that a saved undo step or a reopened
            // project names the same key.
            Some(id) => json!({"id": id, "editor_id": self.id, "t": num(self.t),
                               "ease": self.ease.name(), "pose": pose}),
            None => {
                json!({"id": self.id, "t": num(self.t), "ease": self.ease.name(), "pose": pose})
            }
        }
    }

    /// Reads `{id, t, ease, pose}`; `index` names the key in errors.
    pub fn from_json(
        value: &Value,
        index: usize,
        warnings: &mut Vec<String>,
    ) -> Result<Key, Refusal> {
        let what = format!("keys[{index}]");
        let obj: &Map<String, Value> = value
            .as_object()
            .ok_or_else(|| Refusal::new(format!("{what}: expected an object")))?;
        // Ids are any JSON string or integer (other tools write "k1"); only small
        // non-negative integers serve as the editor's own, the rest are kept to write
        // back and get a fresh one (0 here: `from_keys` numbers them).
        let (id, file_id) = match obj.get("id") {
            None | Some(Value::Null) => (0, None),
            Some(v) => match v.as_u64() {
                Some(n) if (1..=MAX_FILE_KEY_ID).contains(&n) => (n, None),
                _ if v.is_string() || v.is_i64() || v.is_u64() => (0, Some(v.clone())),
                _ => {
                    return Err(Refusal::new(format!(
                        "{what}.id: expected a string or an integer, got {v}"
                    )));
                }
            },
        };
        let id = match (&file_id, obj.get("editor_id").and_then(Value::as_u64)) {
            (Some(_), Some(own)) if (1..=MAX_FILE_KEY_ID).contains(&own) => own,
            _ => id,
        };
        if let Some(Value::String(text)) = &file_id
            && text.len() > MAX_KEY_ID_BYTES
        {
            return Err(Refusal::new(format!(
                "{what}.id: {} bytes long; at most {MAX_KEY_ID_BYTES}",
                text.len()
            )));
        }
        let t = obj
            .get("t")
            .and_then(Value::as_f64)
            .ok_or_else(|| Refusal::new(format!("{what}.t: expected a number")))?;
        if !t.is_finite() || !(0.0..=MAX_TIME as f64).contains(&t) {
            return Err(Refusal::new(format!(
                "{what}.t: {t} is not a valid time (0 to {MAX_TIME} s)"
            )));
        }
        let ease = match obj.get("ease") {
            None | Some(Value::Null) => Ease::Linear,
            Some(Value::String(s)) => Ease::from_name(s)
                .ok_or_else(|| Refusal::new(format!("{what}.ease: unknown ease '{s}'")))?,
            Some(other) => {
                return Err(Refusal::new(format!(
                    "{what}.ease: expected a string, got {other}"
                )));
            }
        };
        let pose = Pose::from_json(obj.get("pose").unwrap_or(&Value::Null), warnings)
            .map_err(|e| e.context(format!("{what}.pose")))?;
        Ok(Key {
            id,
            file_id,
            t: t as f32,
            ease,
            pose,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::math::angle_between;
    use crate::body::math::testing::arb_quat;
    use crate::model::humanoid::Bone;
    use glam::Quat;
    use proptest::prelude::*;

    fn pose_with(bone: Bone, q: Quat) -> Pose {
        let mut p = Pose::default();
        p.set_rotation(bone, q);
        p
    }

    #[test]
    fn eases_match_the_spec() {
        assert_eq!(Ease::Linear.apply(0.25), 0.25);
        assert_eq!(Ease::InOut.apply(0.5), 0.5);
        assert_eq!(Ease::In.apply(0.5), 0.25);
        assert_eq!(Ease::Out.apply(0.5), 0.75);
        assert_eq!(Ease::Hold.apply(0.99), 0.0);
        for e in Ease::ALL {
            assert_eq!(Ease::from_name(e.name()), Some(e));
        }
    }

    proptest! {
        #[test]
        fn eases_are_monotone_from_0_to_1(a in 0.0f32..=1.0, b in 0.0f32..=1.0) {
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            for e in Ease::ALL {
                prop_assert!(e.apply(lo) <= e.apply(hi) + 1e-7, "{e:?}");
                prop_assert_eq!(e.apply(0.0), 0.0);
                if e != Ease::Hold {
                    prop_assert!((e.apply(1.0) - 1.0).abs() < 1e-7);
                }
            }
        }

        #[test]
        fn sampling_at_a_key_time_returns_that_key(
            qs in proptest::collection::vec(arb_quat(), 2..8),
            gaps in proptest::collection::vec(1u32..40, 2..8),
        ) {
            let mut tl = Timeline::default();
            let mut t = 0.0;
            for (i, (q, gap)) in qs.iter().zip(&gaps).enumerate() {
                t += *gap as f32 / FPS;
                let id = tl.set_key(t, pose_with(Bone::Spine, *q));
                tl.set_ease_at(t, Ease::ALL[i % 5]);
                prop_assert!(tl.key_by_id(id).is_some());
            }
            for key in tl.keys() {
                let s = tl.sample(key.t, Vec3::Y).unwrap();
                prop_assert!(angle_between(s.rotation(Bone::Spine), key.pose.rotation(Bone::Spine)) < 1e-4);
            }
        }
    }

    #[test]
    fn sampling_holds_outside_and_blends_inside() {
        let mut tl = Timeline::default();
        let a = pose_with(Bone::Neck, Quat::from_rotation_x(0.2));
        let mut b = pose_with(Bone::Neck, Quat::from_rotation_x(0.8));
        b.hips = Some(Vec3::new(0.0, 0.5, 0.0));
        b.expressions.insert("happy".into(), 1.0);
        tl.set_key(1.0, a.clone());
        tl.set_key(2.0, b.clone());
        let rest = Vec3::new(0.0, 1.0, 0.0);
        let before = tl.sample(0.0, rest).unwrap();
        assert!(angle_between(before.rotation(Bone::Neck), a.rotation(Bone::Neck)) < 1e-6);
        assert_eq!(
            before.hips,
            Some(rest),
            "a key without hips uses the rest hips"
        );
        let after = tl.sample(9.0, rest).unwrap();
        assert_eq!(after.hips, b.hips);
        let mid = tl.sample(1.5, rest).unwrap();
        assert!(angle_between(mid.rotation(Bone::Neck), Quat::from_rotation_x(0.5)) < 1e-5);
        assert!((mid.hips.unwrap().y - 0.75).abs() < 1e-6);
        assert!((mid.expressions["happy"] - 0.5).abs() < 1e-6);
        tl.set_ease_at(1.0, Ease::Hold);
        let held = tl.sample(1.99, rest).unwrap();
        assert!(angle_between(held.rotation(Bone::Neck), a.rotation(Bone::Neck)) < 1e-6);
        let at_b = tl.sample(2.0, rest).unwrap();
        assert!(
            angle_between(at_b.rotation(Bone::Neck), b.rotation(Bone::Neck)) < 1e-6,
            "HOLD jumps to B at B"
        );
    }

    #[test]
    fn planting_merges_what_it_touches_and_freeing_cuts_a_gap() {
        let mut tl = Timeline::default();
        let spans = |tl: &Timeline, foot| {
            tl.plants()
                .iter()
                .filter(|p| p.foot == foot)
                .map(|p| (frame_of(p.from), frame_of(p.to)))
                .collect::<Vec<_>>()
        };
        tl.set_plant(Side::Left, 0.0, 10.0 / FPS, true);
        tl.set_plant(Side::Left, 20.0 / FPS, 30.0 / FPS, true);
        tl.set_plant(Side::Right, 5.0 / FPS, 8.0 / FPS, true);
        tl.set_plant(Side::Left, 10.0 / FPS, 20.0 / FPS, true);
        assert_eq!(spans(&tl, Side::Left), [(0, 30)], "touching spans are one");
        tl.set_plant(Side::Left, 12.0 / FPS, 15.0 / FPS, false);
        assert_eq!(spans(&tl, Side::Left), [(0, 12), (15, 30)]);
        tl.set_plant(Side::Left, 0.0, 12.0 / FPS, false);
        assert_eq!(spans(&tl, Side::Left), [(15, 30)], "an emptied span goes");
        assert_eq!(
            spans(&tl, Side::Right),
            [(5, 8)],
            "the other foot is untouched"
        );
        assert_eq!(
            tl.plant_at(Side::Right, 6.0 / FPS).map(|p| p.foot),
            Some(Side::Right)
        );
        assert!(tl.plant_at(Side::Left, 6.0 / FPS).is_none());
    }

    #[test]
    fn keys_snap_and_refuse_clashes() {
        let mut tl = Timeline::default();
        tl.set_key(0.51, Pose::default());
        assert!((tl.keys()[0].t - 0.5).abs() < 1e-6);
        tl.set_key(1.0, Pose::default());
        assert!(tl.move_key(1.0, 0.5).is_err());
        assert!(tl.move_key(1.0, -1.0).is_err());
        tl.move_key(1.0, 0.2).unwrap();
        assert!(tl.keys()[0].t < tl.keys()[1].t);
        let clash = vec![
            Key {
                id: 1,
                file_id: None,
                t: 1.0,
                ease: Ease::Linear,
                pose: Pose::default(),
            },
            Key {
                id: 2,
                file_id: None,
                t: 1.01,
                ease: Ease::Linear,
                pose: Pose::default(),
            },
        ];
        assert!(
            Timeline::from_keys(clash)
                .unwrap_err()
                .to_string()
                .contains("same frame")
        );
    }
}
