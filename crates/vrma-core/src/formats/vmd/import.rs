//! A VMD as a motion source on the standard MMD skeleton: each bone's keys played as MMD
//! plays them (the Bézier curve stored on a key shapes the span that ends at it, one
//! curve per position axis and one for the rotation), the leg IK solved into thigh,
//! knee and ankle turns, and the standard face morphs as VRM expressions. Frames are
//! MMD's own 30 per second. Camera, light and shadow tracks have no place on an avatar
//! and are left out with a note.

use std::collections::BTreeMap;

use glam::{Quat, Vec3};

use super::read::{BoneKey, Vmd, parse};
use super::skeleton::{LegIk, MORPHS, Skeleton, normalized, rotation_to_ours, standard, to_ours};
use crate::Refusal;
use crate::body::rig::Rig;
use crate::formats::imported::Imported;
use crate::formats::motion::retarget::{arc, forward};
use crate::formats::motion::{
    Local, MotionOptions, MotionSource, SourceJoint, UserMap, import_motion,
};

/// MMD's frame rate: VMD frame numbers count thirtieths of a second.
pub const VMD_FPS: f32 = 30.0;

/// One key in the rig's axes.
struct TrackKey {
    frame: u32,
    position: Vec3,
    rotation: Quat,
    curves: [[u8; 4]; 4],
}

