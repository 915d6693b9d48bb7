//! Our keys inside our own VRMA (SPEC §11 lossless round trip): the animation's `extras`
//! carry the keys, eases, planted spans and frame rate, which players ignore; importing
//! such a file restores them exactly instead of baking the sampled tracks into keys.

use glam::Vec3;
use serde_json::{Value, json};

use crate::Refusal;
use crate::animation::project::FPS_RANGE;
use crate::animation::timeline::{Key, Plant, Timeline};
use crate::num;

/// The field of `animations[0].extras` that holds them.
pub const KEY: &str = "vrmaMaker";

/// The most keys read back from a file (an hour at 30 fps).
pub const MAX_KEYS: usize = 108_001;

/// What the extras write: `{v, fps, duration, hips_rest, keys, plants}`.
pub fn write(timeline: &Timeline, fps: f32, hips_rest: Vec3) -> Value {
    let keys: Vec<Value> = timeline.keys().iter().map(|k| k.to_json()).collect();
    json!({
        "v": 1,
        "fps": num(fps),
        "duration": num(timeline.end()),
        "hips_rest": [num(hips_rest.x), num(hips_rest.y), num(hips_rest.z)],
        "keys": keys,
        "plants": Plant::list_json(timeline.plants()),
    })
}

/// The keys a VRMA's extras carry, for a model whose rest hips are at
/// `target_hips_rest` (hips positions scaled by the rest heights' ratio, as the baked
/// import and three-vrm-animation scale them), and the frame rate it was exported at.
/// `None` when the file has no such extras, or when they do not describe this
/// animation (`animation_end`: its last sampled time) — then the tracks are baked as
/// for any VRMA, with a warning when the extras were there but unusable.
pub fn read(
    root: &Value,
    animation_end: f32,
    target_hips_rest: Vec3,
    warnings: &mut Vec<String>,
) -> Option<(Timeline, f32)> {
    let extras = root["animations"][0]["extras"].get(KEY)?;
    match parse(extras, animation_end, target_hips_rest, warnings) {
        Ok(found) => Some(found),
        Err(why) => {
            warnings.push(format!(
                "the file's VRMA Maker keys are unusable ({why}); its tracks are imported instead"
            ));
            None
        }
    }
}

