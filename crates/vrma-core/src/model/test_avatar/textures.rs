//! The PNG textures: painted-looking ones at VRoid's size, and a flat one of any size
//! (streamed, for the over-the-GPU-limit variant).

/// A 2048² texture that compresses like a painted one: smooth colour, fine grain.
pub(super) fn texture_png(size: u32, seed: u32) -> Vec<u8> {
    let mut pixels = Vec::with_capacity((size * size * 4) as usize);
    // Base textures (even seeds) in a VRoid avatar's colours, so that stills read as a
    // person (skin, a blue top, dark hair, a skin face, white eyes); shade textures
    // and any extra ones vary by seed.
    let base = match seed {
        0 | 6 => [236, 196, 170],
        2 => [84, 104, 168],
        4 => [78, 56, 44],
        8 => [236, 236, 240],
        _ => [
            150 + (seed * 37 % 100) as u8,
            120 + (seed * 53 % 120) as u8,
            110 + (seed * 71 % 130) as u8,
        ],
    };
    let mut state = 0x9E37_79B9u32 ^ seed.wrapping_mul(0x85EB_CA6B);
    for y in 0..size {
        for x in 0..size {
            // xorshift grain: a bit of noise per pixel, so it compresses like a painted texture.
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let band = (((x / 64) ^ (y / 64)) & 1) as u8 * 12;
            let grain = (state & 1) as u8;
            for b in base {
                pixels.push(b.saturating_sub(band).wrapping_add(grain));
            }
            pixels.push(255);
        }
    }
    encode_png(size, size, &pixels)
}

fn encode_png(width: u32, height: u32, rgba: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Balanced);
    let mut writer = encoder.write_header().expect("PNG header");
    writer.write_image_data(rgba).expect("PNG data");
    writer.finish().expect("PNG end");
    out
}

/// A flat-colour PNG of any size, streamed row by row so that a 20000² one costs no
/// more memory than a row.
pub(super) fn flat_png(size: u32) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, size, size);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Balanced);
        let mut writer = encoder.write_header().expect("PNG header");
        let mut stream = writer.stream_writer().expect("PNG stream");
        let row = vec![200u8; size as usize * 3];
        for _ in 0..size {
            std::io::Write::write_all(&mut stream, &row).expect("PNG row");
        }
        stream.finish().expect("PNG data");
        writer.finish().expect("PNG end");
    }
    out
}
