/**
 * Property tests of label and field selectors: selectors generated from the grammar select
 * exactly what a direct evaluation of the generated requirements selects; any text is refused
 * with a 400 or prints to a form that parses to the same requirements.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { matchesLabelRequirements } from '@pv-controller/kube/selectors.js';
import { matchesFieldRequirements, parseFieldSelector } from '@pv-controller/apiserver/api/field-selectors.js';
import { parseLabelSelector } from '@pv-controller/apiserver/api/label-selector-parser.js';
import { fieldSelectorLaws, labelSelectorLaws } from '../../../test/fuzz/laws/text-parsers.js';

const KEYS = ['a', 'b', 'app.kubernetes.io/name', 'x-y_z.1'];
/** Valid label values; the labels selected from also carry '-2', which only `>` and `<` read as a number. */
const VALUES = ['', '1', 'v', 'in', 'notin', 'a.b-c_d'];
const key = fc.constantFrom(...KEYS);
const value = fc.constantFrom(...VALUES);
const labelValue = fc.constantFrom(...VALUES, '-2', '+3');

type Term =
  | { op: 'exists' | 'absent'; key: string }
  | { op: '=' | '==' | '!='; key: string; value: string }
  | { op: 'in' | 'notin'; key: string; values: string[] }
  | { op: '>' | '<'; key: string; n: number };

const term: fc.Arbitrary<Term> = fc.oneof(
  fc.record({ op: fc.constantFrom('exists' as const, 'absent' as const), key }),
  fc.record({ op: fc.constantFrom('=' as const, '==' as const, '!=' as const), key, value }),
  fc.record({ op: fc.constantFrom('in' as const, 'notin' as const), key, values: fc.array(value.filter((v) => v !== ''), { minLength: 1, maxLength: 3 }) }),
  fc.record({ op: fc.constantFrom('>' as const, '<' as const), key, n: fc.integer({ min: 0, max: 5 }) }),
);

function written(t: Term, space: string): string {
  switch (t.op) {
    case 'exists': return t.key;
    case 'absent': return `!${t.key}`;
    case 'in': case 'notin': return `${t.key}${space} ${t.op} ${space}(${t.values.join(`,${space}`)})`;
    case '>': case '<': return `${t.key}${space}${t.op}${space}${t.n}`;
    default: return `${t.key}${space}${t.op}${space}${t.value}`;
  }
}

/** The model: each term evaluated directly on the labels, all of them ANDed. */
function modelMatches(terms: Term[], labels: Record<string, string>): boolean {
  return terms.every((t) => {
    const has = Object.hasOwn(labels, t.key);
    const v = labels[t.key];
    switch (t.op) {
      case 'exists': return has;
      case 'absent': return !has;
      case '=': case '==': return has && v === t.value;
      case '!=': return !has || v !== t.value;
      case 'in': return has && t.values.includes(v);
      case 'notin': return !has || !t.values.includes(v);
      case '>': return has && /^[+-]?\d+$/.test(v) && BigInt(v) > BigInt(t.n);
      case '<': return has && /^[+-]?\d+$/.test(v) && BigInt(v) < BigInt(t.n);
    }
  });
}

const labels = fc.dictionary(key, labelValue, { maxKeys: 4 });

test('a label selector written from the grammar selects exactly the labels its terms select', () => {
  fc.assert(fc.property(fc.array(term, { minLength: 1, maxLength: 4 }), fc.constantFrom('', ' '), fc.array(labels, { maxLength: 8 }), (terms, space, sets) => {
    const text = terms.map((t) => written(t, space)).join(',');
    const reqs = parseLabelSelector(text);
    for (const set of sets) assert.equal(matchesLabelRequirements(reqs, set), modelMatches(terms, set), `${text} on ${JSON.stringify(set)}`);
    labelSelectorLaws(text, sets);
  }), { numRuns: 1000 });
});

test('any text of selector characters is refused with a 400 or prints to a selector with the same requirements', () => {
  const chars = fc.constantFrom(...'ab1-_./ ,=!()<>in'.split(''), 'in', 'notin', ' in ', ' notin ');
  fc.assert(fc.property(fc.string({ unit: chars, maxLength: 30 }), (text) => labelSelectorLaws(text)), { numRuns: 3000 });
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 20 }), (text) => labelSelectorLaws(text)), { numRuns: 500 });
});

test('a field selector with escaped values selects exactly the fields its terms name, absent fields reading as ""', () => {
  const fieldValue = fc.string({ unit: fc.constantFrom(...'ab=,\\ x'.split('')), maxLength: 6 });
  const fieldTerm = fc.record({ field: fc.constantFrom('metadata.name', 'status.phase', 'spec.x'), negated: fc.boolean(), value: fieldValue });
  const escape = (v: string): string => v.replace(/[\\,=]/g, (c) => `\\${c}`);
  const fields = fc.dictionary(fc.constantFrom('metadata.name', 'status.phase', 'spec.x'), fieldValue, { maxKeys: 3 });
  fc.assert(fc.property(fc.array(fieldTerm, { minLength: 1, maxLength: 3 }), fields, (terms, set) => {
    const text = terms.map((t) => `${t.field}${t.negated ? '!=' : '='}${escape(t.value)}`).join(',');
    const model = terms.every((t) => ((set[t.field] ?? '') === t.value) !== t.negated);
    assert.equal(matchesFieldRequirements(parseFieldSelector(text), set), model, text);
    fieldSelectorLaws(text);
  }), { numRuns: 1000 });
  fc.assert(fc.property(fc.string({ unit: fc.constantFrom(...'a.=!,\\ '.split('')), maxLength: 20 }), (text) => fieldSelectorLaws(text)), { numRuns: 2000 });
});
