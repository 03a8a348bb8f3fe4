import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), 'src');

/**
 * The arrows between src/'s parts (docs/architecture.md draws them): a part may import only the
 * parts listed for it. kube/ is pure and imports nothing; src/log.ts (pino, I/O) is the leaf the
 * others may log through; src/backoff.ts, the one retry delay, is another such leaf. `cli` reaches
 * the controller only through its public entry, src/controller/index.ts.
 */
const ALLOWED_ARROWS = {
  kube: [],
  log: [],
  backoff: [],
  'kube-client': ['kube', 'log', 'backoff'],
  metrics: ['kube', 'log', 'backoff'],
  plugins: ['kube', 'metrics', 'log', 'backoff'],
  apiserver: ['kube', 'log', 'backoff'],
  controller: ['kube', 'kube-client', 'metrics', 'plugins', 'log', 'backoff'],
  cli: ['kube', 'kube-client', 'metrics', 'plugins', 'apiserver', 'controller', 'log', 'backoff'],
};

/** `controller` for src/controller/binder/x.ts, `log` for src/log.ts; undefined outside src/. */
function partOf(file) {
  const rel = relative(SRC, file);
  if (rel.startsWith('..') || rel === '') return undefined;
  return rel.split(sep)[0].replace(/\.(ts|js)$/, '');
}

const arrows = {
  meta: {
    type: 'problem',
    docs: { description: 'imports between the parts of src/ follow the arrows of docs/architecture.md' },
    messages: {
      forbidden: '{{from}}/ must not import {{to}}/ ("{{spec}}"): see the arrows in docs/architecture.md',
      unknown: '{{from}}/ is not a known part of src/: add it to ALLOWED_ARROWS in eslint.config.js',
      internal: 'cli/ uses the controller through its public entry src/controller/index.ts, not "{{spec}}"',
    },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const from = partOf(file);
    if (from === undefined) return {};
    const check = (source) => {
      const spec = source?.value;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const target = resolve(dirname(file), spec);
      const to = partOf(target);
      if (to === undefined || to === from) return;
      const allowed = ALLOWED_ARROWS[from];
      if (!allowed) context.report({ node: source, messageId: 'unknown', data: { from } });
      else if (!allowed.includes(to)) context.report({ node: source, messageId: 'forbidden', data: { from, to, spec } });
      else if (from === 'cli' && to === 'controller' && relative(resolve(SRC, 'controller'), target) !== 'index.js') {
        context.report({ node: source, messageId: 'internal', data: { spec } });
      }
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

export default tseslint.config(
  { ignores: ['dist/**', '.build/**', 'node_modules/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { local: { rules: { arrows } } },
    rules: { 'local/arrows': 'error' },
  },
  {
    // What a request decides the length of may not be spread into a call.
    files: ['src/apiserver/**/*.ts', 'src/kube/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', {
        selector: "CallExpression[callee.property.name='push'] > SpreadElement",
        message: 'A spread push puts every element on the stack (it overflows near 100,000): loop, or appendCauses for StatusCauses.',
      }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['scripts/**/*.mjs', 'eslint.config.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