/// The y of a VMD Bézier curve (handles in 0–127, ends at (0, 0) and (1, 1)) where its
/// x is `progress`; x(t) rises monotonically, so bisection finds t.
fn bezier(curve: [u8; 4], progress: f32) -> f32 {
    let [x1, y1, x2, y2] = curve.map(|h| h as f32 / 127.0);
    if x1 == y1 && x2 == y2 {
        return progress; // a straight line, whatever its handles
    }
    let cubic = |a: f32, b: f32, t: f32| {
        let u = 1.0 - t;
        3.0 * u * u * t * a + 3.0 * u * t * t * b + t * t * t
    };
    let (mut lo, mut hi) = (0.0f32, 1.0f32);
    for _ in 0..24 {
        let mid = 0.5 * (lo + hi);
        if cubic(x1, x2, mid) < progress {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    cubic(y1, y2, 0.5 * (lo + hi))
}

/// A bone's keys sampled at `frame`: its position offset and rotation from rest.
fn sample(keys: &[TrackKey], frame: u32) -> (Vec3, Quat) {
    let after = keys.partition_point(|k| k.frame <= frame);
    if after == 0 {
        return (keys[0].position, keys[0].rotation);
    }
    let a = &keys[after - 1];
    let Some(b) = keys.get(after) else {
        return (a.position, a.rotation);
    };
    let progress = (frame - a.frame) as f32 / (b.frame - a.frame) as f32;
    let w = |channel: usize| bezier(b.curves[channel], progress);
    let position = Vec3::new(
        a.position.x + (b.position.x - a.position.x) * w(0),
        a.position.y + (b.position.y - a.position.y) * w(1),
        a.position.z + (b.position.z - a.position.z) * w(2),
    );
    (position, a.rotation.slerp(b.rotation, w(3)).normalize())
}

/// A VMD's motion, ready to sample frame by frame.
pub struct VmdMotion {
    skeleton: Skeleton,
    joints: Vec<SourceJoint>,
    /// Per joint, its keys by frame (empty: it stays at rest).
    tracks: Vec<Vec<TrackKey>>,
    /// Per leg, the frames from which its IK is on or off.
    ik_switches: [Vec<(u32, bool)>; 2],
    expressions: Vec<String>,
    /// Per expression, the keys of the morphs that feed it: (frame, weight) by morph.
    faces: Vec<Vec<Vec<(u32, f32)>>>,
    frames: usize,
    pub warnings: Vec<String>,
}

impl VmdMotion {
    pub fn new(vmd: Vmd) -> Result<VmdMotion, Refusal> {
        let skeleton = standard();
        let joints = skeleton.joints();
        if vmd.bones.is_empty() && vmd.morphs.is_empty() {
            return Err(Refusal::new(if vmd.camera_keys > 0 {
                format!(
                    "this VMD is a camera motion ({} keys): it moves no bones",
                    vmd.camera_keys
                )
            } else {
                "this VMD has no bone or morph keys".to_owned()
            }));
        }
        let mut warnings = Vec::new();
        let mut tracks: Vec<Vec<TrackKey>> = (0..joints.len()).map(|_| Vec::new()).collect();
        let mut unknown: BTreeMap<String, usize> = BTreeMap::new();
        let mut last_frame = 0u32;
        for BoneKey {
            name,
            frame,
            position,
            rotation,
            curves,
        } in vmd.bones
        {
            last_frame = last_frame.max(frame);
            match skeleton.index(&normalized(&name)) {
                Some(joint) => tracks[joint].push(TrackKey {
                    frame,
                    position: to_ours(position),
                    rotation: rotation_to_ours(rotation),
                    curves,
                }),
                None => *unknown.entry(name).or_default() += 1,
            }
        }
        for keys in &mut tracks {
            // A later key at the same frame wins, as in MMD.
            keys.sort_by_key(|k| k.frame);
            keys.dedup_by(|later, earlier| {
                let same = later.frame == earlier.frame;
                if same {
                    std::mem::swap(later, earlier);
                }
                same
            });
        }
        if !unknown.is_empty() {
            let names: Vec<String> = unknown
                .iter()
                .take(8)
                .map(|(n, k)| format!("{n} ({k})"))
                .collect();
            warnings.push(format!(
                "keys of bones outside the standard MMD skeleton were left out: {}{}",
                names.join(", "),
                if unknown.len() > 8 { ", …" } else { "" }
            ));
        }

        let mut expressions: Vec<String> = Vec::new();
        let mut faces: Vec<Vec<Vec<(u32, f32)>>> = Vec::new();
        let mut by_morph: BTreeMap<String, Vec<(u32, f32)>> = BTreeMap::new();
        for key in vmd.morphs {
            last_frame = last_frame.max(key.frame);
            by_morph
                .entry(key.name)
                .or_default()
                .push((key.frame, key.weight.clamp(0.0, 1.0)));
        }
        let mut unmapped = Vec::new();
        for (morph, mut keys) in by_morph {
            let Some(&(_, expression)) = MORPHS
                .iter()
                .find(|(m, _)| normalized(m) == normalized(&morph))
            else {
                unmapped.push(morph);
                continue;
            };
            keys.sort_by_key(|k| k.0);
            let at = match expressions.iter().position(|e| e == expression) {
                Some(at) => at,
                None => {
                    expressions.push(expression.to_owned());
                    faces.push(Vec::new());
                    expressions.len() - 1
                }
            };
            faces[at].push(keys);
        }
        if !unmapped.is_empty() {
            warnings.push(format!(
                "morphs with no VRM expression of that name were left out: {}{}",
                unmapped
                    .iter()
                    .take(8)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", "),
                if unmapped.len() > 8 { ", …" } else { "" }
            ));
        }
        let ignored: Vec<String> = [(vmd.camera_keys, "camera"), (vmd.light_keys, "light")]
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("the {what} track ({n} keys)"))
            .collect();
        if !ignored.is_empty() {
            warnings.push(format!(
                "{} left out: an avatar's animation has no camera or light",
                ignored.join(" and ")
            ));
        }

        let mut ik_switches: [Vec<(u32, bool)>; 2] = [Vec::new(), Vec::new()];
        for switch in &vmd.ik_switches {
            for (name, on) in &switch.enabled {
                let name = normalized(name);
                for (leg, side) in ik_switches.iter_mut().zip(["左", "右"]) {
                    if name == normalized(&format!("{side}足ＩＫ")) {
                        leg.push((switch.frame, *on));
                    }
                }
            }
        }
        for leg in &mut ik_switches {
            leg.sort_by_key(|s| s.0);
        }
        Ok(VmdMotion {
            skeleton,
            joints,
            tracks,
            ik_switches,
            expressions,
            faces,
            frames: last_frame as usize + 1,
            warnings,
        })
    }

    /// The map of the standard skeleton's bones onto the humanoid.
    pub fn standard_map(&self) -> UserMap {
        UserMap {
            bones: self
                .skeleton
                .bones
                .iter()
                .filter_map(|b| Some((b.humanoid?, Some(b.name.clone()))))
                .collect(),
        }
    }

    fn ik_on(&self, leg: usize, frame: u32) -> bool {
        let switches = &self.ik_switches[leg];
        let after = switches.partition_point(|s| s.0 <= frame);
        after == 0 || switches[after - 1].1
    }

    /// Turns the thigh, knee and ankle so the ankle reaches the leg IK bone and the toe
    /// points at the toe IK bone. The knee is a hinge about its own X axis (as MMD limits
    /// it), so its bend follows from the distance alone; the thigh then takes the
    /// smallest turn from its keyed pose that aims the leg, and the ankle likewise.
    fn solve_leg(&self, leg: LegIk, locals: &mut [Local], world: &mut [(Vec3, Quat)]) {
        let joints = &self.joints;
        let target = world[leg.leg_ik].0;
        let thigh_parent = joints[leg.thigh]
            .parent
            .map_or(Quat::IDENTITY, |p| world[p].1);
        let hip = world[leg.thigh].0;
        let to_target = thigh_parent.inverse() * (target - hip);
        let (u, s) = (locals[leg.knee].translation, locals[leg.ankle].translation);
        let (l1, l2) = (u.length(), s.length());
        let reach = to_target
            .length()
            .clamp((l1 - l2).abs() + 1e-4, l1 + l2 - 1e-4);
        // u · Rx(θ)s = ux·sx + A cos θ + B sin θ must equal (d² − l1² − l2²) / 2.
        let a = u.y * s.y + u.z * s.z;
        let b = u.z * s.y - u.y * s.z;
        let want = (reach * reach - l1 * l1 - l2 * l2) * 0.5 - u.x * s.x;
        let radius = (a * a + b * b).sqrt().max(1e-9);
        // Of the two bends that reach, the one that folds the shin backwards (+θ).
        let bend = b.atan2(a) + (want / radius).clamp(-1.0, 1.0).acos();
        let knee = Quat::from_rotation_x(bend);
        locals[leg.knee].rotation = knee;
        let ankle_from_hip = u + knee * s;
        let keyed = locals[leg.thigh].rotation;
        locals[leg.thigh].rotation = (arc(keyed * ankle_from_hip, to_target) * keyed).normalize();
        forward(joints, locals, world);

        let ankle = world[leg.ankle];
        let toe_now = ankle.1 * locals[leg.toe].translation;
        let toe_wanted = world[leg.toe_ik].0 - ankle.0;
        let ankle_world = arc(toe_now, toe_wanted) * ankle.1;
        locals[leg.ankle].rotation = (world[leg.knee].1.inverse() * ankle_world).normalize();
        forward(joints, locals, world);
    }
}

