#!/usr/bin/env node
// Reference expression weights of a VRM model, computed with three.js + @pixiv/three-vrm.
//
// Usage: node tests/node/expressions.mjs MODEL.vrm INPUTS_JSON
//   INPUTS_JSON = a JSON array of cases, each an object { "<expression name>": weight }.
//
// For each case every expression is set to its weight (0 when not named) with
// expressionManager.setValue, then expressionManager.update() applies them as players
// do (isBinary, overrideBlink / overrideLookAt / overrideMouth), and the morph target
// influences of every mesh are read back.
//
// Prints one JSON object on stdout:
//   { "cases": [ { "applied": { "<name>": weight three-vrm applied to its binds },
//                  "morphs": { "<glTF node index>": [influence, ...] },
//                  "textures": { "<glTF material index>": { "offset": [u, v], "scale": [u, v] } } } ] }
// `morphs` has one entry per glTF node whose mesh has morph targets (a mesh of several
// primitives reports its first primitive; three.js gives them all the same influences).
//
// Failure: exit code 1 and exactly one line on stderr.

import { fail, flushChatter, runMain, loadVRMAndGltf, num } from './load_vrm.mjs';

async function main() {
  const args = process.argv.slice(2);
  if (args.length !== 2) fail('usage: node expressions.mjs MODEL.vrm INPUTS_JSON');
  const [modelPath, inputsArg] = args;
  let cases;
  try {
    cases = JSON.parse(inputsArg);
  } catch (e) {
    fail(`INPUTS_JSON is not JSON: ${e.message}`);
  }
  if (!Array.isArray(cases)) fail('INPUTS_JSON must be an array of objects');
  const { vrm, gltf } = await loadVRMAndGltf(modelPath);
  const em = vrm.expressionManager;
  if (!em) fail('the model has no expressions');
  // glTF node index -> the first mesh with morph targets at or under it.
  const nodeMeshes = new Map();
  vrm.scene.traverse((object) => {
    const nodeIndex = gltf.parser.associations.get(object)?.nodes;
    if (nodeIndex == null || nodeMeshes.has(nodeIndex)) return;
    let found = null;
    object.traverse((child) => {
      if (found == null && child.isMesh && child.morphTargetInfluences?.length) found = child;
    });
    // Only the node's own mesh: a child node's mesh is that node's.
    if (found && (found === object || gltf.parser.associations.get(found)?.nodes == null)) {
      nodeMeshes.set(nodeIndex, found);
    }
  });
  const out = [];
  for (const weights of cases) {
    if (typeof weights !== 'object' || weights === null || Array.isArray(weights)) {
      fail('each case must be an object of weights');
    }
    for (const e of em.expressions) em.setValue(e.expressionName, 0);
    for (const [name, w] of Object.entries(weights)) {
      if (!Number.isFinite(w)) fail(`weight of ${name} is not a number`);
      if (!em.getExpression(name)) fail(`the model has no expression '${name}'`);
      em.setValue(name, w);
    }
    em.update();
    const multipliers = em._calculateWeightMultipliers();
    const applied = {};
    for (const e of em.expressions) {
      let m = 1;
      if (em.blinkExpressionNames.includes(e.expressionName)) m *= multipliers.blink;
      if (em.lookAtExpressionNames.includes(e.expressionName)) m *= multipliers.lookAt;
      if (em.mouthExpressionNames.includes(e.expressionName)) m *= multipliers.mouth;
      let w = e.outputWeight * m;
      if (e.isBinary && w < 1) w = 0;
      applied[e.expressionName] = num(w);
    }
    const morphs = {};
    for (const [node, mesh] of [...nodeMeshes.entries()].sort((a, b) => a[0] - b[0])) {
      morphs[node] = mesh.morphTargetInfluences.map(num);
    }
    // The base colour texture's transform of each material (what texture binds move).
    const textures = {};
    vrm.scene.traverse((object) => {
      for (const material of [object.material].flat()) {
        const index = material && gltf.parser.associations.get(material)?.materials;
        if (index == null || !material.map || textures[index]) continue;
        textures[index] = {
          offset: [num(material.map.offset.x), num(material.map.offset.y)],
          scale: [num(material.map.repeat.x), num(material.map.repeat.y)],
        };
      }
    });
    out.push({ applied, morphs, textures });
  }
  process.stdout.write(JSON.stringify({ cases: out }) + '\n');
  flushChatter();
}

runMain('expressions.mjs', main);
