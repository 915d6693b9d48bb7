//! VMD (MikuMikuDance motion) in: files written here by the format's published layout
//! (no outside VMD writer runs on this machine), imported through the CLI onto VRM 1.0
//! and 0.x mannequins and the VRoid-scale avatar. What each limb should do is worked out
//! here from MMD's rules (keys are turns from rest, arms rest 35–40° down, the curve on
//! a key shapes the span ending at it, leg IK holds the feet), not from our importer.

use std::f64::consts::PI;
use std::path::Path;

use bevy::math::{DQuat, DVec3};
use serde_json::Value;

use crate::common::*;
use crate::motion_capture::{angle, world_at};

/// A Bézier curve's handles (x1, y1, x2, y2 in 0–127).
type Curve = [u8; 4];
const LINEAR: Curve = [20, 20, 107, 107];
const EASE_IN: Curve = [127, 0, 127, 127];

/// A VMD writer of the published layout, for the tests.
#[derive(Default)]
pub(crate) struct VmdFile {
    bones: Vec<(String, u32, [f32; 3], DQuat, Curve)>,
    morphs: Vec<(String, u32, f32)>,
    cameras: u32,
    lights: u32,
    /// (frame, [(IK bone, on)]).
    ik: Vec<(u32, Vec<(String, bool)>)>,
}

fn shift_jis(text: &str, width: usize) -> Vec<u8> {
    let (bytes, _, unmappable) = encoding_rs::SHIFT_JIS.encode(text);
    assert!(!unmappable, "{text}");
    let mut out = bytes.into_owned();
    assert!(out.len() <= width, "{text} is too long for {width} bytes");
    out.resize(width, 0);
    out
}

impl VmdFile {
    /// A bone key: the position offset from rest and the turn from rest (MMD's axes).
    pub(crate) fn bone(
        &mut self,
        name: &str,
        frame: u32,
        position: [f32; 3],
        turn: DQuat,
        curve: Curve,
    ) {
        self.bones.push((name.into(), frame, position, turn, curve));
    }

    pub(crate) fn morph(&mut self, name: &str, frame: u32, weight: f32) {
        self.morphs.push((name.into(), frame, weight));
    }

    pub(crate) fn bytes(&self) -> Vec<u8> {
        let mut out = shift_jis("Vocaloid Motion Data 0002", 30);
        out.extend(shift_jis("テストモデル", 20));
        out.extend((self.bones.len() as u32).to_le_bytes());
        for (name, frame, p, q, curve) in &self.bones {
            out.extend(shift_jis(name, 15));
            out.extend(frame.to_le_bytes());
            for v in [
                p[0], p[1], p[2], q.x as f32, q.y as f32, q.z as f32, q.w as f32,
            ] {
                out.extend(v.to_le_bytes());
            }
            // X, Y, Z and R interleaved: x1 ×4, y1 ×4, x2 ×4, y2 ×4, then the same
            // shifted three more times, as MMD writes them.
            let mut block = [0u8; 16];
            for (k, handle) in curve.iter().enumerate() {
                block[k * 4..k * 4 + 4].fill(*handle);
            }
            for shift in 0..4 {
                out.extend(&block[shift..]);
                out.extend(std::iter::repeat_n(0u8, shift));
            }
        }
        out.extend((self.morphs.len() as u32).to_le_bytes());
        for (name, frame, weight) in &self.morphs {
            out.extend(shift_jis(name, 15));
            out.extend(frame.to_le_bytes());
            out.extend(weight.to_le_bytes());
        }
        out.extend(self.cameras.to_le_bytes());
        for frame in 0..self.cameras {
            out.extend(frame.to_le_bytes());
            out.extend([0u8; 57]);
        }
        out.extend(self.lights.to_le_bytes());
        for frame in 0..self.lights {
            out.extend(frame.to_le_bytes());
            out.extend([0u8; 24]);
        }
        out.extend(0u32.to_le_bytes()); // self-shadow
        out.extend((self.ik.len() as u32).to_le_bytes());
        for (frame, switches) in &self.ik {
            out.extend(frame.to_le_bytes());
            out.push(1);
            out.extend((switches.len() as u32).to_le_bytes());
            for (name, on) in switches {
                out.extend(shift_jis(name, 20));
                out.push(*on as u8);
            }
        }
        out
    }
}

