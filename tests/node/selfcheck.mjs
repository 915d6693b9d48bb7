#!/usr/bin/env node
// Self-check of the harness against the shared fixtures.
//
// Usage: node tests/node/selfcheck.mjs [FIXTURES_DIR]   (default /work/shared/fixtures)
//
// - validate.mjs: every fixture except vrm0/sphere.vrm must have 0 errors
//   (sphere.vrm has non-unit normals by design and must report errors, exit 1).
// - vrm_facts.mjs on every vrm0/*.vrm and vrm1/*.vrm: left hand at +x, head above
//   hips, rest offsets consistent with parents; then with poses:
//   * leftUpperArm +45 deg about Z (arm raised: left hand y goes up, stays at +x),
//   * hips moved to a model-space position (world.hips must equal it),
//   * a random pose on every bone, checked against forward kinematics computed
//     here from `bones` (parent/rest) alone, all in the VRM 1.0 frame.
// - play_vrma.mjs: every vrma on debug_robot (1.0) and EmissionMigration (0.x):
//   unit quaternions, identical rotations on both models, hips scaled by the rest
//   hips height ratio, test.vrma arm/expression values, no wrap at t = duration.
// Prints a summary; exit 0 if all checks pass.

import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as THREE from 'three';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = process.argv[2] ?? '/work/shared/fixtures';
const tmp = mkdtempSync(path.join(tmpdir(), 'vrm-facts-'));
let failures = 0;
const check = (ok, what) => {
  if (!ok) failures++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
};
const list = (dir, ext) => {
  try {
    return readdirSync(path.join(fixtures, dir)).filter((f) => f.endsWith(ext)).sort()
      .map((f) => path.join(fixtures, dir, f));
  } catch { return []; }
};

function facts(model, pose) {
  const args = [path.join(here, 'vrm_facts.mjs'), model];
  if (pose) {
    const p = path.join(tmp, 'pose.json');
    writeFileSync(p, JSON.stringify(pose));
    args.push(p);
  }
  return JSON.parse(execFileSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] }));
}
const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

// ---- validator
const all = [...list('vrm0', '.vrm'), ...list('vrm1', '.vrm'), ...list('vrma', '.vrma')];
for (const f of all) {
  const r = spawnSync(process.execPath, [path.join(here, 'validate.mjs'), f], { encoding: 'utf8' });
  const o = JSON.parse(r.stdout);
  const expectErrors = path.basename(f) === 'sphere.vrm';
  check(expectErrors ? (o.errors > 0 && r.status === 1) : (o.errors === 0 && r.status === 0),
    `validate ${path.basename(f)}: errors=${o.errors} warnings=${o.warnings} exit=${r.status}`);
}

