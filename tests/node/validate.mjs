#!/usr/bin/env node
// Run the Khronos glTF-Validator on binary glTF files (.glb / .vrm / .vrma).
//
// Usage: node tests/node/validate.mjs FILE...
//
// Prints one JSON object per file (one per line) on stdout:
//   {"file": "...", "errors": N, "warnings": N, "messages": [...]}
// where `messages` holds the first 20 error-severity issues, each
// {"code", "pointer", "message"}. Exit code 0 if every file has zero errors,
// 1 otherwise (including unreadable files or usage errors).
//
// Only self-contained assets are supported: external URIs are reported as
// errors by the validator (IO_ERROR) because no external resource loader is given.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import validator from 'gltf-validator';

const MAX_MESSAGES = 20;
const SEVERITY_ERROR = 0;
const SEVERITY_WARNING = 1;

// Never let library chatter pollute stdout (one JSON object per line).
console.log = console.info = console.debug = (...a) => console.error(...a);

async function validateFile(file) {
  const bytes = new Uint8Array(await readFile(file));
  const report = await validator.validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 0, // unlimited, so the error/warning counts are exact
    writeTimestamp: false,
    externalResourceFunction: (uri) =>
      Promise.reject(new Error(`external resource not supported: ${uri}`)),
  });
  const issues = report.issues ?? {};
  const all = issues.messages ?? [];
  const messages = all
    .filter((m) => m.severity === SEVERITY_ERROR)
    .slice(0, MAX_MESSAGES)
    .map((m) => ({ code: m.code, pointer: m.pointer ?? null, message: m.message }));
  return {
    file,
    errors: issues.numErrors ?? all.filter((m) => m.severity === SEVERITY_ERROR).length,
    warnings: issues.numWarnings ?? all.filter((m) => m.severity === SEVERITY_WARNING).length,
    messages,
  };
}

async function main() {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    process.stderr.write('usage: node validate.mjs FILE...\n');
    return 1;
  }
  let ok = true;
  for (const file of files) {
    let result;
    try {
      result = await validateFile(file);
    } catch (e) {
      const msg = String(e?.message ?? e).replace(/\s+/g, ' ').trim();
      result = {
        file,
        errors: 1,
        warnings: 0,
        messages: [{ code: 'HARNESS_FAILURE', pointer: null, message: msg }],
      };
    }
    if (result.errors !== 0) ok = false;
    process.stdout.write(JSON.stringify(result) + '\n');
  }
  return ok ? 0 : 1;
}

main().then(
  (code) => { process.exitCode = code; },
  (e) => {
    process.stderr.write(`validate.mjs: ${String(e?.message ?? e).replace(/\s+/g, ' ')}\n`);
    process.exitCode = 1;
  },
);
