//! The 55 VRM 1.0 humanoid bones: names, specification parents, the required set and
//! left/right pairs. Everything else in the core indexes bones through [`Bone`].

use std::fmt;

macro_rules! bones {
    ($($variant:ident = $name:literal, parent $parent:expr, required $req:literal;)*) => {
        /// A VRM 1.0 humanoid bone.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Bone { $($variant,)* }

        /// Every bone, parents before children.
        pub const ALL_BONES: [Bone; BONE_COUNT] = [$(Bone::$variant,)*];

        impl Bone {
            /// The VRM 1.0 name, e.g. `leftUpperArm`.
            pub const fn name(self) -> &'static str {
                match self { $(Bone::$variant => $name,)* }
            }

            /// The parent in the VRM 1.0 specification hierarchy (hips has none). A model
            /// may lack an optional bone; see [`crate::body::rig`] for the nearest present one.
            pub const fn spec_parent(self) -> Option<Bone> {
                match self { $(Bone::$variant => $parent,)* }
            }

            /// Whether VRM 1.0 requires this bone.
            pub const fn is_required(self) -> bool {
                match self { $(Bone::$variant => $req,)* }
            }
        }
    };
}

/// Number of humanoid bones in VRM 1.0.
pub const BONE_COUNT: usize = 55;

use Bone::*;

bones! {
    Hips = "hips", parent None, required true;
    Spine = "spine", parent Some(Hips), required true;
    Chest = "chest", parent Some(Spine), required false;
    UpperChest = "upperChest", parent Some(Chest), required false;
    Neck = "neck", parent Some(UpperChest), required false;
    Head = "head", parent Some(Neck), required true;
    LeftEye = "leftEye", parent Some(Head), required false;
    RightEye = "rightEye", parent Some(Head), required false;
    Jaw = "jaw", parent Some(Head), required false;
    LeftUpperLeg = "leftUpperLeg", parent Some(Hips), required true;
    LeftLowerLeg = "leftLowerLeg", parent Some(LeftUpperLeg), required true;
    LeftFoot = "leftFoot", parent Some(LeftLowerLeg), required true;
    LeftToes = "leftToes", parent Some(LeftFoot), required false;
    RightUpperLeg = "rightUpperLeg", parent Some(Hips), required true;
    RightLowerLeg = "rightLowerLeg", parent Some(RightUpperLeg), required true;
    RightFoot = "rightFoot", parent Some(RightLowerLeg), required true;
    RightToes = "rightToes", parent Some(RightFoot), required false;
    LeftShoulder = "leftShoulder", parent Some(UpperChest), required false;
    LeftUpperArm = "leftUpperArm", parent Some(LeftShoulder), required true;
    LeftLowerArm = "leftLowerArm", parent Some(LeftUpperArm), required true;
    LeftHand = "leftHand", parent Some(LeftLowerArm), required true;
    RightShoulder = "rightShoulder", parent Some(UpperChest), required false;
    RightUpperArm = "rightUpperArm", parent Some(RightShoulder), required true;
    RightLowerArm = "rightLowerArm", parent Some(RightUpperArm), required true;
    RightHand = "rightHand", parent Some(RightLowerArm), required true;
    LeftThumbMetacarpal = "leftThumbMetacarpal", parent Some(LeftHand), required false;
    LeftThumbProximal = "leftThumbProximal", parent Some(LeftThumbMetacarpal), required false;
    LeftThumbDistal = "leftThumbDistal", parent Some(LeftThumbProximal), required false;
    LeftIndexProximal = "leftIndexProximal", parent Some(LeftHand), required false;
    LeftIndexIntermediate = "leftIndexIntermediate", parent Some(LeftIndexProximal), required false;
    LeftIndexDistal = "leftIndexDistal", parent Some(LeftIndexIntermediate), required false;
    LeftMiddleProximal = "leftMiddleProximal", parent Some(LeftHand), required false;
    LeftMiddleIntermediate = "leftMiddleIntermediate", parent Some(LeftMiddleProximal), required false;
    LeftMiddleDistal = "leftMiddleDistal", parent Some(LeftMiddleIntermediate), required false;
    LeftRingProximal = "leftRingProximal", parent Some(LeftHand), required false;
    LeftRingIntermediate = "leftRingIntermediate", parent Some(LeftRingProximal), required false;
    LeftRingDistal = "leftRingDistal", parent Some(LeftRingIntermediate), required false;
    LeftLittleProximal = "leftLittleProximal", parent Some(LeftHand), required false;
    LeftLittleIntermediate = "leftLittleIntermediate", parent Some(LeftLittleProximal), required false;
    LeftLittleDistal = "leftLittleDistal", parent Some(LeftLittleIntermediate), required false;
    RightThumbMetacarpal = "rightThumbMetacarpal", parent Some(RightHand), required false;
    RightThumbProximal = "rightThumbProximal", parent Some(RightThumbMetacarpal), required false;
    RightThumbDistal = "rightThumbDistal", parent Some(RightThumbProximal), required false;
    RightIndexProximal = "rightIndexProximal", parent Some(RightHand), required false;
    RightIndexIntermediate = "rightIndexIntermediate", parent Some(RightIndexProximal), required false;
    RightIndexDistal = "rightIndexDistal", parent Some(RightIndexIntermediate), required false;
    RightMiddleProximal = "rightMiddleProximal", parent Some(RightHand), required false;
    RightMiddleIntermediate = "rightMiddleIntermediate", parent Some(RightMiddleProximal), required false;
    RightMiddleDistal = "rightMiddleDistal", parent Some(RightMiddleIntermediate), required false;
    RightRingProximal = "rightRingProximal", parent Some(RightHand), required false;
    RightRingIntermediate = "rightRingIntermediate", parent Some(RightRingProximal), required false;
    RightRingDistal = "rightRingDistal", parent Some(RightRingIntermediate), required false;
    RightLittleProximal = "rightLittleProximal", parent Some(RightHand), required false;
    RightLittleIntermediate = "rightLittleIntermediate", parent Some(RightLittleProximal), required false;
    RightLittleDistal = "rightLittleDistal", parent Some(RightLittleIntermediate), required false;
}