/// Where a VMD curve is at `progress`, solved here by Newton's method (the importer
/// bisects).
fn curve_at(curve: Curve, progress: f64) -> f64 {
    let [x1, y1, x2, y2] = curve.map(|h| h as f64 / 127.0);
    let cubic = |a: f64, b: f64, t: f64| {
        3.0 * (1.0 - t).powi(2) * t * a + 3.0 * (1.0 - t) * t * t * b + t.powi(3)
    };
    let slope = |a: f64, b: f64, t: f64| {
        3.0 * (1.0 - t).powi(2) * a + 6.0 * (1.0 - t) * t * (b - a) + 3.0 * t * t * (1.0 - b)
    };
    let mut t = progress;
    for _ in 0..50 {
        let d = slope(x1, x2, t);
        if d.abs() < 1e-9 {
            break;
        }
        t = (t - (cubic(x1, x2, t) - progress) / d).clamp(0.0, 1.0);
    }
    cubic(y1, y2, t)
}

/// The MMD standard model's arm rest, below the horizontal (the importer's skeleton
/// says 35–40°; the figure).
const ARM_DOWN: f64 = 37.0;

fn dance() -> VmdFile {
    let z = |deg: f64| DQuat::from_rotation_z(deg.to_radians());
    let mut vmd = VmdFile::default();
    // The left arm lifts level over a second (linear) while its forearm bends down in
    // the arm's own plane under an ease-in curve.
    vmd.bone("左腕", 0, [0.0; 3], DQuat::IDENTITY, LINEAR);
    vmd.bone("左腕", 30, [0.0; 3], z(ARM_DOWN), LINEAR);
    vmd.bone("左ひじ", 0, [0.0; 3], DQuat::IDENTITY, LINEAR);
    vmd.bone("左ひじ", 30, [0.0; 3], z(-60.0), EASE_IN);
    // The right forearm swings forward (−Z in MMD) about the vertical over two seconds.
    vmd.bone("右ひじ", 0, [0.0; 3], DQuat::IDENTITY, LINEAR);
    vmd.bone(
        "右ひじ",
        60,
        [0.0; 3],
        DQuat::from_rotation_y(-PI / 2.0),
        LINEAR,
    );
    // Then the upper body leans back 20° (+X turns MMD's +Y towards +Z, its back).
    vmd.bone("上半身", 60, [0.0; 3], DQuat::IDENTITY, LINEAR);
    vmd.bone(
        "上半身",
        90,
        [0.0; 3],
        DQuat::from_rotation_x(20f64.to_radians()),
        LINEAR,
    );
    // The centre sinks 2 units and comes 3 forward; the left foot steps up and forward
    // (full-width ＩＫ as MMD names it), the right foot's IK stays put.
    vmd.bone("センター", 0, [0.0; 3], DQuat::IDENTITY, LINEAR);
    vmd.bone("センター", 60, [0.0, -2.0, -3.0], DQuat::IDENTITY, LINEAR);
    vmd.bone("左足ＩＫ", 0, [0.0; 3], DQuat::IDENTITY, LINEAR);
    vmd.bone("左足ＩＫ", 30, [0.0, 3.0, -2.0], DQuat::IDENTITY, LINEAR);
    // A bone no standard skeleton has.
    vmd.bone("スカート前", 10, [0.0; 3], DQuat::IDENTITY, LINEAR);
    // The mouth opens over 20 frames; one blink, at frame 40 only; a brow morph VRM lacks.
    vmd.morph("あ", 0, 0.0);
    vmd.morph("あ", 20, 1.0);
    for (frame, weight) in [(37, 0.0), (40, 1.0), (43, 0.0)] {
        vmd.morph("まばたき", frame, weight);
    }
    vmd.morph("眉上", 5, 1.0);
    vmd.cameras = 2;
    vmd.lights = 1;
    vmd.ik = vec![(
        0,
        vec![("左足ＩＫ".into(), true), ("右足ＩＫ".into(), true)],
    )];
    vmd
}

fn elevation(v: DVec3) -> f64 {
    v.normalize().y.asin().to_degrees()
}

