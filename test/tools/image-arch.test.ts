/**
 * Images for another architecture keep their own local tags, so an arm64 base, Node.js or
 * controller image never replaces this machine's of the same version.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { archTag, debianArch } from '../../tools/image/base.js';

test('this machine\'s architecture keeps the plain tag; another one gets -<arch>', () => {
  const here = debianArch();
  const other = here === 'amd64' ? 'arm64' : 'amd64';
  assert.equal(archTag('26.12.1', here), '26.12.1');
  assert.equal(archTag('26.12.1', other), `26.12.1-${other}`);
  assert.equal(archTag('bookworm', other), `bookworm-${other}`);
});
