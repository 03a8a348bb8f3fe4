import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelSelectorAsRequirements, labelSelectorMatches } from '@pv-controller/kube/selectors.js';

test('an undefined or empty object selector matches everything', () => {
  assert.equal(labelSelectorMatches(undefined, { a: 'b' }), true);
  assert.equal(labelSelectorMatches({}, undefined), true);
  assert.equal(labelSelectorMatches({ matchLabels: {}, matchExpressions: [] }, {}), true);
});

test('object selectors AND matchLabels with matchExpressions', () => {
  const sel = {
    matchLabels: { zone: 'a' },
    matchExpressions: [
      { key: 'speed', operator: 'In' as const, values: ['fast', 'faster'] },
      { key: 'legacy', operator: 'DoesNotExist' as const },
    ],
  };
  assert.equal(labelSelectorMatches(sel, { zone: 'a', speed: 'fast' }), true);
  assert.equal(labelSelectorMatches(sel, { zone: 'b', speed: 'fast' }), false);
  assert.equal(labelSelectorMatches(sel, { zone: 'a', speed: 'slow' }), false);
  assert.equal(labelSelectorMatches(sel, { zone: 'a', speed: 'fast', legacy: '' }), false);
  assert.equal(labelSelectorAsRequirements(sel).length, 3);
});

test('object selectors with a bad operator or values are rejected', () => {
  assert.throws(
    () => labelSelectorAsRequirements({ matchExpressions: [{ key: 'a', operator: 'Gt' as never, values: ['1'] }] }),
    { message: '"Gt" is not a valid label selector operator' },
  );
  assert.throws(() => labelSelectorAsRequirements({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), {
    message: "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
  });
  assert.throws(() => labelSelectorAsRequirements({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }),
    /values set must be empty for exists and does not exist/);
  assert.throws(() => labelSelectorAsRequirements({ matchLabels: { 'a b': 'c' } }), /key: Invalid value: "a b"/);
});
