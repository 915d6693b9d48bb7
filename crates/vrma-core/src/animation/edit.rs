//! The one edit path. Every user action — a slider in the window, a key press, a line
//! of an edit script, a VR grab — becomes an [`Edit`] applied by [`Editor::apply`], so
//! that write-back to keys, undo and pinning behave the same everywhere.
//!
//! Edits are typed by what they change: a [`PoseEdit`] changes the pose (and is written
//! back to the key at the playhead), a [`KeyEdit`] changes the keys, a [`Gesture`] is a
//! drag of pose edits that becomes one undo step. Undo keeps typed [`Snapshot`]s whose
//! keys are shared with the timeline, so a step costs what it changed.

use std::sync::Arc;

use glam::{Quat, Vec3};
use serde_json::{Map, Value, json};

use crate::Refusal;
use crate::animation::history::History;
use crate::animation::project::{Project, Settings};
use crate::animation::timeline::{Ease, Key, KeyPick, MAX_TIME, Plant, Timeline, frame_of, snap};
use crate::body::hand::{self, Finger, HandDirections, HandShape, copy_hand_to_other_side};
use crate::body::ik::{self, FootPins, Limb};
use crate::body::look::{Look, LookTarget};
use crate::body::rig::Rig;
use crate::model::humanoid::{ALL_BONES, Bone, Side};
use crate::round7;
use crate::{
    body::pose::BodyMask, body::pose::Pose, body::pose::PoseDirections, read_floats, read_quat,
};

/// Which hand(s) a grip acts on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GripSide {
    One(Side),
    Both,
}

impl GripSide {
    /// The hands it names.
    pub fn sides(self) -> &'static [Side] {
        match self {
            GripSide::One(Side::Left) => &[Side::Left],
            GripSide::One(Side::Right) => &[Side::Right],
            GripSide::Both => &Side::BOTH,
        }
    }
}

/// An edit of the pose. With keys (and stopped) it is written back to the key at the
/// playhead.
#[derive(Clone, Debug, PartialEq)]
pub enum PoseEdit {
    /// Set a bone's normalized local rotation (VRM 1.0 convention).
    Rotate { bone: Bone, rotation: Quat },
    /// Reset one bone to identity.
    ResetBone(Bone),
    /// Reset bones, hips and expressions to rest.
    ResetPose,
    /// Left↔right swap of the whole pose.
    Mirror,
    /// Lower both arms from the T-pose.
    ArmsDown,
    /// Curl the fingers of one or both hands; 0 = open, 1 = full grip.
    Grip { side: GripSide, amount: f32 },
    /// Set an expression weight in [0, 1].
    Expression { name: String, value: f32 },
    /// Replace the whole pose (a library pose, a pose file, a script's `pose` step);
    /// expressions the model lacks are dropped.
    SetPose(Box<Pose>),
    /// Move a hand or foot to a model-space target with two-bone IK.
    Ik {
        end: Bone,
        target: Vec3,
        keep_angle: bool,
    },
    /// Swing an elbow or knee towards a point, hand or foot fixed.
    Pole { limb: Limb, point: Vec3 },
    /// Set the hips position and/or normalized rotation (absolute); with `pin_feet` the
    /// legs re-solve to where the feet were when the edit (or drag) began.
    MoveHips {
        to: Option<Vec3>,
        rotate: Option<Quat>,
        pin_feet: bool,
    },
    /// Lay the part of `pose` that `mask` covers over the current pose (mirrored first
    /// when asked): a library pose onto one arm, a pasted pose onto the upper body.
    ApplyPose {
        pose: Box<Pose>,
        mask: BodyMask,
        mirror: bool,
    },
    /// Shape one or both hands (a preset's shape, `amount` of the way from straight).
    Hand {
        side: GripSide,
        shape: Box<HandShape>,
        amount: f32,
    },
    /// Set one digit's curl and spread (the thumb's spread is −opposition); `bone` is
    /// any of its bones.
    Finger { bone: Bone, curl: f32, spread: f32 },
    /// Copy one hand's fingers onto the other hand, mirrored.
    CopyHand { from: Side },
    /// Where the eyes look (`None`: as posed, no gaze).
    LookAt(Option<LookTarget>),
}

/// How a pick combines with the keys already selected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SelectMode {
    /// The pick becomes the selection (a click).
    #[default]
    Replace,
    /// The pick joins the selection (Shift-click, Shift-box).
    Add,
    /// Each picked key flips in or out (Ctrl-click).
    Toggle,
}

/// An edit of the keys: one undo step each.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyEdit {
    /// Add (or overwrite) the key at the playhead with the current pose.
    Add,
    /// Delete the key at the playhead.
    Delete,
    /// Set the ease of the key at the playhead.
    SetEase(Ease),
    /// Move a key from one time to another (both snapped).
    Move { from: f32, to: f32 },
    /// Replace all keys (importing an animation); the length grows to fit them.
    Replace(Box<Timeline>),
    /// Put a pose at a time (a library pose dropped on the timeline): the playhead moves
    /// there, the pose is shown and keyed. Expressions the model lacks are dropped.
    PlacePose {
        t: f32,
        pose: Box<Pose>,
        /// The part of the body the pose is of: the rest comes from the timeline there.
        mask: BodyMask,
    },
    /// Change which keys are selected.
    Select { pick: KeyPick, mode: SelectMode },
    /// Move the selected keys by `by` seconds (whole frames), keeping their spacing.
    MoveSelected { by: f32 },
    /// Scale the selected keys' times around `pivot` by `factor`.
    ScaleSelected { factor: f32, pivot: f32 },
    /// Delete the selected keys.
    DeleteSelected,
    /// Give the selected keys one ease.
    EaseSelected(Ease),
    /// Put the copied keys at `t` (keeping their spacing, replacing keys where they land;
    /// mirrored when asked); the pasted keys become the selection.
    Paste { t: f32, mirror: bool },
    /// Copy the selected keys to `t` without touching the clipboard (refused where a copy
    /// would land on a key); the copies become the selection.
    Duplicate { t: f32 },
    /// Plant (`on`) or free a foot over `from..=to`.
    Plant {
        foot: Side,
        from: f32,
        to: f32,
        on: bool,
    },
}

/// A drag: previews of pose edits, then one undo step (or nothing, when cancelled).
#[derive(Clone, Debug, PartialEq)]
pub enum Gesture {
    /// A pose edit in progress (a slider or handle drag): applied to the pose only; the
    /// drag's single undo step and write-back happen at [`Gesture::End`].
    Preview(PoseEdit),
    /// Finish the drag.
    End,
    /// Abandon the drag: everything returns exactly to how it was before it began.
    Cancel,
}

/// One user edit.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    Pose(PoseEdit),
    Keys(KeyEdit),
    Gesture(Gesture),
    /// Move the playhead (snapped to a frame); with keys, the pose follows. Not undoable.
    Seek(f32),
    Undo,
    Redo,
    /// Start or stop playback (not undoable).
    SetPlaying(bool),
    /// Change the editor settings (pin feet, keep angle, loop, length; not undoable).
    ChangeSettings(Settings),
    /// Copy the selected keys (changes nothing to undo).
    CopyKeys,
    /// Copy the current pose (changes nothing to undo).
    CopyPose,
    /// Lay the copied pose over the pose at the playhead (a pose edit: one undo step,
    /// written back to the key there).
    PastePose {
        mirror: bool,
        mask: BodyMask,
    },
    /// Paste what was copied last: keys at the playhead, or the pose onto `mask`
    /// (Ctrl+V / Ctrl+Shift+V).
    PasteLast {
        mirror: bool,
        mask: BodyMask,
    },
}

/// What was copied last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Copied {
    Keys,
    Pose,
}

impl Edit {
    /// A preview step of a drag.
    pub fn preview(edit: PoseEdit) -> Edit {
        Edit::Gesture(Gesture::Preview(edit))
    }
}

impl From<PoseEdit> for Edit {
    fn from(edit: PoseEdit) -> Edit {
        Edit::Pose(edit)
    }
}

impl From<KeyEdit> for Edit {
    fn from(edit: KeyEdit) -> Edit {
        Edit::Keys(edit)
    }
}

impl From<Gesture> for Edit {
    fn from(gesture: Gesture) -> Edit {
        Edit::Gesture(gesture)
    }
}

/// One undo step: the state an edit can change, as values. Keys are shared with the
/// timeline and other steps, so a snapshot of a 2,000-key project is 2,000 pointers.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub pose: Pose,
    pub keys: Arc<[Arc<Key>]>,
    pub plants: Arc<[Plant]>,
    /// The selected keys' ids.
    pub selection: Arc<[u64]>,
    pub next_key_id: u64,
    pub playhead: f32,
    /// The timeline length (importing an animation lengthens it).
    pub length: f32,
}

/// Two steps are equal when the user would see the same work; `next_key_id` only keeps
/// ids unique and moves on after an undo.
impl PartialEq for Snapshot {
    fn eq(&self, other: &Snapshot) -> bool {
        self.same_work(other) && self.selection == other.selection
    }
}

impl Snapshot {
    /// Whether the two hold the same work, whatever is selected in it: stepping through
    /// a selection is no change to save.
    pub fn same_work(&self, other: &Snapshot) -> bool {
        self.pose == other.pose
            && self.keys == other.keys
            && self.plants == other.plants
            && self.playhead == other.playhead
            && self.length == other.length
    }

