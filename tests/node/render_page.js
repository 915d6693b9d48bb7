// The page half of render_three.mjs: three-vrm draws one model in one pose from one
// camera, as a VRM player does, and hands back the picture and the settled springs.
// Frames follow the harness (README): the VRM 1.0 frame, VRM 0.x turned by
// VRMUtils.rotateVRM0 so that its scene faces +Z as well.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { VRMLoaderPlugin, VRMMetaLoaderPlugin, VRMUtils } from '@pixiv/three-vrm';

// VRM 1.0 frame -> a VRM 0.x model's normalized bones (its own inverse).
const quatIn = (q, isV0) => (isV0 ? [-q[0], q[1], -q[2], q[3]] : q);
const posIn = (p, isV0) => (isV0 ? [-p[0], p[1], -p[2]] : p);

async function load(url, licenseUrl) {
  const acceptLicenseUrls = ['https://vrm.dev/licenses/1.0/'];
  if (typeof licenseUrl === 'string') acceptLicenseUrls.push(licenseUrl);
  const loader = new GLTFLoader();
  loader.register((parser) => new VRMLoaderPlugin(parser, {
    metaPlugin: new VRMMetaLoaderPlugin(parser, { acceptLicenseUrls, acceptV0Meta: true }),
  }));
  const gltf = await loader.loadAsync(url);
  const vrm = gltf.userData.vrm;
  if (!vrm) throw new Error('not a VRM (three-vrm found no VRM / VRMC_vrm extension)');
  return vrm;
}

function applyPose(vrm, pose, isV0) {
  const humanoid = vrm.humanoid;
  for (const [bone, q] of Object.entries(pose.bones ?? {})) {
    const node = humanoid.getNormalizedBoneNode(bone);
    if (!node) continue; // a bone the model lacks, as the editor ignores it
    node.quaternion.set(...quatIn(q, isV0)).normalize();
  }
  if (Array.isArray(pose.hips)) {
    humanoid.getNormalizedBoneNode('hips').position.set(...posIn(pose.hips, isV0));
  }
  for (const [name, weight] of Object.entries(pose.expr ?? {})) {
    vrm.expressionManager?.setValue(name, weight);
  }
}

// Pose the raw bones, then settle the springs from a reset with the pose held, at 60 Hz,
// as the editor does before a still.
function settleSprings(vrm, settle) {
  vrm.update(0);
  vrm.scene.updateMatrixWorld(true);
  vrm.springBoneManager?.reset();
  const steps = Math.round(settle * 60);
  for (let i = 0; i < steps; i++) vrm.update(1 / 60);
  vrm.scene.updateMatrixWorld(true);
  // A still is at t = 0 of its UV animation (the settling above advanced it).
  for (const material of vrm.materials ?? []) {
    for (const name of ['uvAnimationScrollXOffset', 'uvAnimationScrollYOffset', 'uvAnimationRotationPhase']) {
      if (material.uniforms?.[name]) material.uniforms[name].value = 0;
    }
  }
}

window.render = async (input) => {
  const { width, height, camera: view, pose, light, settle, licenseUrl } = input;
  const canvas = document.getElementById('view');
  const renderer = new THREE.WebGLRenderer({
    canvas,
    alpha: true,
    premultipliedAlpha: false,
    preserveDrawingBuffer: true,
    antialias: false,
  });
  renderer.setPixelRatio(1);
  renderer.setSize(width, height, false);
  renderer.setClearColor(0x000000, 0);
  // three's defaults, stated: sRGB output, no tone mapping.
  renderer.outputColorSpace = THREE.SRGBColorSpace;
  renderer.toneMapping = THREE.NoToneMapping;

  const vrm = await load('/model.vrm', licenseUrl);
  const isV0 = vrm.meta?.metaVersion === '0';
  if (isV0) VRMUtils.rotateVRM0(vrm);
  const scene = new THREE.Scene();
  scene.add(vrm.scene);
  const key = new THREE.DirectionalLight(0xffffff, light.key);
  key.position.set(...light.direction);
  scene.add(key);
  scene.add(new THREE.AmbientLight(0xffffff, light.ambient));

  const camera = new THREE.PerspectiveCamera(view.fov, width / height, 0.01, 1000);
  camera.position.set(...view.position);
  camera.up.set(0, 1, 0);
  camera.lookAt(new THREE.Vector3(...view.target));
  camera.updateMatrixWorld(true);
  // The eyes on the camera (a player's default target), unless asked to keep the pose's.
  if (vrm.lookAt && input.eyes !== 'pose') vrm.lookAt.target = camera;

  // A sequence (`poses`, each {t, pose}): the springs settle on the first frame, then
  // are stepped through the time between frames at 60 Hz, as a player shows them.
  const sequence = Array.isArray(input.poses) ? input.poses : null;
  if (sequence) {
    if (input.background) renderer.setClearColor(new THREE.Color(input.background), 1);
    const pngs = [];
    let last = null;
    for (const { t, pose: framePose } of sequence) {
      applyPose(vrm, framePose, isV0);
      if (last === null) {
        settleSprings(vrm, settle);
      } else {
        const steps = Math.max(1, Math.round((t - last) * 60));
        for (let i = 0; i < steps; i++) vrm.update((t - last) / steps);
        vrm.scene.updateMatrixWorld(true);
      }
      last = t;
      renderer.render(scene, camera);
      pngs.push(canvas.toDataURL('image/png'));
    }
    renderer.dispose();
    return { pngs, vrm_version: isV0 ? '0' : '1' };
  }

  applyPose(vrm, pose, isV0);
  settleSprings(vrm, settle);

  const springs = [];
  for (const joint of vrm.springBoneManager?.joints ?? []) {
    const p = joint.bone.getWorldPosition(new THREE.Vector3());
    // The tail: the next joint, or the point past a leaf three-vrm simulates.
    const t = joint.child
      ? joint.child.getWorldPosition(new THREE.Vector3())
      : joint.bone.localToWorld(joint._initialLocalChildPosition.clone());
    springs.push({ node: joint.bone.name, world: [p.x, p.y, p.z], tail: [t.x, t.y, t.z] });
  }

  renderer.render(scene, camera);
  const png = canvas.toDataURL('image/png');
  renderer.dispose();
  return { png, springs, vrm_version: isV0 ? '0' : '1' };
};
window.renderReady = true;
