//! The person detector's output read as MediaPipe's pose detection graph reads it: SSD
//! anchors (the 2,254 of its 224 × 224 input), boxes and four keypoints per anchor,
//! sigmoid scores, and overlapping boxes blended by score.

use glam::Vec2;

/// The detector's input side, in pixels.
pub const INPUT: usize = 224;
/// The anchors it predicts from (three feature maps: 28², 14², 7² cells).
pub const ANCHORS: usize = 2254;
/// Numbers per anchor: box centre, size, then four keypoints' x and y.
pub const VALUES: usize = 12;
/// A person is there when the score reaches this.
pub const MIN_SCORE: f32 = 0.5;
/// Boxes overlapping the best by more than this are the same person.
const SAME_PERSON_IOU: f32 = 0.3;

/// One anchor's centre in the input, 0 to 1 (MediaPipe's fixed-size anchors).
fn anchors() -> Vec<Vec2> {
    // Strides 8, 16 and 32 (three layers of 32 merged), two anchors per layer and cell.
    let mut out = Vec::with_capacity(ANCHORS);
    for (stride, per_cell) in [(8usize, 2usize), (16, 2), (32, 6)] {
        let cells = INPUT.div_ceil(stride);
        for y in 0..cells {
            for x in 0..cells {
                let centre = Vec2::new(
                    (x as f32 + 0.5) / cells as f32,
                    (y as f32 + 0.5) / cells as f32,
                );
                out.extend(std::iter::repeat_n(centre, per_cell));
            }
        }
    }
    out
}

/// A found person, in the detector's input (0 to 1 across it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Detection {
    pub score: f32,
    /// Box centre and size.
    pub center: Vec2,
    pub size: Vec2,
    /// The hips' middle, a point whose distance sizes the whole body and whose direction
    /// is the body's up, the shoulders' middle, and one for the upper body.
    pub keypoints: [Vec2; 4],
}

impl Detection {
    fn iou(&self, other: &Detection) -> f32 {
        let (a0, a1) = (self.center - self.size * 0.5, self.center + self.size * 0.5);
        let (b0, b1) = (
            other.center - other.size * 0.5,
            other.center + other.size * 0.5,
        );
        let overlap = (a1.min(b1) - a0.max(b0)).max(Vec2::ZERO);
        let inter = overlap.x * overlap.y;
        let union = self.size.x * self.size.y + other.size.x * other.size.y - inter;
        if union > 0.0 { inter / union } else { 0.0 }
    }
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x.clamp(-100.0, 100.0)).exp())
}

/// The most confident person among the raw outputs (`boxes`: `ANCHORS` × `VALUES`,
/// `scores`: `ANCHORS` logits), its box and keypoints blended with the boxes that
/// overlap it; `None` when nobody reaches `MIN_SCORE`.
pub fn best_person(boxes: &[f32], scores: &[f32]) -> Option<Detection> {
    if boxes.len() != ANCHORS * VALUES || scores.len() != ANCHORS {
        return None;
    }
    let scale = INPUT as f32;
    let candidates: Vec<Detection> = anchors()
        .into_iter()
        .enumerate()
        .filter_map(|(i, anchor)| {
            let score = sigmoid(scores[i]);
            if score.is_nan() || score < MIN_SCORE {
                return None;
            }
            let raw = &boxes[i * VALUES..][..VALUES];
            let point = |k: usize| anchor + Vec2::new(raw[k], raw[k + 1]) / scale;
            let detection = Detection {
                score,
                center: point(0),
                size: Vec2::new(raw[2], raw[3]) / scale,
                keypoints: [point(4), point(6), point(8), point(10)],
            };
            (detection.center.is_finite()
                && detection.size.is_finite()
                && detection.keypoints.iter().all(|k| k.is_finite()))
            .then_some(detection)
        })
        .collect();
    let best = candidates
        .iter()
        .max_by(|a, b| a.score.total_cmp(&b.score))?;
    // MediaPipe's weighted suppression: the overlapping boxes vote by score.
    let same: Vec<&Detection> = candidates
        .iter()
        .filter(|d| best.iou(d) > SAME_PERSON_IOU)
        .collect();
    let total: f32 = same.iter().map(|d| d.score).sum();
    let blend =
        |f: &dyn Fn(&Detection) -> Vec2| same.iter().map(|d| f(d) * d.score).sum::<Vec2>() / total;
    Some(Detection {
        score: best.score,
        center: blend(&|d| d.center),
        size: blend(&|d| d.size),
        keypoints: std::array::from_fn(|k| blend(&|d| d.keypoints[k])),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_as_many_anchors_as_the_model_predicts() {
        let a = anchors();
        assert_eq!(a.len(), ANCHORS);
        assert_eq!(a[0], Vec2::splat(0.5 / 28.0));
        assert_eq!(a[ANCHORS - 1], Vec2::splat(6.5 / 7.0));
    }

    #[test]
    fn the_best_score_wins_and_its_neighbours_blend_in() {
        let mut boxes = vec![0.0; ANCHORS * VALUES];
        let mut scores = vec![-10.0; ANCHORS];
        assert_eq!(best_person(&boxes, &scores), None);
        // Two neighbouring anchors of the coarsest map see the same person; a far one
        // sees somebody less sure.
        let a = anchors();
        let (i, j) = (ANCHORS - 6 * 7 * 3, ANCHORS - 6 * 7 * 3 + 1);
        assert_eq!(a[i], a[j]);
        for (k, score, shift) in [(i, 3.0, 1.0), (j, 3.0, 3.0), (0, 1.0, 0.0)] {
            scores[k] = score;
            let raw = &mut boxes[k * VALUES..][..VALUES];
            raw[0] = shift;
            raw[2] = 100.0;
            raw[3] = 100.0;
            raw[4] = shift;
        }
        let found = best_person(&boxes, &scores).unwrap();
        assert!((found.score - sigmoid(3.0)).abs() < 1e-6);
        let want = a[i].x + 2.0 / INPUT as f32;
        assert!(
            (found.center.x - want).abs() < 1e-6,
            "{} vs {want}",
            found.center.x
        );
        assert!((found.keypoints[0].x - want).abs() < 1e-6);
        // Garbage sizes are refused, not panicked on.
        assert_eq!(best_person(&boxes[1..], &scores), None);
    }
}
