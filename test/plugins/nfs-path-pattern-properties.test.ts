/**
 * Property tests of the NFS `pathPattern`: any pattern and any claim values (written by the
 * claim's author) render to a relative directory strictly inside the share, or are refused with
 * InvalidParameter; a value only ever fills the one component the pattern gave it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { renderPattern } from '../../src/plugins/nfs-subdir/index.js';
import { pathPatternLaws } from '../fuzz/laws/nfs-path-pattern.js';

const VARIABLES = ['${.PVC.namespace}', '${.PVC.name}', '${.PVC.labels.app}', '${.PVC.annotations.dir}', '${.PVC.labels.__proto__}', '${ .PVC.name }', '${.PVC.uid}', '${', '}'];
const piece = fc.oneof(fc.constantFrom(...VARIABLES), fc.constantFrom('/', '.', '..', 'a', '-', '.pv-controller', '\0', ''));
const hostileValue = fc.oneof(fc.constantFrom('', '.', '..', '../x', '/etc', 'a/b', 'x\0y', 'ok', '.hidden', 'a'.repeat(300)), fc.string({ maxLength: 8 }));

test('any pattern with any claim values renders inside the share or is refused with InvalidParameter', () => {
  fc.assert(fc.property(fc.array(piece, { maxLength: 8 }).map((p) => p.join('')), hostileValue, hostileValue, hostileValue, (pattern, label, annotation, name) => {
    pathPatternLaws(pattern, { name, namespace: 'ns', uid: 'u', labels: { app: label }, annotations: { dir: annotation } });
  }), { numRuns: 5000 });
});

test('a value fills exactly its own component: the rendered path has as many components as the pattern', () => {
  const safe = fc.string({ unit: fc.constantFrom(...'abc.-_'.split('')), minLength: 1, maxLength: 6 }).filter((v) => v !== '.' && v !== '..');
  fc.assert(fc.property(safe, safe, (label, annotation) => {
    const rendered = renderPattern('${.PVC.namespace}/${.PVC.labels.app}-x/${.PVC.annotations.dir}', {
      name: 'c', namespace: 'ns', uid: 'u', labels: { app: label }, annotations: { dir: annotation },
    });
    assert.deepEqual(rendered.split('/'), ['ns', `${label}-x`, annotation]);
  }), { numRuns: 1000 });
});
