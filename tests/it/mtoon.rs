//! MToon as VRM players draw it, in `render-png` stills on lavapipe: toon shading with
//! the shade colour on the side away from the light, the outline hull around the
//! silhouette, VRM 0.x MToon converted to the same look as VRM 1.0's, and emission-only
//! MToon that glows instead of coming out black.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::*;

fn still(model: &Path, size: &str, dir: &Path) -> image::RgbaImage {
    let pose = dir.join("rest.json");
    std::fs::write(&pose, json!({"bones": {}}).to_string()).unwrap();
    render_png(
        model,
        &pose,
        &model.with_extension("png"),
        &["--size", size],
    )
}

/// Every VRM 1.0 MToon material of a model changed the same way.
fn each_mtoon(root: &mut Value, change: impl Fn(&mut Value)) {
    for material in root["materials"].as_array_mut().unwrap() {
        change(&mut material["extensions"]["VRMC_materials_mtoon"]);
    }
}

/// Every VRM 0.x MToon property block changed the same way.
fn each_v0_mtoon(root: &mut Value, change: impl Fn(&mut Value)) {
    for props in root["extensions"]["VRM"]["materialProperties"]
        .as_array_mut()
        .unwrap()
    {
        change(props);
    }
}

fn pixels(img: &image::RgbaImage) -> impl Iterator<Item = (u32, u32, [u8; 4])> + '_ {
    img.enumerate_pixels().map(|(x, y, p)| (x, y, p.0))
}

fn pure_red(p: [u8; 4]) -> bool {
    p[3] > 200 && p[0] > 200 && p[1] < 70 && p[2] < 70
}

#[test]
fn mtoon_draws_shade_on_the_unlit_side_and_an_outline_around_the_figure() {
    if !required_or_skip("a Vulkan driver (mesa-vulkan-drivers)", have_vulkan()) {
        return;
    }
    let dir = scratch("mtoon-shade-outline");
    let model = test_avatar(&dir, "a.vrm", false, &["--texture-size", "64"]);
    // A blue shade and no outline; then the same with a red outline 1 cm wide.
    let blue_shade = |m: &mut Value| {
        m["shadeColorFactor"] = json!([0.0, 0.0, 1.0]);
        m.as_object_mut().unwrap().remove("shadeMultiplyTexture");
    };
    let plain = edited_glb(&model, dir.join("plain.vrm"), |root| {
        each_mtoon(root, |m| {
            blue_shade(m);
            m["outlineWidthMode"] = json!("none");
        })
    });
    let outlined = edited_glb(&model, dir.join("outlined.vrm"), |root| {
        each_mtoon(root, |m| {
            blue_shade(m);
            m["outlineWidthMode"] = json!("worldCoordinates");
            m["outlineWidthFactor"] = json!(0.01);
            m["outlineColorFactor"] = json!([1.0, 0.0, 0.0]);
            m["outlineLightingMixFactor"] = json!(0.0);
        })
    });
    let plain = still(&plain, "384x512", &dir);
    let outlined = still(&outlined, "384x512", &dir);

    // Toon shading: the shade colour covers part of the figure, on the side away from
    // the key light, which shines from above: along the outstretched arms (columns
    // where the figure is thin) it lies on their undersides.
    let opaque = |p: [u8; 4]| p[3] == 255;
    let shade = |p: [u8; 4]| opaque(p) && p[2] > 150 && p[0] < 90 && p[1] < 90;
    let figure = pixels(&plain).filter(|(_, _, p)| opaque(*p)).count();
    let shaded = pixels(&plain).filter(|(_, _, p)| shade(*p)).count();
    assert!(figure > 5000, "the figure is drawn ({figure})");
    let share = shaded as f64 / figure as f64;
    assert!(
        (0.01..0.5).contains(&share),
        "{:.1}% of the figure in the shade colour",
        share * 100.0
    );
    let (mut arm_shade, mut underneath) = (0, 0);
    for x in 0..plain.width() {
        let column: Vec<u32> = (0..plain.height())
            .filter(|&y| opaque(plain.get_pixel(x, y).0))
            .collect();
        let (Some(&top), Some(&bottom)) = (column.first(), column.last()) else {
            continue;
        };
        if bottom - top > 40 {
            continue; // the torso, legs or head
        }
        for &y in &column {
            if shade(plain.get_pixel(x, y).0) {
                arm_shade += 1;
                underneath += (2 * y > top + bottom) as u32;
            }
        }
    }
    assert!(arm_shade > 50, "shade on the arms ({arm_shade} px)");
    assert!(
        underneath as f64 > 0.8 * arm_shade as f64,
        "{underneath} of {arm_shade} shaded arm pixels are on the underside"
    );
    assert_eq!(
        pixels(&plain).filter(|(_, _, p)| pure_red(*p)).count(),
        0,
        "no outline when its mode is none"
    );

    // The outline: a red ring, nearly all of it outside the plain silhouette.
    let ring: Vec<(u32, u32)> = pixels(&outlined)
        .filter(|(_, _, p)| pure_red(*p))
        .map(|(x, y, _)| (x, y))
        .collect();
    assert!(
        ring.len() > 800,
        "an outline ring ({} red pixels)",
        ring.len()
    );
    let outside = ring
        .iter()
        .filter(|&&(x, y)| plain.get_pixel(x, y)[3] == 0)
        .count();
    assert!(
        outside as f64 > 0.8 * ring.len() as f64,
        "{outside} of {} outline pixels lie outside the figure",
        ring.len()
    );
    let covered = |img: &image::RgbaImage| pixels(img).filter(|(_, _, p)| p[3] > 0).count();
    assert!(
        covered(&outlined) > covered(&plain),
        "the outline widens the silhouette"
    );
}

