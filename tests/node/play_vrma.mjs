#!/usr/bin/env node
// Reference playback of a VRM Animation (.vrma) on a VRM model, computed with
// three.js + @pixiv/three-vrm + @pixiv/three-vrm-animation.
//
// Usage: node tests/node/play_vrma.mjs MODEL.vrm ANIM.vrma TIMES [TARGETS]
//   TIMES = a JSON array of seconds, e.g. '[0, 0.0333, 0.5]' (finite, >= 0, sampled
//           in the given order), or the word `keys`: the sorted union of the key
//           times of all tracks of the VRMA's first animation as GLTFLoader parsed
//           them (gltf.animations[0].tracks[*].times, float32 values).
//
// TARGETS (optional) = a JSON array as long as TIMES of model-space points [x,y,z]
//           (VRM 1.0 frame) or null: at each time three-vrm's own VRMLookAt.lookAt()
//           aims at that point from the played pose, and `look_toward` reports the
//           yaw and pitch it computes (the played ones are restored afterwards).
//
// Playback: clip = createVRMAnimationClip(vrmAnimation, vrm); an AnimationMixer on
// vrm.scene plays it (default LoopRepeat); for each t, mixer.setTime(t') with
// t' = t, or clip.duration - 1e-4 when t >= clip.duration (a looping action wraps to
// 0 exactly at the end; t' = 0 for clips shorter than 1e-4). The pose is not reset
// between samples. vrm.update() is NOT called (no look-at, spring bones, or
// expression binds are evaluated); the mixer writes the normalized bone nodes and
// VRMExpression.weight directly, and expressionManager.getValue() returns that
// weight, so no expressionManager.update() is needed either.
//
// Prints one JSON object on stdout:
//   { "vrm_version": "0" | "1",
//     "duration": clip.duration,
//     "samples": [ { "t": requested t,
//                    "bones": { "<vrm1 bone>": [x,y,z,w] },  // every bone with a normalized node
//                    "hips": [x,y,z],                        // normalized hips .position (model space)
//                    "world": { "<vrm1 bone>": {"position": [x,y,z], "rotation": [x,y,z,w]} },
//                                      // the normalized bones' world transforms (scene graph)
//                    "expr": { "<expression name>": weight },   // every expression of the model
//                    "look": { "yaw", "pitch" } | null,         // vrm.lookAt's angles as the clip set them
//                    "look_toward": { "yaw", "pitch" } } ] }   // with TARGETS only
//
// Frame: VRM 1.0 (see load_vrm.mjs). For VRM 0.x models three-vrm-animation flips
// the VRMA data when it creates the clip (rotations (-x,y,-z,w), hips translation
// (-x,y,-z)); we convert back, so both model versions report the authored pose.
// Hips translation is scaled by three-vrm-animation (model rest hips y / VRMA rest
// hips y); that scaling is kept.
//
// Failure: exit code 1 and exactly one line on stderr. On success, library warnings
// are written to stderr (VRM_FACTS_DEBUG=1 also shows them on failure).

import * as THREE from 'three';
import { VRMHumanBoneList } from '@pixiv/three-vrm';
import { createVRMAnimationClip, VRMLookAtQuaternionProxy } from '@pixiv/three-vrm-animation';
import {
  fail, flushChatter, runMain, loadVRM, loadVRMA, vrmVersion, num, posOut, quatOut, posIn,
} from './load_vrm.mjs';

const USAGE = "usage: node play_vrma.mjs MODEL.vrm ANIM.vrma TIMES_JSON (e.g. '[0, 0.5]' or keys) [TARGETS_JSON]";
const END_EPSILON = 1e-4;

function parseTimes(arg) {
  if (arg === 'keys') return 'keys';
  let times;
  try {
    times = JSON.parse(arg);
  } catch (e) {
    fail(`TIMES_JSON is not JSON: ${e.message}`);
  }
  if (!Array.isArray(times)) fail('TIMES_JSON must be a JSON array of seconds or "keys"');
  if (times.length === 0) fail('TIMES_JSON: empty array');
  for (const t of times) {
    if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) {
      fail(`TIMES_JSON: not a finite time >= 0: ${JSON.stringify(t)}`);
    }
  }
  return times;
}