fn parse(
    extras: &Value,
    animation_end: f32,
    target_hips_rest: Vec3,
    warnings: &mut Vec<String>,
) -> Result<(Timeline, f32), Refusal> {
    if extras["v"].as_u64() != Some(1) {
        return Err(Refusal::new(format!("version {} is not 1", extras["v"])));
    }
    let fps = extras["fps"]
        .as_f64()
        .map(|f| f as f32)
        .filter(|f| (FPS_RANGE.0..=FPS_RANGE.1).contains(f))
        .ok_or_else(|| Refusal::new("no frame rate"))?;
    let list = extras["keys"]
        .as_array()
        .filter(|k| !k.is_empty() && k.len() <= MAX_KEYS)
        .ok_or_else(|| Refusal::new(format!("expected 1 to {MAX_KEYS} keys")))?;
    let mut keys = list
        .iter()
        .enumerate()
        .map(|(i, k)| Key::from_json(k, i, warnings))
        .collect::<Result<Vec<_>, _>>()?;
    let source_rest = crate::read_floats::<3>(&extras["hips_rest"], "hips_rest")?;
    let source_rest = Vec3::from_array(source_rest);
    if !(source_rest.y > 1e-4 && source_rest.y < 1e4) {
        return Err(Refusal::new("the rest hips height is not plausible"));
    }
    if source_rest != target_hips_rest {
        let ratio = target_hips_rest.y / source_rest.y;
        for key in &mut keys {
            if let Some(h) = &mut key.pose.hips {
                *h *= ratio;
            }
        }
    }
    let mut timeline = Timeline::from_keys(keys)?;
    if (timeline.end() - animation_end).abs() > 1e-3 {
        return Err(Refusal::new(format!(
            "they end at {} s, the animation at {animation_end} s",
            timeline.end()
        )));
    }
    timeline.read_plants(extras.get("plants"), "plants")?;
    Ok((timeline, fps))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::animation::timeline::Ease;
    use crate::body::pose::Pose;
    use crate::formats::vrma::export::export_vrma;
    use crate::formats::vrma::import::{AnimationKind, import_animation};
    use crate::model::humanoid::{Bone, Side};
    use crate::model::mannequin::{self, MannequinVariant};
    use glam::Quat;

    fn walk() -> Timeline {
        let mut timeline = Timeline::default();
        for (i, t) in [0.0, 0.4, 1.0, 1.7].into_iter().enumerate() {
            let mut pose = Pose::default();
            pose.set_rotation(
                Bone::LeftUpperLeg,
                Quat::from_rotation_x(0.3 * i as f32 - 0.4),
            );
            // Under the 0.03° that `w` alone could not tell from the identity.
            pose.set_rotation(Bone::Neck, Quat::from_rotation_y(0.0002));
            pose.hips = Some(Vec3::new(0.0, 0.9, 0.2 * i as f32));
            pose.expressions.insert("happy".into(), 0.25 * i as f32);
            timeline.set_key(t, pose);
            timeline.set_ease_at(t, Ease::ALL[i % Ease::ALL.len()]);
        }
        timeline.set_plant(Side::Left, 0.0, 0.4, true);
        timeline.set_plant(Side::Right, 1.0, 1.7, true);
        timeline
    }

    #[test]
    fn our_vrma_imports_as_the_same_keys_eases_and_plants() {
        for variant in [MannequinVariant::Vrm1, MannequinVariant::Vrm0] {
            let rig = crate::body::rig::rig_from_bytes(&mannequin::build(variant)).unwrap();
            let timeline = walk();
            for fps in [24.0, 30.0, 60.0] {
                let (bytes, _) = export_vrma(&rig, &timeline, &Pose::default(), fps, &mut |_| {});
                let imported =
                    import_animation(&bytes, &[], AnimationKind::Vrma, rig.hips_rest(), None)
                        .unwrap();
                assert_eq!(imported.fps, Some(fps));
                assert_eq!(imported.timeline.plants(), timeline.plants());
                let (a, b) = (imported.timeline.keys(), timeline.keys());
                assert_eq!(a.len(), b.len());
                for (got, want) in a.iter().zip(b) {
                    assert_eq!((got.t, got.ease), (want.t, want.ease));
                    assert_eq!(got.pose, want.pose, "{variant:?} at {} s", want.t);
                }
            }
        }
    }

    #[test]
    fn every_key_time_is_sampled_exactly_at_any_frame_rate() {
        let timeline = walk();
        for fps in [23.976, 24.0, 25.0, 29.97, 59.94, 60.0, 120.0] {
            let times = crate::formats::vrma::export::frame_times(&timeline, fps);
            for key in timeline.keys() {
                assert!(
                    times.contains(&key.t),
                    "{fps} fps lost the key at {} s",
                    key.t
                );
            }
            assert!(times.windows(2).all(|w| w[0] < w[1]), "{fps} fps: in order");
        }
    }

    #[test]
    fn a_still_pose_export_carries_no_keys_and_imports_without_a_warning() {
        let rig =
            crate::body::rig::rig_from_bytes(&mannequin::build(MannequinVariant::Vrm1)).unwrap();
        let (bytes, _) = export_vrma(
            &rig,
            &Timeline::default(),
            &Pose::default(),
            30.0,
            &mut |_| {},
        );
        let imported =
            import_animation(&bytes, &[], AnimationKind::Vrma, rig.hips_rest(), None).unwrap();
        assert_eq!(imported.fps, None);
        assert!(imported.warnings.is_empty(), "{:?}", imported.warnings);
    }

    #[test]
    fn extras_that_do_not_match_the_tracks_are_ignored_with_a_warning() {
        let rig =
            crate::body::rig::rig_from_bytes(&mannequin::build(MannequinVariant::Vrm1)).unwrap();
        let timeline = walk();
        let (bytes, _) = export_vrma(&rig, &timeline, &Pose::default(), 30.0, &mut |_| {});
        let split = crate::files::glb::split(&bytes).unwrap();
        let mut root: Value = serde_json::from_slice(split.json).unwrap();
        root["animations"][0]["extras"][KEY]["duration"] = json!(9.0);
        root["animations"][0]["extras"][KEY]["keys"][3]["t"] = json!(9.0);
        let tampered =
            crate::files::glb::build(&serde_json::to_vec(&root).unwrap(), split.bin.unwrap());
        let imported =
            import_animation(&tampered, &[], AnimationKind::Vrma, rig.hips_rest(), None).unwrap();
        assert_eq!(imported.fps, None, "baked");
        assert!(
            imported.warnings.iter().any(|w| w.contains("unusable")),
            "{:?}",
            imported.warnings
        );
        assert!((imported.timeline.end() - timeline.end()).abs() < 1e-6);
    }
}
