//! Small rotation helpers shared by interpolation, IK and export.

use glam::{Quat, Vec3};

/// Spherical interpolation along the shorter arc: `b` is negated when `a·b < 0`, so
/// the result never swings the long way round (SPEC §4).
pub fn slerp_shortest(a: Quat, b: Quat, t: f32) -> Quat {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    let dot = a.dot(b).clamp(-1.0, 1.0);
    if dot > 0.9995 {
        // Nearly equal: normalized lerp is exact enough and avoids dividing by ~0.
        return (a * (1.0 - t) + b * t).normalize();
    }
    let theta = dot.acos();
    let sin = theta.sin();
    let (wa, wb) = (((1.0 - t) * theta).sin() / sin, (t * theta).sin() / sin);
    (a * wa + b * wb).normalize()
}

/// The shortest turn from unit vector `from` to unit vector `to`, exact for tiny turns
/// too (glam's `from_rotation_arc` returns no turn below about 0.08°, a 0.1 mm miss at
/// the end of an arm).
pub fn arc(from: Vec3, to: Vec3) -> Quat {
    let dot = from.dot(to);
    if dot < -0.999_999 {
        return Quat::from_rotation_arc(from, to); // half way round: glam picks an axis
    }
    let axis = from.cross(to);
    Quat::from_xyzw(axis.x, axis.y, axis.z, 1.0 + dot).normalize()
}

/// The rotation angle between two orientations, in radians, ignoring the sign of the
/// quaternions (q and -q are the same rotation).
pub fn angle_between(a: Quat, b: Quat) -> f32 {
    // atan2 of the relative rotation stays accurate near zero, where acos(dot) does not.
    let d = a.conjugate() * b;
    2.0 * d.xyz().length().atan2(d.w.abs())
}

/// The signed angle (radians, −π..π) by which `q` turns about the unit `axis`: the
/// twist of its swing–twist split; 0 when it has none.
pub fn twist_angle(q: Quat, axis: Vec3) -> f32 {
    let v = Vec3::new(q.x, q.y, q.z);
    let p = axis * v.dot(axis);
    let twist = Quat::from_xyzw(p.x, p.y, p.z, q.w).normalize();
    let angle = 2.0 * twist.w.clamp(-1.0, 1.0).acos();
    let sign = if Vec3::new(twist.x, twist.y, twist.z).dot(axis) < 0.0 {
        -1.0
    } else {
        1.0
    };
    let angle = if angle > std::f32::consts::PI {
        angle - std::f32::consts::TAU
    } else {
        angle
    };
    if angle.is_finite() { angle * sign } else { 0.0 }
}

/// Where a ray (origin, unit direction) meets the plane through `point` with `normal`;
/// `None` when the ray runs along the plane or points away from it.
pub fn ray_plane(origin: Vec3, dir: Vec3, point: Vec3, normal: Vec3) -> Option<Vec3> {
    let denom = dir.dot(normal);
    if denom.abs() < 1e-6 {
        return None;
    }
    let t = (point - origin).dot(normal) / denom;
    (t >= 0.0).then(|| origin + dir * t)
}

/// The point on the line through `point` along unit `axis` that is closest to the ray
/// (what dragging along a locked axis follows); `None` when they are parallel.
pub fn ray_axis(origin: Vec3, dir: Vec3, point: Vec3, axis: Vec3) -> Option<Vec3> {
    let w = origin - point;
    let b = dir.dot(axis);
    let denom = 1.0 - b * b;
    if denom.abs() < 1e-6 {
        return None;
    }
    let s = (b * dir.dot(w) - axis.dot(w)) / -denom;
    Some(point + axis * s)
}

/// Signed angle from screen vector `a` to `b` (radians, counter-clockwise on screen
/// where y grows downwards).
pub fn screen_angle(a: glam::Vec2, b: glam::Vec2) -> f32 {
    // Screen y points down, so the usual perp-dot gives clockwise as positive; negate.
    -(a.perp_dot(b)).atan2(a.dot(b))
}

/// Strategies shared by the core's property tests.
#[cfg(test)]
pub(crate) mod testing {
    use glam::Quat;
    use proptest::prelude::*;

