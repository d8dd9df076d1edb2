#!/usr/bin/env node
/**
 * Builds the native addon (build/Release/shared_bitmap.node) with node-gyp.
 *
 *   node scripts/build-native.js             rebuild (the package's `install` script)
 *   node scripts/build-native.js --if-stale  only when the .node is missing or
 *                                            older than binding.gyp / native/*
 *
 * Works offline: when no node directory is configured (npm's `nodedir`, the
 * npm_config_nodedir variable) and the running Node's own headers are
 * installed next to it (<prefix>/include/node/node_api.h, as Debian's and
 * NodeSource's packages do), node-gyp is pointed at them instead of
 * downloading headers. node-gyp is the one npm runs scripts with
 * (npm_config_node_gyp), else one installed in node_modules, else the one
 * bundled with npm next to this Node.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const addon = path.join(root, 'build', 'Release', 'shared_bitmap.node');

function sources() {
  const native = path.join(root, 'native');
  return [path.join(root, 'binding.gyp'), ...fs.readdirSync(native).map((name) => path.join(native, name))];
}

function isStale() {
  let built;
  try {
    built = fs.statSync(addon).mtimeMs;
  } catch {
    return true;
  }
  return sources().some((file) => fs.statSync(file).mtimeMs > built);
}

function findNodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    (() => {
      try {
        return require.resolve('node-gyp/bin/node-gyp.js', { paths: [root] });
      } catch {
        return undefined;
      }
    })(),
    path.join(
      path.dirname(process.execPath),
      '..',
      'lib',
      'node_modules',
      'npm',
      'node_modules',
      'node-gyp',
      'bin',
      'node-gyp.js',
    ),
  ];
  const found = candidates.find((file) => file !== undefined && file !== '' && fs.existsSync(file));
  if (found === undefined)
    throw new Error(
      'shared-bitmap: node-gyp not found (looked at npm_config_node_gyp, node_modules, and npm next to node)',
    );
  return found;
}

/** `--nodedir=<prefix>` when nothing is configured and the running Node's headers are installed. */
function nodedirArgs() {
  if (process.env.npm_config_nodedir) return [];
  const prefix = path.resolve(path.dirname(process.execPath), '..');
  return fs.existsSync(path.join(prefix, 'include', 'node', 'node_api.h')) ? [`--nodedir=${prefix}`] : [];
}

function main() {
  if (process.argv.includes('--if-stale') && !isStale()) return;
  const gypArgs = ['rebuild', '--loglevel=warn', ...nodedirArgs()];
  console.log(`shared-bitmap: building the native addon (node-gyp ${gypArgs.join(' ')})`);
  const args = [findNodeGyp(), ...gypArgs];
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) {
    console.error(
      `shared-bitmap: node-gyp failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}); needs python3, make and a C compiler`,
    );
    process.exit(1);
  }
}

main();
