/**
 * Every fuzz target and the module (beside this file) that exports it. The text targets live
 * apart from the body targets so that a text target's run loads and instruments only what it
 * fuzzes. `npm run fuzz` runs them (tools/fuzz/run.ts); test/fuzz/regressions.test.ts replays
 * their saved inputs.
 */
export const FUZZ_TARGETS: Record<string, 'text-targets.js' | 'body-targets.js'> = {
  quantity: 'text-targets.js',
  labelSelector: 'text-targets.js',
  fieldSelector: 'text-targets.js',
  requestTarget: 'text-targets.js',
  queryParameters: 'text-targets.js',
  nfsPathPattern: 'text-targets.js',
  objectBody: 'body-targets.js',
  jsonPatch: 'body-targets.js',
  mergePatch: 'body-targets.js',
  strategicMergePatch: 'body-targets.js',
  longLists: 'body-targets.js',
};
