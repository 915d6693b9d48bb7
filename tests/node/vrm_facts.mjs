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
// Failure: exit code 1 and exactly one line on stderr. On success, library warnings
// (e.g. three-vrm's VRM 0.x lookAt curve notice) are written to stderr.

import { readFile } from 'node:fs/promises';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import {
  VRMLoaderPlugin,
  VRMMetaLoaderPlugin,
  VRMHumanBoneList,
  VRMHumanBoneParentMap,
  VRMExpressionPresetName,
} from '@pixiv/three-vrm';

// Keep stdout for our single JSON document only, and keep stderr to exactly one
// line on failure: library chatter (three.js / three-vrm console.*) is buffered and
// written to stderr only on success (or always, with VRM_FACTS_DEBUG=1).
const chatter = [];
console.log = console.info = console.debug = console.warn = console.error = (...a) => {
  chatter.push(a.map((x) => (typeof x === 'string' ? x : String(x?.message ?? x))).join(' '));
};
const flushChatter = () => { if (chatter.length) process.stderr.write(chatter.join('\n') + '\n'); };

// GLTFLoader touches `self` (self.URL) in its image path; Node has no `self`.
if (typeof globalThis.self === 'undefined') globalThis.self = globalThis;

const PRESET_NAMES = new Set(Object.values(VRMExpressionPresetName));

function fail(msg) {
  const e = new Error(msg);
  e.harness = true;
  throw e;
}

// --- GLB helpers ------------------------------------------------------------

// Read the JSON chunk of a GLB (used only to learn the VRM 1.0 license URL so the
// meta plugin does not reject models whose license is not VRM Public License 1.0).
function glbJson(buf) {
  if (buf.length < 20 || buf.readUInt32LE(0) !== 0x46546c67) fail('not a GLB file (bad magic)');
  const len0 = buf.readUInt32LE(12);
  const type0 = buf.readUInt32LE(16);
  if (type0 !== 0x4e4f534a || 20 + len0 > buf.length) fail('GLB: first chunk is not JSON');
  return JSON.parse(buf.subarray(20, 20 + len0).toString('utf8'));
}

// Textures: there is no DOM/canvas/createImageBitmap in Node, so image decoding
// would fail (GLTFLoader would log errors and yield null textures). This plugin
// replaces GLTFParser.loadImageSource with a stub that returns an empty 1x1
// THREE.Texture without decoding anything; the rest of loadTextureImage (sampler,
// flipY, parser.associations) runs normally, so MToon / v0-compat material plugins
// get real Texture objects. Pixel data is never needed for these facts.
function textureStubPlugin(parser) {
  parser.loadImageSource = function (sourceIndex) {
    const tex = new THREE.Texture({ width: 1, height: 1, data: new Uint8Array(4) });
    tex.name = parser.json.images?.[sourceIndex]?.name ?? '';
    return Promise.resolve(tex);
  };
  return { name: 'VRMA_MAKER_node_texture_stub' };
}

async function loadVRM(file) {
  const buf = await readFile(file);
  const json = glbJson(buf);
  const licenseUrl = json.extensions?.VRMC_vrm?.meta?.licenseUrl;
  const acceptLicenseUrls = ['https://vrm.dev/licenses/1.0/'];
  if (typeof licenseUrl === 'string') acceptLicenseUrls.push(licenseUrl);

  const loader = new GLTFLoader();
  loader.register(textureStubPlugin);
  loader.register((parser) => new VRMLoaderPlugin(parser, {
    metaPlugin: new VRMMetaLoaderPlugin(parser, { acceptLicenseUrls, acceptV0Meta: true }),
  }));
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const gltf = await loader.parseAsync(ab, '');
  const vrm = gltf.userData.vrm;
  if (!vrm) fail('not a VRM (three-vrm found no VRM / VRMC_vrm extension)');
  if (!vrm.humanoid) fail('VRM has no humanoid');
  if (!vrm.meta) fail('VRM has no meta');
  return vrm;
}

// --- frame conversion ---------------------------------------------------------

function num(x) {
  if (!Number.isFinite(x)) fail(`non-finite number in output: ${x}`);
  return x === 0 ? 0 : x; // no -0
}

// three-vrm space -> VRM 1.0 frame
function posOut(v, isV0) {
  return isV0 ? [num(-v[0]), num(v[1]), num(-v[2])] : [num(v[0]), num(v[1]), num(v[2])];
}

// VRM 1.0 frame -> three-vrm space (the conversion is its own inverse)
function posIn(a, isV0) {
  return isV0 ? [-a[0], a[1], -a[2]] : [a[0], a[1], a[2]];
}
function quatIn(q, isV0) {
  return isV0 ? [-q[0], q[1], -q[2], q[3]] : [q[0], q[1], q[2], q[3]];
}

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
  vrm.scene.updateMatrixWorld(true);
  if (!vrm.scene.matrixWorld.equals(new THREE.Matrix4())) fail('VRM scene root is not identity');
  if (!vrm.humanoid.normalizedHumanBonesRoot.matrixWorld.equals(new THREE.Matrix4())) {
    fail('normalized humanoid root is not identity');
  }

  const version = vrm.meta.metaVersion;
  if (version !== '0' && version !== '1') fail(`unexpected metaVersion ${version}`);
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
  if (pose) out.world = applyPose(vrm, pose, isV0);
  process.stdout.write(JSON.stringify(out) + '\n');
  flushChatter();
}

main().catch((e) => {
  if (process.env.VRM_FACTS_DEBUG) flushChatter();
  const msg = String(e?.message ?? e).replace(/\s+/g, ' ').trim();
  process.stderr.write(`vrm_facts.mjs: ${msg}\n`);
  process.exitCode = 1;
});
