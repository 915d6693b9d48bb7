//! Reads a VMD file (MikuMikuDance motion) by its published layout: a 30-byte signature,
//! the model's name (Shift-JIS, 20 bytes; 10 in the old "file" version), then counted
//! sections of fixed-size records — bone keys (111 bytes), morph keys (23), camera keys
//! (61), light keys (28), self-shadow keys (9) and IK switches. Sections after the bone
//! keys may be missing (older writers stop early). Every count is checked against the
//! bytes actually left before anything is allocated for it, and every number must be
//! finite.

use encoding_rs::SHIFT_JIS;
use glam::{Quat, Vec3};

use crate::Refusal;

/// The most bytes read: a long dance with lip-sync is a few megabytes.
pub const MAX_BYTES: usize = 256 << 20;

const SIGNATURE_V2: &[u8] = b"Vocaloid Motion Data 0002";
const SIGNATURE_V1: &[u8] = b"Vocaloid Motion Data file";
const BONE_KEY_BYTES: usize = 111;
const MORPH_KEY_BYTES: usize = 23;
const CAMERA_KEY_BYTES: usize = 61;
const LIGHT_KEY_BYTES: usize = 28;
const SHADOW_KEY_BYTES: usize = 9;

/// One bone key: the position offset from the bone's rest and its rotation from rest, in
/// MMD's own axes (left-handed, Y up, the model facing −Z) and units.
#[derive(Clone, Debug, PartialEq)]
pub struct BoneKey {
    pub name: String,
    pub frame: u32,
    pub position: Vec3,
    pub rotation: Quat,
    /// The Bézier handles (x1, y1, x2, y2 in 0–127) of the span that ends at this key,
    /// for X, Y, Z and the rotation.
    pub curves: [[u8; 4]; 4],
}

#[derive(Clone, Debug, PartialEq)]
pub struct MorphKey {
    pub name: String,
    pub frame: u32,
    pub weight: f32,
}

/// From `frame` on, whether each named IK bone is solved.
#[derive(Clone, Debug, PartialEq)]
pub struct IkSwitch {
    pub frame: u32,
    pub enabled: Vec<(String, bool)>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Vmd {
    pub model_name: String,
    pub bones: Vec<BoneKey>,
    pub morphs: Vec<MorphKey>,
    pub camera_keys: usize,
    pub light_keys: usize,
    pub ik_switches: Vec<IkSwitch>,
}

struct Bytes<'a> {
    rest: &'a [u8],
    offset: usize,
}

impl<'a> Bytes<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], Refusal> {
        if self.rest.len() < n {
            return Err(Refusal::new(format!(
                "the file ends at byte {} inside {what}",
                self.offset + self.rest.len()
            )));
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        self.offset += n;
        Ok(head)
    }

    fn u32(&mut self, what: &str) -> Result<u32, Refusal> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn f32s<const N: usize>(&mut self, what: &str) -> Result<[f32; N], Refusal> {
        let mut out = [0.0; N];
        for v in &mut out {
            let b = self.take(4, what)?;
            *v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            if !v.is_finite() {
                return Err(Refusal::new(format!(
                    "{what} holds a number that is not finite (byte {})",
                    self.offset - 4
                )));
            }
        }
        Ok(out)
    }

    /// A section's record count, refused when the file cannot hold that many records.
    /// `None` when the file ends where the section would start (an older writer's end).
    fn count(&mut self, record_bytes: usize, what: &str) -> Result<Option<usize>, Refusal> {
        if self.rest.is_empty() {
            return Ok(None);
        }
        let count = self.u32(what)? as usize;
        if count.saturating_mul(record_bytes) > self.rest.len() {
            return Err(Refusal::new(format!(
                "the file claims {count} {what}, more than its {} remaining bytes hold",
                self.rest.len()
            )));
        }
        Ok(Some(count))
    }
}

/// A fixed-size Shift-JIS name, cut at its first NUL (the bytes after it are padding,
/// often garbage; a name cut mid-character decodes with a replacement mark).
fn name(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let (text, _, _) = SHIFT_JIS.decode(&bytes[..end]);
    text.trim().to_owned()
}

