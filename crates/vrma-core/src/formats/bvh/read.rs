//! Reads a BVH file into its skeleton and frames, refusing what is malformed or
//! unbounded before allocating for it: at most `MAX_JOINTS` joints nested at most
//! `MAX_DEPTH` deep, six channels a joint, `MAX_VALUES` numbers of motion (a claimed
//! frame count is checked against the numbers actually present), finite values only.
//! Names are taken as written (Mixamo's `mixamorig:Hips`, CMU's `LeftUpLeg`, …); mapping
//! them onto the humanoid is the importer's.

use glam::Vec3;

use crate::Refusal;

/// Joints in one skeleton: far above any capture rig (CMU 31, mocopi 27, Rokoko with
/// fingers 59), low enough that a hostile file cannot make every frame unbounded.
pub const MAX_JOINTS: usize = 1024;
/// Levels of nesting (a hand's fingers sit about 10 deep).
pub const MAX_DEPTH: usize = 256;
/// Numbers of motion in one file: 64 M floats (256 MB), some 1,500 minutes of a
/// 60-channel capture at 30 fps.
pub const MAX_VALUES: usize = 64 << 20;
/// The most bytes read (a long text capture is tens of megabytes).
pub const MAX_BYTES: usize = 1 << 30;

/// One channel of a joint, in the order the file lists them (the order of rotations is
/// the order their Euler angles apply in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    XPosition,
    YPosition,
    ZPosition,
    XRotation,
    YRotation,
    ZRotation,
}

impl Channel {
    fn from_name(name: &str) -> Option<Channel> {
        Some(match name.to_ascii_lowercase().as_str() {
            "xposition" => Channel::XPosition,
            "yposition" => Channel::YPosition,
            "zposition" => Channel::ZPosition,
            "xrotation" => Channel::XRotation,
            "yrotation" => Channel::YRotation,
            "zrotation" => Channel::ZRotation,
            _ => return None,
        })
    }
}

/// A joint: its offset from its parent at rest (in the file's units and axes), its
/// channels, and where they start in each frame's values.
#[derive(Clone, Debug, PartialEq)]
pub struct Joint {
    pub name: String,
    pub parent: Option<usize>,
    pub offset: Vec3,
    pub channels: Vec<Channel>,
    pub first_value: usize,
    /// The `End Site` offset, where the file gives one (the tip of a chain).
    pub end: Option<Vec3>,
}

/// A BVH file: joints (parents before children) and `frames` rows of
/// `values_per_frame` numbers each.
#[derive(Clone, Debug, PartialEq)]
pub struct Bvh {
    pub joints: Vec<Joint>,
    pub frame_time: f32,
    pub frames: usize,
    pub values_per_frame: usize,
    pub values: Vec<f32>,
}

impl Bvh {
    /// One frame's values (all joints' channels in file order).
    pub fn frame(&self, index: usize) -> &[f32] {
        let start = index * self.values_per_frame;
        &self.values[start..start + self.values_per_frame]
    }
}

/// Words of the file with their line numbers, for messages that say where.
struct Words<'a> {
    lines: std::iter::Peekable<std::iter::Enumerate<std::str::Lines<'a>>>,
    pending: std::collections::VecDeque<&'a str>,
    line: usize,
}

impl<'a> Words<'a> {
    fn new(text: &'a str) -> Words<'a> {
        Words {
            lines: text.lines().enumerate().peekable(),
            pending: Default::default(),
            line: 0,
        }
    }

    fn next(&mut self) -> Option<&'a str> {
        loop {
            if let Some(word) = self.pending.pop_front() {
                return Some(word);
            }
            let (number, line) = self.lines.next()?;
            self.line = number + 1;
            self.pending.extend(line.split_whitespace());
        }
    }

    /// The rest of the current line, trimmed (a joint's name may hold spaces).
    fn rest_of_line(&mut self) -> String {
        let words: Vec<&str> = self.pending.drain(..).collect();
        words.join(" ")
    }

    fn refuse(&self, what: impl std::fmt::Display) -> Refusal {
        Refusal::new(format!("BVH line {}: {what}", self.line))
    }

    fn expect(&mut self, wanted: &str) -> Result<(), Refusal> {
        match self.next() {
            Some(word) if word.eq_ignore_ascii_case(wanted) => Ok(()),
            Some(word) => Err(self.refuse(format!("expected `{wanted}`, found `{word}`"))),
            None => Err(self.refuse(format!("the file ends where `{wanted}` should be"))),
        }
    }

