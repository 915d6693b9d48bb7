//! A still's pixels: rendered supersampled onto a transparent target, reduced to the
//! requested size here. The renderer blends onto transparent black, so what it leaves
//! is premultiplied colour, sRGB-encoded: averaged in linear premultiplied space and
//! divided by the coverage, an edge pixel gets partial alpha and the colour of the
//! surface it covers (no dark fringe over white, no light one over black), and a
//! half-transparent pixel its own colour, not one darkened by its alpha.

/// sRGB-encoded byte to linear light.
fn decode(v: u8) -> f32 {
    let c = v as f32 / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear light to an sRGB-encoded byte.
fn encode(c: f32) -> u8 {
    let c = c.clamp(0.0, 1.0);
    let s = if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0 + 0.5) as u8
}

/// Reduces a `width × height` premultiplied sRGB RGBA render by `factor` in each
/// direction (both divisible by it) to straight-alpha sRGB RGBA.
pub fn downsample(rgba: &[u8], width: u32, height: u32, factor: u32) -> Vec<u8> {
    let factor = factor.max(1);
    let (out_w, out_h) = (width / factor, height / factor);
    let table: Vec<f32> = (0..=255).map(decode).collect();
    let samples = (factor * factor) as f32;
    let mut out = vec![0u8; (out_w * out_h * 4) as usize];
    for oy in 0..out_h {
        for ox in 0..out_w {
            let mut sum = [0f32; 4];
            for sy in 0..factor {
                let row = ((oy * factor + sy) * width + ox * factor) as usize * 4;
                for sx in 0..factor as usize {
                    let p = &rgba[row + sx * 4..row + sx * 4 + 4];
                    for c in 0..3 {
                        sum[c] += table[p[c] as usize];
                    }
                    sum[3] += p[3] as f32 / 255.0;
                }
            }
            let alpha = sum[3] / samples;
            let at = ((oy * out_w + ox) * 4) as usize;
            if alpha <= 0.5 / 255.0 {
                continue; // transparent, and no colour
            }
            for c in 0..3 {
                out[at + c] = encode(sum[c] / sum[3]);
            }
            out[at + 3] = (alpha * 255.0 + 0.5).min(255.0) as u8;
        }
    }
    out
}

/// Straight-alpha sRGB RGBA over an opaque colour (the still's background option),
/// blended in linear light.
pub fn over_background(rgba: &mut [u8], background: [u8; 3]) {
    let table: Vec<f32> = (0..=255).map(decode).collect();
    for p in rgba.chunks_exact_mut(4) {
        let a = p[3] as f32 / 255.0;
        for c in 0..3 {
            p[c] = encode(table[p[c] as usize] * a + table[background[c] as usize] * (1.0 - a));
        }
        p[3] = 255;
    }
}

/// `#rrggbb` or `transparent` (`None`).
pub fn parse_background(text: &str) -> Result<Option<[u8; 3]>, crate::Refusal> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("transparent") {
        return Ok(None);
    }
    let hex = text.strip_prefix('#').unwrap_or(text);
    let bad = || {
        crate::Refusal::new(format!(
            "background: '{text}' is not 'transparent' or a colour like #ffffff"
        ))
    };
    if hex.len() != 6 || !hex.is_ascii() {
        return Err(bad());
    }
    let part = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| bad());
    Ok(Some([part(0)?, part(2)?, part(4)?]))
}

/// The files of a numbered sequence of `count` stills named after `chosen`
/// (`walk.png` → `walk_001.png`, `walk_002.png`, …; three digits or as many as the
/// count needs, so that they sort in order).
pub fn sequence_paths(chosen: &std::path::Path, count: usize) -> Vec<std::path::PathBuf> {
    let stem = chosen
        .file_stem()
        .map_or_else(|| "still".into(), |s| s.to_string_lossy().into_owned());
    let digits = count.to_string().len().max(3);
    (1..=count)
        .map(|i| chosen.with_file_name(format!("{stem}_{i:0digits$}.png")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A render of a colour covering the left `covered` columns of every 3×3 block,
    /// premultiplied (as the renderer leaves it) and sRGB-encoded.
    fn half_covered(colour: [u8; 3], covered: u32) -> Vec<u8> {
        let mut rgba = Vec::new();
        for _y in 0..3 {
            for x in 0..6 {
                if x % 3 < covered {
                    rgba.extend_from_slice(&[colour[0], colour[1], colour[2], 255]);
                } else {
                    rgba.extend_from_slice(&[0, 0, 0, 0]);
                }
            }
        }
        rgba
    }

    #[test]
    fn an_edge_gets_partial_alpha_and_the_colour_of_the_surface() {
        let colour = [200, 80, 30];
        let out = downsample(&half_covered(colour, 1), 6, 3, 3);
        assert_eq!(out.len(), 2 * 4);
        for p in out.chunks_exact(4) {
            assert_eq!(p[3], 85, "a third covered");
            for c in 0..3 {
                assert!((p[c] as i32 - colour[c] as i32).abs() <= 1, "{p:?}");
            }
        }
        // Over black and over white the edge is the surface's colour faded, not a
        // darker or lighter rim.
        for background in [[0, 0, 0], [255, 255, 255]] {
            let mut composited = out.clone();
            over_background(&mut composited, background);
            let (edge, bg) = (composited[0] as f32, background[0] as f32);
            assert!(
                (edge - bg).abs() < (colour[0] as f32 - bg).abs(),
                "between the surface and the background"
            );
        }
    }

    #[test]
    fn half_transparent_pixels_keep_their_colour() {
        // A 50% layer of sRGB 200 over transparent, as the blend leaves it: linear
        // colour times alpha, encoded.
        let linear = decode(200) * 0.5;
        let v = encode(linear);
        let rgba = [v, v, v, 128].repeat(4);
        let out = downsample(&rgba, 2, 2, 2);
        assert!((out[0] as i32 - 200).abs() <= 2, "{out:?}");
        assert_eq!(out[3], 128);
    }

    #[test]
    fn transparent_stays_transparent_and_backgrounds_parse() {
        assert_eq!(downsample(&[0; 16], 2, 2, 2), vec![0; 4]);
        assert_eq!(parse_background("transparent").unwrap(), None);
        assert_eq!(parse_background("#FF8000").unwrap(), Some([255, 128, 0]));
        for bad in ["#ff80", "red", "#gg0000", "#ff80001"] {
            assert!(parse_background(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_sequence_is_numbered_after_the_chosen_name_and_sorts_in_order() {
        let paths = sequence_paths(std::path::Path::new("/tmp/out/walk.png"), 12);
        assert_eq!(paths.len(), 12);
        assert_eq!(paths[0], std::path::Path::new("/tmp/out/walk_001.png"));
        assert_eq!(paths[11], std::path::Path::new("/tmp/out/walk_012.png"));
        let long = sequence_paths(std::path::Path::new("take"), 1200);
        assert_eq!(long[0], std::path::Path::new("take_0001.png"));
        let mut sorted = long.clone();
        sorted.sort();
        assert_eq!(sorted, long);
    }
}