    /// The step in the project's JSON data model: `{pose, keys, playhead, length}`, the
    /// pose and keys exactly as a project file writes them.
    pub fn to_json(&self, model_title: &str) -> Value {
        let keys: Vec<Value> = self.keys.iter().map(|k| k.to_json()).collect();
        json!({
            "pose": self.pose.to_json(model_title),
            "keys": keys,
            "plants": Plant::list_json(&self.plants),
            "selection": &*self.selection,
            "playhead": crate::num(self.playhead),
            "length": crate::num(self.length),
        })
    }

    /// Reads a step written by [`Snapshot::to_json`] (e.g. kept in a recovery file).
    pub fn from_json(value: &Value, warnings: &mut Vec<String>) -> Result<Snapshot, Refusal> {
        let pose = Pose::from_json(&value["pose"], warnings)?;
        let keys: Vec<Key> = value["keys"]
            .as_array()
            .map(|a| {
                a.iter()
                    .enumerate()
                    .map(|(i, k)| Key::from_json(k, i, warnings))
                    .collect::<Result<_, _>>()
            })
            .transpose()?
            .unwrap_or_default();
        let mut timeline = Timeline::from_keys(keys)?;
        timeline.read_plants(value.get("plants"), "plants")?;
        let selection: Vec<u64> = value["selection"]
            .as_array()
            .map(|ids| ids.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default();
        let selection = timeline.pick(&KeyPick::Ids(selection));
        let number = |name: &str| {
            value[name]
                .as_f64()
                .map(|x| x as f32)
                .filter(|x| x.is_finite() && (0.0..=MAX_TIME).contains(x))
                .ok_or_else(|| Refusal::new(format!("'{name}' must be a time in seconds")))
        };
        Ok(Snapshot {
            pose,
            keys: timeline.keys().into(),
            plants: timeline.plants().into(),
            selection: selection.into(),
            next_key_id: timeline.next_id(),
            playhead: number("playhead")?,
            length: number("length")?,
        })
    }
}

/// The editing session: the model's rig, the current pose, the keys, the playhead and
/// the undo history.
pub struct Editor {
    pub rig: Rig,
    pub directions: PoseDirections,
    /// Each hand's measured curl and spread axes (hand presets, finger sliders).
    pub hands: HandDirections,
    pub pose: Pose,
    pub timeline: Timeline,
    /// Seconds; on a frame unless playing.
    pub playhead: f32,
    pub playing: bool,
    pub settings: Settings,
    pub history: History<Snapshot>,
    /// The selected keys' ids, in time order.
    pub selection: Vec<u64>,
    /// Keys copied with [`Edit::CopyKeys`], times relative to the first.
    pub copied_keys: Vec<Key>,
    /// The pose copied with [`Edit::CopyPose`].
    pub copied_pose: Option<Pose>,
    /// Which of the two was copied last.
    pub last_copied: Option<Copied>,
    /// Changes since the last save or load.
    pub dirty: bool,
    /// Counts changes (autosave watches it).
    pub revision: u64,
    /// The snapshot taken when a drag began.
    gesture_start: Option<Snapshot>,
    /// Where the feet were when the current drag began (pinned feet).
    gesture_pins: Option<FootPins>,
    expression_names: Vec<String>,
}

impl Editor {
    pub fn new(rig: Rig) -> Editor {
        let directions = PoseDirections::measure(&rig);
        let hands = HandDirections::measure(&rig);
        let (mut names, custom) = rig.model.expression_names();
        names.extend(custom);
        Editor {
            rig,
            directions,
            hands,
            pose: Pose::default(),
            timeline: Timeline::default(),
            playhead: 0.0,
            playing: false,
            settings: Settings::default(),
            history: History::default(),
            selection: Vec::new(),
            copied_keys: Vec::new(),
            copied_pose: None,
            last_copied: None,
            dirty: false,
            revision: 0,
            gesture_start: None,
            gesture_pins: None,
            expression_names: names,
        }
    }

    /// An editor for a project's keys, pose and settings on this rig. Expressions the
    /// model lacks are dropped with a warning each.
    pub fn with_project(rig: Rig, project: Project, warnings: &mut Vec<String>) -> Editor {
        let mut editor = Editor::new(rig);
        editor.timeline = project.timeline;
        editor
            .timeline
            .retain_known_expressions(&editor.expression_names, warnings);
        editor.pose = project.pose;
        editor
            .pose
            .retain_known_expressions(&editor.expression_names, warnings);
        editor.settings = project.settings;
        editor.playhead = snap(project.playhead);
        if let Some(pose) = editor.sample(editor.playhead) {
            editor.pose = pose;
        }
        warnings.dedup();
        editor
    }

    /// Moves this session's work (keys, pose, settings, playhead, history) to an editor
    /// for another model; normalized poses mean the same on any model.
    pub fn hand_work_to(&mut self, other: &mut Editor) {
        let mut warnings = Vec::new();
        other.timeline = std::mem::take(&mut self.timeline);
        other
            .timeline
            .retain_known_expressions(&other.expression_names, &mut warnings);
        other.pose = std::mem::take(&mut self.pose);
        other
            .pose
            .retain_known_expressions(&other.expression_names, &mut warnings);
        other.settings = self.settings;
        other.playhead = self.playhead;
        other.history = std::mem::take(&mut self.history);
        other.selection = std::mem::take(&mut self.selection);
        other.dirty = self.dirty;
    }

    /// The project as it stands (for Save and autosave).
    pub fn project(&self, model_path: Option<std::path::PathBuf>) -> Project {
        Project {
            model_path,
            model_title: self.rig.model.title.clone(),
            timeline: self.timeline.clone(),
            playhead: self.playhead,
            pose: self.pose.clone(),
            settings: self.settings,
        }
    }

