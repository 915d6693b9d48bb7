// Shared loading code for the Node.js harness scripts (vrm_facts.mjs, play_vrma.mjs).
//
// Importing this module has side effects, on purpose:
// - console.log/info/debug/warn/error are redirected into a buffer (`flushChatter`
//   writes it to stderr), so stdout carries only the script's JSON and stderr is
//   exactly one line on failure;
// - `globalThis.self` is defined (GLTFLoader touches `self.URL` in its image path).
//
// Frame helpers convert between three-vrm space and the VRM 1.0 frame (model faces
// +Z, +Y up, metres). three-vrm leaves VRM 0.x models as stored (facing -Z); we do
// NOT call VRMUtils.rotateVRM0 (scene root stays identity) and instead convert
// numerically: positions (x,y,z) -> (-x,y,-z), rotations (x,y,z,w) -> (-x,y,-z,w).

import { readFile } from 'node:fs/promises';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { VRMLoaderPlugin, VRMMetaLoaderPlugin } from '@pixiv/three-vrm';
import { VRMAnimationLoaderPlugin } from '@pixiv/three-vrm-animation';

// Keep stdout for our single JSON document only, and keep stderr to exactly one
// line on failure: library chatter (three.js / three-vrm console.*) is buffered and
// written to stderr only on success (or always, with VRM_FACTS_DEBUG=1).
const chatter = [];
console.log = console.info = console.debug = console.warn = console.error = (...a) => {
  chatter.push(a.map((x) => (typeof x === 'string' ? x : String(x?.message ?? x))).join(' '));
};
export const flushChatter = () => { if (chatter.length) process.stderr.write(chatter.join('\n') + '\n'); };

// GLTFLoader touches `self` (self.URL) in its image path; Node has no `self`.
if (typeof globalThis.self === 'undefined') globalThis.self = globalThis;

export function fail(msg) {
  const e = new Error(msg);
  e.harness = true;
  throw e;
}

// Run `main` as the script `scriptName`: on failure exit code 1 and exactly one line
// `scriptName: message` on stderr (plus the buffered chatter with VRM_FACTS_DEBUG=1).
// On success `main` itself writes stdout and calls flushChatter().
export function runMain(scriptName, main) {
  main().catch((e) => {
    if (process.env.VRM_FACTS_DEBUG) flushChatter();
    const msg = String(e?.message ?? e).replace(/\s+/g, ' ').trim();
    process.stderr.write(`${scriptName}: ${msg}\n`);
    process.exitCode = 1;
  });
}

// --- GLB helpers ------------------------------------------------------------

// Read the JSON chunk of a GLB (used to learn the VRM 1.0 license URL so the meta
// plugin does not reject models whose license is not VRM Public License 1.0, and
// to check that a .vrma declares VRMC_vrm_animation).
export function glbJson(buf) {
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
// get real Texture objects. Pixel data is never needed by this harness.
export function textureStubPlugin(parser) {
  parser.loadImageSource = function (sourceIndex) {
    const tex = new THREE.Texture({ width: 1, height: 1, data: new Uint8Array(4) });
    tex.name = parser.json.images?.[sourceIndex]?.name ?? '';
    return Promise.resolve(tex);
  };
  return { name: 'VRMA_MAKER_node_texture_stub' };
}

const toArrayBuffer = (buf) => buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);

// Load a .vrm with GLTFLoader + three-vrm's VRMLoaderPlugin. Returns the VRM.
export async function loadVRM(file) {
  return (await loadVRMAndGltf(file)).vrm;
}

// The VRM and the glTF it came from (for `gltf.parser.associations`: object -> node index).
export async function loadVRMAndGltf(file) {
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
  const gltf = await loader.parseAsync(toArrayBuffer(buf), '');
  const vrm = gltf.userData.vrm;
  if (!vrm) fail('not a VRM (three-vrm found no VRM / VRMC_vrm extension)');
  if (!vrm.humanoid) fail('VRM has no humanoid');
  if (!vrm.meta) fail('VRM has no meta');
  return { vrm, gltf };
}

// Check the frame assumptions (scene root and normalized humanoid root at identity)
// and return vrm.meta.metaVersion ("0" or "1").
export function vrmVersion(vrm) {
  vrm.scene.updateMatrixWorld(true);
  if (!vrm.scene.matrixWorld.equals(new THREE.Matrix4())) fail('VRM scene root is not identity');
  if (!vrm.humanoid.normalizedHumanBonesRoot.matrixWorld.equals(new THREE.Matrix4())) {
    fail('normalized humanoid root is not identity');
  }
  const version = vrm.meta.metaVersion;
  if (version !== '0' && version !== '1') fail(`unexpected metaVersion ${version}`);
  return version;
}

// Load a .vrma with GLTFLoader + three-vrm-animation's VRMAnimationLoaderPlugin.
// Returns { gltf, vrmAnimation } where vrmAnimation = gltf.userData.vrmAnimations[0]
// (it corresponds to gltf.animations[0]).
export async function loadVRMA(file) {
  const buf = await readFile(file);
  const json = glbJson(buf);
  if (!json.extensionsUsed?.includes('VRMC_vrm_animation') || !json.extensions?.VRMC_vrm_animation) {
    fail('not a VRMA (no VRMC_vrm_animation extension)');
  }
  if (!(json.animations?.length > 0)) fail('VRMA has no animation');

  const loader = new GLTFLoader();
  loader.register(textureStubPlugin);
  loader.register((parser) => new VRMAnimationLoaderPlugin(parser));
  const gltf = await loader.parseAsync(toArrayBuffer(buf), '');
  const anims = gltf.userData.vrmAnimations;
  if (anims == null) {
    const v = json.extensions.VRMC_vrm_animation.specVersion;
    fail(`three-vrm-animation did not load the VRMA (specVersion ${JSON.stringify(v)})`);
  }
  if (anims.length === 0 || !gltf.animations?.length) fail('VRMA has no animation');
  return { gltf, vrmAnimation: anims[0] };
}

// --- frame conversion ---------------------------------------------------------

export function num(x) {
  if (!Number.isFinite(x)) fail(`non-finite number in output: ${x}`);
  return x === 0 ? 0 : x; // no -0
}

// three-vrm space -> VRM 1.0 frame
export function posOut(v, isV0) {
  return isV0 ? [num(-v[0]), num(v[1]), num(-v[2])] : [num(v[0]), num(v[1]), num(v[2])];
}
export function quatOut(q, isV0) {
  return isV0 ? [num(-q[0]), num(q[1]), num(-q[2]), num(q[3])] : [num(q[0]), num(q[1]), num(q[2]), num(q[3])];
}

// VRM 1.0 frame -> three-vrm space (the conversion is its own inverse)
export function posIn(a, isV0) {
  return isV0 ? [-a[0], a[1], -a[2]] : [a[0], a[1], a[2]];
}
export function quatIn(q, isV0) {
  return isV0 ? [-q[0], q[1], -q[2], q[3]] : [q[0], q[1], q[2], q[3]];
}
