#!/usr/bin/env node
// Reference facts about a VRM model, computed with three.js + @pixiv/three-vrm.
//
// Usage: node tests/node/vrm_facts.mjs MODEL.vrm [POSE.json]
//
// Prints one JSON object on stdout:
//   { "vrm_version": "0" | "1",           // vrm.meta.metaVersion
//     "title": string | null,             // meta.name (1.0) / meta.title (0.x)
//     "bones": { "<vrm1 bone>": { "parent": "<bone>" | null, "rest": [x,y,z] } },
//     "hips_rest": [x,y,z],
//     "expressions": { "preset": [...], "custom": [...] },   // sorted
//     "world": { "<vrm1 bone>": [x,y,z] } }                   // only with POSE.json
//
// Frame: everything is in the VRM 1.0 frame (model faces +Z, +Y up, metres).
// three-vrm leaves VRM 0.x models as stored (facing -Z); we do NOT call
// VRMUtils.rotateVRM0 (scene root stays identity) and instead convert numerically:
// positions (x,y,z) -> (-x,y,-z), rotations (x,y,z,w) -> (-x,y,-z,w).
//
// `rest` = raw world rest position of the bone minus that of its nearest humanoid
// ancestor (walking VRMHumanBoneParentMap, i.e. the VRM humanoid hierarchy, skipping
// bones the model lacks); for hips it is the hips world position. This is exactly
// three-vrm's normalized rest pose (`vrm.humanoid.normalizedRestPose[bone].position`).
//
// POSE.json: { "v": 1, "bones": { "<bone>": [x,y,z,w] }, "hips": [x,y,z], "expr": {...} }
// Rotations are normalized-bone local rotations (VRM 1.0 convention), `hips` is the
// model-space hips position. They are set on three-vrm's normalized bones, then
// `vrm.humanoid.update()` copies them to the raw bones and `world` reports each raw
// humanoid bone's world position. Quaternions are normalized before use. Bones the
// model lacks are ignored; unknown bone names are an error. `expr` is accepted and
// ignored (expressions do not move bones).
//
// With `"lookAt": [x,y,z]` (model space) in POSE.json, `look_at` reports the gaze
// three-vrm aims there after the pose: { yaw, pitch (degrees), eyes: { "<eye bone>":
// raw world rotation }, expressions: { lookUp, lookDown, lookLeft, lookRight } }.
//
// POSE.json may instead be an array of poses: each is laid on the rest pose in turn, and
// `poses` lists { world, head_turn } per pose, where `head_turn` is the raw head's world
// rotation times the inverse of its rest world rotation (how far the head turned, as
// drawn, whatever rest rotation the model's nodes carry). `world`, `constrained` and
// `look_at` are then left out.
//
// Failure: exit code 1 and exactly one line on stderr. On success, library warnings
// (e.g. three-vrm's VRM 0.x lookAt curve notice) are written to stderr.

import { readFile } from 'node:fs/promises';
import * as THREE from 'three';
import {
  VRMHumanBoneList,
  VRMHumanBoneParentMap,
  VRMExpressionPresetName,
} from '@pixiv/three-vrm';
// Shared with play_vrma.mjs: console capture, globalThis.self, texture stub,
// VRM loading (meta license workaround) and the VRM 0.x frame conversion.
import { fail, flushChatter, runMain, loadVRM, vrmVersion, posOut, posIn, quatIn, quatOut } from './load_vrm.mjs';

const PRESET_NAMES = new Set(Object.values(VRMExpressionPresetName));

// --- facts ----------------------------------------------------------------------

function nearestHumanoidAncestor(humanoid, bone) {
  let cur = VRMHumanBoneParentMap[bone];
  while (cur != null && humanoid.getRawBoneNode(cur) == null) cur = VRMHumanBoneParentMap[cur];
  return cur ?? null;
}

function presentBones(humanoid) {
  return VRMHumanBoneList.filter((b) => humanoid.getRawBoneNode(b) != null);
}

function restFacts(vrm, isV0) {
  const humanoid = vrm.humanoid;
  const restPose = humanoid.normalizedRestPose;
  const bones = {};
  for (const bone of presentBones(humanoid)) {
    const parent = nearestHumanoidAncestor(humanoid, bone);
    // Cross-check against the actual normalized rig hierarchy three-vrm built.
    const node = humanoid.getNormalizedBoneNode(bone);
    const parentNode = parent ? humanoid.getNormalizedBoneNode(parent) : humanoid.normalizedHumanBonesRoot;
    if (node.parent !== parentNode) fail(`normalized rig parent mismatch for ${bone}`);
    const p = restPose[bone]?.position;
    if (!p) fail(`no normalized rest position for ${bone}`);
    bones[bone] = { parent, rest: posOut(p, isV0) };
  }
  if (!bones.hips) fail('VRM has no hips bone');
  return bones;
}

function expressionFacts(vrm) {
  const preset = [];
  const custom = [];
  for (const e of vrm.expressionManager?.expressions ?? []) {
    (PRESET_NAMES.has(e.expressionName) ? preset : custom).push(e.expressionName);
  }
  const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0); // code-unit order, like Rust's str Ord
  return { preset: preset.sort(cmp), custom: custom.sort(cmp) };
}

function isNumArray(a, n) {
  return Array.isArray(a) && a.length === n && a.every((x) => typeof x === 'number' && Number.isFinite(x));
}

