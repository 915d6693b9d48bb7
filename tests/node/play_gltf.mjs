#!/usr/bin/env node
// Plays a plain glTF's first animation with three.js alone (GLTFLoader + AnimationMixer,
// no VRM plug-in), as a tool without VRM support would.
//
// Usage: node tests/node/play_gltf.mjs FILE.glb TIMES
//   TIMES = a JSON array of seconds.
//
// Prints { "duration": clip.duration, "samples": [ { "t": t,
//            "nodes": { "<node name>": [x, y, z] },          // world positions
//            "morphs": { "<mesh node name>": [w, …] } } ] }  // morph influences
import { readFile } from 'node:fs/promises';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { fail, runMain, textureStubPlugin } from './load_vrm.mjs';

runMain('play_gltf', async () => {
  const [file, timesJson] = process.argv.slice(2);
  if (!file || !timesJson) fail('usage: play_gltf.mjs FILE.glb TIMES');
  const times = JSON.parse(timesJson);
  const buf = await readFile(file);
  const loader = new GLTFLoader();
  loader.register(textureStubPlugin);
  const gltf = await loader.parseAsync(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength), '');
  const clip = gltf.animations[0];
  if (!clip) fail('the file has no animation');
  const mixer = new THREE.AnimationMixer(gltf.scene);
  const action = mixer.clipAction(clip);
  action.setLoop(THREE.LoopOnce);
  action.clampWhenFinished = true;
  action.play();
  const samples = [];
  for (const t of times) {
    mixer.setTime(Math.min(t, clip.duration));
    gltf.scene.updateMatrixWorld(true);
    const nodes = {};
    const morphs = {};
    gltf.scene.traverse((o) => {
      if (o.name) nodes[o.name] = o.getWorldPosition(new THREE.Vector3()).toArray();
      if (o.morphTargetInfluences && o.name) morphs[o.name] = Array.from(o.morphTargetInfluences);
    });
    samples.push({ t, nodes, morphs });
  }
  process.stdout.write(JSON.stringify({ duration: clip.duration, samples }));
});
