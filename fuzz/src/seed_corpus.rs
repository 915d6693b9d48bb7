//! Writes a starting corpus for each fuzz target into the folder given as the first
//! argument (`<dir>/<target>/…`): valid inputs made by our own code, so the fuzzer
//! starts from files that get deep into each reader.

use std::path::Path;

use serde_json::json;
use vrma_core::animation::edit::{Edit, Editor, KeyEdit, PoseEdit};
use vrma_core::animation::timeline::Ease;
use vrma_core::body::pose::PoseDirections;
use vrma_core::model::humanoid::Side;
use vrma_core::model::mannequin::{self, MannequinVariant};

fn write(dir: &Path, target: &str, name: &str, bytes: &[u8]) {
    let dir = dir.join(target);
    std::fs::create_dir_all(&dir).expect("corpus folder");
    std::fs::write(dir.join(name), bytes).expect("corpus file");
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: seed_corpus DIR");
    let dir = Path::new(&dir);
    let vrm1 = mannequin::build(MannequinVariant::Vrm1);
    let vrm0 = mannequin::build(MannequinVariant::Vrm0);
    write(dir, "vrm_model", "mannequin-1.0.vrm", &vrm1);
    write(dir, "vrm_model", "mannequin-0.x.vrm", &vrm0);

    // A posed editor with keys, eases, expressions and hips motion.
    let rig = vrma_core::body::rig::rig_from_bytes(&vrm1).expect("mannequin");
    let directions = PoseDirections::measure(&rig);
    let mut editor = Editor::new(rig.clone());
    let mut pose = editor.pose.clone();
    directions.arms_down(&mut pose);
    directions.grip(&mut pose, Side::Left, 0.7);
    pose.expressions.insert("happy".into(), 0.8);
    pose.hips = Some(rig.hips_rest() + glam::Vec3::new(0.05, -0.1, 0.0));
    for (t, ease) in [(0.0, Ease::Linear), (0.5, Ease::InOut), (1.0, Ease::Hold)] {
        editor.apply(Edit::Seek(t)).unwrap();
        editor
            .apply(Edit::Pose(PoseEdit::SetPose(Box::new(pose.mirrored()))))
            .unwrap();
        editor.apply(Edit::Keys(KeyEdit::Add)).unwrap();
        editor.apply(Edit::Keys(KeyEdit::SetEase(ease))).unwrap();
        pose = pose.mirrored();
    }
    let pose_json = serde_json::to_vec_pretty(&pose.to_json("mannequin")).unwrap();
    write(dir, "pose_json", "posed.json", &pose_json);
    write(dir, "pose_json", "rest.json", br#"{"v":1,"bones":{}}"#);

    let project = editor.project(None);
    let project_json = serde_json::to_vec_pretty(&project.to_json()).unwrap();
    write(dir, "project_json", "three-keys.json", &project_json);

    let (vrma, _) = vrma_core::formats::vrma::export::export_vrma(
        &rig,
        &editor.timeline,
        &editor.pose,
        editor.settings.fps,
        &mut |_| {},
    );
    write(dir, "vrma_import", "three-keys.vrma", &vrma);

    // A BVH of two joints and two frames, Mixamo-named.
    let bvh = "HIERARCHY\nROOT mixamorig:Hips\n{\n  OFFSET 0 90 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n  JOINT mixamorig:Spine\n  {\n    OFFSET 0 10 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n    End Site\n    {\n      OFFSET 0 20 0\n    }\n  }\n}\nMOTION\nFrames: 2\nFrame Time: 0.0333333\n0 90 0 0 0 0 0 0 0\n1 91 0 5 0 0 10 0 0\n";
    write(dir, "bvh", "two-joints.bvh", bvh.as_bytes());

    // A VMD: two keys of the left arm, one of the left leg IK, a morph key, a camera key
    // and an IK switch (names in Shift-JIS, as MMD writes them).
    let mut vmd = b"Vocaloid Motion Data 0002".to_vec();
    vmd.resize(50, 0);
    let name15 = |bytes: &[u8]| {
        let mut n = bytes.to_vec();
        n.resize(15, 0);
        n
    };
    let left_arm: &[u8] = &[141, 182, 152, 114];
    let left_leg_ik: &[u8] = &[141, 182, 145, 171, 130, 104, 130, 106];
    vmd.extend(3u32.to_le_bytes());
    for (name, frame, y, qz) in [
        (left_arm, 0u32, 0.0f32, 0.0f32),
        (left_arm, 10, 0.0, 0.3),
        (left_leg_ik, 5, 2.0, 0.0),
    ] {
        vmd.extend(name15(name));
        vmd.extend(frame.to_le_bytes());
        for v in [0.0, y, 0.0, 0.0, 0.0, qz, (1.0 - qz * qz).sqrt()] {
            vmd.extend(v.to_le_bytes());
        }
        vmd.extend([20u8; 32]);
        vmd.extend([107u8; 32]);
    }
    vmd.extend(1u32.to_le_bytes());
    vmd.extend(name15(&[130, 160]));
    vmd.extend(4u32.to_le_bytes());
    vmd.extend(1.0f32.to_le_bytes());
    vmd.extend(1u32.to_le_bytes());
    vmd.extend([0u8; 61]);
    vmd.extend(0u32.to_le_bytes()); // lights
    vmd.extend(0u32.to_le_bytes()); // shadows
    vmd.extend(1u32.to_le_bytes()); // IK switches
    vmd.extend(8u32.to_le_bytes());
    vmd.push(1);
    vmd.extend(1u32.to_le_bytes());
    let mut ik_name = left_leg_ik.to_vec();
    ik_name.resize(20, 0);
    vmd.extend(ik_name);
    vmd.push(0);
    write(dir, "vmd", "arm-leg-mouth.vmd", &vmd);

    // A short H.264 MP4 of a square moving over grey, by our own film writer.
    let film_dir = std::env::temp_dir().join(format!("seed-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&film_dir).expect("scratch folder");
    let film = film_dir.join("square.mp4");
    let settings = vrma_media::FilmSettings {
        width: 32,
        height: 24,
        fps: 10,
        frames: 3,
        loop_count: 0,
        background: Some([90, 90, 90]),
    };
    let mut writer = vrma_media::open(&film, &settings).expect("a film writer");
    for i in 0..3 {
        let mut rgba = vec![0u8; 32 * 24 * 4];
        for p in rgba.chunks_exact_mut(4).skip(i * 40).take(60) {
            p.copy_from_slice(&[250, 200, 40, 255]);
        }
        writer.push(&rgba).expect("a frame");
    }
    writer.finish().expect("the film");
    write(
        dir,
        "video",
        "square.mp4",
        &std::fs::read(&film).expect("the film"),
    );
    let _ = std::fs::remove_dir_all(&film_dir);

    // An ASCII FBX of two limb nodes, one take animating the spine (ufbx reads both
    // ASCII and binary; the fuzzer finds its way to the binary form from the header).
    let fbx = concat!(
        "; FBX 7.4.0 project file\n",
        "FBXHeaderExtension:  {\n FBXHeaderVersion: 1003\n FBXVersion: 7400\n}\n",
        "GlobalSettings:  {\n Version: 1000\n Properties70:  {\n",
        "  P: \"UpAxis\", \"int\", \"Integer\", \"\",1\n",
        "  P: \"UnitScaleFactor\", \"double\", \"Number\", \"\",1\n }\n}\n",
        "Objects:  {\n",
        " Model: 1, \"Model::mixamorig:Hips\", \"LimbNode\" {\n  Version: 232\n  Properties70:  {\n",
        "   P: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",0,90,0\n  }\n }\n",
        " Model: 2, \"Model::mixamorig:Spine\", \"LimbNode\" {\n  Version: 232\n  Properties70:  {\n",
        "   P: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",0,10,0\n  }\n }\n",
        " AnimationStack: 3, \"AnimStack::Take 001\", \"\" {\n  Properties70:  {\n",
        "   P: \"LocalStop\", \"KTime\", \"Time\", \"\",46186158000\n  }\n }\n",
        " AnimationLayer: 4, \"AnimLayer::BaseLayer\", \"\" {\n }\n",
        " AnimationCurveNode: 5, \"AnimCurveNode::R\", \"\" {\n  Properties70:  {\n",
        "   P: \"d|X\", \"Number\", \"\", \"A\",0\n  }\n }\n",
        " AnimationCurve: 6, \"AnimCurve::\", \"\" {\n  Default: 0\n  KeyVer: 4009\n",
        "  KeyTime: *2 {\n   a: 0,46186158000\n  }\n  KeyValueFloat: *2 {\n   a: 0,30\n  }\n",
        "  KeyAttrFlags: *1 {\n   a: 24840\n  }\n  KeyAttrDataFloat: *4 {\n   a: 0,0,0,0\n  }\n",
        "  KeyAttrRefCount: *1 {\n   a: 2\n  }\n }\n",
        "}\n",
        "Connections:  {\n C: \"OO\",1,0\n C: \"OO\",2,1\n C: \"OO\",4,3\n C: \"OO\",5,4\n",
        " C: \"OP\",5,2, \"Lcl Rotation\"\n C: \"OP\",6,5, \"d|X\"\n}\n",
    );
    write(dir, "fbx", "two-limbs.fbx", fbx.as_bytes());

    let script = json!([
        {"op": "rotate", "bone": "spine", "quat": [0.05, 0.2, 0.0, 0.98]},
        {"op": "ik", "end": "leftHand", "target": [0.3, 1.0, 0.2], "keep_angle": true},
        {"op": "pole", "chain": "leftArm", "point": [0.5, 1.2, -0.3]},
        {"op": "move_hips", "to": [0.0, 0.8, 0.0], "rotate": [0.0, 0.1, 0.0, 0.99], "pin_feet": true},
        {"op": "seek", "t": 0.5},
        {"op": "key"},
        {"op": "ease", "value": "IN-OUT"},
        {"op": "grip", "side": "right", "amount": 0.5},
        {"op": "expr", "name": "aa", "value": 0.4},
        {"op": "mirror"},
        {"op": "arms_down"},
        {"op": "seek", "t": 1.0},
        {"op": "key"},
        {"op": "move_key", "from": 1.0, "to": 1.5},
        {"op": "undo"},
        {"op": "redo"},
        {"op": "reset_bone", "bone": "spine"},
        {"op": "delete_key"},
        {"op": "reset_pose"},
        {"op": "pose", "pose": {"v": 1, "bones": {"head": [0.0, 0.3, 0.0, 0.95]}}},
        {"op": "key"},
        {"op": "select_keys", "from": 0, "to": 2},
        {"op": "move_keys", "by": 0.1},
        {"op": "scale_keys", "factor": 1.5, "pivot": 0.5},
        {"op": "ease_keys", "value": "OUT"},
        {"op": "copy_keys"},
        {"op": "paste_keys", "t": 3.0, "mirror": true},
        {"op": "duplicate_keys", "t": 6.0},
        {"op": "select_keys", "times": [3.0], "mode": "toggle"},
        {"op": "plant_foot", "foot": "leftFoot", "from": 0, "to": 1},
        {"op": "copy_pose"},
        {"op": "paste_pose", "mirror": true, "mask": "leftArm"},
        {"op": "apply_pose", "pose": {"v": 1, "bones": {"neck": [0.1, 0.0, 0.0, 0.99]}}, "mask": "head"},
        {"op": "delete_keys"}
    ]);
    write(
        dir,
        "edit_script",
        "every-op.json",
        &serde_json::to_vec_pretty(&script).unwrap(),
    );
}