    /// The state an edit can change: one undo step.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            pose: self.pose.clone(),
            keys: self.timeline.keys().into(),
            plants: self.timeline.plants().into(),
            selection: self.selection.as_slice().into(),
            next_key_id: self.timeline.next_id(),
            playhead: self.playhead,
            length: self.settings.length,
        }
    }

    fn restore(&mut self, snapshot: Snapshot) {
        let next_id = self.timeline.next_id().max(snapshot.next_key_id);
        self.timeline = Timeline::from_shared(&snapshot.keys, &snapshot.plants, next_id);
        self.selection = snapshot.selection.to_vec();
        self.pose = snapshot.pose;
        self.playhead = snapshot.playhead;
        self.settings.length = snapshot.length;
    }

    fn mark_changed(&mut self) {
        self.dirty = true;
        self.revision += 1;
    }

    /// After an undo or redo from `before`: stepping through a selection is no change
    /// to save.
    fn mark_changed_unless_only_selected(&mut self, before: &Snapshot) {
        if !self.snapshot().same_work(before) {
            self.mark_changed();
        }
    }

    /// Writes the pose into the key at the playhead (or inserts one) when keys exist and
    /// playback is stopped (SPEC §4).
    fn write_back(&mut self) {
        if !self.timeline.is_empty() && !self.playing {
            self.timeline.set_key(self.playhead, self.pose.clone());
        }
    }

    /// With keys, the pose shown is the timeline's pose at the playhead.
    fn follow_playhead(&mut self) {
        if let Some(pose) = self.sample(self.playhead) {
            self.pose = pose;
        }
    }

    /// The animation's pose at `t` (keys interpolated, planted feet held); `None`
    /// without keys.
    pub fn sample(&self, t: f32) -> Option<Pose> {
        crate::animation::plant::sample(&self.rig, &self.timeline, t)
    }

    /// What Copy (Ctrl+C) copies: the selected keys, or the pose when none is selected.
    pub fn copy_edit(&self) -> Edit {
        if self.selection.is_empty() {
            Edit::CopyPose
        } else {
            Edit::CopyKeys
        }
    }

    /// Where Duplicate (Ctrl+D) puts the selection's copies: at the playhead when they
    /// land clear of every key there, else a frame after the last key. `None` without a
    /// selection.
    pub fn duplicate_at(&self) -> Option<f32> {
        let copies = self.timeline.copy_keys(&self.selection);
        copies.last()?;
        let at = snap(self.playhead);
        let clear = copies
            .iter()
            .all(|k| self.timeline.key_at(at + k.t).is_none());
        Some(if clear {
            at
        } else {
            self.timeline.end() + 1.0 / crate::animation::timeline::FPS
        })
    }

    /// Where playback wraps or stops: the loop range, else the timeline.
    pub fn play_range(&self) -> (f32, f32) {
        let end = self.settings.length.max(self.timeline.end());
        match self.settings.loop_range {
            Some((a, b)) if a < end => (a, b.min(end)),
            _ => (0.0, end),
        }
    }

    /// Advances playback by `dt` seconds of wall time at the playback speed, looping
    /// (within the loop range when set) or stopping at the end.
    pub fn advance(&mut self, dt: f32) {
        if !self.playing || !dt.is_finite() {
            return;
        }
        let (start, end) = self.play_range();
        let mut t = self.playhead + dt.max(0.0) * self.settings.speed;
        if self.settings.loop_range.is_some() && t < start {
            t = start;
        }
        if t > end {
            let span = end - start;
            if self.settings.looping && span > 0.0 {
                t = start + (t - start) % span;
            } else {
                t = end;
                self.playing = false;
            }
        }
        self.playhead = t;
        self.follow_playhead();
    }

    /// Starts or stops playback; stopping lands the playhead on a frame.
    pub fn set_playing(&mut self, playing: bool) {
        self.playing = playing;
        if !playing {
            self.playhead = snap(self.playhead);
            self.follow_playhead();
        }
    }

    /// Preset and custom expression names of the model.
    pub fn expression_names(&self) -> &[String] {
        &self.expression_names
    }

    /// A pose as this model can show it: non-finite values refused, expressions the
    /// model lacks dropped (however the pose arrived: file, library, script, drop).
    fn checked_pose(&self, mut pose: Pose) -> Result<Pose, Refusal> {
        if pose.bones.iter().any(|q| !q.is_finite()) || pose.hips.is_some_and(|h| !h.is_finite()) {
            return Err(Refusal::new("pose contains a non-finite value"));
        }
        pose.retain_known_expressions(&self.expression_names, &mut Vec::new());
        Ok(pose)
    }

    /// Applies one edit through the one path: a pose edit is recorded for undo and
    /// written back to the key at the playhead; key edits are recorded; a refused edit
    /// changes nothing.
    pub fn apply(&mut self, edit: Edit) -> Result<(), Refusal> {
        match edit {
            Edit::Seek(t) => {
                if !t.is_finite() {
                    return Err(Refusal::new("seek: time must be a finite number"));
                }
                self.playhead = snap(t.clamp(0.0, MAX_TIME));
                self.follow_playhead();
                Ok(())
            }
            Edit::Undo => {
                let now = self.snapshot();
                if let Some(previous) = self.history.undo(now.clone()) {
                    self.restore(previous);
                    self.mark_changed_unless_only_selected(&now);
                }
                Ok(())
            }
            Edit::Redo => {
                let now = self.snapshot();
                if let Some(next) = self.history.redo(now.clone()) {
                    self.restore(next);
                    self.mark_changed_unless_only_selected(&now);
                }
                Ok(())
            }
            Edit::SetPlaying(playing) => {
                self.set_playing(playing);
                Ok(())
            }
            Edit::ChangeSettings(settings) => {
                settings.check()?;
                self.settings = settings;
                self.mark_changed();
                Ok(())
            }
            Edit::CopyKeys => {
                if self.selection.is_empty() {
                    return Err(Refusal::new("no keys are selected to copy"));
                }
                self.copied_keys = self.timeline.copy_keys(&self.selection);
                self.last_copied = Some(Copied::Keys);
                Ok(())
            }
            Edit::CopyPose => {
                self.copied_pose = Some(self.pose.clone());
                self.last_copied = Some(Copied::Pose);
                Ok(())
            }
            Edit::PasteLast { mirror, mask } => match self.last_copied {
                Some(Copied::Keys) => self.apply(Edit::Keys(KeyEdit::Paste {
                    t: self.playhead,
                    mirror,
                })),
                Some(Copied::Pose) => self.apply(Edit::PastePose { mirror, mask }),
                None => Err(Refusal::new("nothing has been copied")),
            },
            Edit::PastePose { mirror, mask } => {
                let pose = self
                    .copied_pose
                    .clone()
                    .ok_or_else(|| Refusal::new("no pose has been copied"))?;
                self.apply(Edit::Pose(PoseEdit::ApplyPose {
                    pose: Box::new(pose),
                    mask,
                    mirror,
                }))
            }
            Edit::Gesture(gesture) => self.apply_gesture(gesture),
            Edit::Pose(edit) => self.recorded(|editor| {
                editor.change_pose(edit)?;
                editor.write_back();
                Ok(())
            }),
            // A new selection is a step to undo but no change to save; picking what is
            // already selected is not even a step.
            Edit::Keys(KeyEdit::Select { pick, mode }) => {
                let ids = self.picked(&pick, mode);
                if ids != self.selection {
                    // A drag in progress ends first, as its own step.
                    self.apply_gesture(Gesture::End)?;
                    let before = self.gesture_start.take().unwrap_or_else(|| self.snapshot());
                    self.gesture_pins = None;
                    self.selection = ids;
                    self.history.record(before);
                }
                Ok(())
            }
            Edit::Keys(edit) => self.recorded(|editor| editor.change_keys(edit)),
        }
    }

    /// Runs a change as one undo step. A drag in progress ends with it, but only if it
    /// succeeds: a refused edit leaves the drag (and its undo snapshot) as it was.
    fn recorded(
        &mut self,
        change: impl FnOnce(&mut Editor) -> Result<(), Refusal>,
    ) -> Result<(), Refusal> {
        let before = self
            .gesture_start
            .clone()
            .unwrap_or_else(|| self.snapshot());
        change(self)?;
        self.gesture_start = None;
        self.gesture_pins = None;
        // Keys an edit removed leave the selection.
        self.selection = self
            .timeline
            .pick(&KeyPick::Ids(std::mem::take(&mut self.selection)));
        self.history.record(before);
        self.mark_changed();
        Ok(())
    }

    fn apply_gesture(&mut self, gesture: Gesture) -> Result<(), Refusal> {
        match gesture {
            Gesture::Preview(edit) => {
                if self.gesture_start.is_none() {
                    self.gesture_pins = FootPins::capture(&self.rig, &self.pose);
                }
                let start = self.gesture_start.take().unwrap_or_else(|| self.snapshot());
                let result = self.change_pose(edit);
                self.gesture_start = Some(start);
                result
            }
            Gesture::Cancel => {
                self.gesture_pins = None;
                if let Some(start) = self.gesture_start.take() {
                    self.restore(start);
                }
                Ok(())
            }
            Gesture::End => {
                self.gesture_pins = None;
                if let Some(start) = self.gesture_start.take() {
                    self.history.record(start);
                    self.write_back();
                    self.mark_changed();
                }
                Ok(())
            }
        }
    }

    /// A key edit; afterwards the timeline is at least as long as its keys, whichever
    /// edit put one later.
    fn change_keys(&mut self, edit: KeyEdit) -> Result<(), Refusal> {
        self.change_keys_only(edit)?;
        self.settings.length = self.settings.length.max(self.timeline.end());
        Ok(())
    }

    fn change_keys_only(&mut self, edit: KeyEdit) -> Result<(), Refusal> {
        let t = self.playhead;
        match edit {
            KeyEdit::Add => {
                self.timeline.set_key(t, self.pose.clone());
            }
            KeyEdit::Delete => {
                if !self.timeline.delete_key_at(t) {
                    return Err(Refusal::new(format!(
                        "there is no key at {t:.3} s to delete"
                    )));
                }
                self.follow_playhead();
            }
            KeyEdit::SetEase(ease) => {
                if !self.timeline.set_ease_at(t, ease) {
                    return Err(Refusal::new(format!(
                        "there is no key at {t:.3} s to set the ease of"
                    )));
                }
            }
            KeyEdit::Move { from, to } => {
                if !from.is_finite() {
                    return Err(Refusal::new("move_key: 'from' must be a finite number"));
                }
                self.timeline.move_key(from, to)?;
                self.follow_playhead();
            }
            KeyEdit::Replace(timeline) => {
                let mut timeline = *timeline;
                timeline.retain_known_expressions(&self.expression_names, &mut Vec::new());
                self.timeline.replace_keys(timeline);
                // The new keys may reuse the old ones' ids.
                self.selection.clear();
                self.follow_playhead();
            }
            KeyEdit::PlacePose { t, pose, mask } => {
                if !t.is_finite() || !(0.0..=MAX_TIME).contains(&t) {
                    return Err(Refusal::new(format!(
                        "cannot place a pose at {t} s (0 to {MAX_TIME} s)"
                    )));
                }
                let pose = match mask {
                    BodyMask::WholeBody => *pose,
                    // A hand pose dropped at t: the body as the timeline has it there.
                    mask => self
                        .sample(snap(t))
                        .unwrap_or_else(|| self.pose.clone())
                        .overlaid(&pose, mask),
                };
                let pose = self.checked_pose(pose)?;
                self.playhead = snap(t);
                self.timeline.set_key(self.playhead, pose.clone());
                self.pose = pose;
            }
            // `apply` takes selections before they get here (they are not saved work).
            KeyEdit::Select { pick, mode } => self.selection = self.picked(&pick, mode),
            KeyEdit::MoveSelected { by } => {
                let ids = self.selected("move")?;
                self.timeline.move_keys(&ids, by)?;
                self.follow_playhead();
            }
            KeyEdit::ScaleSelected { factor, pivot } => {
                let ids = self.selected("scale")?;
                self.timeline.scale_keys(&ids, factor, pivot)?;
                self.follow_playhead();
            }
            KeyEdit::DeleteSelected => {
                let ids = self.selected("delete")?;
                self.timeline.delete_keys(&ids);
                self.selection.clear();
                self.follow_playhead();
            }
            KeyEdit::EaseSelected(ease) => {
                let ids = self.selected("ease")?;
                self.timeline.ease_keys(&ids, ease);
            }
            KeyEdit::Paste { t, mirror } => {
                if self.copied_keys.is_empty() {
                    return Err(Refusal::new("no keys have been copied"));
                }
                let mut keys = self.copied_keys.clone();
                if mirror {
                    for key in &mut keys {
                        key.pose = key.pose.mirrored();
                    }
                }
                self.paste(&keys, t)?;
            }
            KeyEdit::Duplicate { t } => {
                let ids = self.selected("duplicate")?;
                let keys = self.timeline.copy_keys(&ids);
                // Unlike a paste, a duplicate never replaces a key.
                if let Some(taken) = keys
                    .iter()
                    .find_map(|k| self.timeline.key_at(snap(t) + k.t))
                {
                    return Err(Refusal::new(format!(
                        "the copies would land on the key at {} s",
                        taken.t
                    )));
                }
                self.paste(&keys, t)?;
            }
            KeyEdit::Plant { foot, from, to, on } => {
                for x in [from, to] {
                    if !x.is_finite() || !(0.0..=MAX_TIME).contains(&x) {
                        return Err(Refusal::new(format!(
                            "plant_foot: {x} is not a time from 0 to {MAX_TIME} s"
                        )));
                    }
                }
                if frame_of(from) == frame_of(to) {
                    return Err(Refusal::new(
                        "plant_foot: the span must be at least a frame",
                    ));
                }
                let before = self.timeline.plants().to_vec();
                if on && before.len() >= crate::animation::timeline::MAX_PLANTS {
                    return Err(Refusal::new(format!(
                        "plant_foot: at most {} planted spans",
                        crate::animation::timeline::MAX_PLANTS
                    )));
                }
                self.timeline.set_plant(foot, from, to, on);
                if self.timeline.plants() == before {
                    return Err(Refusal::new(if on {
                        "the foot is already planted there"
                    } else {
                        "the foot is not planted there"
                    }));
                }
                self.follow_playhead();
            }
        }
        Ok(())
    }

    /// The selection `pick` makes in `mode`, in time order.
    fn picked(&self, pick: &KeyPick, mode: SelectMode) -> Vec<u64> {
        use std::collections::HashSet;
        let picked = self.timeline.pick(pick);
        let ids = match mode {
            SelectMode::Replace => return picked,
            SelectMode::Add => [self.selection.clone(), picked].concat(),
            SelectMode::Toggle => {
                let had: HashSet<u64> = self.selection.iter().copied().collect();
                let flip: HashSet<u64> = picked.into_iter().collect();
                had.symmetric_difference(&flip).copied().collect()
            }
        };
        // In time order, each once.
        self.timeline.pick(&KeyPick::Ids(ids))
    }

    /// The selected keys, or why `action` needs some.
    fn selected(&self, action: &str) -> Result<Vec<u64>, Refusal> {
        if self.selection.is_empty() {
            return Err(Refusal::new(format!("no keys are selected to {action}")));
        }
        Ok(self.selection.clone())
    }

    /// Pastes keys at `t`; they become the selection and the pose follows the playhead.
    fn paste(&mut self, keys: &[Key], t: f32) -> Result<(), Refusal> {
        let mut keys = keys.to_vec();
        for key in &mut keys {
            key.pose = self.checked_pose(std::mem::take(&mut key.pose))?;
        }
        self.selection = self.timeline.paste_keys(&keys, t)?;
        self.follow_playhead();
        Ok(())
    }

    /// Applies a pose edit to the pose only. A refused edit changes nothing.
    fn change_pose(&mut self, edit: PoseEdit) -> Result<(), Refusal> {
        match edit {
            PoseEdit::Rotate { bone, rotation } => {
                self.check_poseable(bone)?;
                let len = rotation.length();
                if !len.is_finite() || len < 1e-6 {
                    return Err(Refusal::new(format!("{bone}: quaternion has zero length")));
                }
                self.pose.set_rotation(bone, rotation / len);
            }
            PoseEdit::ResetBone(bone) => {
                self.check_poseable(bone)?;
                self.pose.set_rotation(bone, Quat::IDENTITY);
                if bone == Bone::Hips {
                    self.pose.hips = None;
                }
            }
            PoseEdit::ResetPose => self.pose = Pose::default(),
            PoseEdit::Mirror => self.pose = self.pose.mirrored(),
            PoseEdit::ArmsDown => self.directions.arms_down(&mut self.pose),
            PoseEdit::Grip { side, amount } => {
                if !amount.is_finite() {
                    return Err(Refusal::new("grip: amount must be a finite number"));
                }
                let sides = side.sides();
                for &s in sides {
                    self.directions.grip(&mut self.pose, s, amount);
                }
            }
            PoseEdit::Hand {
                side,
                shape,
                amount,
            } => {
                if !amount.is_finite() {
                    return Err(Refusal::new("hand: amount must be a finite number"));
                }
                self.check_has_fingers()?;
                let sides = side.sides();
                for &s in sides {
                    self.hands.shape_hand(&mut self.pose, s, &shape, amount);
                }
            }
            PoseEdit::Finger { bone, curl, spread } => {
                let Some((finger, side)) = Finger::of_bone(bone) else {
                    return Err(Refusal::new(format!("{bone} is not a finger bone")));
                };
                if !curl.is_finite() || !spread.is_finite() {
                    return Err(Refusal::new(
                        "finger: curl and spread must be finite numbers",
                    ));
                }
                if !finger.bones(side).iter().any(|b| self.rig.has(*b)) {
                    return Err(Refusal::new(format!(
                        "the model has no {} finger bones",
                        finger.name()
                    )));
                }
                let mut shape = self.hands.read_finger(&self.pose, side, finger);
                shape.curl = curl;
                shape.spread = spread;
                self.hands.shape_finger(&mut self.pose, side, finger, shape);
            }
            PoseEdit::CopyHand { from } => {
                self.check_has_fingers()?;
                copy_hand_to_other_side(&mut self.pose, from);
            }
            PoseEdit::LookAt(target) => {
                let usable = match target {
                    Some(LookTarget::Point(p)) => p.is_finite() && p.abs().max_element() <= 1e4,
                    Some(LookTarget::Angles(g)) => {
                        g.yaw.is_finite()
                            && g.pitch.is_finite()
                            && g.yaw.abs().max(g.pitch.abs()) <= 180.0
                    }
                    _ => true,
                };
                if !usable {
                    return Err(Refusal::new(
                        "look_at: the target must be a finite point within 10 km, or angles within ±180°",
                    ));
                }
                self.pose.look = target.map(Look::at);
            }
            PoseEdit::Expression { name, value } => {
                if !self.expression_names.contains(&name) {
                    return Err(Refusal::new(format!(
                        "the model has no expression '{name}'"
                    )));
                }
                if !value.is_finite() {
                    return Err(Refusal::new(format!(
                        "expression '{name}': value must be a finite number"
                    )));
                }
                self.pose.expressions.insert(name, value.clamp(0.0, 1.0));
            }
            PoseEdit::SetPose(pose) => self.pose = self.checked_pose(*pose)?,
            PoseEdit::Ik {
                end,
                target,
                keep_angle,
            } => {
                let mut pose = self.pose.clone();
                ik::reach(&self.rig, &mut pose, end, target, keep_angle)?;
                self.pose = pose;
            }
            PoseEdit::Pole { limb, point } => {
                let mut pose = self.pose.clone();
                ik::drag_pole(&self.rig, &mut pose, limb, point)?;
                self.pose = pose;
            }
            PoseEdit::MoveHips {
                to,
                rotate,
                pin_feet,
            } => {
                let pins = if pin_feet {
                    self.gesture_pins
                        .or_else(|| FootPins::capture(&self.rig, &self.pose))
                } else {
                    None
                };
                ik::move_hips(&self.rig, &mut self.pose, to, rotate, pins.as_ref())?;
            }
            PoseEdit::ApplyPose { pose, mask, mirror } => {
                let pose = if mirror { pose.mirrored() } else { *pose };
                let pose = self.checked_pose(pose)?;
                self.pose = self.pose.overlaid(&pose, mask);
            }
        }
        Ok(())
    }

    fn check_has_fingers(&self) -> Result<(), Refusal> {
        if crate::model::humanoid::ALL_BONES
            .iter()
            .any(|b| Finger::of_bone(*b).is_some() && self.rig.has(*b))
        {
            Ok(())
        } else {
            Err(Refusal::new("the model has no finger bones"))
        }
    }

    fn check_poseable(&self, bone: Bone) -> Result<(), Refusal> {
        if bone.is_eye() {
            return Err(Refusal::new(format!(
                "{bone}: eye bones follow the gaze (look-at) and are not posed"
            )));
        }
        if !self.rig.has(bone) {
            return Err(Refusal::new(format!("the model has no '{bone}' bone")));
        }
        Ok(())
    }

    /// Model-space position of every present bone, VRM 1.0 frame (for `apply`'s `world`).
    pub fn world_json(&self) -> Value {
        let world = self.rig.world_pose(&self.pose);
        let map: Map<String, Value> = ALL_BONES
            .iter()
            .filter_map(|b| {
                world[b.index()].map(|(p, _)| {
                    (
                        b.name().to_string(),
                        json!([round7(p.x), round7(p.y), round7(p.z)]),
                    )
                })
            })
            .collect();
        Value::Object(map)
    }
}