impl MotionSource for VmdMotion {
    fn joints(&self) -> &[SourceJoint] {
        &self.joints
    }

    fn frame_count(&self) -> usize {
        self.frames
    }

    fn frame_time(&self) -> f32 {
        1.0 / VMD_FPS
    }

    fn frame(&self, frame: usize, out: &mut [Local]) {
        let frame = frame.min(u32::MAX as usize) as u32;
        for ((joint, keys), local) in self.joints.iter().zip(&self.tracks).zip(out.iter_mut()) {
            let (offset, rotation) = if keys.is_empty() {
                (Vec3::ZERO, Quat::IDENTITY)
            } else {
                sample(keys, frame)
            };
            *local = Local {
                translation: joint.rest_translation + offset,
                rotation,
            };
        }
        let mut world = vec![(Vec3::ZERO, Quat::IDENTITY); self.joints.len()];
        forward(&self.joints, out, &mut world);
        for (side, leg) in self.skeleton.legs.iter().enumerate() {
            // As in MMD, IK is solved unless the file turns it off, keys or not (its
            // bones then hold the feet where they rest).
            if self.ik_on(side, frame) {
                self.solve_leg(*leg, out, &mut world);
            }
        }
    }

    fn expression_names(&self) -> &[String] {
        &self.expressions
    }

    fn expressions(&self, frame: usize, out: &mut [f32]) {
        let frame = frame.min(u32::MAX as usize) as u32;
        for (weight, morphs) in out.iter_mut().zip(&self.faces) {
            *weight = morphs
                .iter()
                .map(|keys| {
                    let after = keys.partition_point(|k| k.0 <= frame);
                    match (after.checked_sub(1).map(|i| keys[i]), keys.get(after)) {
                        (Some(a), Some(b)) => {
                            a.1 + (b.1 - a.1) * (frame - a.0) as f32 / (b.0 - a.0) as f32
                        }
                        (Some(a), None) => a.1,
                        (None, Some(b)) => b.1,
                        (None, None) => 0.0,
                    }
                })
                .fold(0.0, f32::max);
        }
    }
}