    /// Any unit quaternion (both signs, all angles).
    pub fn arb_quat() -> impl Strategy<Value = Quat> {
        (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
            .prop_filter("non-zero", |(x, y, z, w)| {
                x * x + y * y + z * z + w * w > 0.01
            })
            .prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w).normalize())
    }
}

#[cfg(test)]
mod tests {
    use super::testing::arb_quat;
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn an_arc_turns_one_direction_onto_the_other_even_by_a_hair() {
        for (from, to) in [
            (Vec3::X, Vec3::new(1.0, 5e-4, 0.0).normalize()),
            (Vec3::X, Vec3::Y),
            (
                Vec3::new(0.3, -0.2, 0.9).normalize(),
                Vec3::new(-0.5, 0.1, 0.2).normalize(),
            ),
            (Vec3::Z, -Vec3::Z),
        ] {
            let turned = arc(from, to) * from;
            assert!(turned.distance(to) < 1e-6, "{from} → {to}: {turned}");
        }
    }

    proptest! {
        #[test]
        fn slerp_never_takes_the_long_way(a in arb_quat(), b in arb_quat(), t in 0.0f32..=1.0) {
            let q = slerp_shortest(a, b, t);
            let total = angle_between(a, b);
            // On the short arc, the angles to both ends add up to the whole arc.
            let sum = angle_between(a, q) + angle_between(q, b);
            prop_assert!((sum - total).abs() < 2e-3, "sum {sum} total {total}");
            prop_assert!(total <= std::f32::consts::PI + 1e-4);
            prop_assert!((q.length() - 1.0).abs() < 1e-5);
        }

        #[test]
        fn slerp_hits_both_ends_and_is_symmetric(a in arb_quat(), b in arb_quat(), t in 0.0f32..=1.0) {
            prop_assert!(angle_between(slerp_shortest(a, b, 0.0), a) < 1e-3);
            prop_assert!(angle_between(slerp_shortest(a, b, 1.0), b) < 1e-3);
            prop_assert!(angle_between(slerp_shortest(a, b, t), slerp_shortest(b, a, 1.0 - t)) < 2e-3);
        }

        #[test]
        fn slerp_moves_at_constant_speed(a in arb_quat(), b in arb_quat(), t in 0.0f32..=1.0) {
            let total = angle_between(a, b);
            prop_assume!(total > 0.05);
            let part = angle_between(a, slerp_shortest(a, b, t));
            prop_assert!((part - t * total).abs() < 2e-3, "{part} vs {}", t * total);
        }
    }

    #[test]
    fn opposite_signs_of_one_rotation_do_not_spin() {
        let a = Quat::from_rotation_y(0.3);
        let q = slerp_shortest(a, -a, 0.5);
        assert!(angle_between(q, a) < 1e-4);
    }

    #[test]
    fn rays_meet_planes_and_axes_where_expected() {
        let hit = ray_plane(Vec3::new(0.0, 1.0, 5.0), Vec3::NEG_Z, Vec3::ZERO, Vec3::Z).unwrap();
        assert!(hit.distance(Vec3::new(0.0, 1.0, 0.0)) < 1e-6);
        assert!(
            ray_plane(Vec3::new(0.0, 1.0, 5.0), Vec3::Z, Vec3::ZERO, Vec3::Z).is_none(),
            "behind"
        );
        // A ray looking down -Z at x = 0.3 passes closest to the X axis line at x = 0.3.
        let p = ray_axis(Vec3::new(0.3, 0.2, 5.0), Vec3::NEG_Z, Vec3::ZERO, Vec3::X).unwrap();
        assert!(p.distance(Vec3::new(0.3, 0.0, 0.0)) < 1e-6);
        assert!(
            ray_axis(Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::X).is_none(),
            "parallel"
        );
        let quarter = screen_angle(glam::Vec2::X, glam::Vec2::new(0.0, -1.0));
        assert!(
            (quarter - std::f32::consts::FRAC_PI_2).abs() < 1e-6,
            "right to up is counter-clockwise"
        );
    }
}
