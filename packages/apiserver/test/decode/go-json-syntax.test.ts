import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goJsonSyntaxError } from '@pv-controller/apiserver/api/go-json-syntax.js';

/** Texts and what kube-apiserver v1.37.2's encoding/json said of each. */
const GO_ANSWERS: Array<[string | Buffer, string | undefined]> = [
  ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
  ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
  ['{"a":NaN}', "invalid character 'N' looking for beginning of value"],
  ['// c\n{}', "invalid character '/' looking for beginning of value"],
  ['{} {"a":1}', "invalid character '{' after top-level value"],
  ['not-a-token', "invalid character 'o' in literal null (expecting 'u')"],
  [Buffer.from([0x81]), "invalid character '\\u0081' looking for beginning of value"],
  ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
  ['{"a" 1}', "invalid character '1' after object key"],
  ['{"a":1 "b"}', 'invalid character \'"\' after object key:value pair'],
  ['[1 2]', "invalid character '2' after array element"],
  ['"\\x"', "invalid character 'x' in string escape code"],
  ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
  ['1.e5', "invalid character 'e' after decimal point in numeric literal"],
  ['-x', "invalid character 'x' in numeric literal"],
  ['"a\nb"', "invalid character '\\n' in string literal"],
  ['[1,2', 'unexpected end of JSON input'],
  ['1e+', 'unexpected end of JSON input'],
  ['', 'unexpected end of JSON input'],
  ['123', undefined],
  [' {"a":[1,-0.5e+3,"\\u00e9",true,false,null]} ', undefined],
];

test("a JSON text that does not parse gets encoding/json's error text; one that parses gets none", () => {
  for (const [text, want] of GO_ANSWERS) {
    assert.equal(goJsonSyntaxError(typeof text === 'string' ? Buffer.from(text) : text), want, JSON.stringify(String(text)));
  }
});
