//! Which source joint drives which humanoid bone: detected from the names in use
//! (VRM, Mixamo with or without `mixamorig:`, CMU, mocopi, Rokoko, Blender's `thigh.L`,
//! VRoid's `J_Bip_L_UpperArm`, 3ds Max's `Bip01 L Thigh`) and from the skeleton's shape
//! (the hips are where the legs meet; the spine is the chain from there to the neck),
//! then overridden by a user's mapping file (`--map`).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::SourceJoint;
use crate::Refusal;
use crate::body::rig::Rig;
use crate::formats::imported::MappingReport;
use crate::model::humanoid::{ALL_BONES, Bone, Side};

/// A user's mapping: VRM bone name → source joint name, or `null` to leave a bone out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UserMap {
    pub bones: BTreeMap<Bone, Option<String>>,
}

impl UserMap {
    /// Reads `{"leftUpperArm": "L_Arm", "jaw": null, …}`.
    pub fn from_json(value: &Value) -> Result<UserMap, Refusal> {
        let object = value
            .as_object()
            .ok_or_else(|| Refusal::new("a bone mapping is a JSON object of bone → joint"))?;
        let mut bones = BTreeMap::new();
        for (name, joint) in object {
            let bone = Bone::from_name(name).ok_or_else(|| {
                Refusal::new(format!(
                    "the mapping names '{name}', which is not a VRM bone"
                ))
            })?;
            let joint = match joint {
                Value::Null => None,
                Value::String(s) => Some(s.clone()),
                other => {
                    return Err(Refusal::new(format!(
                        "the mapping for {name} is {other}, not a joint name or null"
                    )));
                }
            };
            bones.insert(bone, joint);
        }
        Ok(UserMap { bones })
    }

    pub fn read(path: &Path) -> Result<UserMap, Refusal> {
        let value = crate::read_json(path)?;
        UserMap::from_json(&value).map_err(|e| e.context(path.display()))
    }
}

/// Humanoid bone → source joint index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mapping {
    pub bones: BTreeMap<Bone, usize>,
}