/// Which side of the body a bone or an action belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    Left,
    Right,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::Left, Side::Right];

    pub fn name(self) -> &'static str {
        match self {
            Side::Left => "left",
            Side::Right => "right",
        }
    }

    /// Index into per-side arrays (left 0, right 1).
    pub const fn index(self) -> usize {
        match self {
            Side::Left => 0,
            Side::Right => 1,
        }
    }

    pub fn other(self) -> Side {
        match self {
            Side::Left => Side::Right,
            Side::Right => Side::Left,
        }
    }
}

/// Finger bones of one hand, thumb first, each finger root to tip.
pub fn finger_bones(side: Side) -> &'static [Bone] {
    match side {
        Side::Left => &ALL_BONES[25..40],
        Side::Right => &ALL_BONES[40..55],
    }
}

impl Bone {
    /// Index into per-bone arrays (`0..BONE_COUNT`).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Looks a bone up by its VRM 1.0 name.
    pub fn from_name(name: &str) -> Option<Bone> {
        ALL_BONES.iter().copied().find(|b| b.name() == name)
    }

    /// Looks a bone up by a VRM 0.x humanoid name: the thumbs were renamed in 1.0
    /// (0.x `thumbProximal` is 1.0 `thumbMetacarpal`, 0.x `thumbIntermediate` is 1.0
    /// `thumbProximal`); every other name is shared.
    pub fn from_vrm0_name(name: &str) -> Option<Bone> {
        match name {
            "leftThumbProximal" => Some(LeftThumbMetacarpal),
            "leftThumbIntermediate" => Some(LeftThumbProximal),
            "rightThumbProximal" => Some(RightThumbMetacarpal),
            "rightThumbIntermediate" => Some(RightThumbProximal),
            "leftThumbMetacarpal" | "rightThumbMetacarpal" => None,
            _ => Bone::from_name(name),
        }
    }

    /// The side this bone is on, if any.
    pub fn side(self) -> Option<Side> {
        let name = self.name();
        if name.starts_with("left") {
            Some(Side::Left)
        } else if name.starts_with("right") {
            Some(Side::Right)
        } else {
            None
        }
    }

    /// The same bone on the other side; centre bones map to themselves.
    pub fn mirror(self) -> Bone {
        let name = self.name();
        let other = if let Some(rest) = name.strip_prefix("left") {
            format!("right{rest}")
        } else if let Some(rest) = name.strip_prefix("right") {
            format!("left{rest}")
        } else {
            return self;
        };
        Bone::from_name(&other).expect("every left bone has a right twin")
    }

    /// Eye bones are driven by look-at, never posed as bones (the VRMA spec forbids
    /// them as human bones in an animation).
    pub fn is_eye(self) -> bool {
        matches!(self, LeftEye | RightEye)
    }

    /// Whether this bone is a finger or thumb bone.
    pub fn is_finger(self) -> bool {
        (LeftThumbMetacarpal.index()..=RightLittleDistal.index()).contains(&self.index())
    }

    /// Whether this bone is a thumb bone.
    pub fn is_thumb(self) -> bool {
        self.name().contains("Thumb")
    }
}

impl fmt::Display for Bone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_55_bones_with_unique_names_and_parents_first() {
        let mut names: Vec<_> = ALL_BONES.iter().map(|b| b.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), BONE_COUNT);
        for (i, bone) in ALL_BONES.iter().enumerate() {
            assert_eq!(bone.index(), i);
            if let Some(parent) = bone.spec_parent() {
                assert!(parent.index() < i, "{bone} listed before its parent");
            }
        }
    }

    #[test]
    fn fifteen_bones_are_required() {
        assert_eq!(ALL_BONES.iter().filter(|b| b.is_required()).count(), 15);
    }

    #[test]
    fn mirror_swaps_sides_and_is_an_involution() {
        for bone in ALL_BONES {
            assert_eq!(bone.mirror().mirror(), bone);
            match bone.side() {
                Some(Side::Left) => assert_eq!(bone.mirror().side(), Some(Side::Right)),
                Some(Side::Right) => assert_eq!(bone.mirror().side(), Some(Side::Left)),
                None => assert_eq!(bone.mirror(), bone),
            }
        }
    }

    #[test]
    fn vrm0_thumb_names_map_to_vrm1() {
        assert_eq!(
            Bone::from_vrm0_name("leftThumbProximal"),
            Some(LeftThumbMetacarpal)
        );
        assert_eq!(
            Bone::from_vrm0_name("leftThumbIntermediate"),
            Some(LeftThumbProximal)
        );
        assert_eq!(
            Bone::from_vrm0_name("leftThumbDistal"),
            Some(LeftThumbDistal)
        );
        assert_eq!(
            Bone::from_vrm0_name("rightThumbProximal"),
            Some(RightThumbMetacarpal)
        );
        assert_eq!(Bone::from_vrm0_name("hips"), Some(Hips));
    }

    #[test]
    fn finger_ranges_hold_fifteen_bones_per_side() {
        for side in Side::BOTH {
            let fingers = finger_bones(side);
            assert_eq!(fingers.len(), 15);
            assert!(
                fingers
                    .iter()
                    .all(|b| b.is_finger() && b.side() == Some(side))
            );
        }
    }
}
