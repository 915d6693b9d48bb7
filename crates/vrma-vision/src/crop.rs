//! Square, rotated regions of a picture and their crops into model inputs. One mapping
//! serves both ways (crop → picture for landmarks, picture → crop for sampling), so a
//! landmark always lands where the model saw it.

use glam::Vec2;
use image::RgbImage;

/// A square region of a picture, in pixels: its centre, side and rotation. A rotation
/// of 0 keeps the crop upright; positive turns the crop's up towards the picture's right
/// (MediaPipe's rect rotation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Roi {
    pub center: Vec2,
    pub size: f32,
    pub rotation: f32,
}

impl Roi {
    /// The whole picture, letterboxed into a square (for the person detector).
    pub fn whole(width: u32, height: u32) -> Roi {
        Roi {
            center: Vec2::new(width as f32, height as f32) * 0.5,
            size: width.max(height) as f32,
            rotation: 0.0,
        }
    }

    /// A point of the crop, `uv` from 0 to 1 across it, in picture pixels.
    pub fn to_image(&self, uv: Vec2) -> Vec2 {
        let local = (uv - Vec2::splat(0.5)) * self.size;
        self.center + Vec2::from_angle(self.rotation).rotate(local)
    }

    /// The region pointing from `from` to `to` (upright when `to` is straight above),
    /// centred on `center`, `size` pixels across.
    pub fn aligned(center: Vec2, size: f32, from: Vec2, to: Vec2) -> Roi {
        let d = to - from;
        Roi {
            center,
            size,
            rotation: normalize_angle(std::f32::consts::FRAC_PI_2 - (-d.y).atan2(d.x)),
        }
    }

    /// Moved by `shift_up` of its size towards its own up, and scaled by `scale`.
    pub fn transformed(self, scale: f32, shift_up: f32) -> Roi {
        let up = Vec2::from_angle(self.rotation).rotate(Vec2::new(0.0, -1.0));
        Roi {
            center: self.center + up * shift_up * self.size,
            size: self.size * scale,
            rotation: self.rotation,
        }
    }

    /// Whether this region lies within `share` of `other`'s size of it: centres that
    /// close, sides that near in length, turned no more than `share` radians apart.
    pub fn is_near(&self, other: &Roi, share: f32) -> bool {
        let reach = share * other.size;
        self.center.distance(other.center) <= reach
            && (self.size - other.size).abs() <= reach
            && normalize_angle(self.rotation - other.rotation).abs() <= share
    }

    /// Whether the region is usable (finite, at least a few pixels across).
    pub fn is_usable(&self) -> bool {
        self.center.is_finite()
            && self.size.is_finite()
            && self.size >= 4.0
            && self.rotation.is_finite()
    }
}

fn normalize_angle(a: f32) -> f32 {
    use std::f32::consts::{PI, TAU};
    a - TAU * ((a + PI) / TAU).floor()
}