#[test]
fn a_vrm0_mtoon_avatar_looks_like_its_vrm1_twin() {
    if !required_or_skip("a Vulkan driver (mesa-vulkan-drivers)", have_vulkan()) {
        return;
    }
    let dir = scratch("mtoon-v0-v1");
    let v1 = test_avatar(&dir, "a1.vrm", false, &["--texture-size", "64"]);
    let v0 = test_avatar(&dir, "a0.vrm", true, &["--texture-size", "64"]);
    // Outlines wide enough to show, set in each version's own terms (1 cm, red).
    let v1 = edited_glb(&v1, dir.join("w1.vrm"), |root| {
        each_mtoon(root, |m| {
            m["outlineWidthFactor"] = json!(0.01);
            m["outlineColorFactor"] = json!([1.0, 0.0, 0.0]);
            m["outlineLightingMixFactor"] = json!(0.0);
        })
    });
    let v0 = edited_glb(&v0, dir.join("w0.vrm"), |root| {
        each_v0_mtoon(root, |p| {
            p["floatProperties"]["_OutlineWidth"] = json!(1.0); // centimetres
            p["floatProperties"]["_OutlineColorMode"] = json!(0.0); // fixed colour
            p["vectorProperties"]["_OutlineColor"] = json!([1.0, 0.0, 0.0, 1.0]);
        })
    });
    let (a, b) = (still(&v1, "384x512", &dir), still(&v0, "384x512", &dir));
    let (mut both, mut either, mut diff, mut red) = (0u64, 0u64, 0u64, 0u64);
    for (x, y, p) in pixels(&a) {
        let q = b.get_pixel(x, y).0;
        let (in_a, in_b) = (p[3] > 127, q[3] > 127);
        either += (in_a || in_b) as u64;
        if in_a && in_b {
            both += 1;
            diff += (0..3)
                .map(|c| (p[c] as i64 - q[c] as i64).unsigned_abs())
                .sum::<u64>();
        }
        red += (pure_red(p) && pure_red(q)) as u64;
    }
    let iou = both as f64 / either as f64;
    let mean = diff as f64 / (3 * both.max(1)) as f64;
    assert!(both > 5000, "both figures are drawn ({both} px)");
    assert!(iou >= 0.97, "silhouette IoU {iou:.3}");
    assert!(mean <= 8.0, "mean colour difference {mean:.1}/255");
    assert!(red > 500, "both have the outline ({red} px red in both)");
}

#[test]
fn emission_only_mtoon_glows_instead_of_coming_out_black() {
    if !required_or_skip("a Vulkan driver (mesa-vulkan-drivers)", have_vulkan()) {
        return;
    }
    let Some(fixtures) = fixtures() else {
        required_or_skip("../shared/fixtures", false);
        return;
    };
    let dir = scratch("mtoon-emission");
    // EmissionMigration_v0.106.0.vrm: two MToon spheres whose colour is black and whose
    // emission is 0.5 and 2.0. A red outline marks where each is drawn.
    let source = fixtures.join("vrm0/EmissionMigration_v0.106.0.vrm");
    let model = edited_glb(&source, dir.join("marked.vrm"), |root| {
        each_v0_mtoon(root, |p| {
            if p["shader"] == "VRM/MToon" {
                p["floatProperties"]["_OutlineWidthMode"] = json!(1.0);
                p["floatProperties"]["_OutlineWidth"] = json!(2.0);
                p["floatProperties"]["_OutlineColorMode"] = json!(0.0);
                p["vectorProperties"]["_OutlineColor"] = json!([1.0, 0.0, 0.0, 1.0]);
            }
        })
    });
    let img = still(&model, "512x512", &dir);
    let ring: Vec<(u32, u32)> = pixels(&img)
        .filter(|(_, _, p)| pure_red(*p))
        .map(|(x, y, _)| (x, y))
        .collect();
    assert!(
        ring.len() > 200,
        "the MToon spheres are outlined ({})",
        ring.len()
    );
    // Two rings of one size side by side: the median x parts them.
    let mut xs: Vec<u32> = ring.iter().map(|p| p.0).collect();
    xs.sort_unstable();
    let split = xs[xs.len() / 2];
    let mut interiors = Vec::new();
    for side in [true, false] {
        let part: Vec<&(u32, u32)> = ring.iter().filter(|p| (p.0 < split) == side).collect();
        let n = part.len() as f64;
        let (cx, cy) = (
            part.iter().map(|p| p.0 as f64).sum::<f64>() / n,
            part.iter().map(|p| p.1 as f64).sum::<f64>() / n,
        );
        let r = part
            .iter()
            .map(|p| ((p.0 as f64 - cx).powi(2) + (p.1 as f64 - cy).powi(2)).sqrt())
            .sum::<f64>()
            / n;
        let inside: Vec<[u8; 4]> = pixels(&img)
            .filter(|&(x, y, _)| {
                ((x as f64 - cx).powi(2) + (y as f64 - cy).powi(2)).sqrt() < 0.6 * r
            })
            .map(|(_, _, p)| p)
            .collect();
        let mean = inside.iter().map(|p| p[0] as f64).sum::<f64>() / inside.len() as f64;
        interiors.push(mean);
    }
    interiors.sort_by(f64::total_cmp);
    // Emission 0.5 (gamma space: 0.22 linear, about 128 on screen) and 2.0 (white).
    assert!(
        interiors[0] > 90.0,
        "the dimmer sphere glows ({:.0}), black before",
        interiors[0]
    );
    assert!(
        interiors[1] > 235.0,
        "the brighter one is white ({:.0})",
        interiors[1]
    );
}
