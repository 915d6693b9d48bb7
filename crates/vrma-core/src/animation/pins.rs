//! Pins: which hands, feet and the head are held where they are while the rest of the
//! body moves ("Pin feet" is the two foot pins). Saved with the project; what holding
//! them does is the editor's (`edit::pins`).

use serde_json::{Value, json};

use crate::Refusal;
use crate::model::humanoid::Bone;

/// The ends that can be pinned, in the order of [`Pins`]' bits.
pub const PIN_ENDS: [Bone; 5] = [
    Bone::LeftHand,
    Bone::RightHand,
    Bone::LeftFoot,
    Bone::RightFoot,
    Bone::Head,
];

/// Which ends are pinned; by default both feet ("Pin feet" on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pins(u8);

impl Default for Pins {
    fn default() -> Pins {
        Pins::FEET
    }
}

impl Pins {
    pub const NONE: Pins = Pins(0);
    /// Both feet: "Pin feet", on by default.
    pub const FEET: Pins = Pins(0b0_1100);

    fn bit(end: Bone) -> Option<u8> {
        PIN_ENDS.iter().position(|&e| e == end).map(|i| 1 << i)
    }

    /// The one end `end`, or a refusal naming the ends that can be pinned.
    pub fn of(end: Bone) -> Result<Pins, Refusal> {
        Pins::bit(end).map(Pins).ok_or_else(|| {
            Refusal::new(format!(
                "'{end}' cannot be pinned (hands, feet and the head can)"
            ))
        })
    }

    pub fn contains(self, end: Bone) -> bool {
        Pins::bit(end).is_some_and(|b| self.0 & b != 0)
    }

    /// Whether every end of `other` is pinned.
    pub fn covers(self, other: Pins) -> bool {
        self.0 & other.0 == other.0
    }

    /// These pins with `ends` pinned (`on`) or let go.
    pub fn with(self, ends: Pins, on: bool) -> Pins {
        if on {
            Pins(self.0 | ends.0)
        } else {
            Pins(self.0 & !ends.0)
        }
    }

    pub fn ends(self) -> impl Iterator<Item = Bone> {
        PIN_ENDS.into_iter().filter(move |&e| self.contains(e))
    }

    /// `["leftHand", "leftFoot", …]`.
    pub fn to_json(self) -> Value {
        json!(self.ends().map(|e| e.name()).collect::<Vec<_>>())
    }

    pub fn from_json(value: &Value) -> Result<Pins, Refusal> {
        let names = value
            .as_array()
            .ok_or_else(|| Refusal::new("pins: expected an array of end names"))?;
        names.iter().try_fold(Pins::NONE, |pins, name| {
            let name = name
                .as_str()
                .ok_or_else(|| Refusal::new("pins: expected end names"))?;
            let end = Bone::from_name(name)
                .ok_or_else(|| Refusal::new(format!("pins: unknown bone '{name}'")))?;
            Ok(pins.with(Pins::of(end)?, true))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_read_back_from_their_json_and_unknown_ends_are_refused() {
        let pins = Pins::FEET.with(Pins::of(Bone::LeftHand).unwrap(), true);
        assert_eq!(Pins::from_json(&pins.to_json()).unwrap(), pins);
        assert_eq!(pins.to_json(), json!(["leftHand", "leftFoot", "rightFoot"]));
        assert!(Pins::of(Bone::Spine).is_err());
        assert!(Pins::from_json(&json!(["spine"])).is_err());
        assert!(Pins::from_json(&json!("leftHand")).is_err());
        assert!(pins.covers(Pins::FEET));
        assert!(
            !pins
                .with(Pins::of(Bone::LeftFoot).unwrap(), false)
                .covers(Pins::FEET)
        );
    }
}
