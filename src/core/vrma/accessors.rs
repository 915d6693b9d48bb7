//! Reading glTF accessors with every offset, stride and count checked against the bytes
//! actually present before anything is allocated.

use serde_json::Value;

use crate::core::LoadError;

/// A glTF document's JSON and its binary buffers.
pub struct GltfData<'a> {
    pub root: &'a Value,
    pub buffers: Vec<&'a [u8]>,
}

fn get_index(value: &Value, key: &str, what: &str) -> Result<usize, LoadError> {
    value
        .get(key)
        .and_then(Value::as_u64)
        .map(|v| v as usize)
        .ok_or_else(|| LoadError::new(format!("{what}: '{key}' is missing or not an index")))
}

fn component_count(kind: &str) -> Option<usize> {
    Some(match kind {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        "MAT4" => 16,
        _ => return None,
    })
}

impl GltfData<'_> {
    /// Reads an accessor as floats (normalized integers are converted); returns the
    /// values and the number of components per element.
    pub fn read_floats(&self, index: usize) -> Result<(Vec<f32>, usize), LoadError> {
        let what = format!("accessor {index}");
        let accessor = self
            .root
            .get("accessors")
            .and_then(|a| a.get(index))
            .ok_or_else(|| LoadError::new(format!("{what} does not exist")))?;
        if accessor.get("sparse").is_some() {
            return Err(LoadError::new(format!(
                "{what}: sparse accessors are not supported"
            )));
        }
        let kind = accessor.get("type").and_then(Value::as_str).unwrap_or("");
        let components = component_count(kind)
            .ok_or_else(|| LoadError::new(format!("{what}: unknown type '{kind}'")))?;
        let component_type = accessor
            .get("componentType")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let normalized = accessor
            .get("normalized")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let size = match component_type {
            5126 => 4,
            5120 | 5121 if normalized => 1,
            5122 | 5123 if normalized => 2,
            other => {
                return Err(LoadError::new(format!(
                    "{what}: component type {other} is not usable for animation data"
                )));
            }
        };
        let count = accessor
            .get("count")
            .and_then(Value::as_u64)
            .ok_or_else(|| LoadError::new(format!("{what}: 'count' is missing")))?
            as usize;
        let element = size * components;
        let view_index = get_index(accessor, "bufferView", &what)?;
        let view = self
            .root
            .get("bufferViews")
            .and_then(|v| v.get(view_index))
            .ok_or_else(|| {
                LoadError::new(format!("{what}: buffer view {view_index} does not exist"))
            })?;
        let buffer_index = get_index(view, "buffer", &format!("bufferView {view_index}"))?;
        let buffer = self.buffers.get(buffer_index).ok_or_else(|| {
            LoadError::new(format!(
                "bufferView {view_index}: buffer {buffer_index} is not available"
            ))
        })?;
        let view_offset = view.get("byteOffset").and_then(Value::as_u64).unwrap_or(0) as usize;
        let view_length = get_index(view, "byteLength", &format!("bufferView {view_index}"))?;
        let view_end = view_offset
            .checked_add(view_length)
            .filter(|&e| e <= buffer.len())
            .ok_or_else(|| {
                LoadError::new(format!(
                    "bufferView {view_index} runs past the end of its buffer ({} + {} > {} bytes)",
                    view_offset,
                    view_length,
                    buffer.len()
                ))
            })?;
        let view_bytes = &buffer[view_offset..view_end];
        let stride = match view.get("byteStride").and_then(Value::as_u64) {
            Some(s) if (s as usize) < element => {
                return Err(LoadError::new(format!(
                    "bufferView {view_index}: byteStride {s} is smaller than an element"
                )));
            }
            Some(s) => s as usize,
            None => element,
        };
        let offset = accessor
            .get("byteOffset")
            .and_then(Value::as_u64)
            .unwrap_or(0) as usize;
        if count > 0 {
            let needed = (count - 1)
                .checked_mul(stride)
                .and_then(|n| n.checked_add(element))
                .and_then(|n| n.checked_add(offset));
            if needed.is_none_or(|n| n > view_bytes.len()) {
                return Err(LoadError::new(format!(
                    "{what}: {count} elements do not fit in bufferView {view_index} ({} bytes)",
                    view_bytes.len()
                )));
            }
        }
        let mut out = Vec::with_capacity(count * components);
        for i in 0..count {
            let base = offset + i * stride;
            for c in 0..components {
                let at = base + c * size;
                let b = &view_bytes[at..at + size];
                let x = match component_type {
                    5126 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                    5120 => (b[0] as i8 as f32 / 127.0).max(-1.0),
                    5121 => b[0] as f32 / 255.0,
                    5122 => (i16::from_le_bytes([b[0], b[1]]) as f32 / 32767.0).max(-1.0),
                    _ => u16::from_le_bytes([b[0], b[1]]) as f32 / 65535.0,
                };
                if !x.is_finite() {
                    return Err(LoadError::new(format!(
                        "{what}: element {i} is not a finite number"
                    )));
                }
                out.push(x);
            }
        }
        Ok((out, components))
    }
}
