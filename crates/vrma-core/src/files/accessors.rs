//! glTF buffer views and accessors, with every offset, stride and count checked against
//! the bytes actually present before anything is allocated. Model loading checks every
//! accessor this way; animation import also reads them.

use serde_json::Value;

use crate::Refusal;

/// A glTF document's JSON and its binary buffers.
pub struct GltfData<'a> {
    pub root: &'a Value,
    pub buffers: Vec<&'a [u8]>,
}

/// Where an accessor's elements lie in their buffer.
#[derive(Clone, Copy, Debug)]
pub struct AccessorLayout {
    pub buffer: usize,
    /// Byte offset of the first element in the buffer.
    pub start: usize,
    pub stride: usize,
    pub count: usize,
    pub components: usize,
    pub component_type: u64,
    pub component_size: usize,
}

fn get_index(value: &Value, key: &str, what: &str) -> Result<usize, Refusal> {
    value
        .get(key)
        .and_then(Value::as_u64)
        .map(|v| v as usize)
        .ok_or_else(|| Refusal::new(format!("{what}: '{key}' is missing or not an index")))
}

pub(crate) fn component_count(kind: &str) -> Option<usize> {
    Some(match kind {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" | "MAT2" => 4,
        "MAT3" => 9,
        "MAT4" => 16,
        _ => return None,
    })
}

fn component_size(component_type: u64) -> Option<usize> {
    Some(match component_type {
        5120 | 5121 => 1,
        5122 | 5123 => 2,
        5125 | 5126 => 4,
        _ => return None,
    })
}

/// The byte range of buffer view `index`, checked against the buffers' lengths.
pub fn view_range(
    root: &Value,
    index: usize,
    buffer_lengths: &[usize],
) -> Result<(usize, usize, usize), Refusal> {
    let what = format!("bufferView {index}");
    let view = root
        .get("bufferViews")
        .and_then(|v| v.get(index))
        .ok_or_else(|| Refusal::new(format!("{what} does not exist")))?;
    let buffer = get_index(view, "buffer", &what)?;
    let length = *buffer_lengths
        .get(buffer)
        .ok_or_else(|| Refusal::new(format!("{what}: buffer {buffer} is not available")))?;
    let offset = view.get("byteOffset").and_then(Value::as_u64).unwrap_or(0) as usize;
    let size = get_index(view, "byteLength", &what)?;
    offset
        .checked_add(size)
        .filter(|&end| end <= length)
        .ok_or_else(|| {
            Refusal::new(format!(
                "{what} runs past the end of buffer {buffer} ({offset} + {size} > {length} bytes)"
            ))
        })?;
    Ok((buffer, offset, size))
}

