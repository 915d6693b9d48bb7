//! The one edit path. Every user action — a slider in the window, a key press, a line
//! of an edit script, a VR grab — becomes an [`Edit`] applied by [`Editor::apply`], so
//! that write-back to keys, undo and pinning behave the same everywhere.
//!
//! Edits are typed by what they change: a [`PoseEdit`] changes the pose (and is written
//! back to the key at the playhead), a [`KeyEdit`] changes the keys, a [`Gesture`] is a
//! drag of pose edits that becomes one undo step. Undo keeps typed [`Snapshot`]s whose
//! keys are shared with the timeline, so a step costs what it changed.
//!
//! The parts, by what an edit acts on: `pose` (a [`PoseEdit`] and how it changes the
//! pose), `keys` (a [`KeyEdit`] and how it changes the keys and planted feet),
//! `selection` (which keys are selected: part of each undo step), `clipboard` (copy and
//! paste) and `script` (reading an edit script's steps into edits). This file holds
//! [`Edit`], the [`Editor`] with its dispatching [`Editor::apply`], drags ([`Gesture`])
//! and undo ([`Snapshot`]).
//!
//! A new edit goes in the file of what it acts on: a variant of [`PoseEdit`] or
//! [`KeyEdit`] there (or of [`Edit`] here, for one of neither kind), its change beside
//! the others (an arm of `change_pose` or `change_keys_only`, or a method there called
//! from an arm of [`Editor::apply`]), and for edit scripts an arm in
//! `script::parse_step`.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::Refusal;
use crate::animation::history::History;
use crate::animation::project::{Project, Settings};
use crate::animation::timeline::{Key, KeyPick, MAX_TIME, Plant, Timeline, snap};
use crate::body::follow::Held;
use crate::body::hand::HandDirections;
use crate::body::pose::{BodyMask, Pose, PoseDirections};
use crate::body::rig::Rig;

mod clipboard;
mod keys;
mod pins;
mod pose;
mod script;
mod selection;

pub use crate::animation::pins::{PIN_ENDS, Pins};
pub use clipboard::Copied;
pub use keys::KeyEdit;
pub use pose::{GripSide, PoseEdit};
pub use script::{MAX_SCRIPT_TIMES, parse_script, parse_step, step_vec3};
pub use selection::SelectMode;

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
    /// Turn the joint limits on or off (a setting: not undoable).
    SetLimits(bool),
    /// Pin (`on`) or let go of hands, feet or the head: one undo step.
    Pin {
        ends: Pins,
        on: bool,
    },
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
    /// The pinned ends.
    pub pins: Pins,
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
            && self.pins == other.pins
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
            "pins": self.pins.to_json(),
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
            pins: match value.get("pins") {
                None | Some(Value::Null) => Pins::default(),
                Some(list) => Pins::from_json(list)?,
            },
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
    /// The pinned hands, feet and head.
    pub pins: Pins,
    /// Where the pinned ends were when the current drag began.
    gesture_pins: Option<Vec<Held>>,
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
            pins: Pins::default(),
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
        editor.pins = project.pins;
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
        other.pins = self.pins;
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
            pins: self.pins,
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
            pins: self.pins,
        }
    }

    fn restore(&mut self, snapshot: Snapshot) {
        let next_id = self.timeline.next_id().max(snapshot.next_key_id);
        self.timeline = Timeline::from_shared(&snapshot.keys, &snapshot.plants, next_id);
        self.selection = snapshot.selection.to_vec();
        self.pose = snapshot.pose;
        self.playhead = snapshot.playhead;
        self.settings.length = snapshot.length;
        self.pins = snapshot.pins;
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
            Edit::Pin { ends, on } => {
                if self.pins.with(ends, on) == self.pins {
                    return Ok(()); // already so: not a step
                }
                self.recorded(|editor| {
                    editor.pins = editor.pins.with(ends, on);
                    Ok(())
                })
            }
            Edit::SetLimits(on) => {
                self.settings.limits = on;
                self.mark_changed();
                Ok(())
            }
            Edit::CopyKeys => self.copy_keys(),
            Edit::CopyPose => self.copy_pose(),
            Edit::PasteLast { mirror, mask } => self.paste_last(mirror, mask),
            Edit::PastePose { mirror, mask } => self.paste_pose(mirror, mask),
            Edit::Gesture(gesture) => self.apply_gesture(gesture),
            Edit::Pose(edit) => self.recorded(|editor| {
                editor.change_pose(edit)?;
                editor.write_back();
                Ok(())
            }),
            // A new selection is a step to undo but no change to save; picking what is
            // already selected is not even a step.
            Edit::Keys(KeyEdit::Select { pick, mode }) => self.select(pick, mode),
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
                    self.gesture_pins = Some(self.capture_pins());
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::animation::timeline::{Ease, FPS, frame_of};
    use crate::body::math::testing::arb_quat;
    use crate::model::humanoid::{Bone, Side};
    use crate::model::mannequin::{self, MannequinVariant};
    use glam::{Quat, Vec3};
    use proptest::prelude::*;

    /// An editor on a mannequin with the joint limits off: these tests turn bones freely
    /// to check editing itself; `limits_on` tests the limits through the editor.
    pub(super) fn editor(variant: MannequinVariant) -> Editor {
        let mut editor = limits_on(variant);
        editor.settings.limits = false;
        editor
    }

    /// An editor on a mannequin as a user gets one: the joint limits on.
    pub(super) fn limits_on(variant: MannequinVariant) -> Editor {
        Editor::new(crate::body::rig::rig_from_bytes(&mannequin::build(variant)).unwrap())
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

    pub(super) fn spine_turn(angle: f32) -> PoseEdit {
        PoseEdit::Rotate {
            bone: Bone::Spine,
            rotation: Quat::from_rotation_y(angle),
        }
    }

    pub(super) fn spine(angle: f32) -> Edit {
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
                hold_pins: true,
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

    /// An editor with keys on the given frames, each a distinct pose.
    pub(super) fn keyed(frames: &[u32], turns: &[Quat]) -> Editor {
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

    pub(super) fn key_frames(ed: &Editor) -> Vec<i64> {
        ed.timeline.keys().iter().map(|k| frame_of(k.t)).collect()
    }

    pub(super) fn arb_frames() -> impl Strategy<Value = Vec<u32>> {
        proptest::collection::btree_set(0u32..300, 1..12).prop_map(|s| s.into_iter().collect())
    }

    pub(super) fn select(ed: &mut Editor, pick: KeyPick) {
        ed.apply(Edit::Keys(KeyEdit::Select {
            pick,
            mode: SelectMode::Replace,
        }))
        .unwrap();
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

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
}