#[test]
fn an_mmd_dance_moves_each_limb_as_mmd_turns_it_on_vrm1_vrm0_and_a_vroid_scale_avatar() {
    let work = scratch("motion-vmd");
    let (vrm1, vrm0) = mannequins(&work);
    let vroid = test_avatar(&work, "vroid.vrm", false, &[]);
    let file = work.join("ダンス.vmd");
    std::fs::write(&file, dance().bytes()).unwrap();
    let times: Vec<f64> = (0..=90).map(|f| f as f64 / 30.0).collect();
    for model in [&vrm1, &vrm0, &vroid] {
        let name = model.file_name().unwrap().to_string_lossy().into_owned();
        let project = work.join(format!("{name}.json"));
        let facts = import_anim(model, &file, &project);
        let notes = facts["warnings"].to_string();
        for said in ["スカート前", "眉上", "camera", "light"] {
            assert!(notes.contains(said), "{name}: {said} in {notes}");
        }
        let mapped = facts["mapping"]["mapped"].as_array().unwrap();
        assert!(
            mapped
                .iter()
                .any(|p| p["bone"] == "leftUpperArm" && p["joint"] == "左腕"),
            "{facts}"
        );
        let world = world_at(model, &project, &times);
        let at = |f: usize, bone: &str| world[f][bone];

        // The left arm: 37° down at rest, level at frame 30, linearly between; its
        // forearm bends down under the ease-in curve.
        let mut errors = Vec::new();
        for f in 0..=30 {
            let upper = at(f, "leftLowerArm") - at(f, "leftUpperArm");
            let fore = at(f, "leftHand") - at(f, "leftLowerArm");
            let lift = ARM_DOWN * f as f64 / 30.0;
            errors.push((elevation(upper) - (lift - ARM_DOWN)).abs());
            let bend = 60.0 * curve_at(EASE_IN, f as f64 / 30.0);
            errors.push((angle(upper, fore) - bend).abs());
            // In the arm's plane: no forward or backward swing.
            errors.push(fore.normalize().z.asin().to_degrees().abs());
        }
        // The right forearm from 37° down and out to 37° down and forward (+Z).
        let (s, c) = (ARM_DOWN.to_radians().sin(), ARM_DOWN.to_radians().cos());
        for f in [0, 30, 60] {
            let turn = -PI / 2.0 * f as f64 / 60.0;
            let way = DQuat::from_rotation_y(turn) * DVec3::new(-c, -s, 0.0);
            let expected = DVec3::new(way.x, way.y, -way.z);
            let fore = at(f, "rightHand") - at(f, "rightLowerArm");
            errors.push(angle(fore, expected));
        }
        errors.sort_by(f64::total_cmp);
        let median = errors[errors.len() / 2];
        let worst = errors[errors.len() - 1];
        assert!(
            median < 1.0 && worst < 3.0,
            "{name}: median {median:.2}°, worst {worst:.2}°"
        );

        // The upper body leans back 20° between frames 60 and 90.
        let torso = |f: usize| at(f, "neck") - at(f, "spine");
        let lean = angle(torso(60), torso(90));
        assert!((lean - 20.0).abs() < 2.0, "{name}: leaned {lean:.1}°");
        assert!(
            torso(90).normalize().z < torso(60).normalize().z - 0.2,
            "{name}: backwards"
        );

        // The centre's travel, scaled by hips heights: down 2 and forward 3 units.
        let rest_hips = at(0, "hips");
        let travel = at(60, "hips") - rest_hips;
        let scale = rest_hips.y / (12.0 * 0.08);
        let expected = DVec3::new(0.0, -0.16, 0.24) * scale;
        assert!(
            (travel - expected).length() < 0.15 * expected.length(),
            "{name}: {travel} vs {expected}"
        );
        // The left foot steps up and forward; the right one, held by its IK, stays
        // while the hips move, its knee bending forward.
        let step = at(30, "leftFoot") - at(0, "leftFoot");
        assert!(
            step.y > 0.12 * scale && step.z > 0.08 * scale,
            "{name}: {step}"
        );
        let slide = (at(60, "rightFoot") - at(0, "rightFoot")).length();
        assert!(
            slide < 0.2 * travel.length(),
            "{name}: the right foot slid {slide:.3} m"
        );
        let (hip, knee, ankle) = (
            at(60, "rightUpperLeg"),
            at(60, "rightLowerLeg"),
            at(60, "rightFoot"),
        );
        let line = (ankle - hip).normalize();
        let off = (knee - hip) - line * (knee - hip).dot(line);
        assert!(
            off.z > 0.01 * scale,
            "{name}: the knee bends forward ({off})"
        );

        // The face: the mouth half open at frame 10, the one-frame blink kept at 40.
        let sampled = sample_project(
            model,
            &project,
            &[10.0 / 30.0, 40.0 / 30.0, 50.0 / 30.0],
            &[],
        );
        let weight = |k: usize, e: &str| sampled[k]["pose"]["expr"][e].as_f64().unwrap_or(0.0);
        assert!((weight(0, "aa") - 0.5).abs() < 0.05, "{name}: {sampled}");
        assert!(
            weight(1, "blink") > 0.95 && weight(2, "blink") < 0.05,
            "{name}: {sampled}"
        );
        // Reduced keys, not one per frame.
        let keys =
            serde_json::from_slice::<Value>(&std::fs::read(&project).unwrap()).unwrap()["keys"]
                .as_array()
                .unwrap()
                .len();
        assert!(keys < 60, "{name}: {keys} keys for 91 frames");
        eprintln!(
            "{name}: limbs median {median:.2}°, worst {worst:.2}°; lean {lean:.1}°; hips {travel:.3} vs {expected:.3}; right foot slid {slide:.3} m; {keys} keys"
        );
    }
}

