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
// Prints a summary; exit 0 if all checks pass.

import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
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
function fmt(a) { return `[${a.map((x) => x.toFixed(3)).join(', ')}]`; }
