// node render_three.mjs MODEL.vrm POSE.json CAMERA.json OUT.png [--size WxH]
//        [--key INTENSITY] [--light-direction x,y,z] [--ambient INTENSITY] [--settle SECONDS]
//
// The reference still: three-vrm 3.5.5 draws MODEL in POSE from CAMERA in Debian's
// Chromium (headless, SwiftShader WebGL; no browser download), on a transparent
// background, as a VRM player does: sRGB output, no tone mapping, one white
// directional light (three's intensity KEY, default π: MToon's lit colour as stored)
// shining from LIGHT_DIRECTION toward the origin, and an ambient light (three's
// intensity AMBIENT). Springs are settled first: reset, then SETTLE seconds (default
// 1.5) at 60 Hz with the pose held.
//
// A sequence: POSE.json an array of {t, pose} (what `vrma-maker sample` prints) and OUT
// a folder, each frame written as OUT/frame_0001.png on, the springs settled on the
// first and stepped through time after; --background #rrggbb for an opaque picture.
//
// CAMERA.json is render-png's: {"position": [x,y,z], "target": [x,y,z], "fov": degrees}
// in the VRM 1.0 frame. Prints one JSON object: {"vrm_version", "springs": [{"node",
// "world": [x,y,z], "tail": [x,y,z]}]} (each spring joint's node name, its world
// position and its tail's after settling, VRM 1.0 frame). Errors: exit 1 and one line on stderr.
import { createServer } from 'node:http';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, normalize, extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const CHROMIUM = process.env.VRMA_MAKER_CHROMIUM ?? '/usr/bin/chromium';

function fail(message) {
  process.stderr.write(`render_three: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const positional = [];
  const options = { size: '512x512', key: String(Math.PI), ambient: '0', settle: '1.5', 'light-direction': '1.5,3,2.5', background: '' };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i].startsWith('--')) {
      const name = argv[i].slice(2);
      if (!(name in options) || i + 1 >= argv.length) fail(`unknown or incomplete option ${argv[i]}`);
      options[name] = argv[++i];
    } else positional.push(argv[i]);
  }
  if (positional.length !== 4) fail('usage: render_three.mjs MODEL.vrm POSE.json CAMERA.json OUT.png [options]');
  return { positional, options };
}

const numbers = (text, count, what) => {
  const values = text.split(/[x,]/).map(Number);
  if (values.length !== count || !values.every(Number.isFinite)) fail(`bad ${what}: ${text}`);
  return values;
};

// The VRM 1.0 meta's license URL, so that three-vrm's meta plugin accepts the model.
function licenseUrl(glb) {
  if (glb.length < 20 || glb.readUInt32LE(0) !== 0x46546c67) fail('not a GLB file (bad magic)');
  const length = glb.readUInt32LE(12);
  const json = JSON.parse(glb.subarray(20, 20 + length).toString('utf8'));
  return json.extensions?.VRMC_vrm?.meta?.licenseUrl;
}

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json' };

// The page, the harness's node_modules and the model, on loopback only.
function serve(model) {
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url, 'http://x').pathname);
    let file;
    if (path === '/model.vrm') file = model;
    else if (path === '/') file = join(here, 'render_page.html');
    else {
      file = normalize(join(here, path));
      if (!file.startsWith(here)) file = null;
    }
    if (!file || !existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    response.end(await readFile(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function main() {
  const { positional: [modelPath, posePath, cameraPath, outPath], options } = parseArgs(process.argv.slice(2));
  const [width, height] = numbers(options.size, 2, '--size');
  const glb = await readFile(modelPath).catch((e) => fail(`cannot read ${modelPath}: ${e.message}`));
  const readJson = async (path) => JSON.parse(await readFile(path, 'utf8').catch((e) => fail(`cannot read ${path}: ${e.message}`)));
  const pose = await readJson(posePath);
  const camera = await readJson(cameraPath);
  const input = {
    width,
    height,
    camera,
    pose: Array.isArray(pose) ? null : pose,
    poses: Array.isArray(pose) ? pose : null,
    background: options.background || null,
    licenseUrl: licenseUrl(glb),
    settle: Number(options.settle),
    light: {
      key: Number(options.key),
      ambient: Number(options.ambient),
      direction: numbers(options['light-direction'], 3, '--light-direction'),
    },
  };
  const server = await serve(modelPath);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync',
      '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist',
    ],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 64, height: 64 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => window.renderReady === true, null, { timeout: 60000 })
      .catch(() => fail(`the page did not start: ${errors.join('; ')}`));
    const result = await page.evaluate((i) => window.render(i), input);
    if (result.pngs) {
      await mkdir(outPath, { recursive: true });
      for (const [i, data] of result.pngs.entries()) {
        const name = `frame_${String(i + 1).padStart(4, '0')}.png`;
        await writeFile(join(outPath, name), Buffer.from(data.replace(/^data:image\/png;base64,/, ''), 'base64'));
      }
      process.stdout.write(JSON.stringify({ vrm_version: result.vrm_version, frames: result.pngs.length }) + '\n');
      return;
    }
    const png = Buffer.from(result.png.replace(/^data:image\/png;base64,/, ''), 'base64');
    await writeFile(outPath, png);
    process.stdout.write(JSON.stringify({ vrm_version: result.vrm_version, springs: result.springs }) + '\n');
  } finally {
    await browser.close();
    server.close();
  }
}

main().catch((e) => fail(String(e?.message ?? e).replace(/\s+/g, ' ').trim()));