function applyPose(vrm, pose, isV0) {
  if (pose === null || typeof pose !== 'object') fail('pose: not a JSON object');
  if (pose.v !== 1) fail(`pose: unsupported version ${JSON.stringify(pose.v)} (expected 1)`);
  const humanoid = vrm.humanoid;
  const known = new Set(VRMHumanBoneList);
  for (const [bone, q] of Object.entries(pose.bones ?? {})) {
    if (!known.has(bone)) fail(`pose: unknown bone name ${JSON.stringify(bone)}`);
    if (!isNumArray(q, 4)) fail(`pose: bone ${bone} is not [x,y,z,w]`);
    const node = humanoid.getNormalizedBoneNode(bone);
    if (!node) continue; // model lacks this (optional) bone
    const quat = new THREE.Quaternion(...quatIn(q, isV0));
    if (quat.length() < 1e-12) fail(`pose: zero quaternion for ${bone}`);
    node.quaternion.copy(quat.normalize());
  }
  if (pose.hips != null) {
    if (!isNumArray(pose.hips, 3)) fail('pose: hips is not [x,y,z]');
    // The normalized hips node is a direct child of normalizedHumanBonesRoot, which
    // sits at identity under vrm.scene (identity) -> its position is model space.
    // VRMHumanoidRig.update() moves the raw hips to that world position.
    humanoid.getNormalizedBoneNode('hips').position.set(...posIn(pose.hips, isV0));
  }
  humanoid.update();
  vrm.scene.updateMatrixWorld(true);
  const world = {};
  const v = new THREE.Vector3();
  for (const bone of presentBones(humanoid)) {
    humanoid.getRawBoneNode(bone).getWorldPosition(v);
    world[bone] = posOut(v.toArray(), isV0);
  }
  return world;
}

// After the pose: the node constraints evaluated as vrm.update() does (after the
// humanoid, before the springs), and each destination node's world position and
// rotation by node name (VRM 1.0 frame). Null when the model has none.
function constraintFacts(vrm, isV0) {
  const manager = vrm.nodeConstraintManager;
  if (!manager || manager.constraints.size === 0) return null;
  manager.update();
  vrm.scene.updateMatrixWorld(true);
  const facts = {};
  for (const constraint of manager.constraints) {
    const node = constraint.destination;
    const p = node.getWorldPosition(new THREE.Vector3());
    const q = node.getWorldQuaternion(new THREE.Quaternion());
    facts[node.name] = { position: posOut(p.toArray(), isV0), rotation: quatOut(q.toArray(), isV0) };
  }
  return facts;
}

function lookAtFacts(vrm, target, isV0) {
  if (!isNumArray(target, 3)) fail('pose: lookAt is not [x,y,z]');
  const lookAt = vrm.lookAt;
  if (!lookAt) return null;
  lookAt.lookAt(new THREE.Vector3(...posIn(target, isV0)));
  lookAt.update(0);
  vrm.expressionManager?.update();
  vrm.scene.updateMatrixWorld(true);
  const eyes = {};
  for (const bone of ['leftEye', 'rightEye']) {
    const node = vrm.humanoid.getRawBoneNode(bone);
    if (node) eyes[bone] = quatOut(node.getWorldQuaternion(new THREE.Quaternion()).toArray(), isV0);
  }
  const expressions = {};
  for (const name of ['lookUp', 'lookDown', 'lookLeft', 'lookRight']) {
    const value = vrm.expressionManager?.getValue(name);
    if (value != null) expressions[name] = value;
  }
  return { yaw: lookAt.yaw, pitch: lookAt.pitch, eyes, expressions };
}

// Each pose from the rest pose, not from the one before.
function posesFacts(vrm, poses, isV0) {
  const humanoid = vrm.humanoid;
  const head = humanoid.getRawBoneNode('head');
  vrm.scene.updateMatrixWorld(true);
  const headRest = head.getWorldQuaternion(new THREE.Quaternion());
  return poses.map((pose) => {
    humanoid.resetNormalizedPose();
    const world = applyPose(vrm, pose, isV0);
    const turn = head.getWorldQuaternion(new THREE.Quaternion()).multiply(headRest.clone().invert());
    return { world, head_turn: quatOut(turn.toArray(), isV0) };
  });
}

async function main() {
  const [modelPath, posePath, ...extra] = process.argv.slice(2);
  if (!modelPath || extra.length) fail('usage: node vrm_facts.mjs MODEL.vrm [POSE.json]');
  let pose = null;
  if (posePath) {
    try {
      pose = JSON.parse(await readFile(posePath, 'utf8'));
    } catch (e) {
      fail(`cannot read pose ${posePath}: ${e.message}`);
    }
  }

  const vrm = await loadVRM(modelPath);
  // Scene root must be identity for the frame conventions above.
  const version = vrmVersion(vrm);
  const isV0 = version === '0';
  const title = (isV0 ? vrm.meta.title : vrm.meta.name) ?? null;

  const bones = restFacts(vrm, isV0);
  const out = {
    vrm_version: version,
    title,
    bones,
    hips_rest: bones.hips.rest,
    expressions: expressionFacts(vrm),
  };
  if (Array.isArray(pose)) {
    out.poses = posesFacts(vrm, pose, isV0);
  } else if (pose) {
    out.world = applyPose(vrm, pose, isV0);
    const constrained = constraintFacts(vrm, isV0);
    if (constrained) out.constrained = constrained;
    if (pose.lookAt != null) out.look_at = lookAtFacts(vrm, pose.lookAt, isV0);
  }
  process.stdout.write(JSON.stringify(out) + '\n');
  flushChatter();
}

runMain('vrm_facts.mjs', main);