/// The layout of accessor `index`, every element inside its view and buffer; `None`
/// for an accessor without a buffer view (all zeros).
pub fn accessor_layout(
    root: &Value,
    index: usize,
    buffer_lengths: &[usize],
) -> Result<Option<AccessorLayout>, Refusal> {
    let what = format!("accessor {index}");
    let accessor = root
        .get("accessors")
        .and_then(|a| a.get(index))
        .ok_or_else(|| Refusal::new(format!("{what} does not exist")))?;
    let kind = accessor.get("type").and_then(Value::as_str).unwrap_or("");
    let components = component_count(kind)
        .ok_or_else(|| Refusal::new(format!("{what}: unknown type '{kind}'")))?;
    let component_type = accessor
        .get("componentType")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let size = component_size(component_type)
        .ok_or_else(|| Refusal::new(format!("{what}: unknown component type {component_type}")))?;
    let count = accessor
        .get("count")
        .and_then(Value::as_u64)
        .ok_or_else(|| Refusal::new(format!("{what}: 'count' is missing")))?
        as usize;
    if let Some(sparse) = accessor.get("sparse") {
        check_sparse(root, sparse, count, size * components, buffer_lengths)
            .map_err(|e| e.context(&what))?;
    }
    let Some(view_value) = accessor.get("bufferView").filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let view_index = view_value
        .as_u64()
        .map(|v| v as usize)
        .ok_or_else(|| Refusal::new(format!("{what}: bufferView is not an index")))?;
    let (buffer, view_offset, view_length) =
        view_range(root, view_index, buffer_lengths).map_err(|e| e.context(&what))?;
    let element = size * components;
    let stride = match root["bufferViews"][view_index]
        .get("byteStride")
        .and_then(Value::as_u64)
    {
        Some(s) if (s as usize) < element => {
            return Err(Refusal::new(format!(
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
        if needed.is_none_or(|n| n > view_length) {
            return Err(Refusal::new(format!(
                "{what}: {count} elements do not fit in bufferView {view_index} ({view_length} bytes)"
            )));
        }
    }
    Ok(Some(AccessorLayout {
        buffer,
        start: view_offset + offset,
        stride,
        count,
        components,
        component_type,
        component_size: size,
    }))
}

/// A sparse block's indices and values lie inside their views, and replace no more
/// elements than the accessor has.
fn check_sparse(
    root: &Value,
    sparse: &Value,
    count: usize,
    element: usize,
    buffer_lengths: &[usize],
) -> Result<(), Refusal> {
    let n = sparse
        .get("count")
        .and_then(Value::as_u64)
        .filter(|&n| n >= 1 && n <= count as u64)
        .ok_or_else(|| {
            Refusal::new(format!(
                "sparse 'count' must be between 1 and the accessor's count ({count})"
            ))
        })? as usize;
    let index_size = match sparse["indices"]
        .get("componentType")
        .and_then(Value::as_u64)
    {
        Some(5121) => 1,
        Some(5123) => 2,
        Some(5125) => 4,
        other => return Err(Refusal::new(format!("sparse index type {other:?}"))),
    };
    for (part, each) in [("indices", index_size), ("values", element)] {
        let block = &sparse[part];
        let view = get_index(block, "bufferView", &format!("sparse {part}"))?;
        let (_, _, length) = view_range(root, view, buffer_lengths)?;
        let offset = block.get("byteOffset").and_then(Value::as_u64).unwrap_or(0) as usize;
        if n.checked_mul(each)
            .and_then(|b| b.checked_add(offset))
            .is_none_or(|end| end > length)
        {
            return Err(Refusal::new(format!(
                "sparse {part}: {n} elements do not fit in bufferView {view} ({length} bytes)"
            )));
        }
    }
    Ok(())
}

impl GltfData<'_> {
    /// Reads an accessor as floats (normalized integers are converted); returns the
    /// values and the number of components per element.
    pub fn read_floats(&self, index: usize) -> Result<(Vec<f32>, usize), Refusal> {
        let what = format!("accessor {index}");
        let accessor = self
            .root
            .get("accessors")
            .and_then(|a| a.get(index))
            .ok_or_else(|| Refusal::new(format!("{what} does not exist")))?;
        if accessor.get("sparse").is_some() {
            return Err(Refusal::new(format!(
                "{what}: sparse accessors are not supported"
            )));
        }
        let lengths: Vec<usize> = self.buffers.iter().map(|b| b.len()).collect();
        let layout = accessor_layout(self.root, index, &lengths)?
            .ok_or_else(|| Refusal::new(format!("{what}: 'bufferView' is missing")))?;
        let normalized = accessor
            .get("normalized")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let usable = layout.component_type == 5126
            || (normalized && matches!(layout.component_type, 5120..=5123));
        if !usable {
            return Err(Refusal::new(format!(
                "{what}: component type {} is not usable for animation data",
                layout.component_type
            )));
        }
        let bytes = self.buffers[layout.buffer];
        let size = layout.component_size;
        let mut out = Vec::with_capacity(layout.count * layout.components);
        for i in 0..layout.count {
            let base = layout.start + i * layout.stride;
            for c in 0..layout.components {
                let at = base + c * size;
                let b = &bytes[at..at + size];
                let x = match layout.component_type {
                    5126 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                    5120 => (b[0] as i8 as f32 / 127.0).max(-1.0),
                    5121 => b[0] as f32 / 255.0,
                    5122 => (i16::from_le_bytes([b[0], b[1]]) as f32 / 32767.0).max(-1.0),
                    _ => u16::from_le_bytes([b[0], b[1]]) as f32 / 65535.0,
                };
                if !x.is_finite() {
                    return Err(Refusal::new(format!(
                        "{what}: element {i} is not a finite number"
                    )));
                }
                out.push(x);
            }
        }
        Ok((out, layout.components))
    }
}