/// One joint name taken apart: its side, and the rest squeezed to lower-case letters and
/// digits ("mixamorig:LeftUpLeg" → Left, "upleg"; "thigh.L" → Left, "thigh").
fn split_name(name: &str) -> (Option<Side>, String) {
    let mut short = name.rsplit([':', '|']).next().unwrap_or(name).trim();
    for prefix in [
        "mixamorig_",
        "mixamorig",
        "DEF-",
        "ORG-",
        "J_Bip_",
        "J_Adj_",
    ] {
        // `get`, not an index: a name may have any character where the prefix would end.
        if short.len() > prefix.len()
            && short
                .get(..prefix.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
        {
            short = &short[prefix.len()..];
        }
    }
    for prefix in ["Bip01 ", "Bip001 ", "Bip01_", "Bip001_"] {
        // `get`, not an index: a name may have any character where the prefix would end.
        if short.len() > prefix.len()
            && short
                .get(..prefix.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
        {
            short = &short[prefix.len()..];
        }
    }
    let lower = short.to_ascii_lowercase();
    let bytes = short.as_bytes();
    let mut side = None;
    let mut body: &str = &lower;
    for (word, s) in [("left", Side::Left), ("right", Side::Right)] {
        if let Some(rest) = body.strip_prefix(word) {
            side = Some(s);
            body = rest;
        }
    }
    if side.is_none() {
        for (letter, s) in [('l', Side::Left), ('r', Side::Right)] {
            let separated = lower.len() > 2
                && lower.starts_with(letter)
                && matches!(bytes[1], b'_' | b'.' | b' ' | b'-');
            // CMU's "LHipJoint", "RThumb": a capital side letter before a capital word.
            let capital = bytes.len() > 2
                && bytes[0].eq_ignore_ascii_case(&(letter as u8))
                && bytes[0].is_ascii_uppercase()
                && bytes[1].is_ascii_uppercase()
                && bytes[2].is_ascii_lowercase();
            if separated {
                side = Some(s);
                body = &lower[2..];
            } else if capital {
                side = Some(s);
                body = &lower[1..];
            }
        }
    }
    if side.is_none() {
        for (suffixes, s) in [
            (&[".l", "_l", " l", "-l", ".left", "_left"], Side::Left),
            (&[".r", "_r", " r", "-r", ".right", "_right"], Side::Right),
        ] {
            if let Some(rest) = suffixes.iter().find_map(|x| body.strip_suffix(x)) {
                side = Some(s);
                body = rest;
                break;
            }
        }
    }
    // VRoid's centre bones ("J_Bip_C_Hips"); separators go ("thigh.L.001" → "thigh001").
    if side.is_none() {
        body = body.strip_prefix("c_").unwrap_or(body);
    }
    // Only separators go: any other character stays, so "LeftHandé" is no hand.
    let squeezed = body
        .chars()
        .filter(|c| !matches!(c, '_' | '.' | ' ' | '-'))
        .collect();
    (side, squeezed)
}

/// The limb bones named by a squeezed base name (no side).
fn limb_bone(side: Side, base: &str) -> Option<Bone> {
    let name = match base {
        // Biovision's and MotionBuilder's "LeftHip" is the thigh joint.
        "upleg" | "upperleg" | "thigh" | "uplegroll" | "femur" | "hip" => "UpperLeg",
        "leg" | "lowerleg" | "lowleg" | "shin" | "calf" | "knee" | "tibia" => "LowerLeg",
        "foot" | "ankle" => "Foot",
        "toebase" | "toe" | "toes" | "ball" | "toe0" => "Toes",
        "shoulder" | "clavicle" | "collar" => "Shoulder",
        "arm" | "upperarm" | "uparm" | "humerus" => "UpperArm",
        "forearm" | "lowerarm" | "lowarm" | "elbow" => "LowerArm",
        "hand" | "wrist" => "Hand",
        "eye" => "Eye",
        _ => return finger_bone(side, base),
    };
    Bone::from_name(&format!("{}{name}", side.name()))
}

/// Finger joints: "handindex1", "index2", "findex01", "thumbproximal", "pinky3", …
fn finger_bone(side: Side, base: &str) -> Option<Bone> {
    let base = base.strip_prefix("hand").unwrap_or(base);
    // Blender's "f_index.01": the "f" goes before a finger's name.
    let base = match base.strip_prefix('f') {
        Some(rest)
            if ["index", "middle", "ring", "pinky"]
                .iter()
                .any(|f| rest.starts_with(f)) =>
        {
            rest
        }
        _ => base,
    };
    let fingers = [
        ("thumb", "Thumb"),
        ("index", "Index"),
        ("middle", "Middle"),
        ("ring", "Ring"),
        ("pinky", "Little"),
        ("little", "Little"),
    ];
    let (finger, rest) = fingers
        .iter()
        .find_map(|(word, finger)| base.strip_prefix(word).map(|rest| (*finger, rest)))?;
    let rest = rest.trim_start_matches("finger");
    let joint = match (finger, rest.trim_start_matches('0')) {
        (_, "metacarpal") => "Metacarpal",
        (_, "proximal") => "Proximal",
        (_, "intermediate") => "Intermediate",
        (_, "distal") => "Distal",
        ("Thumb", "1") => "Metacarpal",
        ("Thumb", "2") => "Proximal",
        ("Thumb", "3") => "Distal",
        (_, "1") => "Proximal",
        (_, "2") => "Intermediate",
        (_, "3") => "Distal",
        _ => return None,
    };
    Bone::from_name(&format!("{}{finger}{joint}", side.name()))
}

/// A joint name → bone by its name alone (no spine: that is read from the shape).
pub fn bone_from_name(name: &str) -> Option<Bone> {
    let (side, base) = split_name(name);
    match side {
        Some(side) => limb_bone(side, &base),
        None => match base.as_str() {
            "hips" | "hip" | "pelvis" => Some(Bone::Hips),
            // Mixamo's torso (other skeletons' torsos are read from their shape).
            "spine1" => Some(Bone::Chest),
            "spine2" => Some(Bone::UpperChest),
            "neck" | "neck1" | "neck01" => Some(Bone::Neck),
            "head" => Some(Bone::Head),
            "jaw" => Some(Bone::Jaw),
            _ => ALL_BONES
                .into_iter()
                .find(|b| b.side().is_none() && b.name().eq_ignore_ascii_case(&base)),
        },
    }
}

impl Mapping {
    /// Detects the mapping, then applies the user's.
    pub fn detect(joints: &[SourceJoint], user: Option<&UserMap>) -> Result<Mapping, Refusal> {
        let mut bones: BTreeMap<Bone, usize> = BTreeMap::new();
        // Where a side has a collar (MocapBank's and MotionBuilder's "LeftCollar"), its
        // "LeftShoulder" is the upper arm, as its "LeftElbow" is the forearm.
        let collar = |side: Side| {
            joints.iter().any(|j| {
                let (s, base) = split_name(&j.name);
                s == Some(side) && matches!(base.as_str(), "collar" | "clavicle")
            })
        };
        let collars = [collar(Side::Left), collar(Side::Right)];
        for (i, joint) in joints.iter().enumerate() {
            let bone = match split_name(&joint.name) {
                (Some(side), base) if base == "shoulder" && collars[side as usize] => {
                    Bone::from_name(&format!("{}UpperArm", side.name()))
                }
                _ => bone_from_name(&joint.name),
            };
            if let Some(bone) = bone {
                bones.entry(bone).or_insert(i);
            }
        }
        let ancestors = |mut j: usize| {
            let mut chain = vec![j];
            while let Some(p) = joints[j].parent {
                chain.push(p);
                j = p;
            }
            chain
        };
        // The hips are where the legs meet (mocopi calls them "root", CMU puts a short
        // "LHipJoint" between): the nearest common ancestor of the two upper legs.
        if let (Some(&l), Some(&r)) = (
            bones.get(&Bone::LeftUpperLeg),
            bones.get(&Bone::RightUpperLeg),
        ) {
            let left = ancestors(l);
            if let Some(&common) = ancestors(r).iter().skip(1).find(|a| left.contains(a)) {
                bones.insert(Bone::Hips, common);
            }
        }
        // The spine: the chain from the hips up to the neck (or head), however many
        // joints it has, shared as spine, chest and upper chest.
        if let Some(&hips) = bones.get(&Bone::Hips) {
            let top = bones.get(&Bone::Neck).or(bones.get(&Bone::Head)).copied();
            if let Some(top) = top {
                let path = ancestors(top);
                if let Some(at) = path.iter().position(|&j| j == hips) {
                    let mut chain: Vec<usize> = path[1..at].to_vec();
                    chain.reverse();
                    // A named neck above an unnamed "Neck1" stays; the chain is the torso.
                    for bone in [Bone::Spine, Bone::Chest, Bone::UpperChest] {
                        bones.remove(&bone);
                    }
                    let n = chain.len();
                    if n >= 1 {
                        bones.insert(Bone::Spine, chain[0]);
                    }
                    if n >= 2 {
                        bones.insert(Bone::Chest, chain[if n == 2 { 1 } else { (n - 1) / 2 }]);
                    }
                    if n >= 3 {
                        bones.insert(Bone::UpperChest, chain[n - 1]);
                    }
                }
            }
        }
        if let Some(user) = user {
            for (bone, joint) in &user.bones {
                match joint {
                    None => {
                        bones.remove(bone);
                    }
                    Some(name) => {
                        let index = joints.iter().position(|j| &j.name == name).ok_or_else(|| {
                            Refusal::new(format!(
                                "the mapping gives {} the joint '{name}', which the source does not have",
                                bone.name()
                            ))
                        })?;
                        bones.insert(*bone, index);
                    }
                }
            }
        }
        if !bones.contains_key(&Bone::Hips) {
            let names: Vec<&str> = joints.iter().take(8).map(|j| j.name.as_str()).collect();
            return Err(Refusal::new(format!(
                "no hips found among the joints ({}{}): give a mapping file (--map) that names them",
                names.join(", "),
                if joints.len() > 8 { ", …" } else { "" }
            )));
        }
        // Eyes are driven by the gaze, not by imported joints.
        bones.retain(|b, _| !b.is_eye());
        Ok(Mapping { bones })
    }

    pub fn report(&self, joints: &[SourceJoint], rig: &Rig) -> MappingReport {
        let mapped = self
            .bones
            .iter()
            .map(|(b, &j)| (b.name().to_owned(), joints[j].name.clone()))
            .collect();
        let unused = joints
            .iter()
            .enumerate()
            .filter(|(i, _)| !self.bones.values().any(|j| j == i))
            .map(|(_, j)| j.name.clone())
            .collect();
        let missing = rig
            .order()
            .iter()
            .filter(|b| !b.is_eye() && !self.bones.contains_key(b))
            .map(|b| b.name().to_owned())
            .collect();
        MappingReport {
            mapped,
            unused,
            missing,
            joints: joints.iter().map(|j| j.name.clone()).collect(),
            clips: Vec::new(),
            source_seconds: 0.0,
            source_fps: 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_use_map_to_their_bones() {
        let cases = [
            ("mixamorig:LeftUpLeg", Bone::LeftUpperLeg),
            ("mixamorig:RightForeArm", Bone::RightLowerArm),
            ("LeftArm", Bone::LeftUpperArm),
            ("LeftLeg", Bone::LeftLowerLeg),
            ("mixamorig:LeftHandThumb1", Bone::LeftThumbMetacarpal),
            ("mixamorig:RightHandPinky2", Bone::RightLittleIntermediate),
            ("LeftHandIndex1", Bone::LeftIndexProximal),
            ("l_up_arm", Bone::LeftUpperArm),
            ("r_low_leg", Bone::RightLowerLeg),
            ("l_toes", Bone::LeftToes),
            ("thigh.L", Bone::LeftUpperLeg),
            ("upper_arm.R", Bone::RightUpperArm),
            ("f_index.01.L", Bone::LeftIndexProximal),
            ("thumb.01.R", Bone::RightThumbMetacarpal),
            ("J_Bip_L_UpperArm", Bone::LeftUpperArm),
            ("J_Bip_C_Head", Bone::Head),
            ("Bip01 L Thigh", Bone::LeftUpperLeg),
            ("leftThumbProximal", Bone::LeftThumbProximal),
            ("Left Middle Distal", Bone::LeftMiddleDistal),
            ("RightShoulder", Bone::RightShoulder),
            ("Hips", Bone::Hips),
            ("DEF-forearm.L", Bone::LeftLowerArm),
        ];
        for (name, bone) in cases {
            assert_eq!(bone_from_name(name), Some(bone), "{name}");
        }
        for name in [
            "LowerBack",
            "LHipJoint",
            "torso_3",
            "root",
            "LeftHandThumb4",
        ] {
            assert_eq!(bone_from_name(name), None, "{name}");
        }
    }

    fn joint(name: &str, parent: Option<usize>) -> SourceJoint {
        SourceJoint {
            name: name.into(),
            parent,
            rest_translation: glam::Vec3::Y,
            rest_rotation: glam::Quat::IDENTITY,
            tip: None,
        }
    }

    #[test]
    fn hips_and_spine_come_from_the_shape() {
        // mocopi: "root" is the pelvis, seven torso joints, two neck joints.
        let mut joints = vec![joint("root", None)];
        for i in 1..=7 {
            joints.push(joint(&format!("torso_{i}"), Some(i - 1)));
        }
        joints.push(joint("neck_1", Some(7)));
        joints.push(joint("neck_2", Some(8)));
        joints.push(joint("head", Some(9)));
        joints.push(joint("l_up_leg", Some(0)));
        joints.push(joint("r_up_leg", Some(0)));
        let mapping = Mapping::detect(&joints, None).unwrap();
        assert_eq!(mapping.bones[&Bone::Hips], 0);
        assert_eq!(mapping.bones[&Bone::Spine], 1);
        assert_eq!(mapping.bones[&Bone::Chest], 4);
        assert_eq!(mapping.bones[&Bone::UpperChest], 7);
        assert_eq!(mapping.bones[&Bone::Head], 10);
    }

    #[test]
    fn beside_a_collar_the_shoulder_is_the_upper_arm_and_a_sided_hip_is_the_thigh() {
        // MocapBank's (and MotionBuilder's) names.
        let names = [
            ("Hips", None),
            ("Chest", Some(0)),
            ("Chest2", Some(1)),
            ("LeftCollar", Some(2)),
            ("LeftShoulder", Some(3)),
            ("LeftElbow", Some(4)),
            ("LeftWrist", Some(5)),
            ("Neck", Some(2)),
            ("Head", Some(7)),
            ("LeftHip", Some(0)),
            ("LeftKnee", Some(9)),
            ("RightHip", Some(0)),
        ];
        let joints: Vec<SourceJoint> = names.iter().map(|(n, p)| joint(n, *p)).collect();
        let mapping = Mapping::detect(&joints, None).unwrap();
        let bone = |b: Bone| mapping.bones.get(&b).map(|&j| joints[j].name.as_str());
        assert_eq!(bone(Bone::LeftShoulder), Some("LeftCollar"));
        assert_eq!(bone(Bone::LeftUpperArm), Some("LeftShoulder"));
        assert_eq!(bone(Bone::LeftLowerArm), Some("LeftElbow"));
        assert_eq!(bone(Bone::LeftUpperLeg), Some("LeftHip"));
        assert_eq!(bone(Bone::Hips), Some("Hips"));
        assert_eq!(bone(Bone::Spine), Some("Chest"));
        // Without a collar, Mixamo's "LeftShoulder" stays the shoulder.
        assert_eq!(
            bone_from_name("mixamorig:LeftShoulder"),
            Some(Bone::LeftShoulder)
        );
    }

    #[test]
    fn a_user_map_overrides_and_refuses_unknown_names() {
        let joints = vec![joint("Pelvis", None), joint("Brow", Some(0))];
        let user = UserMap::from_json(&serde_json::json!({"head": "Brow"})).unwrap();
        let mapping = Mapping::detect(&joints, Some(&user)).unwrap();
        assert_eq!(mapping.bones[&Bone::Head], 1);
        let bad = UserMap::from_json(&serde_json::json!({"head": "Nope"})).unwrap();
        assert!(Mapping::detect(&joints, Some(&bad)).is_err());
        assert!(UserMap::from_json(&serde_json::json!({"tail": "Brow"})).is_err());
        assert!(Mapping::detect(&[joint("Thing", None)], None).is_err());
    }
}
