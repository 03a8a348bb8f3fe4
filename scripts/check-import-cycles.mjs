#!/usr/bin/env node
// Fails (exit 1) when the modules under src/ (and each workspace package's src/) import each other
// in a circle, type-only imports included: a circle makes two parts one, whatever the arrows
// between the folders say. `npm run lint` runs it after eslint.
// Usage: node scripts/check-import-cycles.mjs [dir...]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const roots = (process.argv.length > 2 ? process.argv.slice(2) : ['src', 'packages/kube/src', 'packages/apiserver/src']).map((d) => resolve(root, d));

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : path.endsWith('.ts') ? [path] : [];
  });
}

// Every static or dynamic import and re-export with a relative specifier.
const SPECIFIER = /(?:^|[\s;])(?:import|export)\b[^'"`;]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|(?:^|[\s;(])import\s*(?:\(\s*)?['"](\.{1,2}\/[^'"]+)['"]/g;

function importsOf(file) {
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const out = new Set();
  for (const m of text.matchAll(SPECIFIER)) {
    const target = resolve(dirname(file), (m[1] ?? m[2]).replace(/\.js$/, '.ts'));
    if (roots.some((src) => target.startsWith(src))) out.add(target);
  }
  return [...out];
}

const files = roots.flatMap((src) => walk(src));
const graph = new Map(files.map((f) => [f, importsOf(f).filter((t) => t !== f)]));

// Tarjan's strongly connected components: every component with more than one module is a circle.
let index = 0;
const state = new Map();
const stack = [];
const circles = [];
function connect(v) {
  state.set(v, { index, low: index, onStack: true });
  index++;
  stack.push(v);
  for (const w of graph.get(v) ?? []) {
    if (!graph.has(w)) continue;
    if (!state.has(w)) {
      connect(w);
      state.get(v).low = Math.min(state.get(v).low, state.get(w).low);
    } else if (state.get(w).onStack) {
      state.get(v).low = Math.min(state.get(v).low, state.get(w).index);
    }
  }
  if (state.get(v).low !== state.get(v).index) return;
  const component = [];
  let w;
  do {
    w = stack.pop();
    state.get(w).onStack = false;
    component.push(w);
  } while (w !== v);
  if (component.length > 1) circles.push(component);
}
for (const f of files) if (!state.has(f)) connect(f);

const fresh = circles.map((c) => c.map((f) => relative(root, f)).sort());
if (fresh.length === 0) process.exit(0);
for (const names of fresh) console.error(`import circle: ${names.join(' <-> ')}`);
console.error(`${fresh.length} import circle(s) under ${roots.map((src) => relative(root, src)).join(', ')}: break each by moving what both sides need into a module of its own.`);
process.exit(1);
