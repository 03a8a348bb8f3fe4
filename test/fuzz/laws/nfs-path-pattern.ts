/**
 * The NFS `pathPattern` laws: a pattern and a claim's values (written by the claim's author)
 * either render to a relative directory strictly inside the share, or are refused with
 * PluginError InvalidParameter; rendering never resolves anything.
 */
import { posix } from 'node:path';
import { RECORD_DIR } from '../../../src/plugins/fs-common/metadata-record.js';
import { renderPattern } from '../../../src/plugins/fs-common/path-pattern.js';
import type { ClaimInfo } from '../../../src/plugins/api/core.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { holds } from './law.js';

const SHARE = '/exports/share';

export function pathPatternLaws(pattern: string, claim: ClaimInfo): void {
  let rendered: string;
  try {
    rendered = renderPattern(pattern, claim);
  } catch (err) {
    holds(err instanceof PluginError && err.code === 'InvalidParameter' && !err.retryable, 'a bad pattern or value is InvalidParameter', { pattern, err: String(err) });
    return;
  }
  const components = rendered.split('/');
  holds(!posix.isAbsolute(rendered), 'a rendered pattern is relative', { pattern, rendered });
  holds(components.every((c) => c !== '' && c !== '.' && c !== '..' && !c.includes('\0')), 'every component is a plain name', { pattern, rendered });
  holds(posix.normalize(rendered) === rendered, 'a rendered pattern is already normal', { pattern, rendered });
  holds(components[0] !== RECORD_DIR, 'a rendered pattern stays out of the record directory', { pattern, rendered });
  holds(posix.join(SHARE, rendered).startsWith(`${SHARE}/`), 'a rendered pattern stays inside the share', { pattern, rendered });
}
