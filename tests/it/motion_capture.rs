//! BVH and FBX in, BVH out, against Blender: motion that Blender made and exported with
//! its own BVH and FBX exporters on its own rigs (T-pose and A-pose, Mixamo and Blender
//! names, rolled bones, metres and centimetres, Y- and Z-up, fingers) imported onto VRM
//! 1.0 and 0.x avatars moves each limb the way Blender's bones moved; our BVH export read
//! by Blender's importer and by a small reader written here plays as we sample it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use bevy::math::{DMat3, DQuat, DVec3};
use serde_json::Value;

use crate::common::*;

/// Blender's Python (`$VRMA_MAKER_BLENDER_PYTHON`, which scripts/test sets from
/// scripts/setup-blender, or the cache's), or `None` after saying it is missing.
pub(crate) fn blender() -> Option<PathBuf> {
    let path = std::env::var_os("VRMA_MAKER_BLENDER_PYTHON")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .map(|h| PathBuf::from(h).join(".cache/vrma-maker/bpy-venv/bin/python"))
        })
        .filter(|p| p.is_file());
    required_or_skip("Blender's bpy (scripts/setup-blender)", path.is_some()).then_some(path?)
}

pub(crate) fn run_blender(python: &Path, args: &[&str]) {
    let out = Command::new(python)
        .arg(repo().join("tests/blender/motion.py"))
        .args(args)
        .output()
        .expect("Blender's python runs");
    assert!(
        out.status.success(),
        "Blender failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The folder of Blender-made BVH files and their truth, made once per run.
fn blender_motion() -> Option<&'static Path> {
    static MADE: OnceLock<Option<PathBuf>> = OnceLock::new();
    MADE.get_or_init(|| {
        let python = blender()?;
        let dir = scratch("blender-motion");
        run_blender(&python, &[dir.to_str().unwrap()]);
        Some(dir)
    })
    .as_deref()
}

/// One of the Blender-made BVH files (see `VARIANTS`), for other tests.
pub(crate) fn blender_bvh(variant: &str) -> Option<PathBuf> {
    blender_file(&format!("{variant}.bvh"))
}

/// One of the Blender-made files by name (`mixamo_t_m.fbx`), for other tests.
pub(crate) fn blender_file(name: &str) -> Option<PathBuf> {
    Some(blender_motion()?.join(name))
}

const VARIANTS: [&str; 3] = ["mixamo_t_m", "blender_a_cm_rolled", "mixamo_a_cm_nofingers"];

/// What Blender computed: each bone's head (armature space) by "base|side|index".
struct Truth {
    frames: Vec<BTreeMap<String, DVec3>>,
    rest: BTreeMap<String, (DVec3, DVec3)>,
}

pub(crate) fn vec(v: &Value) -> DVec3 {
    DVec3::new(
        v[0].as_f64().unwrap(),
        v[1].as_f64().unwrap(),
        v[2].as_f64().unwrap(),
    )
}

fn truth(dir: &Path, variant: &str) -> Truth {
    let json: Value =
        serde_json::from_slice(&std::fs::read(dir.join(format!("{variant}.json"))).unwrap())
            .unwrap();
    let names = json["bones"].as_object().unwrap();
    let frames = json["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|frame| {
            names
                .iter()
                .map(|(key, name)| (key.clone(), vec(&frame[name.as_str().unwrap()][0])))
                .collect()
        })
        .collect();
    let rest = names
        .iter()
        .map(|(key, name)| {
            let pair = &json["rest"][name.as_str().unwrap()];
            (key.clone(), (vec(&pair[0]), vec(&pair[1])))
        })
        .collect();
    Truth { frames, rest }
}

/// Our sample's bone positions at each frame.
pub(crate) fn our_world(
    model: &Path,
    project: &Path,
    frames: usize,
) -> Vec<BTreeMap<String, DVec3>> {
    let times: Vec<f64> = (0..frames).map(|f| f as f64 / 30.0).collect();
    world_at(model, project, &times)
}

/// Our sample's bone positions at `times` (VRM 1.0 frame).
pub(crate) fn world_at(
    model: &Path,
    project: &Path,
    times: &[f64],
) -> Vec<BTreeMap<String, DVec3>> {
    sample_project(model, project, times, &["--world"])
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            s["world"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(bone, w)| (bone.clone(), vec(&w["position"])))
                .collect()
        })
        .collect()
}

