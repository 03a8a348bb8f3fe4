import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goBase64Decode } from '@pv-controller/apiserver/decode/go-base64.js';

/** Input, and what Go's base64.StdEncoding.Decode gives: the decoded text, or the offset of its CorruptInputError. */
const GO_ANSWERS: Array<[string, string | number]> = [
  ['', ''], ['YQ==', 'a'], ['YW\nJj', 'abc'], ['YQ==\n', 'a'], ['YQ=\n=', 'a'], ['YWJjZA==\r\n', 'abcd'], ['YWJj\nZGVmZ2hp', 'abcdefghi'],
  ['YQ', 0], ['YQ=', 3], ['Y', 0], ['YWJj*', 4], ['YQ==YQ==', 4], ['=', 0], ['a===', 1], ['YWJjZA=x', 6], ['YWJjZ\nA', 5],
  ['é', 0], ['YWJjZGVmZ2hpamts*', 16],
];

test('base64 is decoded as Go decodes a []byte: padding required, line breaks skipped, errors at Go offsets', () => {
  for (const [input, want] of GO_ANSWERS) {
    const got = goBase64Decode(input);
    if (typeof want === 'number') assert.deepEqual(got, { errorAt: want }, JSON.stringify(input));
    else assert.ok('bytes' in got && got.bytes.toString('utf8') === want, `${JSON.stringify(input)}: ${JSON.stringify(got)}`);
  }
});