fn op_str<'a>(step: &'a Map<String, Value>, key: &str) -> Result<&'a str, Refusal> {
    step.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| Refusal::new(format!("'{key}' must be a string")))
}

fn op_f32(step: &Map<String, Value>, key: &str) -> Result<f32, Refusal> {
    step.get(key)
        .and_then(Value::as_f64)
        .filter(|x| x.is_finite())
        .map(|x| x as f32)
        .ok_or_else(|| Refusal::new(format!("'{key}' must be a finite number")))
}

/// `side`: left, right or both (the default).
fn op_side(step: &Map<String, Value>) -> Result<GripSide, Refusal> {
    Ok(
        match step.get("side").and_then(Value::as_str).unwrap_or("both") {
            "left" => GripSide::One(Side::Left),
            "right" => GripSide::One(Side::Right),
            "both" => GripSide::Both,
            other => {
                return Err(Refusal::new(format!(
                    "'side' must be left, right or both, not '{other}'"
                )));
            }
        },
    )
}

fn op_bone(step: &Map<String, Value>) -> Result<Bone, Refusal> {
    let name = op_str(step, "bone")?;
    Bone::from_name(name).ok_or_else(|| Refusal::new(format!("unknown bone '{name}'")))
}

/// Parses one script step.
pub fn parse_step(value: &Value) -> Result<Edit, Refusal> {
    let step = value
        .as_object()
        .ok_or_else(|| Refusal::new("a step must be a JSON object"))?;
    let op = op_str(step, "op")?;
    Ok(match op {
        "rotate" => Edit::Pose(PoseEdit::Rotate {
            bone: op_bone(step)?,
            rotation: read_quat(step.get("quat").unwrap_or(&Value::Null), "'quat'")?,
        }),
        "reset_bone" => Edit::Pose(PoseEdit::ResetBone(op_bone(step)?)),
        "reset_pose" => Edit::Pose(PoseEdit::ResetPose),
        "mirror" => Edit::Pose(PoseEdit::Mirror),
        "arms_down" => Edit::Pose(PoseEdit::ArmsDown),
        "grip" => {
            let side = op_side(step)?;
            let amount = if step.contains_key("amount") {
                op_f32(step, "amount")?
            } else {
                1.0
            };
            Edit::Pose(PoseEdit::Grip { side, amount })
        }
        "hand" => {
            let side = op_side(step)?;
            let name = op_str(step, "preset")?;
            let preset = hand::preset(name).ok_or_else(|| {
                let names: Vec<&str> = hand::presets().iter().map(|p| p.name.as_str()).collect();
                Refusal::new(format!(
                    "unknown hand preset '{name}' (one of {})",
                    names.join(", ")
                ))
            })?;
            let amount = if step.contains_key("amount") {
                op_f32(step, "amount")?
            } else {
                1.0
            };
            Edit::Pose(PoseEdit::Hand {
                side,
                shape: Box::new(preset.shape),
                amount,
            })
        }
        "finger" => {
            let bone = op_bone(step)?;
            Edit::Pose(PoseEdit::Finger {
                bone,
                curl: op_f32(step, "curl")?,
                spread: if step.contains_key("spread") {
                    op_f32(step, "spread")?
                } else {
                    0.0
                },
            })
        }
        "copy_hand" => Edit::Pose(PoseEdit::CopyHand {
            from: match op_str(step, "from")? {
                "left" => Side::Left,
                "right" => Side::Right,
                other => {
                    return Err(Refusal::new(format!(
                        "'from' must be left or right, not '{other}'"
                    )));
                }
            },
        }),
        "look_at" => {
            if step.get("off").and_then(Value::as_bool) == Some(true) {
                Edit::Pose(PoseEdit::LookAt(None))
            } else {
                let target = step
                    .get("target")
                    .ok_or_else(|| Refusal::new("look_at: give a 'target' or \"off\": true"))?;
                Edit::Pose(PoseEdit::LookAt(Some(LookTarget::from_json(
                    target, "'target'",
                )?)))
            }
        }
        "expr" => Edit::Pose(PoseEdit::Expression {
            name: op_str(step, "name")?.to_string(),
            value: op_f32(step, "value")?,
        }),
        "pose" => {
            let mut warnings = Vec::new();
            Edit::Pose(PoseEdit::SetPose(Box::new(Pose::from_json(
                step.get("pose").unwrap_or(&Value::Null),
                &mut warnings,
            )?)))
        }
        "seek" => Edit::Seek(op_f32(step, "t")?),
        "key" => Edit::Keys(KeyEdit::Add),
        "delete_key" => Edit::Keys(KeyEdit::Delete),
        "ease" => Edit::Keys(KeyEdit::SetEase(op_ease(step)?)),
        "move_key" => Edit::Keys(KeyEdit::Move {
            from: op_f32(step, "from")?,
            to: op_f32(step, "to")?,
        }),
        "undo" => Edit::Undo,
        "redo" => Edit::Redo,
        "ik" => {
            let name = op_str(step, "end")?;
            let end = Bone::from_name(name)
                .ok_or_else(|| Refusal::new(format!("unknown bone '{name}'")))?;
            let keep_angle = match step.get("keep_angle") {
                None => true,
                Some(v) => v
                    .as_bool()
                    .ok_or_else(|| Refusal::new("'keep_angle' must be true or false"))?,
            };
            Edit::Pose(PoseEdit::Ik {
                end,
                target: step_vec3(step, "target")?,
                keep_angle,
            })
        }
        "pole" => {
            let name = op_str(step, "chain")?;
            let limb = Limb::from_name(name).ok_or_else(|| {
                Refusal::new(format!(
                    "unknown chain '{name}' (leftArm, rightArm, leftLeg or rightLeg)"
                ))
            })?;
            Edit::Pose(PoseEdit::Pole {
                limb,
                point: step_vec3(step, "point")?,
            })
        }
        "move_hips" => {
            let to = if step.contains_key("to") {
                Some(step_vec3(step, "to")?)
            } else {
                None
            };
            let rotate = match step.get("rotate") {
                None => None,
                Some(q) => Some(read_quat(q, "'rotate'")?),
            };
            let pin_feet = match step.get("pin_feet") {
                None => true,
                Some(v) => v
                    .as_bool()
                    .ok_or_else(|| Refusal::new("'pin_feet' must be true or false"))?,
            };
            if to.is_none() && rotate.is_none() {
                return Err(Refusal::new("move_hips needs 'to' and/or 'rotate'"));
            }
            Edit::Pose(PoseEdit::MoveHips {
                to,
                rotate,
                pin_feet,
            })
        }
        "select_keys" => {
            let pick = if let Some(times) = step.get("times") {
                let times = times
                    .as_array()
                    .filter(|t| t.len() <= MAX_SCRIPT_TIMES)
                    .ok_or_else(|| {
                        Refusal::new(format!(
                            "'times' must be an array of at most {MAX_SCRIPT_TIMES} seconds"
                        ))
                    })?;
                KeyPick::Times(
                    times
                        .iter()
                        .map(|t| {
                            t.as_f64()
                                .filter(|t| t.is_finite())
                                .map(|t| t as f32)
                                .ok_or_else(|| Refusal::new("'times' must hold finite numbers"))
                        })
                        .collect::<Result<_, _>>()?,
                )
            } else if step.contains_key("from") || step.contains_key("to") {
                KeyPick::Range {
                    from: op_f32(step, "from")?,
                    to: op_f32(step, "to")?,
                }
            } else if step.get("all") == Some(&Value::Bool(true)) {
                KeyPick::All
            } else if step.get("none") == Some(&Value::Bool(true)) {
                KeyPick::None
            } else {
                return Err(Refusal::new(
                    "select_keys needs 'times', 'from' and 'to', \"all\": true or \"none\": true",
                ));
            };
            let mode = match step
                .get("mode")
                .and_then(Value::as_str)
                .unwrap_or("replace")
            {
                "replace" => SelectMode::Replace,
                "add" => SelectMode::Add,
                "toggle" => SelectMode::Toggle,
                other => {
                    return Err(Refusal::new(format!(
                        "'mode' must be replace, add or toggle, not '{other}'"
                    )));
                }
            };
            Edit::Keys(KeyEdit::Select { pick, mode })
        }
        "move_keys" => Edit::Keys(KeyEdit::MoveSelected {
            by: op_f32(step, "by")?,
        }),
        "scale_keys" => Edit::Keys(KeyEdit::ScaleSelected {
            factor: op_f32(step, "factor")?,
            pivot: op_f32(step, "pivot")?,
        }),
        "delete_keys" => Edit::Keys(KeyEdit::DeleteSelected),
        "ease_keys" => Edit::Keys(KeyEdit::EaseSelected(op_ease(step)?)),
        "copy_keys" => Edit::CopyKeys,
        "paste_keys" => Edit::Keys(KeyEdit::Paste {
            t: op_f32(step, "t")?,
            mirror: op_bool(step, "mirror", false)?,
        }),
        "duplicate_keys" => Edit::Keys(KeyEdit::Duplicate {
            t: op_f32(step, "t")?,
        }),
        "copy_pose" => Edit::CopyPose,
        "paste_pose" => Edit::PastePose {
            mirror: op_bool(step, "mirror", false)?,
            mask: op_mask(step)?,
        },
        "apply_pose" => {
            let mut warnings = Vec::new();
            Edit::Pose(PoseEdit::ApplyPose {
                pose: Box::new(Pose::from_json(
                    step.get("pose").unwrap_or(&Value::Null),
                    &mut warnings,
                )?),
                mask: op_mask(step)?,
                mirror: op_bool(step, "mirror", false)?,
            })
        }
        "plant_foot" => {
            let name = op_str(step, "foot")?;
            let foot = Plant::foot_from_name(name).ok_or_else(|| {
                Refusal::new(format!(
                    "'foot' must be leftFoot or rightFoot, not '{name}'"
                ))
            })?;
            Edit::Keys(KeyEdit::Plant {
                foot,
                from: op_f32(step, "from")?,
                to: op_f32(step, "to")?,
                on: !op_bool(step, "off", false)?,
            })
        }
        other => return Err(Refusal::new(format!("unknown op '{other}'"))),
    })
}