/// The one rotation that best turns every `from` onto its `to` (Horn's quaternion
/// method: the top eigenvector of his 4×4 matrix, by power iteration).
pub(crate) fn best_turn(pairs: &[(DVec3, DVec3)]) -> DQuat {
    let mut s = [[0.0f64; 3]; 3];
    for (a, b) in pairs {
        let (a, b) = (a.normalize(), b.normalize());
        for (i, ai) in a.to_array().into_iter().enumerate() {
            for (j, bj) in b.to_array().into_iter().enumerate() {
                s[i][j] += ai * bj;
            }
        }
    }
    let [[xx, xy, xz], [yx, yy, yz], [zx, zy, zz]] = s;
    let n = [
        [xx + yy + zz, yz - zy, zx - xz, xy - yx],
        [yz - zy, xx - yy - zz, xy + yx, zx + xz],
        [zx - xz, xy + yx, -xx + yy - zz, yz + zy],
        [xy - yx, zx + xz, yz + zy, -xx - yy + zz],
    ];
    let shift: f64 = n.iter().flatten().map(|v| v.abs()).sum();
    let mut q = [1.0, 0.1, 0.2, 0.3];
    for _ in 0..2000 {
        let mut next = [0.0; 4];
        for i in 0..4 {
            next[i] = shift * q[i] + (0..4).map(|j| n[i][j] * q[j]).sum::<f64>();
        }
        let len = next.iter().map(|v| v * v).sum::<f64>().sqrt();
        q = next.map(|v| v / len);
    }
    DQuat::from_xyzw(q[1], q[2], q[3], q[0]).normalize()
}

pub(crate) fn angle(a: DVec3, b: DVec3) -> f64 {
    a.normalize()
        .dot(b.normalize())
        .clamp(-1.0, 1.0)
        .acos()
        .to_degrees()
}

pub(crate) fn percentile(values: &mut [f64], p: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    values[((values.len() - 1) as f64 * p).round() as usize]
}

/// (our bone, our child bone, Blender's bone, Blender's child bone).
fn limbs(fingers: bool) -> Vec<(String, String, String, String)> {
    let mut out = Vec::new();
    let mut add =
        |a: &str, b: &str, sa: String, sb: String| out.push((a.to_string(), b.to_string(), sa, sb));
    for (side, s) in [("left", "L"), ("right", "R")] {
        for (a, b, sa, sb) in [
            ("Shoulder", "UpperArm", "shoulder", "upper_arm"),
            ("UpperArm", "LowerArm", "upper_arm", "forearm"),
            ("LowerArm", "Hand", "forearm", "hand"),
            ("UpperLeg", "LowerLeg", "thigh", "shin"),
            ("LowerLeg", "Foot", "shin", "foot"),
            ("Foot", "Toes", "foot", "toe"),
        ] {
            add(
                &format!("{side}{a}"),
                &format!("{side}{b}"),
                format!("{sa}|{s}|0"),
                format!("{sb}|{s}|0"),
            );
        }
        if fingers {
            for (finger, joints, source) in [
                ("Thumb", ["Metacarpal", "Proximal", "Distal"], "thumb"),
                ("Index", ["Proximal", "Intermediate", "Distal"], "f_index"),
                ("Middle", ["Proximal", "Intermediate", "Distal"], "f_middle"),
                ("Ring", ["Proximal", "Intermediate", "Distal"], "f_ring"),
                ("Little", ["Proximal", "Intermediate", "Distal"], "f_pinky"),
            ] {
                for k in 0..2 {
                    add(
                        &format!("{side}{finger}{}", joints[k]),
                        &format!("{side}{finger}{}", joints[k + 1]),
                        format!("{source}|{s}|{}", k + 1),
                        format!("{source}|{s}|{}", k + 2),
                    );
                }
            }
        }
    }
    add("spine", "chest", "spine||0".into(), "chest||0".into());
    add("neck", "head", "neck||0".into(), "head||0".into());
    add("hips", "neck", "hips||0".into(), "neck||0".into());
    add(
        "leftUpperLeg",
        "rightUpperLeg",
        "thigh|L|0".into(),
        "thigh|R|0".into(),
    );
    out
}

/// The body's frame (across the thighs, up the torso) as a rotation.
pub(crate) fn body_turn(across: DVec3, up: DVec3) -> DQuat {
    let up = up.normalize();
    let across = (across - up * across.dot(up)).normalize();
    DQuat::from_mat3(&DMat3::from_cols(across, up, across.cross(up)))
}