// ---- vrm_facts
const s45 = Math.sin(Math.PI / 8), c45 = Math.cos(Math.PI / 8);
for (const model of [...list('vrm0', '.vrm'), ...list('vrm1', '.vrm')]) {
  const name = path.basename(model);
  const rest = facts(model);
  const B = rest.bones;
  check(B.leftHand.rest && restWorld(B, 'leftHand')[0] > 0.1 && restWorld(B, 'rightHand')[0] < -0.1,
    `${name} (v${rest.vrm_version}): left hand at +x (${restWorld(B, 'leftHand')[0].toFixed(3)}), right at -x`);
  check(restWorld(B, 'head')[1] > rest.hips_rest[1], `${name}: head above hips`);
  check(Math.abs(restWorld(B, 'leftFoot')[2]) < 0.3, `${name}: feet near z=0 plane`);

  // Identity pose == rest
  const id = facts(model, { v: 1, bones: {} });
  const maxIdErr = Math.max(...Object.keys(B).map((b) => dist(id.world[b], restWorld(B, b))));
  check(maxIdErr < 1e-5, `${name}: empty pose reproduces rest (max err ${maxIdErr.toExponential(2)})`);

  // leftUpperArm 45 deg about +Z
  const arm = facts(model, { v: 1, bones: { leftUpperArm: [0, 0, s45, c45] } });
  const sh = arm.world.leftUpperArm, hand = arm.world.leftHand, rhand = arm.world.rightHand;
  const len = dist(restWorld(B, 'leftHand'), restWorld(B, 'leftUpperArm'));
  check(hand[0] > sh[0] && hand[1] > sh[1] + 0.5 * len && Math.abs(dist(hand, sh) - len) < 1e-5
    && dist(rhand, restWorld(B, 'rightHand')) < 1e-6,
    `${name}: leftUpperArm +45deg Z raises left hand: ${fmt(restWorld(B, 'leftHand'))} -> ${fmt(hand)}`);

  // hips translation
  const hipsTarget = [0.1, rest.hips_rest[1] + 0.05, 0.2];
  const moved = facts(model, { v: 1, bones: {}, hips: hipsTarget });
  check(dist(moved.world.hips, hipsTarget) < 1e-6,
    `${name}: hips position is model space: ${fmt(moved.world.hips)}`);

  // random full pose vs. FK from `bones`
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  const pose = { v: 1, bones: {}, hips: [0.05, rest.hips_rest[1] - 0.1, -0.07], expr: { happy: 0.5 } };
  for (const b of Object.keys(B)) {
    const q = new THREE.Quaternion(rnd(), rnd(), rnd(), rnd() + 2).normalize();
    pose.bones[b] = q.toArray();
  }
  const rnd3 = facts(model, pose);
  const fk = forwardKinematics(B, pose);
  const maxErr = Math.max(...Object.keys(B).map((b) => dist(rnd3.world[b], fk[b])));
  check(maxErr < 1e-5, `${name}: random pose matches FK over normalized rest (max err ${maxErr.toExponential(2)})`);
}

// error path
const bad = spawnSync(process.execPath, [path.join(here, 'vrm_facts.mjs'), path.join(fixtures, 'vrma', 'test.vrma')], { encoding: 'utf8' });
check(bad.status === 1 && bad.stdout === '' && bad.stderr.trim().split('\n').length === 1,
  `vrm_facts on a .vrma fails cleanly: ${bad.stderr.trim()}`);

// ---- play_vrma: every vrma on one VRM 1.0 and one VRM 0.x model
const play = (model, anim, times) => JSON.parse(execFileSync(process.execPath,
  [path.join(here, 'play_vrma.mjs'), model, anim, times],
  { stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 256 << 20 }));