/// The most times one `select_keys` step may list.
pub const MAX_SCRIPT_TIMES: usize = 1_000_000;

fn op_bool(step: &Map<String, Value>, key: &str, default: bool) -> Result<bool, Refusal> {
    match step.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(Refusal::new(format!("'{key}' must be true or false"))),
    }
}

fn op_ease(step: &Map<String, Value>) -> Result<Ease, Refusal> {
    let name = op_str(step, "value")?;
    Ease::from_name(name).ok_or_else(|| {
        Refusal::new(format!(
            "unknown ease '{name}' (LINEAR, IN-OUT, IN, OUT or HOLD)"
        ))
    })
}

fn op_mask(step: &Map<String, Value>) -> Result<BodyMask, Refusal> {
    match step.get("mask") {
        None | Some(Value::Null) => Ok(BodyMask::WholeBody),
        Some(Value::String(name)) => BodyMask::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = BodyMask::ALL.iter().map(|m| m.name()).collect();
            Refusal::new(format!("unknown mask '{name}' ({})", names.join(", ")))
        }),
        Some(_) => Err(Refusal::new("'mask' must be a string")),
    }
}

/// Parses an edit script: a JSON array of steps. Errors name the step (1-based).
pub fn parse_script(value: &Value) -> Result<Vec<Edit>, Refusal> {
    let steps = value
        .as_array()
        .ok_or_else(|| Refusal::new("an edit script must be a JSON array of steps"))?;
    steps
        .iter()
        .enumerate()
        .map(|(i, s)| parse_step(s).map_err(|e| e.context(format!("step {}", i + 1))))
        .collect()
}