#[test]
fn blender_bvh_and_fbx_move_each_limb_as_blender_moved_it_on_vrm1_and_vrm0() {
    let Some(dir) = blender_motion() else { return };
    let work = scratch("motion-accuracy");
    let (vrm1, _) = mannequins(&work);
    let vroid0 = test_avatar(&work, "vroid0.vrm", true, &[]);
    for model in [&vrm1, &vroid0] {
        for variant in VARIANTS {
            let what = format!(
                "{variant} on {}",
                model.file_name().unwrap().to_string_lossy()
            );
            let truth = truth(dir, variant);
            let project = work.join(format!("{variant}.json"));
            let facts = import_anim(model, &dir.join(format!("{variant}.bvh")), &project);
            let frames = truth.frames.len();
            assert!(
                facts["keys"].as_u64().unwrap() < frames as u64,
                "{what}: keys are reduced"
            );
            let ours = our_world(model, &project, frames);
            let fingers = variant != "mixamo_a_cm_nofingers";
            let limbs = limbs(fingers);
            // Every compared direction, per frame, ours and Blender's.
            let mut pairs = Vec::new();
            let mut finger_pairs = Vec::new();
            for (ours, truth) in ours.iter().zip(&truth.frames) {
                for (a, b, sa, sb) in &limbs {
                    let (Some(oa), Some(ob)) = (ours.get(a), ours.get(b)) else {
                        panic!("{what}: our sample lacks {a} or {b}");
                    };
                    let source = truth[sb] - truth[sa];
                    let pair = (source, *ob - *oa);
                    if a.contains("Thumb")
                        || a.contains("Index")
                        || a.contains("Middle")
                        || a.contains("Ring")
                        || a.contains("Little")
                    {
                        finger_pairs.push(pair);
                    } else {
                        pairs.push(pair);
                    }
                }
            }
            // The one fixed turn between the two skeletons' body frames, over the clip.
            let turn = best_turn(&pairs);
            let mut errors: Vec<f64> = pairs.iter().map(|(s, o)| angle(turn * *s, *o)).collect();
            let median = percentile(&mut errors, 0.5);
            let p95 = percentile(&mut errors, 0.95);
            eprintln!("{what}: limbs median {median:.2}°, p95 {p95:.2}°");
            assert!(
                median <= 2.0 && p95 <= 6.0,
                "{what}: median {median:.2}°, p95 {p95:.2}°"
            );
            if fingers {
                let mut finger_errors: Vec<f64> = finger_pairs
                    .iter()
                    .map(|(s, o)| angle(turn * *s, *o))
                    .collect();
                let p95 = percentile(&mut finger_errors, 0.95);
                eprintln!("{what}: fingers p95 {p95:.2}°");
                assert!(p95 <= 5.0, "{what}: fingers p95 {p95:.2}°");
            }
            // Turns of the body, relative to the first frame, within 5°.
            let body = |w: &BTreeMap<String, DVec3>, hips: &str, neck: &str, l: &str, r: &str| {
                body_turn(w[r] - w[l], w[neck] - w[hips])
            };
            let source_body: Vec<DQuat> = truth
                .frames
                .iter()
                .map(|w| body(w, "hips||0", "neck||0", "thigh|L|0", "thigh|R|0"))
                .collect();
            let our_body: Vec<DQuat> = ours
                .iter()
                .map(|w| body(w, "hips", "neck", "leftUpperLeg", "rightUpperLeg"))
                .collect();
            for f in 0..frames {
                let source_turn = turn * source_body[f] * source_body[0].inverse() * turn.inverse();
                let our_turn = our_body[f] * our_body[0].inverse();
                let off = source_turn.angle_between(our_turn).to_degrees();
                assert!(off <= 5.0, "{what}: frame {f} body turn off by {off:.2}°");
            }
            // Hips travel, scaled by the ratio of hips heights, within 15%.
            let lowest = truth
                .rest
                .values()
                .flat_map(|(h, t)| [h.z, t.z])
                .fold(f64::INFINITY, f64::min);
            let source_height = truth.rest["hips||0"].0.z - lowest;
            let our_height = ours[0]["hips"].y.max(0.0); // checked below against the rest
            let rest_hips = sample_project(model, &project, &[0.0], &[])[0]["pose"]["hips"].clone();
            assert!(rest_hips.is_array(), "{what}: the keys carry the hips");
            let scale = {
                let rig = vrma_maker::core::body::rig::load_rig(model).unwrap();
                rig.hips_rest().y as f64 / source_height
            };
            let mut largest: f64 = 0.0;
            let mut worst: f64 = 0.0;
            for f in 0..frames {
                let source =
                    turn * (truth.frames[f]["hips||0"] - truth.frames[0]["hips||0"]) * scale;
                let our = ours[f]["hips"] - ours[0]["hips"];
                largest = largest.max(source.length());
                worst = worst.max((source - our).length());
            }
            assert!(largest > 0.1 && our_height > 0.0, "{what}: the hips travel");
            assert!(
                worst <= 0.15 * largest,
                "{what}: hips off by {worst:.3} m of {largest:.3} m"
            );
        }
    }
}