#[test]
fn turning_the_leg_ik_off_plays_the_leg_as_keyed() {
    let work = scratch("motion-vmd-ik-off");
    let (vrm1, _) = mannequins(&work);
    let mut vmd = VmdFile::default();
    // The thigh swings forward 45° by its own key; the IK bone stays at rest.
    vmd.bone("左足", 0, [0.0; 3], DQuat::IDENTITY, LINEAR);
    vmd.bone(
        "左足",
        30,
        [0.0; 3],
        DQuat::from_rotation_x(PI / 4.0),
        LINEAR,
    );
    let results: Vec<DVec3> = [true, false]
        .iter()
        .map(|&on| {
            vmd.ik = vec![(0, vec![("左足ＩＫ".into(), on)])];
            let file = work.join(format!("ik-{on}.vmd"));
            std::fs::write(&file, vmd.bytes()).unwrap();
            let project = work.join(format!("ik-{on}.json"));
            import_anim(&vrm1, &file, &project);
            let world = world_at(&vrm1, &project, &[1.0]);
            world[0]["leftLowerLeg"] - world[0]["leftUpperLeg"]
        })
        .collect();
    // With IK on, the foot is held at rest: the thigh stays down.
    assert!(angle(results[0], DVec3::NEG_Y) < 5.0, "{}", results[0]);
    // Off, the thigh swings 45° forward (MMD's −Z, the rig's +Z).
    let swung = angle(results[1], DVec3::NEG_Y);
    assert!(
        (swung - 45.0).abs() < 3.0 && results[1].z > 0.0,
        "{swung}° {}",
        results[1]
    );
}

#[test]
fn hostile_vmd_files_are_refused_in_one_line_and_nothing_is_written() {
    let work = scratch("motion-vmd-hostile");
    let (vrm1, _) = mannequins(&work);
    let good = dance().bytes();
    let mut huge_count = good[..50].to_vec();
    huge_count.extend(u32::MAX.to_le_bytes());
    let mut nan = good.clone();
    nan[50 + 4 + 15 + 4..50 + 4 + 15 + 8].copy_from_slice(&f32::NAN.to_le_bytes());
    let mut far = VmdFile::default();
    far.bone("頭", 1_000_000_000, [0.0; 3], DQuat::IDENTITY, LINEAR);
    let camera = VmdFile {
        cameras: 3,
        ..VmdFile::default()
    };
    let cases: [(&str, Vec<u8>, &str); 6] = [
        ("count", huge_count, "claims 4294967295 bone keys"),
        ("truncated", good[..52].to_vec(), "ends at byte 52"),
        ("nan", nan, "not finite"),
        ("far", far.bytes(), "a timeline holds at most"),
        ("camera", camera.bytes(), "camera motion"),
        ("text", b"Vocaloid? no, a text file".to_vec(), "not a VMD"),
    ];
    for (name, bytes, said) in cases {
        let file = work.join(format!("{name}.vmd"));
        std::fs::write(&file, bytes).unwrap();
        let project = work.join(format!("{name}.json"));
        let out = run(&[
            "import-anim",
            "--model",
            vrm1.to_str().unwrap(),
            "--anim",
            file.to_str().unwrap(),
            "-o",
            project.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(stderr.contains(said), "{name}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{name}: {stderr}");
        assert!(!project.exists(), "{name}");
    }
}

/// A VMD written here, kept for the Windows test.
pub(crate) fn write_dance(dir: &Path) -> std::path::PathBuf {
    let file = dir.join("ダンス.vmd");
    std::fs::write(&file, dance().bytes()).unwrap();
    file
}