    fn number(&mut self, what: &str) -> Result<f32, Refusal> {
        let word = self
            .next()
            .ok_or_else(|| self.refuse(format!("the file ends where {what} should be")))?;
        match word.parse::<f32>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => Err(self.refuse(format!("{what} is `{word}`, not a finite number"))),
        }
    }

    fn vec3(&mut self, what: &str) -> Result<Vec3, Refusal> {
        Ok(Vec3::new(
            self.number(what)?,
            self.number(what)?,
            self.number(what)?,
        ))
    }
}

/// Parses a BVH file's bytes (UTF-8 or ASCII text).
pub fn parse(bytes: &[u8]) -> Result<Bvh, Refusal> {
    if bytes.len() > MAX_BYTES {
        return Err(Refusal::new(format!(
            "the BVH file is {} MB; at most {} MB are read",
            bytes.len() >> 20,
            MAX_BYTES >> 20
        )));
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|e| Refusal::new(format!("the BVH file is not text: {e}")))?;
    let mut words = Words::new(text.strip_prefix('\u{feff}').unwrap_or(text));
    words.expect("HIERARCHY")?;
    let mut joints: Vec<Joint> = Vec::new();
    let mut values_per_frame = 0usize;
    // Open joints (their index), innermost last; `None` marks an End Site.
    let mut open: Vec<Option<usize>> = Vec::new();
    loop {
        let word = words
            .next()
            .ok_or_else(|| words.refuse("the file ends inside its hierarchy"))?;
        match word.to_ascii_uppercase().as_str() {
            "ROOT" | "JOINT" => {
                let is_root = word.eq_ignore_ascii_case("ROOT");
                if is_root != open.is_empty() {
                    return Err(words.refuse(if is_root {
                        "a ROOT inside another joint"
                    } else {
                        "a JOINT outside any ROOT"
                    }));
                }
                if matches!(open.last(), Some(None)) {
                    return Err(words.refuse("a joint inside an End Site"));
                }
                if joints.len() == MAX_JOINTS {
                    return Err(words.refuse(format!("more than {MAX_JOINTS} joints")));
                }
                if open.len() == MAX_DEPTH {
                    return Err(words.refuse(format!("joints nested over {MAX_DEPTH} deep")));
                }
                let name = words.rest_of_line();
                if name.is_empty() {
                    return Err(words.refuse("a joint without a name"));
                }
                words.expect("{")?;
                words.expect("OFFSET")?;
                let offset = words.vec3("an OFFSET value")?;
                words.expect("CHANNELS")?;
                let count = words.number("the channel count")?;
                if !(0.0..=6.0).contains(&count) || count.fract() != 0.0 {
                    return Err(words.refuse(format!("{count} channels (at most 6)")));
                }
                let mut channels = Vec::with_capacity(count as usize);
                for _ in 0..count as usize {
                    let name = words
                        .next()
                        .ok_or_else(|| words.refuse("the file ends in a CHANNELS list"))?;
                    let channel = Channel::from_name(name)
                        .ok_or_else(|| words.refuse(format!("unknown channel `{name}`")))?;
                    if channels.contains(&channel) {
                        return Err(words.refuse(format!("channel `{name}` given twice")));
                    }
                    channels.push(channel);
                }
                joints.push(Joint {
                    name,
                    parent: open.last().copied().flatten(),
                    offset,
                    first_value: values_per_frame,
                    channels,
                    end: None,
                });
                values_per_frame += count as usize;
                open.push(Some(joints.len() - 1));
            }
            "END" => {
                let Some(Some(parent)) = open.last().copied() else {
                    return Err(words.refuse("an End Site outside a joint"));
                };
                words.expect("Site")?;
                words.expect("{")?;
                words.expect("OFFSET")?;
                joints[parent].end = Some(words.vec3("an End Site OFFSET value")?);
                open.push(None);
            }
            "}" => {
                if open.pop().is_none() {
                    return Err(words.refuse("a `}` that closes nothing"));
                }
            }
            "MOTION" if open.is_empty() && !joints.is_empty() => break,
            "MOTION" => return Err(words.refuse("MOTION before the hierarchy is closed")),
            other => return Err(words.refuse(format!("unexpected `{other}` in the hierarchy"))),
        }
    }
    words.expect("Frames:")?;
    let frames = words.number("the frame count")?;
    if frames < 0.0 || frames.fract() != 0.0 {
        return Err(words.refuse(format!("{frames} frames")));
    }
    words.expect("Frame")?;
    words.expect("Time:")?;
    let frame_time = words.number("the frame time")?;
    if !(frame_time > 0.0 && frame_time <= 10.0) {
        return Err(words.refuse(format!("a frame time of {frame_time} s")));
    }
    let wanted = (frames as f64) * values_per_frame as f64;
    if wanted > MAX_VALUES as f64 {
        return Err(words.refuse(format!(
            "{frames} frames of {values_per_frame} values is more than the {MAX_VALUES} read"
        )));
    }
    let frames = frames as usize;
    let wanted = wanted as usize;
    // Allocate by what the file can hold (a number takes two bytes at least), not by
    // what it claims.
    let mut values = Vec::with_capacity(wanted.min(bytes.len() / 2 + 1));
    for _ in 0..wanted {
        values.push(words.number("a motion value")?);
    }
    if let Some(extra) = words.next() {
        return Err(words.refuse(format!(
            "`{extra}` after the {frames} frames the file announces"
        )));
    }
    Ok(Bvh {
        joints,
        frame_time,
        frames,
        values_per_frame,
        values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "HIERARCHY
ROOT Hips
{
  OFFSET 0.0 90.0 0.0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Left Up Leg
  {
    OFFSET 9 0 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 -40 0
    }
  }
  JOINT Spine
  {
    OFFSET 0 10 0
    CHANNELS 3 Zrotation Xrotation Yrotation
  }
}
MOTION
Frames: 2
Frame Time: 0.0333333
0 90 0 0 0 0 10 0 0 0 0 5
1 91 0 0 90 0 20 0 0 -1e-3 0 5.5
";

    #[test]
    fn a_small_file_reads_its_joints_channels_and_frames() {
        let bvh = parse(SMALL.as_bytes()).unwrap();
        let names: Vec<&str> = bvh.joints.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ["Hips", "Left Up Leg", "Spine"]);
        assert_eq!(
            bvh.joints.iter().map(|j| j.parent).collect::<Vec<_>>(),
            [None, Some(0), Some(0)]
        );
        assert_eq!(bvh.joints[1].end, Some(Vec3::new(0.0, -40.0, 0.0)));
        assert_eq!(bvh.joints[0].channels[3], Channel::ZRotation);
        assert_eq!(
            bvh.joints.iter().map(|j| j.first_value).collect::<Vec<_>>(),
            [0, 6, 9]
        );
        assert_eq!((bvh.frames, bvh.values_per_frame), (2, 12));
        assert_eq!(bvh.frame(1)[4], 90.0);
        assert_eq!(bvh.frame(1)[11], 5.5);
        assert!((bvh.frame_time - 1.0 / 30.0).abs() < 1e-6);
    }

    #[test]
    fn malformed_and_hostile_files_are_refused_in_one_line() {
        let cases: Vec<(String, &str)> = vec![
            (SMALL.replace("HIERARCHY", "HIERARCHX"), "HIERARCHY"),
            (SMALL.replace("Frames: 2", "Frames: 3"), "ends"),
            (
                SMALL.replace("Frames: 2", "Frames: 1000000000"),
                "more than",
            ),
            (SMALL.replace("5.5", "NaN"), "finite"),
            (SMALL.replace("0.0333333", "0"), "frame time"),
            (
                SMALL.replace(
                    "CHANNELS 3 Zrotation Xrotation Yrotation\n  }",
                    "CHANNELS 9 Zrotation\n  }",
                ),
                "channels",
            ),
            (
                SMALL.replace("Xposition Yposition", "Xposition Xposition"),
                "twice",
            ),
            (
                SMALL.replace(
                    "Zrotation Xrotation Yrotation\n    End",
                    "Wrotation Xrotation Yrotation\n    End",
                ),
                "unknown channel",
            ),
            (SMALL.replace("MOTION", "}\nMOTION"), "closes nothing"),
            (SMALL.replace("5.5\n", "5.5 7\n"), "after the 2 frames"),
            (
                SMALL[..SMALL.find("MOTION").unwrap()].to_string(),
                "ends inside",
            ),
        ];
        for (text, wanted) in cases {
            let refused = parse(text.as_bytes()).unwrap_err().to_string();
            assert!(refused.contains(wanted), "{refused} (wanted {wanted:?})");
            assert!(!refused.contains('\n'), "one line: {refused}");
        }
        let deep: String = "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 0\n".to_string()
            + &"JOINT b\n{\nOFFSET 0 0 0\nCHANNELS 0\n".repeat(MAX_DEPTH + 5);
        assert!(
            parse(deep.as_bytes())
                .unwrap_err()
                .to_string()
                .contains("deep")
        );
        let mut many = "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 0\n".to_string();
        many += &"JOINT b\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\n".repeat(MAX_JOINTS + 5);
        assert!(
            parse(many.as_bytes())
                .unwrap_err()
                .to_string()
                .contains("joints")
        );
        assert!(parse(&[0xff, 0xfe, 0x00]).is_err());
    }
}