/// Reads `[x,y,z]` from a step (used by the positional ops).
pub fn step_vec3(step: &Map<String, Value>, key: &str) -> Result<glam::Vec3, Refusal> {
    let v = step
        .get(key)
        .ok_or_else(|| Refusal::new(format!("'{key}' is missing")))?;
    Ok(glam::Vec3::from_array(read_floats::<3>(
        v,
        &format!("'{key}'"),
    )?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::mannequin::{self, MannequinVariant};

    fn editor(variant: MannequinVariant) -> Editor {
        Editor::new(crate::body::rig::rig_from_bytes(&mannequin::build(variant)).unwrap())
    }

    #[test]
    fn arms_down_lowers_both_hands_on_both_variants() {
        for variant in [MannequinVariant::Vrm1, MannequinVariant::Vrm0] {
            let mut ed = editor(variant);
            let before = ed.rig.world_pose(&ed.pose);
            ed.apply(Edit::Pose(PoseEdit::ArmsDown)).unwrap();
            let after = ed.rig.world_pose(&ed.pose);
            for hand in [Bone::LeftHand, Bone::RightHand] {
                let (b, a) = (
                    before[hand.index()].unwrap().0,
                    after[hand.index()].unwrap().0,
                );
                assert!(a.y < b.y - 0.3, "{variant:?} {hand}: {b} -> {a}");
            }
        }
    }

    #[test]
    fn grip_curls_finger_tips_down() {
        for variant in [MannequinVariant::Vrm1, MannequinVariant::Vrm0] {
            let mut ed = editor(variant);
            let tip = |ed: &Editor, b| ed.rig.world_position(&ed.pose, b).unwrap();
            let before = tip(&ed, Bone::LeftIndexDistal);
            let right_before = tip(&ed, Bone::RightIndexDistal);
            ed.apply(Edit::Pose(PoseEdit::Grip {
                side: GripSide::One(Side::Left),
                amount: 1.0,
            }))
            .unwrap();
            assert!(tip(&ed, Bone::LeftIndexDistal).y < before.y - 0.01);
            assert_eq!(tip(&ed, Bone::RightIndexDistal), right_before);
        }
    }

    #[test]
    fn a_refused_edit_during_a_drag_leaves_the_drag_cancellable() {
        let mut ed = editor(MannequinVariant::Vrm1);
        let start = ed.snapshot();
        let turn = Quat::from_rotation_y(0.4);
        ed.apply(Edit::preview(PoseEdit::Rotate {
            bone: Bone::Spine,
            rotation: turn,
        }))
        .unwrap();
        assert!(
            ed.apply(Edit::Keys(KeyEdit::Delete)).is_err(),
            "there is no key"
        );
        ed.apply(Edit::Gesture(Gesture::Cancel)).unwrap();
        assert_eq!(
            ed.snapshot(),
            start,
            "cancel restores the state before the drag"
        );
        assert!(!ed.history.can_undo());
    }

    #[test]
    fn refused_edits_change_nothing() {
        let mut ed = editor(MannequinVariant::Vrm1);
        ed.apply(Edit::Pose(PoseEdit::Rotate {
            bone: Bone::Spine,
            rotation: Quat::from_rotation_x(0.2),
        }))
        .unwrap();
        let before = ed.pose.clone();
        assert!(
            ed.apply(Edit::Pose(PoseEdit::Rotate {
                bone: Bone::Neck,
                rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)
            }))
            .is_err()
        );
        assert!(
            ed.apply(Edit::Pose(PoseEdit::Rotate {
                bone: Bone::Neck,
                rotation: Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0)
            }))
            .is_err()
        );
        assert!(
            ed.apply(Edit::Pose(PoseEdit::Rotate {
                bone: Bone::LeftEye,
                rotation: Quat::IDENTITY
            }))
            .is_err()
        );
        assert!(
            ed.apply(Edit::Pose(PoseEdit::Expression {
                name: "nope".into(),
                value: 1.0
            }))
            .is_err()
        );
        assert!(
            ed.apply(Edit::Pose(PoseEdit::Expression {
                name: "happy".into(),
                value: f32::NAN
            }))
            .is_err()
        );
        assert_eq!(ed.pose, before);
    }

    #[test]
    fn scripts_name_the_failing_step() {
        let script = json!([{"op": "mirror"}, {"op": "fly"}]);
        assert_eq!(
            parse_script(&script).unwrap_err().to_string(),
            "step 2: unknown op 'fly'"
        );
        let script = json!([{"op": "rotate", "bone": "spine", "quat": [0, 0, 0, 0]}]);
        assert!(
            parse_script(&script)
                .unwrap_err()
                .to_string()
                .contains("zero length")
        );
        let ok = json!([{"op": "rotate", "bone": "spine", "quat": [0, 0, 0.2, 1]},
                        {"op": "grip", "side": "left", "amount": 0.5}, {"op": "expr", "name": "happy", "value": 1}]);
        assert_eq!(parse_script(&ok).unwrap().len(), 3);
    }

    fn spine_turn(angle: f32) -> PoseEdit {
        PoseEdit::Rotate {
            bone: Bone::Spine,
            rotation: Quat::from_rotation_y(angle),
        }
    }

    fn spine(angle: f32) -> Edit {
        spine_turn(angle).into()
    }

    #[test]
    fn pose_edits_write_back_to_the_key_at_the_playhead() {
        let mut ed = editor(MannequinVariant::Vrm1);
        ed.apply(spine(0.1)).unwrap();
        assert!(ed.timeline.is_empty(), "no keys: nothing is written back");
        ed.apply(Edit::Keys(KeyEdit::Add)).unwrap();
        ed.apply(Edit::Seek(2.0)).unwrap();
        ed.apply(Edit::Keys(KeyEdit::Add)).unwrap();
        ed.apply(Edit::Seek(1.0)).unwrap();
        ed.apply(spine(0.7)).unwrap();
        assert_eq!(
            ed.timeline.keys().len(),
            3,
            "an edit between keys inserts a key"
        );
        let key = ed.timeline.key_at(1.0).unwrap();
        assert_eq!(
            key.pose.rotation(Bone::Spine),
            Quat::from_rotation_y(0.7).normalize()
        );
        ed.apply(spine(0.3)).unwrap();
        assert_eq!(
            ed.timeline.keys().len(),
            3,
            "an edit on a key overwrites it"
        );
        ed.set_playing(true);
        ed.apply(spine(0.5)).unwrap();
        ed.set_playing(false);
        let key = ed.timeline.key_at(1.0).unwrap();
        assert_eq!(
            key.pose.rotation(Bone::Spine),
            Quat::from_rotation_y(0.3).normalize(),
            "no write-back while playing"
        );
    }

    #[test]
    fn a_drag_is_one_undo_step_and_one_write_back() {
        let mut ed = editor(MannequinVariant::Vrm1);
        ed.apply(Edit::Keys(KeyEdit::Add)).unwrap();
        let before = ed.snapshot();
        for i in 0..10 {
            ed.apply(Edit::preview(spine_turn(i as f32 * 0.05)))
                .unwrap();
        }
        assert_eq!(
            ed.timeline.keys()[0].pose.rotation(Bone::Spine),
            Quat::IDENTITY,
            "not written during the drag"
        );
        ed.apply(Edit::Gesture(Gesture::End)).unwrap();
        assert!(ed.timeline.keys()[0].pose.rotation(Bone::Spine).y > 0.2);
        ed.apply(Edit::Undo).unwrap();
        assert_eq!(ed.snapshot(), before);
    }

    #[test]
    fn after_100_edits_exactly_80_undos_are_possible() {
        let mut ed = editor(MannequinVariant::Vrm1);
        let mut states = vec![ed.snapshot()];
        for i in 0..100 {
            ed.apply(spine(i as f32 * 0.01 + 0.01)).unwrap();
            states.push(ed.snapshot());
        }
        for i in 0..80 {
            ed.apply(Edit::Undo).unwrap();
            assert_eq!(ed.snapshot(), states[99 - i]);
        }
        let after_80 = ed.snapshot();
        ed.apply(Edit::Undo).unwrap();
        assert_eq!(ed.snapshot(), after_80, "the 81st undo changes nothing");
        for _ in 0..80 {
            ed.apply(Edit::Redo).unwrap();
        }
        assert_eq!(ed.snapshot(), states[100]);
    }

    #[test]
    fn key_edits_refuse_without_a_key_and_change_nothing() {
        let mut ed = editor(MannequinVariant::Vrm1);
        let before = ed.snapshot();
        assert!(ed.apply(Edit::Keys(KeyEdit::Delete)).is_err());
        assert!(
            ed.apply(Edit::Keys(KeyEdit::SetEase(
                crate::animation::timeline::Ease::Hold
            )))
            .is_err()
        );
        assert!(
            ed.apply(Edit::Keys(KeyEdit::Move { from: 1.0, to: 2.0 }))
                .is_err()
        );
        assert!(ed.apply(Edit::Seek(f32::NAN)).is_err());
        assert_eq!(ed.snapshot(), before);
        assert!(!ed.history.can_undo(), "refused edits record nothing");
    }

    #[test]
    fn undoing_an_import_restores_the_keys_and_the_length() {
        let mut ed = editor(MannequinVariant::Vrm1);
        let before = ed.snapshot();
        let mut clip = Timeline::default();
        clip.set_key(0.0, Pose::default());
        clip.set_key(12.0, Pose::default());
        ed.apply(KeyEdit::Replace(Box::new(clip)).into()).unwrap();
        assert!(ed.settings.length >= 12.0);
        ed.apply(Edit::Undo).unwrap();
        assert_eq!(ed.snapshot(), before);
        assert_eq!(ed.settings.length, before.length);
    }

    #[test]
    fn placing_a_pose_is_one_undo_step_and_drops_unknown_expressions() {
        let mut ed = editor(MannequinVariant::Vrm1);
        ed.apply(KeyEdit::Add.into()).unwrap();
        let before = ed.snapshot();
        let mut pose = Pose::default();
        pose.set_rotation(Bone::Spine, Quat::from_rotation_y(0.4));
        pose.expressions.insert("happy".into(), 1.0);
        pose.expressions.insert("not-on-this-model".into(), 1.0);
        ed.apply(
            KeyEdit::PlacePose {
                t: 1.5,
                pose: Box::new(pose.clone()),
                mask: BodyMask::WholeBody,
            }
            .into(),
        )
        .unwrap();
        let key = ed
            .timeline
            .key_at(1.5)
            .expect("a key where the pose was dropped");
        assert_eq!(key.pose.rotation(Bone::Spine), pose.rotation(Bone::Spine));
        assert_eq!(ed.playhead, snap(1.5));
        assert!(!key.pose.expressions.contains_key("not-on-this-model"));
        assert_eq!(key.pose.expressions.get("happy"), Some(&1.0));
        ed.apply(Edit::Undo).unwrap();
        assert_eq!(ed.snapshot(), before, "one undo takes it all back");
        // A script's `pose` step is the same edit path.
        ed.apply(PoseEdit::SetPose(Box::new(pose)).into()).unwrap();
        assert!(!ed.pose.expressions.contains_key("not-on-this-model"));
    }

    #[test]
    fn an_edit_shares_the_keys_it_did_not_change_with_the_undo_step() {
        let mut ed = editor(MannequinVariant::Vrm1);
        let mut clip = Timeline::default();
        for i in 0..50 {
            clip.set_key(i as f32 / 30.0, Pose::default());
        }
        ed.apply(KeyEdit::Replace(Box::new(clip)).into()).unwrap();
        ed.apply(Edit::Seek(10.0 / 30.0)).unwrap();
        ed.apply(spine(0.3)).unwrap();
        let step = ed.history.undo_steps().last().unwrap();
        let now = ed.timeline.keys();
        let shared = now
            .iter()
            .zip(step.keys.iter())
            .filter(|(a, b)| Arc::ptr_eq(a, b))
            .count();
        assert_eq!(shared, 49, "only the key at the playhead is new");
    }

    #[test]
    fn a_step_reads_back_from_its_json() {
        let mut ed = editor(MannequinVariant::Vrm1);
        ed.apply(spine(0.2)).unwrap();
        ed.apply(KeyEdit::Add.into()).unwrap();
        ed.apply(Edit::Seek(0.5)).unwrap();
        ed.apply(KeyEdit::SetEase(Ease::Hold).into()).unwrap_err();
        ed.apply(KeyEdit::Add.into()).unwrap();
        let step = ed.snapshot();
        let title = ed.rig.model.title.clone();
        let json = step.to_json(&title);
        let back = Snapshot::from_json(&json, &mut Vec::new()).unwrap();
        assert_eq!(back.to_json(&title), json);
        assert_eq!(back, step);
    }

    proptest::proptest! {
        #[test]
        fn undo_then_redo_restores_the_same_json(ops in proptest::collection::vec(0u8..8, 1..40), undos in 1usize..10) {
            let mut ed = editor(MannequinVariant::Vrm1);
            for (i, op) in ops.iter().enumerate() {
                let edit = match op {
                    0 => spine(i as f32 * 0.1),
                    1 => Edit::Keys(KeyEdit::Add),
                    2 => Edit::Seek((i % 7) as f32 * 0.25),
                    3 => Edit::Keys(KeyEdit::Delete),
                    4 => Edit::Keys(KeyEdit::SetEase(crate::animation::timeline::Ease::ALL[i % 5])),
                    5 => Edit::Pose(PoseEdit::Mirror),
                    6 => Edit::Keys(KeyEdit::Move { from: (i % 7) as f32 * 0.25, to: (i % 5) as f32 * 0.5 }),
                    _ => Edit::Pose(PoseEdit::Expression { name: "happy".into(), value: (i % 3) as f32 * 0.5 }),
                };
                let _ = ed.apply(edit); // refused edits are part of the property too
            }
            for _ in 0..undos {
                let here = ed.snapshot();
                if !ed.history.can_undo() {
                    break;
                }
                ed.apply(Edit::Undo).unwrap();
                ed.apply(Edit::Redo).unwrap();
                proptest::prop_assert_eq!(ed.snapshot(), here);
                ed.apply(Edit::Undo).unwrap();
            }
        }
    }

    #[test]
    fn a_hips_drag_pins_the_feet_where_the_drag_began_and_cancel_restores_exactly() {
        let mut ed = editor(MannequinVariant::Vrm1);
        let before = ed.snapshot();
        let feet = |ed: &Editor| {
            let w = ed.rig.world_pose(&ed.pose);
            [
                w[Bone::LeftFoot.index()].unwrap().0,
                w[Bone::RightFoot.index()].unwrap().0,
            ]
        };
        let start = feet(&ed);
        let rest = ed.rig.hips_rest();
        for i in 1..=20 {
            let to = rest - glam::Vec3::Y * (i as f32 * 0.01);
            ed.apply(Edit::preview(PoseEdit::MoveHips {
                to: Some(to),
                rotate: None,
                pin_feet: true,
            }))
            .unwrap();
            let now = feet(&ed);
            assert!(
                now[0].distance(start[0]) < 1e-5 && now[1].distance(start[1]) < 1e-5,
                "step {i}"
            );
        }
        ed.apply(Edit::Gesture(Gesture::Cancel)).unwrap();
        assert_eq!(ed.snapshot(), before, "cancel restores exactly");
        assert!(!ed.history.can_undo(), "a cancelled drag records nothing");
    }

    mod key_selections {
        use super::*;
        use crate::animation::timeline::{FPS, frame_of};
        use crate::body::math::testing::arb_quat;
        use proptest::prelude::*;

        /// An editor with keys on the given frames, each a distinct pose.
        fn keyed(frames: &[u32], turns: &[Quat]) -> Editor {
            let mut ed = editor(MannequinVariant::Vrm1);
            for (i, frame) in frames.iter().enumerate() {
                let mut pose = Pose::default();
                pose.set_rotation(Bone::LeftUpperArm, turns[i % turns.len()]);
                pose.set_rotation(Bone::Spine, Quat::from_rotation_y(i as f32 * 0.1));
                pose.hips = Some(Vec3::new(i as f32 * 0.01, 0.9, 0.0));
                ed.apply(Edit::Keys(KeyEdit::PlacePose {
                    t: *frame as f32 / FPS,
                    pose: Box::new(pose),
                    mask: BodyMask::WholeBody,
                }))
                .unwrap();
            }
            ed.history = History::default();
            ed
        }

        fn key_frames(ed: &Editor) -> Vec<i64> {
            ed.timeline.keys().iter().map(|k| frame_of(k.t)).collect()
        }

        fn arb_frames() -> impl Strategy<Value = Vec<u32>> {
            proptest::collection::btree_set(0u32..300, 1..12).prop_map(|s| s.into_iter().collect())
        }

        fn select(ed: &mut Editor, pick: KeyPick) {
            ed.apply(Edit::Keys(KeyEdit::Select {
                pick,
                mode: SelectMode::Replace,
            }))
            .unwrap();
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]

            #[test]
            fn moving_keys_and_moving_them_back_changes_nothing(
                frames in arb_frames(),
                turns in proptest::collection::vec(arb_quat(), 1..4),
                picked in proptest::collection::vec(any::<bool>(), 12),
                by in -200i32..200,
            ) {
                let mut ed = keyed(&frames, &turns);
                let ids: Vec<u64> = ed.timeline.keys().iter().zip(&picked)
                    .filter(|(_, p)| **p).map(|(k, _)| k.id).collect();
                prop_assume!(!ids.is_empty());
                select(&mut ed, KeyPick::Ids(ids));
                let before = ed.timeline.clone();
                let by = by as f32 / FPS;
                if ed.apply(Edit::Keys(KeyEdit::MoveSelected { by })).is_ok() {
                    ed.apply(Edit::Keys(KeyEdit::MoveSelected { by: -by })).unwrap();
                    prop_assert_eq!(ed.timeline.keys(), before.keys());
                } else {
                    prop_assert_eq!(ed.timeline.keys(), before.keys(), "a refused move changes nothing");
                }
            }

            #[test]
            fn scaling_by_f_then_by_its_inverse_changes_nothing(
                frames in arb_frames(),
                turns in proptest::collection::vec(arb_quat(), 1..4),
                factor in 1.0f32..4.0,
                pivot in 0u32..300,
            ) {
                let mut ed = keyed(&frames, &turns);
                select(&mut ed, KeyPick::All);
                let before = ed.timeline.clone();
                let pivot = pivot as f32 / FPS;
                if ed.apply(Edit::Keys(KeyEdit::ScaleSelected { factor, pivot })).is_ok() {
                    ed.apply(Edit::Keys(KeyEdit::ScaleSelected { factor: 1.0 / factor, pivot })).unwrap();
                    prop_assert_eq!(ed.timeline.keys(), before.keys());
                }
            }

            #[test]
            fn pasting_mirrored_twice_is_pasting(
                frames in arb_frames(),
                turns in proptest::collection::vec(arb_quat(), 1..4),
                at in 400u32..600,
            ) {
                let mut ed = keyed(&frames, &turns);
                select(&mut ed, KeyPick::All);
                ed.apply(Edit::CopyKeys).unwrap();
                let mut plain = keyed(&frames, &turns);
                select(&mut plain, KeyPick::All);
                plain.apply(Edit::CopyKeys).unwrap();
                let t = at as f32 / FPS;
                plain.apply(Edit::Keys(KeyEdit::Paste { t, mirror: false })).unwrap();

                ed.apply(Edit::Keys(KeyEdit::Paste { t, mirror: true })).unwrap();
                ed.apply(Edit::CopyKeys).unwrap();
                ed.apply(Edit::Keys(KeyEdit::Paste { t, mirror: true })).unwrap();
                let poses = |e: &Editor| e.timeline.keys().iter()
                    .map(|k| (frame_of(k.t), k.ease, k.pose.clone())).collect::<Vec<_>>();
                prop_assert_eq!(poses(&ed), poses(&plain));

                // A pose pasted mirrored twice is the pose.
                let copied = ed.pose.clone();
                ed.apply(Edit::CopyPose).unwrap();
                ed.apply(Edit::PastePose { mirror: true, mask: BodyMask::WholeBody }).unwrap();
                ed.apply(Edit::CopyPose).unwrap();
                ed.apply(Edit::PastePose { mirror: true, mask: BodyMask::WholeBody }).unwrap();
                prop_assert_eq!(&ed.pose, &copied);
            }

            #[test]
            fn every_key_op_then_undo_is_the_project_before(
                frames in arb_frames(),
                turns in proptest::collection::vec(arb_quat(), 1..4),
                picked in proptest::collection::vec(any::<bool>(), 12),
                op in 0usize..14,
                a in 0u32..400,
                b in 0u32..400,
                amount in 0.3f32..3.0,
            ) {
                let mut ed = keyed(&frames, &turns);
                let ids: Vec<u64> = ed.timeline.keys().iter().zip(&picked)
                    .filter(|(_, p)| **p).map(|(k, _)| k.id).collect();
                select(&mut ed, KeyPick::Ids(ids));
                ed.apply(Edit::CopyKeys).ok();
                ed.apply(Edit::CopyPose).unwrap();
                ed.apply(Edit::Seek(a as f32 / FPS)).unwrap();
                ed.history = History::default();
                let (ta, tb) = (a as f32 / FPS, b as f32 / FPS);
                let mask = BodyMask::ALL[op % BodyMask::ALL.len()];
                let edit = match op {
                    0 => Edit::Keys(KeyEdit::Select { pick: KeyPick::Range { from: ta, to: tb }, mode: SelectMode::Toggle }),
                    1 => Edit::Keys(KeyEdit::MoveSelected { by: tb - ta }),
                    2 => Edit::Keys(KeyEdit::ScaleSelected { factor: amount, pivot: tb }),
                    3 => Edit::Keys(KeyEdit::DeleteSelected),
                    4 => Edit::Keys(KeyEdit::EaseSelected(Ease::Out)),
                    5 => Edit::Keys(KeyEdit::Paste { t: tb, mirror: false }),
                    6 => Edit::Keys(KeyEdit::Paste { t: tb, mirror: true }),
                    7 => Edit::Keys(KeyEdit::Duplicate { t: tb }),
                    8 => Edit::PastePose { mirror: true, mask },
                    9 => Edit::Pose(PoseEdit::ApplyPose { pose: Box::new(Pose::default().mirrored()), mask, mirror: false }),
                    10 => Edit::Keys(KeyEdit::Plant { foot: Side::Left, from: ta, to: tb, on: true }),
                    11 => Edit::Keys(KeyEdit::Plant { foot: Side::Right, from: ta.min(tb), to: ta.max(tb) + 0.5, on: true }),
                    12 => Edit::Keys(KeyEdit::Select { pick: KeyPick::All, mode: SelectMode::Add }),
                    _ => Edit::PastePose { mirror: false, mask: BodyMask::LeftArm },
                };
                let project = ed.project(None).to_json();
                let snapshot = ed.snapshot();
                if ed.apply(edit.clone()).is_ok() && ed.history.can_undo() {
                    ed.apply(Edit::Undo).unwrap();
                }
                prop_assert_eq!(ed.project(None).to_json(), project, "{:?}", edit);
                prop_assert_eq!(ed.snapshot(), snapshot, "{:?}", edit);
            }
        }

        #[test]
        fn moves_onto_a_key_are_refused_with_a_message() {
            let mut ed = keyed(&[0, 10, 20], &[Quat::from_rotation_x(0.3)]);
            select(&mut ed, KeyPick::Times(vec![10.0 / FPS]));
            let before = ed.snapshot();
            let err = ed
                .apply(Edit::Keys(KeyEdit::MoveSelected { by: 10.0 / FPS }))
                .unwrap_err();
            assert!(err.to_string().contains("both land on"), "{err}");
            assert_eq!(ed.snapshot(), before);
            assert_eq!(key_frames(&ed), vec![0, 10, 20]);
        }

        #[test]
        fn selecting_is_undoable_but_not_unsaved_work_and_an_import_clears_it() {
            let mut ed = keyed(&[0, 10, 20], &[Quat::from_rotation_x(0.3)]);
            ed.dirty = false;
            select(&mut ed, KeyPick::All);
            assert!(!ed.dirty, "a selection is not a change to save");
            ed.apply(Edit::Undo).unwrap();
            assert!(ed.selection.is_empty() && !ed.dirty, "nor is undoing one");
            ed.apply(Edit::Redo).unwrap();
            assert_eq!(ed.selection.len(), 3);
            let mut other = Timeline::default();
            other.set_key(0.0, Pose::default());
            ed.apply(Edit::Keys(KeyEdit::Replace(Box::new(other))))
                .unwrap();
            assert!(
                ed.selection.is_empty(),
                "imported keys reuse ids: nothing stays selected"
            );
        }

        #[test]
        fn a_key_moved_alone_takes_its_plant_ends_along() {
            let mut ed = keyed(&[0, 10, 20], &[Quat::from_rotation_x(0.3)]);
            ed.apply(Edit::Keys(KeyEdit::Plant {
                foot: Side::Left,
                from: 0.0,
                to: 10.0 / FPS,
                on: true,
            }))
            .unwrap();
            ed.apply(Edit::Keys(KeyEdit::Move {
                from: 10.0 / FPS,
                to: 15.0 / FPS,
            }))
            .unwrap();
            let plant = ed.timeline.plants()[0];
            assert_eq!((frame_of(plant.from), frame_of(plant.to)), (0, 15));
        }

        #[test]
        fn a_mask_takes_only_its_part() {
            let mut ed = keyed(&[0], &[Quat::from_rotation_x(0.3)]);
            let mut source = Pose::default();
            for bone in [
                Bone::LeftUpperArm,
                Bone::RightUpperArm,
                Bone::LeftIndexProximal,
                Bone::Head,
                Bone::LeftUpperLeg,
            ] {
                source.set_rotation(bone, Quat::from_rotation_z(0.7));
            }
            source.hips = Some(Vec3::new(0.2, 0.5, 0.1));
            let before = ed.pose.clone();
            ed.apply(Edit::Pose(PoseEdit::ApplyPose {
                pose: Box::new(source.clone()),
                mask: BodyMask::LeftArm,
                mirror: false,
            }))
            .unwrap();
            for bone in ALL_BONES {
                let expected = if BodyMask::LeftArm.covers(bone) {
                    source.rotation(bone)
                } else {
                    before.rotation(bone)
                };
                assert_eq!(ed.pose.rotation(bone), expected, "{bone}");
            }
            assert_eq!(ed.pose.hips, before.hips, "an arm does not move the hips");
            assert!(BodyMask::LeftArm.covers(Bone::LeftIndexProximal));
            assert!(!BodyMask::LeftHand.covers(Bone::LeftUpperArm));
            assert!(
                BodyMask::LowerBody.covers(Bone::Hips) && !BodyMask::UpperBody.covers(Bone::Hips)
            );
            assert!(
                BodyMask::UpperBody.covers(Bone::Head) && !BodyMask::LowerBody.covers(Bone::Head)
            );
            assert_eq!(
                ed.timeline.keys()[0].pose,
                ed.pose,
                "written back to the key at the playhead"
            );
        }
    }
}
