import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), 'src');

/**
 * The arrows between src/'s parts (docs/architecture.md draws them): a part may import only the
 * parts listed for it. The shared vocabulary is a package of its own (`@pv-controller/kube`,
 * packages/kube), which every part may import and which imports none of them; the embedded API
 * server (`@pv-controller/apiserver`) is reached only through src/cli/embedded-apiserver.ts.
 * src/backoff.ts, the one retry delay, is a leaf every part may import. src/csi, the CSI client,
 * imports only it; the CSI plugin, the controller and the CLI may use the client. `cli` reaches the
 * controller only through its public entries: src/controller/index.ts (the running controller)
 * and options.ts (its configuration, which every command's flags and --help read without loading
 * the controller, its plugins and client-node).
 */
const ALLOWED_ARROWS = {
  backoff: [],
  'kube-client': ['backoff'],
  metrics: ['backoff'],
  csi: ['backoff'],
  plugins: ['metrics', 'csi', 'backoff'],
  controller: ['kube-client', 'metrics', 'plugins', 'csi', 'backoff'],
  cli: ['kube-client', 'metrics', 'plugins', 'controller', 'csi', 'backoff'],
};

/** The first folder (or file) under `root` of `file`: `controller` for src/controller/binder/x.ts. */
function firstSegment(root, file) {
  const rel = relative(root, file);
  if (rel.startsWith('..') || rel === '') return undefined;
  const parts = rel.split(sep);
  return { name: parts[0].replace(/\.(ts|js)$/, ''), depth: parts.length };
}

/**
 * A lint rule that holds the relative imports between the parts `partOf` names to `allowed`;
 * `extra(from, to, target)` may report one more problem (a message id) for an allowed import.
 */
function importRule({ description, partOf, allowed, messages, extra = () => undefined }) {
  return {
    meta: { type: 'problem', docs: { description }, messages, schema: [] },
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
        const data = { from, to, spec };
        if (!allowed[from]) context.report({ node: source, messageId: 'unknown', data });
        else if (!allowed[from].includes(to)) context.report({ node: source, messageId: 'forbidden', data });
        else {
          const messageId = extra(from, to, target);
          if (messageId) context.report({ node: source, messageId, data });
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
}

const arrows = importRule({
  description: 'imports between the parts of src/ follow the arrows of docs/architecture.md',
  partOf: (file) => firstSegment(SRC, file)?.name,
  allowed: ALLOWED_ARROWS,
  messages: {
    forbidden: '{{from}}/ must not import {{to}}/ ("{{spec}}"): see the arrows in docs/architecture.md',
    unknown: '{{from}}/ is not a known part of src/: add it to ALLOWED_ARROWS in eslint.config.js',
    internal: 'cli/ uses the controller through its public entries src/controller/index.ts and options.ts, not "{{spec}}"',
  },
  extra: (from, to, target) =>
    from === 'cli' && to === 'controller' && !['index.js', 'options.js'].includes(relative(resolve(SRC, 'controller'), target)) ? 'internal' : undefined,
});

const APISERVER_SRC = resolve(dirname(fileURLToPath(import.meta.url)), 'packages', 'apiserver', 'src');

/**
 * The embedded API server's layers (packages/apiserver/README.md draws them), from the edge down:
 * a layer may import only those listed for it. The two codecs (decode, protobuf) are one layer
 * and may use each other; api/ (errors, request options, selectors, route shapes, media types)
 * is the vocabulary every layer above it speaks; openapi/ and storage/ import no other layer.
 */
const CODECS = ['decode', 'protobuf'];
const APISERVER_LAYERS = {
  server: ['http', 'endpoints', 'controllers', 'registry', ...CODECS, 'resources', 'api', 'openapi', 'storage'],
  http: ['endpoints', 'registry', ...CODECS, 'resources', 'api', 'openapi', 'storage'],
  endpoints: ['registry', ...CODECS, 'resources', 'api', 'openapi', 'storage'],
  controllers: ['registry', ...CODECS, 'resources', 'api', 'storage'],
  registry: [...CODECS, 'resources', 'api', 'openapi', 'storage'],
  decode: ['protobuf', 'resources', 'api', 'openapi', 'storage'],
  protobuf: ['decode', 'resources', 'api', 'openapi', 'storage'],
  resources: ['api', 'openapi'],
  api: [],
  openapi: [],
  storage: [],
};

const layers = importRule({
  description: "the embedded API server's layers import downwards only",
  partOf: (file) => {
    const seg = firstSegment(APISERVER_SRC, file);
    return seg && (seg.depth === 1 ? 'server' : seg.name);
  },
  allowed: APISERVER_LAYERS,
  messages: {
    forbidden: '{{from}}/ must not import {{to}}/ ("{{spec}}"): see the layers in packages/apiserver/README.md',
    unknown: '{{from}}/ is not a layer of the API server: add it to APISERVER_LAYERS in eslint.config.js',
  },
});

export default tseslint.config(
  { ignores: ['dist/**', 'packages/*/dist/**', '.build/**', 'node_modules/**', 'bench/results/**'] },
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
    files: ['packages/apiserver/src/**/*.ts'],
    plugins: { apiserver: { rules: { layers } } },
    rules: { 'apiserver/layers': 'error' },
  },
  {
    // The embedded API server is a development dependency: one loader imports it, so that every
    // other command runs where it is not installed (the controller's image).
    files: ['src/**/*.ts'],
    ignores: ['src/cli/embedded-apiserver.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ group: ['@pv-controller/apiserver', '@pv-controller/apiserver/*'], allowTypeImports: true, message: 'load the embedded API server through src/cli/embedded-apiserver.ts' }],
      }],
    },
  },
  {
    // What a request decides the length of may not be spread into a call.
    files: ['packages/apiserver/src/**/*.ts', 'packages/kube/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', {
        selector: "CallExpression[callee.property.name='push'] > SpreadElement",
        message: 'A spread push puts every element on the stack (it overflows near 100,000): loop, or appendCauses for StatusCauses.',
      }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'packages/*/test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['scripts/**/*.mjs', 'eslint.config.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    // `helm test`'s check, run by the image's node (charts/pv-controller/templates/tests).
    files: ['charts/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', fetch: 'readonly' } },
  },
);