pub fn parse(bytes: &[u8]) -> Result<Vmd, Refusal> {
    if bytes.len() > MAX_BYTES {
        return Err(Refusal::new(format!(
            "the file is {} MB; a VMD is read up to {} MB",
            bytes.len() >> 20,
            MAX_BYTES >> 20
        )));
    }
    let mut input = Bytes {
        rest: bytes,
        offset: 0,
    };
    let signature = input.take(30, "the signature").map_err(|_| not_vmd())?;
    let name_bytes = if signature.starts_with(SIGNATURE_V2) {
        20
    } else if signature.starts_with(SIGNATURE_V1) {
        10
    } else {
        return Err(not_vmd());
    };
    let model_name = name(input.take(name_bytes, "the model's name")?);

    let count = input
        .count(BONE_KEY_BYTES, "bone keys")?
        .ok_or_else(|| Refusal::new("the file ends before its bone keys"))?;
    let mut bones = Vec::with_capacity(count);
    for _ in 0..count {
        let name = name(input.take(15, "a bone key")?);
        let frame = input.u32("a bone key")?;
        let [x, y, z] = input.f32s::<3>("a bone key's position")?;
        let [qx, qy, qz, qw] = input.f32s::<4>("a bone key's rotation")?;
        let interpolation = input.take(64, "a bone key")?;
        let mut curves = [[0u8; 4]; 4];
        for (channel, curve) in curves.iter_mut().enumerate() {
            for (k, handle) in curve.iter_mut().enumerate() {
                // The published layout: x1, y1, x2, y2 of X, Y, Z, R interleaved in the
                // first 16 bytes (the other 48 repeat them shifted).
                *handle = interpolation[k * 4 + channel].min(127);
            }
        }
        // Scaled by its largest part first, so huge parts cannot overflow the length.
        let largest = [qx, qy, qz, qw].iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let rotation = if largest > 1e-30 {
            Quat::from_xyzw(qx / largest, qy / largest, qz / largest, qw / largest).normalize()
        } else {
            Quat::IDENTITY
        };
        bones.push(BoneKey {
            name,
            frame,
            position: Vec3::new(x, y, z),
            rotation,
            curves,
        });
    }

    let mut vmd = Vmd {
        model_name,
        bones,
        ..Vmd::default()
    };
    let Some(count) = input.count(MORPH_KEY_BYTES, "morph keys")? else {
        return Ok(vmd);
    };
    vmd.morphs.reserve_exact(count);
    for _ in 0..count {
        let name = name(input.take(15, "a morph key")?);
        let frame = input.u32("a morph key")?;
        let [weight] = input.f32s::<1>("a morph key's weight")?;
        vmd.morphs.push(MorphKey {
            name,
            frame,
            weight,
        });
    }
    let Some(count) = input.count(CAMERA_KEY_BYTES, "camera keys")? else {
        return Ok(vmd);
    };
    input.take(count * CAMERA_KEY_BYTES, "camera keys")?;
    vmd.camera_keys = count;
    let Some(count) = input.count(LIGHT_KEY_BYTES, "light keys")? else {
        return Ok(vmd);
    };
    input.take(count * LIGHT_KEY_BYTES, "light keys")?;
    vmd.light_keys = count;
    let Some(count) = input.count(SHADOW_KEY_BYTES, "self-shadow keys")? else {
        return Ok(vmd);
    };
    input.take(count * SHADOW_KEY_BYTES, "self-shadow keys")?;
    // Each switch is at least 9 bytes (frame, shown, count), each entry 21.
    let Some(count) = input.count(9, "IK switches")? else {
        return Ok(vmd);
    };
    for _ in 0..count {
        let frame = input.u32("an IK switch")?;
        input.take(1, "an IK switch")?; // whether the model is shown
        let entries = input.count(21, "IK switch entries")?.unwrap_or(0);
        let mut enabled = Vec::with_capacity(entries);
        for _ in 0..entries {
            let name = name(input.take(20, "an IK switch")?);
            let on = input.take(1, "an IK switch")?[0] != 0;
            enabled.push((name, on));
        }
        vmd.ik_switches.push(IkSwitch { frame, enabled });
    }
    Ok(vmd)
}

fn not_vmd() -> Refusal {
    Refusal::new("this is not a VMD file (no 'Vocaloid Motion Data' signature)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sjis(text: &str, width: usize) -> Vec<u8> {
        let (bytes, _, _) = SHIFT_JIS.encode(text);
        let mut out = bytes.into_owned();
        out.resize(width, 0);
        out
    }

    fn file(bones: &[(&str, u32)], morphs: &[(&str, u32, f32)]) -> Vec<u8> {
        let mut out = SIGNATURE_V2.to_vec();
        out.resize(30, 0);
        out.extend(sjis("初音ミク", 20));
        out.extend((bones.len() as u32).to_le_bytes());
        for (name, frame) in bones {
            out.extend(sjis(name, 15));
            out.extend(frame.to_le_bytes());
            for v in [0.0f32, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0] {
                out.extend(v.to_le_bytes());
            }
            out.extend([20u8; 64]);
        }
        out.extend((morphs.len() as u32).to_le_bytes());
        for (name, frame, weight) in morphs {
            out.extend(sjis(name, 15));
            out.extend(frame.to_le_bytes());
            out.extend(weight.to_le_bytes());
        }
        out
    }

    #[test]
    fn names_are_shift_jis_and_later_sections_may_be_missing() {
        let vmd = parse(&file(&[("左ひじ", 3), ("センター", 0)], &[("あ", 5, 0.5)])).unwrap();
        assert_eq!(vmd.model_name, "初音ミク");
        assert_eq!(vmd.bones[0].name, "左ひじ");
        assert_eq!(vmd.bones[1].position, Vec3::Y);
        assert_eq!(vmd.morphs[0].name, "あ");
        assert_eq!(vmd.camera_keys, 0);
    }

    #[test]
    fn a_claimed_count_beyond_the_bytes_is_refused_before_allocating() {
        let mut bytes = file(&[], &[]);
        bytes.truncate(50);
        bytes.extend(u32::MAX.to_le_bytes());
        let error = parse(&bytes).unwrap_err().to_string();
        assert!(error.contains("claims 4294967295 bone keys"), "{error}");
        let truncated = &file(&[("頭", 1)], &[])[..80];
        assert!(parse(truncated).is_err());
        assert!(parse(b"not a motion at all, just some words").is_err());
    }

    #[test]
    fn a_nan_is_refused() {
        let mut bytes = file(&[("頭", 1)], &[]);
        let at = 30 + 20 + 4 + 15 + 4;
        bytes[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(
            parse(&bytes)
                .unwrap_err()
                .to_string()
                .contains("not finite")
        );
    }
}