const m1 = path.join(fixtures, 'vrm1', 'debug_robot.vrm');
const m0 = path.join(fixtures, 'vrm0', 'EmissionMigration_v0.106.0.vrm');
const hipsRest = { [m1]: facts(m1).hips_rest, [m0]: facts(m0).hips_rest };
const qdist = (a, b) => Math.min(Math.hypot(...a.map((x, i) => x - b[i])), Math.hypot(...a.map((x, i) => x + b[i])));
for (const anim of list('vrma', '.vrma')) {
  const name = path.basename(anim);
  const hasHipsTranslation = vrmaHasHipsTranslation(anim);
  for (const times of ['keys', '[0, 0.5, 1, 1000]']) {
    const o1 = play(m1, anim, times), o0 = play(m0, anim, times);
    let normErr = 0, rotDiff = 0, hipsErr = 0, nonIdentity = 0;
    for (let i = 0; i < o1.samples.length; i++) {
      const s1 = o1.samples[i], s0 = o0.samples[i];
      for (const s of [s0, s1]) for (const q of Object.values(s.bones)) normErr = Math.max(normErr, Math.abs(Math.hypot(...q) - 1));
      for (const [b, q] of Object.entries(s1.bones)) {
        if (Math.abs(q[3]) < 0.9999) nonIdentity++;
        if (s0.bones[b]) rotDiff = Math.max(rotDiff, qdist(q, s0.bones[b]));
      }
      if (hasHipsTranslation) {
        // three-vrm-animation scales hips translation by (model rest hips y / VRMA rest hips y)
        const k = hipsRest[m0][1] / hipsRest[m1][1];
        hipsErr = Math.max(hipsErr, dist(s0.hips, s1.hips.map((x) => x * k)));
      } else {
        hipsErr = Math.max(hipsErr, dist(s1.hips, hipsRest[m1]), dist(s0.hips, hipsRest[m0]));
      }
    }
    check(o1.vrm_version === '1' && o0.vrm_version === '0' && o1.duration === o0.duration
      && o1.samples.length > 0 && o1.samples.length === o0.samples.length
      && normErr < 1e-5 && rotDiff < 1e-6 && hipsErr < 1e-5 && (name === 'nop.vrma' || nonIdentity > 0),
    `play_vrma ${name} ${times}: ${o1.samples.length} samples, |q|-1 ${normErr.toExponential(1)}, `
      + `v0 vs v1 rot ${rotDiff.toExponential(1)}, hips ${hipsErr.toExponential(1)}, non-identity ${nonIdentity}`);
  }
}
{
  const anim = path.join(fixtures, 'vrma', 'test.vrma');
  const o = play(m1, anim, '[0.5, 1.25, 1.5, 3]');
  const [s05, s125, s15, s3] = o.samples;
  const h = Math.SQRT1_2;
  check(qdist(s05.bones.rightUpperArm, [0, 0, h, h]) < 1e-5 && s125.expr.happy === 0.5 && s15.expr.happy === 1
    && Math.abs(s3.expr.happy) < 1e-3 && s3.t === 3,
  `play_vrma test.vrma: rightUpperArm +90deg Z at 0.5 s, happy 0.5 / 1 at 1.25 / 1.5 s, t=duration samples the end`);
  const twist = path.join(fixtures, 'vrma', 'hips_spine_twisting.vrma');
  const k = play(m1, twist, 'keys');
  const last = k.samples.at(-1);
  check(last.t === k.duration && qdist(last.bones.hips, k.samples[0].bones.hips) > 0.1,
    'play_vrma: the last key (t = duration) is not wrapped to t = 0');
  const r = spawnSync(process.execPath, [path.join(here, 'play_vrma.mjs'), m1, m1, '[0]'], { encoding: 'utf8' });
  check(r.status === 1 && r.stdout === '' && r.stderr.trim().split('\n').length === 1,
    `play_vrma with a .vrm as animation fails cleanly: ${r.stderr.trim()}`);
}

rmSync(tmp, { recursive: true, force: true });
console.log(failures ? `${failures} FAILED` : 'all ok');
process.exitCode = failures ? 1 : 0;

// ---- helpers (VRM 1.0 frame throughout)
function restWorld(B, bone) {
  const p = [0, 0, 0];
  for (let b = bone; b; b = B[b].parent) for (let i = 0; i < 3; i++) p[i] += B[b].rest[i];
  return p;
}
function forwardKinematics(B, pose) {
  const world = {}, rot = {};
  const visit = (b) => {
    if (world[b]) return;
    const parent = B[b].parent;
    const q = new THREE.Quaternion(...(pose.bones[b] ?? [0, 0, 0, 1])).normalize();
    if (!parent) {
      world[b] = new THREE.Vector3(...(b === 'hips' && pose.hips ? pose.hips : B[b].rest));
      rot[b] = q;
    } else {
      visit(parent);
      world[b] = new THREE.Vector3(...B[b].rest).applyQuaternion(rot[parent]).add(world[parent]);
      rot[b] = rot[parent].clone().multiply(q);
    }
  };
  Object.keys(B).forEach(visit);
  return Object.fromEntries(Object.entries(world).map(([k, v]) => [k, v.toArray()]));
}
function vrmaHasHipsTranslation(file) {
  const buf = readFileSync(file);
  const j = JSON.parse(buf.subarray(20, 20 + buf.readUInt32LE(12)).toString('utf8'));
  const hips = j.extensions?.VRMC_vrm_animation?.humanoid?.humanBones?.hips?.node;
  return (j.animations ?? []).some((a) => a.channels.some((c) => c.target.node === hips && c.target.path === 'translation'));
}
function fmt(a) { return `[${a.map((x) => x.toFixed(3)).join(', ')}]`; }