// Sorted union of the key times of gltf.animations[0] (as three.js parsed them).
function keyTimes(gltf) {
  const set = new Set();
  for (const track of gltf.animations[0].tracks) for (const t of track.times) set.add(t);
  const times = [...set].sort((a, b) => a - b);
  if (times.length === 0) fail('VRMA animation has no keyframes');
  if (times[0] < 0) fail(`VRMA animation has a negative key time ${times[0]}`);
  return times;
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length !== 3 && args.length !== 4) fail(USAGE);
  const [modelPath, animPath, timesArg, targetsArg] = args;
  const requested = parseTimes(timesArg);
  let targets = null;
  if (targetsArg != null) {
    try {
      targets = JSON.parse(targetsArg);
    } catch (e) {
      fail(`TARGETS_JSON is not JSON: ${e.message}`);
    }
    if (!Array.isArray(targets) || requested === 'keys' || targets.length !== requested.length) {
      fail('TARGETS_JSON must be an array as long as TIMES_JSON');
    }
    for (const p of targets) {
      if (p !== null && !(Array.isArray(p) && p.length === 3 && p.every(Number.isFinite))) {
        fail(`TARGETS_JSON: not [x,y,z] or null: ${JSON.stringify(p)}`);
      }
    }
  }

  const vrm = await loadVRM(modelPath);
  const version = vrmVersion(vrm);
  const isV0 = version === '0';
  const { gltf, vrmAnimation } = await loadVRMA(animPath);
  const times = requested === 'keys' ? keyTimes(gltf) : requested;

  // Create the look-at proxy ourselves (as three-vrm-animation's docs suggest) so
  // createVRMAnimationClip does not warn; it only sets vrm.lookAt.yaw/pitch, which
  // nothing applies to bones without vrm.update().
  if (vrm.lookAt) {
    const proxy = new VRMLookAtQuaternionProxy(vrm.lookAt);
    proxy.name = 'VRMLookAtQuaternionProxy';
    vrm.scene.add(proxy);
  }

  const clip = createVRMAnimationClip(vrmAnimation, vrm);
  const duration = clip.duration;
  if (!Number.isFinite(duration) || duration < 0) fail(`bad clip duration ${duration}`);
  const mixer = new THREE.AnimationMixer(vrm.scene);
  mixer.clipAction(clip).play();

  const humanoid = vrm.humanoid;
  const bones = VRMHumanBoneList
    .map((name) => [name, humanoid.getNormalizedBoneNode(name)])
    .filter(([, node]) => node != null);
  const hipsNode = humanoid.getNormalizedBoneNode('hips');
  if (!hipsNode) fail('VRM has no hips bone');
  const em = vrm.expressionManager;
  const exprNames = em ? em.expressions.map((e) => e.expressionName) : [];

  const samples = [];
  for (const [i, t] of times.entries()) {
    const te = t >= duration ? Math.max(0, duration - END_EPSILON) : t;
    mixer.setTime(te);
    const sample = { t, bones: {}, hips: posOut(hipsNode.position.toArray(), isV0), expr: {} };
    for (const [name, node] of bones) sample.bones[name] = quatOut(node.quaternion.toArray(), isV0);
    // World transforms of the normalized bones, from three.js's own scene graph.
    vrm.scene.updateMatrixWorld(true);
    sample.world = {};
    for (const [name, node] of bones) {
      sample.world[name] = {
        position: posOut(node.getWorldPosition(new THREE.Vector3()).toArray(), isV0),
        rotation: quatOut(node.getWorldQuaternion(new THREE.Quaternion()).toArray(), isV0),
      };
    }
    for (const name of exprNames) sample.expr[name] = num(em.getValue(name));
    const lookAt = vrm.lookAt;
    sample.look = lookAt ? { yaw: num(lookAt.yaw), pitch: num(lookAt.pitch) } : null;
    if (lookAt && targets && targets[i] != null) {
      const played = [lookAt.yaw, lookAt.pitch];
      vrm.humanoid.update();
      vrm.scene.updateMatrixWorld(true);
      lookAt.lookAt(new THREE.Vector3(...posIn(targets[i], isV0)));
      sample.look_toward = { yaw: num(lookAt.yaw), pitch: num(lookAt.pitch) };
      [lookAt.yaw, lookAt.pitch] = played;
    }
    samples.push(sample);
  }

  process.stdout.write(JSON.stringify({ vrm_version: version, duration: num(duration), samples }) + '\n');
  flushChatter();
}

runMain('play_vrma.mjs', main);
