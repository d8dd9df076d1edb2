#!/usr/bin/env node
/**
 * Removes compiled files whose TypeScript source is gone: tsc -b never deletes
 * an output, so after a source file moves (say messages/unit-run.ts to
 * messages/unit-run/index.ts) a checkout that is pulled and rebuilt keeps the old
 * dist/messages/unit-run.js, and Node's resolver picks that stale file before the
 * new folder. Run by `npm run build` and the test setup before tsc -b.
 *
 *   node scripts/prune-stale-dist.js      # prints what it removed, if anything
 */
const { readdirSync, existsSync, rmSync, statSync } = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', 'packages');
const OUTPUT = /\.(d\.ts\.map|d\.ts|js\.map|js)$/;

/** The source a compiled file came from, or undefined when it was not compiled from TypeScript. */
function sourceCandidates(srcDir, relative) {
  const stem = relative.replace(OUTPUT, '');
  return [`${stem}.ts`, `${stem}.tsx`, `${stem}.js`].map((name) => path.join(srcDir, name));
}

function walk(dir, visit) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, visit);
    else visit(full);
  }
}

function pruneEmptyDirs(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) pruneEmptyDirs(path.join(dir, entry.name));
  }
  if (readdirSync(dir).length === 0) rmSync(dir, { recursive: true });
}

const removed = [];
for (const pkg of readdirSync(ROOT)) {
  const dist = path.join(ROOT, pkg, 'dist');
  const src = path.join(ROOT, pkg, 'src');
  // Only packages whose dist tsc writes from src; the console's dist is a vite bundle.
  if (!existsSync(dist) || !existsSync(src) || !existsSync(path.join(ROOT, pkg, 'tsconfig.json')) || pkg === 'console')
    continue;
  walk(dist, (file) => {
    if (!OUTPUT.test(file)) return;
    const relative = path.relative(dist, file);
    if (sourceCandidates(src, relative).some((candidate) => existsSync(candidate))) return;
    rmSync(file);
    removed.push(path.relative(path.join(ROOT, '..'), file));
  });
  if (statSync(dist).isDirectory()) pruneEmptyDirs(dist);
}
if (removed.length > 0) {
  process.stdout.write(`prune-stale-dist: removed ${removed.length} compiled file(s) whose source is gone\n`);
  // tsc -b trusts its build info: rebuild the packages that lost outputs so nothing they still need is missing.
  for (const pkg of new Set(removed.map((file) => file.split(path.sep)[1]))) {
    rmSync(path.join(ROOT, pkg, 'tsconfig.tsbuildinfo'), { force: true });
  }
}