/// Reads a VMD file's bytes and retargets its motion onto `rig` (the user's map, if
/// any, over the standard one).
pub fn import_vmd(bytes: &[u8], rig: &Rig, options: &MotionOptions) -> Result<Imported, Refusal> {
    let vmd = parse(bytes)?;
    let motion = VmdMotion::new(vmd)?;
    let mut map = motion.standard_map();
    if let Some(user) = &options.map {
        map.bones.extend(user.bones.clone());
    }
    let options = MotionOptions {
        map: Some(map),
        ..options.clone()
    };
    let mut imported = import_motion(&motion, rig, &options)?;
    imported.warnings.extend(motion.warnings.iter().cloned());
    Ok(imported)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::pose::Pose;
    use crate::body::rig::rig_from_bytes;
    use crate::formats::motion::KeyPolicy;
    use crate::model::humanoid::Bone;
    use crate::model::mannequin::{MannequinVariant, build};
    use encoding_rs::SHIFT_JIS;

    /// Bone keys (name, frame, MMD position, MMD rotation) and morph keys, linear curves,
    /// in the published layout with a camera section after them.
    fn vmd(bones: &[(&str, u32, Vec3, Quat)], morphs: &[(&str, u32, f32)]) -> Vec<u8> {
        let text = |name: &str, width: usize| {
            let mut b = SHIFT_JIS.encode(name).0.into_owned();
            b.resize(width, 0);
            b
        };
        let mut out = text("Vocaloid Motion Data 0002", 30);
        out.extend(text("テスト", 20));
        out.extend((bones.len() as u32).to_le_bytes());
        for (name, frame, p, q) in bones {
            out.extend(text(name, 15));
            out.extend(frame.to_le_bytes());
            for v in [p.x, p.y, p.z, q.x, q.y, q.z, q.w] {
                out.extend(v.to_le_bytes());
            }
            let mut curves = [0u8; 64];
            for channel in 0..4 {
                curves[channel] = 20;
                curves[4 + channel] = 20;
                curves[8 + channel] = 107;
                curves[12 + channel] = 107;
            }
            out.extend(curves);
        }
        out.extend((morphs.len() as u32).to_le_bytes());
        for (name, frame, weight) in morphs {
            out.extend(text(name, 15));
            out.extend(frame.to_le_bytes());
            out.extend(weight.to_le_bytes());
        }
        out.extend(1u32.to_le_bytes());
        out.extend([0u8; 61]);
        out
    }

    fn every_frame() -> MotionOptions {
        MotionOptions {
            keys: KeyPolicy::EveryFrame,
            ..Default::default()
        }
    }

    fn at(rig: &Rig, pose: &Pose, bone: Bone) -> Vec3 {
        rig.world_pose(pose)[bone.index()].unwrap().0
    }

    #[test]
    fn the_mmd_rest_arm_comes_down_and_a_37_degree_turn_lifts_it_level() {
        let lift = Quat::from_rotation_z(37f32.to_radians());
        let bytes = vmd(
            &[
                ("左腕", 0, Vec3::ZERO, Quat::IDENTITY),
                ("左腕", 10, Vec3::ZERO, lift),
                ("右腕", 10, Vec3::ZERO, lift.inverse()),
            ],
            &[
                ("あ", 0, 0.0),
                ("あ", 10, 1.0),
                ("ウィンク右", 10, 0.5),
                ("謎", 0, 1.0),
            ],
        );
        for variant in [MannequinVariant::Vrm1, MannequinVariant::Vrm0] {
            let rig = rig_from_bytes(&build(variant)).unwrap();
            let imported = import_vmd(&bytes, &rig, &every_frame()).unwrap();
            let keys = imported.timeline.keys();
            assert_eq!(keys.len(), 11);
            let elevation = |pose: &Pose, upper: Bone, lower: Bone| {
                let way = at(&rig, pose, lower) - at(&rig, pose, upper);
                way.normalize().y.asin().to_degrees()
            };
            let left = (Bone::LeftUpperArm, Bone::LeftLowerArm);
            let right = (Bone::RightUpperArm, Bone::RightLowerArm);
            let rest = elevation(&keys[0].pose, left.0, left.1);
            assert!((rest + 37.0).abs() < 0.1, "{variant:?}: {rest}°");
            for (upper, lower) in [left, right] {
                let lifted = elevation(&keys[10].pose, upper, lower);
                assert!(lifted.abs() < 0.1, "{variant:?} {upper:?}: {lifted}°");
            }
            // The left arm stays on the left (+X), the right on the right.
            let pose = &keys[10].pose;
            assert!(
                at(&rig, pose, Bone::LeftHand).x > 0.3 && at(&rig, pose, Bone::RightHand).x < -0.3
            );
            let weight = |k: usize, name: &str| keys[k].pose.expressions.get(name).copied();
            for (k, name, expected) in [
                (0, "aa", 0.0),
                (5, "aa", 0.5),
                (10, "aa", 1.0),
                (10, "blinkRight", 0.5),
            ] {
                let got = weight(k, name).unwrap();
                assert!((got - expected).abs() < 1e-5, "{name} at {k}: {got}");
            }
            let notes = imported.warnings.join("\n");
            assert!(
                notes.contains("謎") && notes.contains("camera track (1 keys)"),
                "{notes}"
            );
        }
    }

    #[test]
    fn the_leg_ik_lifts_the_foot_and_bends_the_knee_forward_and_the_centre_carries_the_hips() {
        let rig = rig_from_bytes(&build(MannequinVariant::Vrm1)).unwrap();
        let bytes = vmd(
            &[
                ("左足ＩＫ", 0, Vec3::ZERO, Quat::IDENTITY),
                ("左足ＩＫ", 30, Vec3::new(0.0, 3.0, -1.0), Quat::IDENTITY),
                ("センター", 0, Vec3::ZERO, Quat::IDENTITY),
                ("センター", 30, Vec3::new(0.0, -1.0, 0.0), Quat::IDENTITY),
            ],
            &[],
        );
        let imported = import_vmd(&bytes, &rig, &every_frame()).unwrap();
        let keys = imported.timeline.keys();
        let (rest, up) = (&keys[0].pose, &keys[30].pose);
        let hips_rest = rig.hips_rest();
        // The standard skeleton's lower body is 12 units up: the rig's hips are that.
        let scale = hips_rest.y / (12.0 * super::super::skeleton::METRES_PER_UNIT);
        let dropped = rest.hips.unwrap().y - up.hips.unwrap().y;
        let expected = 0.08 * scale;
        assert!(
            (dropped - expected).abs() < 0.05 * expected,
            "{dropped} vs {expected}"
        );
        // The right foot stays where it was (IK holds it), the left rises 3 units.
        let rise = |bone| at(&rig, up, bone) - at(&rig, rest, bone);
        let left = rise(Bone::LeftFoot);
        let right = rise(Bone::RightFoot);
        assert!(right.length() < 0.01 * scale, "{right}");
        // The rig's legs are longer for its hips' height than MMD's (the foot's travel
        // follows the leg's turn, not the source's places): within 15%.
        assert!(
            (left.y - 0.24 * scale).abs() < 0.15 * 0.24 * scale,
            "{left} at scale {scale}"
        );
        assert!(left.z > 0.04 * scale, "forward is +Z: {left}");
        // The knee bends forward of the line from hip to ankle.
        let (hip, knee, ankle) = (
            at(&rig, up, Bone::LeftUpperLeg),
            at(&rig, up, Bone::LeftLowerLeg),
            at(&rig, up, Bone::LeftFoot),
        );
        let line = (ankle - hip).normalize();
        let off = (knee - hip) - line * (knee - hip).dot(line);
        assert!(off.z > 0.02, "{off}");
    }

    #[test]
    fn curves_shape_the_span_that_ends_at_their_key() {
        assert!((bezier([20, 20, 107, 107], 0.3) - 0.3).abs() < 1e-6);
        // Ease-in: slow at first.
        assert!(bezier([127, 0, 127, 127], 0.3) < 0.1);
        let y = bezier([0, 127, 0, 127], 0.5);
        assert!(y > 0.5 && y <= 1.0, "{y}");
    }

    #[test]
    fn a_camera_motion_alone_is_refused_in_a_line() {
        let mut bytes = vmd(&[], &[]);
        bytes.truncate(bytes.len() - 65);
        bytes.extend(2u32.to_le_bytes());
        bytes.extend([0u8; 122]);
        let rig = rig_from_bytes(&build(MannequinVariant::Vrm1)).unwrap();
        let error = import_vmd(&bytes, &rig, &every_frame())
            .unwrap_err()
            .to_string();
        assert!(error.contains("camera motion (2 keys)"), "{error}");
    }
}