/// The region cropped to `side` × `side` pixels, RGB, each channel scaled from 0–255 into
/// `range` (row-major, channels last: the models' NHWC input). Outside the picture is
/// black.
pub fn crop(image: &RgbImage, roi: &Roi, side: usize, range: (f32, f32)) -> Vec<f32> {
    let (w, h) = (image.width() as i64, image.height() as i64);
    let raw = image.as_raw();
    let pixel = |x: i64, y: i64| -> [f32; 3] {
        if x < 0 || y < 0 || x >= w || y >= h {
            return [0.0; 3];
        }
        let i = ((y * w + x) * 3) as usize;
        [raw[i] as f32, raw[i + 1] as f32, raw[i + 2] as f32]
    };
    let scale = (range.1 - range.0) / 255.0;
    let mut out = Vec::with_capacity(side * side * 3);
    let step = 1.0 / side as f32;
    for row in 0..side {
        for column in 0..side {
            let uv = Vec2::new((column as f32 + 0.5) * step, (row as f32 + 0.5) * step);
            // Pixel centres sit at +0.5: bilinear between the four nearest.
            let p = roi.to_image(uv) - Vec2::splat(0.5);
            let (x0, y0) = (p.x.floor(), p.y.floor());
            let (fx, fy) = (p.x - x0, p.y - y0);
            let (x0, y0) = (x0 as i64, y0 as i64);
            let (a, b) = (pixel(x0, y0), pixel(x0 + 1, y0));
            let (c, d) = (pixel(x0, y0 + 1), pixel(x0 + 1, y0 + 1));
            for k in 0..3 {
                let top = a[k] + (b[k] - a[k]) * fx;
                let bottom = c[k] + (d[k] - c[k]) * fx;
                out.push(range.0 + (top + (bottom - top) * fy) * scale);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_is_near_another_within_a_share_of_its_size_and_turn() {
        let detected = Roi {
            center: Vec2::new(300.0, 400.0),
            size: 1000.0,
            rotation: 3.1,
        };
        let moved = |dx: f32, grow: f32, turn: f32| Roi {
            center: detected.center + Vec2::new(dx, 0.0),
            size: detected.size + grow,
            rotation: detected.rotation + turn,
        };
        assert!(moved(99.0, 99.0, 0.09).is_near(&detected, 0.1));
        // Turning across ±π is a small turn.
        assert!(moved(0.0, 0.0, 0.09 - std::f32::consts::TAU).is_near(&detected, 0.1));
        assert!(moved(0.0, 0.09, 0.09).is_near(&detected, 0.1));
        assert!(!moved(101.0, 0.0, 0.0).is_near(&detected, 0.1));
        assert!(!moved(0.0, 101.0, 0.0).is_near(&detected, 0.1));
        assert!(!moved(0.0, -101.0, 0.0).is_near(&detected, 0.1));
        assert!(!moved(0.0, 0.0, 0.11).is_near(&detected, 0.1));
    }

    #[test]
    fn an_upright_region_maps_its_corners_and_a_turned_one_turns_its_up() {
        let roi = Roi {
            center: Vec2::new(100.0, 50.0),
            size: 20.0,
            rotation: 0.0,
        };
        assert_eq!(roi.to_image(Vec2::ZERO), Vec2::new(90.0, 40.0));
        assert_eq!(roi.to_image(Vec2::ONE), Vec2::new(110.0, 60.0));
        // Pointing right: the crop's top edge is the picture's right.
        let right = Roi::aligned(Vec2::ZERO, 2.0, Vec2::ZERO, Vec2::X);
        let top = right.to_image(Vec2::new(0.5, 0.0));
        assert!((top - Vec2::new(1.0, 0.0)).length() < 1e-5, "{top}");
        let up = Roi::aligned(Vec2::ZERO, 2.0, Vec2::ZERO, Vec2::new(0.0, -1.0));
        assert!(up.rotation.abs() < 1e-6);
        let shifted = up.transformed(2.0, 0.25);
        assert_eq!((shifted.center, shifted.size), (Vec2::new(0.0, -0.5), 4.0));
    }

    #[test]
    fn a_crop_samples_the_picture_and_pads_with_black() {
        let mut image = RgbImage::new(4, 2);
        image.put_pixel(3, 0, image::Rgb([255, 0, 0]));
        // One output pixel per picture pixel over a 4×4 square letterbox.
        let out = crop(&image, &Roi::whole(4, 2), 4, (0.0, 1.0));
        // Row 1 of the crop is the picture's row 0.
        let at = |row: usize, column: usize| &out[(row * 4 + column) * 3..][..3];
        assert_eq!(at(1, 3), &[1.0, 0.0, 0.0]);
        assert_eq!(at(0, 3), &[0.0, 0.0, 0.0]);
        let out = crop(&image, &Roi::whole(4, 2), 4, (-1.0, 1.0));
        assert_eq!(&out[..3], &[-1.0, -1.0, -1.0]);
    }
}
