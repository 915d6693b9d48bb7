//! Binary glTF (GLB) container: split into the JSON and BIN chunks, and build one.
//! Every length read from the file is checked against the bytes actually present.

use crate::Refusal;

const MAGIC: &[u8; 4] = b"glTF";
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// The two chunks of a GLB file.
#[derive(Debug)]
pub struct Glb<'a> {
    pub json: &'a [u8],
    pub bin: Option<&'a [u8]>,
}

pub(crate) fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    bytes
        .get(at..at.checked_add(4)?)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Splits a GLB file. A file that starts with `{` is taken as plain glTF JSON.
pub fn split(bytes: &[u8]) -> Result<Glb<'_>, Refusal> {
    let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
    if first == Some(b'{') {
        return Ok(Glb {
            json: bytes,
            bin: None,
        });
    }
    if bytes.len() < 12 {
        return Err(Refusal::new(format!(
            "not a glTF/VRM file: {} bytes is too short for a GLB header",
            bytes.len()
        )));
    }
    if &bytes[0..4] != MAGIC {
        return Err(Refusal::new(
            "not a glTF/VRM file: the GLB magic 'glTF' is missing",
        ));
    }
    let version = read_u32(bytes, 4).unwrap_or(0);
    if version != 2 {
        return Err(Refusal::new(format!(
            "unsupported GLB version {version} (only glTF 2.0 is supported)"
        )));
    }
    let declared = read_u32(bytes, 8).unwrap_or(0) as usize;
    if declared > bytes.len() {
        return Err(Refusal::new(format!(
            "truncated file: the GLB header declares {declared} bytes but the file has {}",
            bytes.len()
        )));
    }
    let body = &bytes[..declared];
    let mut at = 12usize;
    let mut json = None;
    let mut bin = None;
    while at < body.len() {
        let (Some(len), Some(kind)) = (read_u32(body, at), read_u32(body, at + 4)) else {
            return Err(Refusal::new(format!(
                "truncated GLB chunk header at byte {at}"
            )));
        };
        let start = at + 8;
        let end = start
            .checked_add(len as usize)
            .filter(|&end| end <= body.len())
            .ok_or_else(|| {
                Refusal::new(format!(
                    "bad GLB chunk length {len} at byte {at}: only {} bytes remain",
                    body.len().saturating_sub(start)
                ))
            })?;
        match kind {
            CHUNK_JSON if json.is_none() => json = Some(&body[start..end]),
            CHUNK_BIN if bin.is_none() && json.is_some() => bin = Some(&body[start..end]),
            _ => {}
        }
        at = end;
    }
    let json = json.ok_or_else(|| Refusal::new("GLB file has no JSON chunk"))?;
    Ok(Glb { json, bin })
}

/// Builds a GLB file from JSON text and a binary buffer (both padded to 4 bytes).
pub fn build(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let pad = |n: usize| (4 - n % 4) % 4;
    let json_len = json.len() + pad(json.len());
    let bin_len = bin.len() + pad(bin.len());
    let total = 12 + 8 + json_len + if bin.is_empty() { 0 } else { 8 + bin_len };
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json_len as u32).to_le_bytes());
    out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    out.extend_from_slice(json);
    out.extend(std::iter::repeat_n(b' ', pad(json.len())));
    if !bin.is_empty() {
        out.extend_from_slice(&(bin_len as u32).to_le_bytes());
        out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
        out.extend_from_slice(bin);
        out.extend(std::iter::repeat_n(0u8, pad(bin.len())));
    }
    out
}

/// Replaces the JSON chunk of a GLB file, keeping its binary chunk.
pub fn replace_json(bytes: &[u8], json: &[u8]) -> Result<Vec<u8>, Refusal> {
    let glb = split(bytes)?;
    Ok(build(json, glb.bin.unwrap_or(&[])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_then_split_round_trips() {
        let bytes = build(br#"{"asset":{"version":"2.0"}}"#, &[1, 2, 3]);
        assert_eq!(bytes.len() % 4, 0);
        let glb = split(&bytes).unwrap();
        assert!(glb.json.starts_with(br#"{"asset""#));
        assert_eq!(&glb.bin.unwrap()[..3], &[1, 2, 3]);
    }

    #[test]
    fn truncation_and_bad_lengths_are_errors() {
        let bytes = build(br#"{"asset":{"version":"2.0"}}"#, &[1, 2, 3]);
        for cut in [0, 5, 11, 12, 20, bytes.len() - 1] {
            assert!(split(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut bad = bytes.clone();
        bad[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(
            split(&bad)
                .unwrap_err()
                .to_string()
                .contains("chunk length")
        );
        assert!(split(b"PK\x03\x04 not a glb at all").is_err());
    }
}
