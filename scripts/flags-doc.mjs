#!/usr/bin/env node
// docs/flags.md is generated from each command's own --help, so it can never drift from the
// code: `node scripts/flags-doc.mjs > docs/flags.md` after changing a flag (a test checks it).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = process.argv[2] ?? join(root, 'dist', 'src', 'cli', 'main.js');
const commands = ['up', 'controller', 'node-agent', 'apiserver', 'usage', 'orphans'];

function help(args) {
  return execFileSync(process.execPath, [cli, ...args, '--help'], {
    encoding: 'utf8',
    env: { ...process.env, COLUMNS: '110', AWS_SDK_JS_SUPPRESS_NODE_VERSION_WARNING: '1' },
  }).trimEnd();
}

const parts = [
  '# Flags',
  '',
  'Generated from each command\'s `--help` by `node scripts/flags-doc.mjs > docs/flags.md`; a test',
  'fails when this file and the code disagree. Durations are Go-style (`15s`, `10m`, `1h30m`). Flag',
  'names follow kube-controller-manager where it has one. A bad flag prints a message and exits 2.',
  '',
  '```',
  help([]),
  '```',
];
for (const command of commands) parts.push('', `## \`pv-controller ${command}\``, '', '```', help([command]), '```');
process.stdout.write(parts.join('\n') + '\n');