/// A BVH reader written here, independent of ours: world head positions per frame.
fn independent_bvh_heads(text: &str) -> (Vec<String>, Vec<Vec<DVec3>>) {
    let mut names = Vec::new();
    let mut parents: Vec<Option<usize>> = Vec::new();
    let mut offsets = Vec::new();
    let mut channels: Vec<Vec<String>> = Vec::new();
    let mut stack: Vec<Option<usize>> = Vec::new();
    let mut words = text.split_whitespace();
    let mut pending_end = false;
    while let Some(w) = words.next() {
        match w {
            "ROOT" | "JOINT" => {
                names.push(words.next().unwrap().to_string());
                parents.push(stack.iter().rev().find_map(|s| *s));
                pending_end = false;
            }
            "End" => {
                words.next();
                pending_end = true;
            }
            "{" => stack.push(if pending_end {
                None
            } else {
                Some(names.len() - 1)
            }),
            "}" => {
                stack.pop();
                pending_end = false;
            }
            "OFFSET" => {
                let v: Vec<f64> = (0..3)
                    .map(|_| words.next().unwrap().parse().unwrap())
                    .collect();
                if !pending_end {
                    offsets.push(DVec3::new(v[0], v[1], v[2]));
                }
            }
            "CHANNELS" => {
                let n: usize = words.next().unwrap().parse().unwrap();
                channels.push((0..n).map(|_| words.next().unwrap().to_string()).collect());
            }
            "MOTION" => break,
            _ => {}
        }
    }
    words.next(); // Frames:
    let frames: usize = words.next().unwrap().parse().unwrap();
    words.next(); // Frame
    words.next(); // Time:
    words.next();
    let mut out = Vec::new();
    for _ in 0..frames {
        let mut world: Vec<(DVec3, DQuat)> = Vec::new();
        for j in 0..names.len() {
            let mut position = offsets[j];
            let mut rotation = DQuat::IDENTITY;
            for c in &channels[j] {
                let v: f64 = words.next().unwrap().parse().unwrap();
                match c.as_str() {
                    "Xposition" => position.x = v,
                    "Yposition" => position.y = v,
                    "Zposition" => position.z = v,
                    "Xrotation" => rotation *= DQuat::from_rotation_x(v.to_radians()),
                    "Yrotation" => rotation *= DQuat::from_rotation_y(v.to_radians()),
                    "Zrotation" => rotation *= DQuat::from_rotation_z(v.to_radians()),
                    other => panic!("channel {other}"),
                }
            }
            world.push(match parents[j] {
                Some(p) => (world[p].0 + world[p].1 * position, world[p].1 * rotation),
                None => (position, rotation),
            });
        }
        out.push(world.into_iter().map(|(p, _)| p).collect());
    }
    (names, out)
}

