import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BadRequestError } from '@pv-controller/kube/errors.js';
import { matchesLabelRequirements } from '@pv-controller/kube/selectors.js';
import { fieldNames, matchesFieldRequirements, parseFieldSelector } from '@pv-controller/apiserver/api/field-selectors.js';
import { labelRequirementsToString, parseLabelSelector } from '@pv-controller/apiserver/api/label-selector-parser.js';

test('parses every label selector form apimachinery accepts', () => {
  const valid = [
    '', 'x=a,y=b,z=c', 'x!=a,y=b', 'x=,z= ', 'x= ,z= ', '!x', 'x>1', 'x>1,z<5', 'x in (a)',
    'x in (a,b,c)', 'x notin (a)', 'x in (,a)', 'x in ()', 'x', 'x,y', 'example.com/x=a', 'x==a',
    'x in (in, notin)', '  x  =  a  ,  y ',
  ];
  for (const s of valid) assert.doesNotThrow(() => parseLabelSelector(s), s);
});

test('rejects malformed label selectors with 400 BadRequest', () => {
  const invalid = ['x=a||y=b', 'x==a==b', '!x=a', 'x<a', 'x>1,z<5a', 'x in (a', 'x in a', 'x=a,', ',x=a',
    'x notin', 'x in (a b)', 'x=a b', 'a/b/c', '-x=a', 'x=-a', 'x@=a', 'x=(a)'];
  for (const s of invalid) {
    assert.throws(() => parseLabelSelector(s), (err: unknown) => err instanceof BadRequestError && err.code === 400, s);
  }
});

test('label selector errors carry apimachinery messages', () => {
  assert.throws(() => parseLabelSelector('x=a b'), { message: "found 'b', expected: ',' or 'end of string'" });
  assert.throws(() => parseLabelSelector('x in a'), { message: "unable to parse requirement: found 'a' expected: '('" });
  assert.throws(() => parseLabelSelector('x=-a'), {
    message:
      'unable to parse requirement: values[0][x]: Invalid value: "-a": a valid label must be an empty string or consist of ' +
      "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or " +
      "'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  });
  assert.throws(() => parseLabelSelector('Bad_/x'), /^BadRequestError: unable to parse requirement: <nil>: Invalid value: "Bad_\/x": prefix part a lowercase RFC 1123 subdomain/);
  assert.throws(() => parseLabelSelector('x<a'), {
    message: "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer",
  });
});

test('parsed requirements are sorted by key with set values sorted and de-duplicated', () => {
  assert.deepEqual(parseLabelSelector('z in (b,a,b),a!=1,m'), [
    { key: 'a', operator: 'NotEquals', values: ['1'] },
    { key: 'm', operator: 'Exists', values: [] },
    { key: 'z', operator: 'In', values: ['a', 'b'] },
  ]);
  assert.deepEqual(parseLabelSelector('x in (,a)')[0].values, ['', 'a']);
  assert.equal(labelRequirementsToString(parseLabelSelector('b notin (y,x),!a,c>3')), '!a,b notin (x,y),c>3');
});

test('label requirements match like apimachinery', () => {
  const labels = { env: 'prod', tier: 'db', n: '7' };
  const cases: [string, boolean][] = [
    ['', true], ['env=prod', true], ['env==prod', true], ['env=dev', false], ['env!=dev', true],
    ['missing!=x', true], ['env in (dev,prod)', true], ['env notin (prod)', false], ['missing notin (a)', true],
    ['env', true], ['missing', false], ['!missing', true], ['!env', false], ['env=prod,tier=web', false],
    ['n>5', true], ['n<5', false], ['env>1', false], ['missing in (a)', false], ['x=', false],
  ];
  for (const [sel, want] of cases) assert.equal(matchesLabelRequirements(parseLabelSelector(sel), labels), want, sel);
  assert.equal(matchesLabelRequirements(parseLabelSelector('x='), { x: '' }), true);
  assert.equal(matchesLabelRequirements(parseLabelSelector('a'), undefined), false);
});

test('parses field selectors with =, == and != and escapes', () => {
  assert.deepEqual(parseFieldSelector('metadata.name=claim1'), [{ field: 'metadata.name', operator: 'Equals', value: 'claim1' }]);
  assert.deepEqual(parseFieldSelector('b==2,a!=1'), [
    { field: 'a', operator: 'NotEquals', value: '1' },
    { field: 'b', operator: 'Equals', value: '2' },
  ]);
  assert.deepEqual(parseFieldSelector('x=a\\,b\\=c\\\\'), [{ field: 'x', operator: 'Equals', value: 'a,b=c\\' }]);
  assert.deepEqual(parseFieldSelector(''), []);
  assert.deepEqual(parseFieldSelector('involvedObject.namespace='), [{ field: 'involvedObject.namespace', operator: 'Equals', value: '' }]);
  assert.deepEqual(fieldNames(parseFieldSelector('a=1,b=2,a!=3')), ['a', 'b']);
});

test('rejects field selectors without an operator or with bad escapes', () => {
  assert.throws(() => parseFieldSelector('metadata.name'), {
    message: "invalid selector: 'metadata.name'; can't understand 'metadata.name'",
  });
  assert.throws(() => parseFieldSelector('a=b\\x'), { message: 'invalid field selector: invalid escape sequence: \\x' });
  assert.throws(() => parseFieldSelector('a=b=c'), { message: 'invalid field selector: unescaped character in value: 61' });
  assert.throws(() => parseFieldSelector('a>1'), BadRequestError);
});

test('field requirements compare exactly, a missing field reads as empty', () => {
  const fields = { 'metadata.name': 'c1', 'status.phase': 'Bound' };
  assert.equal(matchesFieldRequirements(parseFieldSelector('metadata.name=c1'), fields), true);
  assert.equal(matchesFieldRequirements(parseFieldSelector('metadata.name=c2'), fields), false);
  assert.equal(matchesFieldRequirements(parseFieldSelector('status.phase!=Bound'), fields), false);
  assert.equal(matchesFieldRequirements(parseFieldSelector('spec.nodeName='), fields), true);
  assert.equal(matchesFieldRequirements(parseFieldSelector('spec.nodeName!='), fields), false);
});