#[test]
fn our_bvh_plays_in_blender_and_in_an_independent_reader_as_we_sample_it() {
    let Some(dir) = blender_motion() else { return };
    let python = blender().unwrap();
    let work = scratch("motion-bvh-export");
    let (_, vrm0) = mannequins(&work);
    let project = work.join("imported.json");
    import_anim(&vrm0, &dir.join("blender_a_cm_rolled.bvh"), &project);
    let bvh = work.join("out.bvh");
    let facts = json_stdout(&run(&[
        "export-anim",
        "--model",
        vrm0.to_str().unwrap(),
        "--project",
        project.to_str().unwrap(),
        "-o",
        bvh.to_str().unwrap(),
        "--unit",
        "cm",
    ]));
    let frames = facts["frames"].as_u64().unwrap() as usize;
    assert!(frames > 30, "{facts}");
    let ours = our_world(&vrm0, &project, frames);
    let children: Vec<(String, String)> = {
        let rig = vrma_maker::core::body::rig::load_rig(&vrm0).unwrap();
        rig.order()
            .iter()
            .filter_map(|b| {
                Some((
                    rig.bone(*b)?.parent?.name().to_string(),
                    b.name().to_string(),
                ))
            })
            .filter(|(_, b)| !b.ends_with("Eye"))
            .collect()
    };

    // The reader written here: same axes (Y-up, +Z forward), centimetres.
    let (names, heads) = independent_bvh_heads(&std::fs::read_to_string(&bvh).unwrap());
    assert_eq!(heads.len(), frames);
    let index = |n: &str| names.iter().position(|x| x == n).unwrap();
    let mut worst: f64 = 0.0;
    for f in 0..frames {
        for (parent, child) in &children {
            let theirs = heads[f][index(child)] - heads[f][index(parent)];
            worst = worst.max(angle(theirs, ours[f][child] - ours[f][parent]));
        }
        let hips = heads[f][index("hips")] / 100.0;
        assert!(
            (hips - ours[f]["hips"]).length() < 1e-3,
            "frame {f}: hips {hips} vs ours"
        );
    }
    assert!(worst <= 1.0, "independent reader: worst {worst:.3}°");

    // Blender's importer: its own axes (Z-up), so one fixed turn, found over the clip.
    let read = work.join("blender-read.json");
    run_blender(
        &python,
        &["read-bvh", bvh.to_str().unwrap(), read.to_str().unwrap()],
    );
    let json: Value = serde_json::from_slice(&std::fs::read(&read).unwrap()).unwrap();
    let theirs = json["frames"].as_array().unwrap();
    assert!(theirs.len() >= frames);
    let mut pairs = Vec::new();
    for f in 0..frames {
        for (parent, child) in &children {
            let t = vec(&theirs[f][child]) - vec(&theirs[f][parent]);
            pairs.push((t, ours[f][child] - ours[f][parent]));
        }
    }
    let turn = best_turn(&pairs);
    let worst = pairs
        .iter()
        .map(|(t, o)| angle(turn * *t, *o))
        .fold(0.0, f64::max);
    assert!(worst <= 1.0, "Blender's importer: worst {worst:.3}°");
}

#[test]
fn a_user_map_drives_joints_nobody_anticipated_and_the_report_says_what_mapped() {
    let Some(dir) = blender_motion() else { return };
    let work = scratch("motion-map");
    let (vrm1, _) = mannequins(&work);
    // The same motion with its left arm renamed beyond recognition.
    let text = std::fs::read_to_string(dir.join("mixamo_t_m.bvh")).unwrap();
    let renamed = text
        .replace("mixamorig:LeftArm\n", "Jnt_A07\n")
        .replace("mixamorig:LeftForeArm\n", "Jnt_A08\n");
    let bvh = work.join("renamed.bvh");
    std::fs::write(&bvh, renamed).unwrap();
    let unmapped = import_anim(&vrm1, &bvh, &work.join("unmapped.json"));
    let missing = unmapped["mapping"]["missing_bones"].as_array().unwrap();
    assert!(missing.iter().any(|b| b == "leftUpperArm"), "{unmapped}");
    assert!(
        unmapped["mapping"]["unused_joints"]
            .as_array()
            .unwrap()
            .iter()
            .any(|j| j == "Jnt_A07")
    );
    let map = work.join("map.json");
    std::fs::write(
        &map,
        r#"{"leftUpperArm": "Jnt_A07", "leftLowerArm": "Jnt_A08"}"#,
    )
    .unwrap();
    let mapped = json_stdout(&run(&[
        "import-anim",
        "--model",
        vrm1.to_str().unwrap(),
        "--anim",
        bvh.to_str().unwrap(),
        "-o",
        work.join("mapped.json").to_str().unwrap(),
        "--map",
        map.to_str().unwrap(),
    ]));
    let pairs = mapped["mapping"]["mapped"].as_array().unwrap();
    assert!(
        pairs
            .iter()
            .any(|p| p["bone"] == "leftUpperArm" && p["joint"] == "Jnt_A07"),
        "{mapped}"
    );
    // And the mapped arm moves as the original file's does.
    let original = work.join("original.json");
    import_anim(&vrm1, &dir.join("mixamo_t_m.bvh"), &original);
    let a = our_world(&vrm1, &original, 40);
    let b = our_world(&vrm1, &work.join("mapped.json"), 40);
    for f in 0..40 {
        let d = angle(
            a[f]["leftLowerArm"] - a[f]["leftUpperArm"],
            b[f]["leftLowerArm"] - b[f]["leftUpperArm"],
        );
        assert!(d < 0.01, "frame {f}: {d}°");
    }
    // A map naming a joint the file lacks is refused in one line, nothing written.
    std::fs::write(&map, r#"{"leftUpperArm": "Nowhere"}"#).unwrap();
    let out_path = work.join("refused.json");
    let out = run(&[
        "import-anim",
        "--model",
        vrm1.to_str().unwrap(),
        "--anim",
        bvh.to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
        "--map",
        map.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Nowhere"));
    assert!(!out_path.exists());
}

#[test]
fn hostile_bvh_files_are_refused_in_one_line_and_nothing_is_written() {
    let work = scratch("motion-hostile");
    let (vrm1, _) = mannequins(&work);
    let joint = |name: &str| {
        format!("JOINT {name}\n{{\nOFFSET 0 1 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n")
    };
    let mut deep = String::from(
        "HIERARCHY\nROOT Hips\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n",
    );
    for i in 0..300 {
        deep.push_str(&joint(&format!("J{i}")));
    }
    let many = format!(
        "HIERARCHY\nROOT Hips\n{{\nOFFSET 0 0 0\nCHANNELS 0\n{}",
        (0..2000)
            .map(|i| format!("JOINT J{i}\n{{\nOFFSET 0 1 0\nCHANNELS 0\n}}\n"))
            .collect::<String>()
    );
    let small = "HIERARCHY\nROOT Hips\n{\nOFFSET 0 90 0\nCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n\
                 JOINT LeftUpLeg\n{\nOFFSET 10 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\nEnd Site\n{\nOFFSET 0 -90 0\n}\n}\n\
                 JOINT RightUpLeg\n{\nOFFSET -10 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\nEnd Site\n{\nOFFSET 0 -90 0\n}\n}\n\
                 JOINT Neck\n{\nOFFSET 0 50 0\nCHANNELS 3 Zrotation Xrotation Yrotation\nEnd Site\n{\nOFFSET 0 10 0\n}\n}\n}\nMOTION\n";
    let cases: Vec<(&str, String)> = vec![
        ("truncated", small[..small.len() / 2].to_string()),
        ("nan", format!("{small}Frames: 1\nFrame Time: 0.0333\n0 90 0 0 0 0 nan 0 0 0 0 0 0 0 0\n")),
        ("huge value", format!("{small}Frames: 1\nFrame Time: 0.0333\n0 1e38 0 0 0 0 0 0 0 0 0 0 0 0 0\n")),
        ("a billion frames claimed", format!("{small}Frames: 1000000000\nFrame Time: 0.0333\n0 90 0 0 0 0 0 0 0 0 0 0 0 0 0\n")),
        ("ten hours", format!("{small}Frames: 2\nFrame Time: 20000\n{}", "0 90 0 0 0 0 0 0 0 0 0 0 0 0 0\n".repeat(2))),
        ("too deep", deep),
        ("too many joints", many),
        ("no hips to find", "HIERARCHY\nROOT Thing\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n0 0 0\n".to_string()),
    ];
    let mut files: Vec<(&str, &str, Vec<u8>)> = cases
        .into_iter()
        .map(|(what, text)| (what, "bvh", text.into_bytes()))
        .collect();
    let mut fbx_header = b"Kaydara FBX Binary  \x00\x1a\x00".to_vec();
    fbx_header.extend_from_slice(&7400u32.to_le_bytes());
    files.push(("an FBX header alone", "fbx", fbx_header.clone()));
    fbx_header.extend(std::iter::repeat_n(0xffu8, 4096));
    files.push(("an FBX of noise", "fbx", fbx_header));
    files.push((
        "an FBX that is text",
        "fbx",
        b"; FBX 7.4.0 project file\nFBXHeaderExtension: {".to_vec(),
    ));
    if let Some(dir) = blender_motion() {
        let whole = std::fs::read(dir.join("mixamo_t_m.fbx")).unwrap();
        files.push(("a truncated FBX", "fbx", whole[..whole.len() / 3].to_vec()));
    }
    for (what, extension, bytes) in files {
        let bvh = work.join(format!("hostile.{extension}"));
        std::fs::write(&bvh, bytes).unwrap();
        let out_path = work.join("never.json");
        let out = run(&[
            "import-anim",
            "--model",
            vrm1.to_str().unwrap(),
            "--anim",
            bvh.to_str().unwrap(),
            "-o",
            out_path.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{what}: {stderr}");
        assert!(!stderr.contains("panicked"), "{what}: {stderr}");
        assert!(!out_path.exists(), "{what}");
    }
}
