/**
 * Field selectors (k8s.io/apimachinery/pkg/fields): `a=b,c==d,e!=f` with backslash escapes,
 * upstream's messages; parse failures throw BadRequestError as kube-apiserver answers a bad
 * `?fieldSelector=`.
 */
import { BadRequestError } from '@pv-controller/kube/errors.js';

export interface FieldRequirement {
  field: string;
  operator: 'Equals' | 'NotEquals';
  value: string;
}

/** Splits on commas not escaped by a backslash. */
function splitFieldTerms(s: string): string[] {
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < s.length; i++) {
    if (escaped) escaped = false;
    else if (s[i] === '\\') escaped = true;
    else if (s[i] === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

function unescapeFieldValue(v: string): string {
  let out = '';
  for (let i = 0; i < v.length; i++) {
    const ch = v[i];
    if (ch === '\\') {
      const nextCh = v[i + 1];
      if (nextCh !== '\\' && nextCh !== ',' && nextCh !== '=') {
        throw new BadRequestError(`invalid field selector: invalid escape sequence: \\${nextCh ?? ''}`);
      }
      out += nextCh;
      i++;
    } else if (ch === ',' || ch === '=') {
      throw new BadRequestError(`invalid field selector: unescaped character in value: ${ch.charCodeAt(0)}`);
    } else {
      out += ch;
    }
  }
  return out;
}

/** Parses `a=b,c==d,e!=f` (only these operators; `\,` `\=` `\\` escape inside values). */
export function parseFieldSelector(s: string): FieldRequirement[] {
  const reqs: FieldRequirement[] = [];
  for (const term of splitFieldTerms(s).sort()) {
    if (term === '') continue;
    const m = /^(.*?)(!=|==|=)(.*)$/s.exec(term);
    if (!m) throw new BadRequestError(`invalid selector: '${s}'; can't understand '${term}'`);
    reqs.push({ field: m[1], operator: m[2] === '!=' ? 'NotEquals' : 'Equals', value: unescapeFieldValue(m[3]) });
  }
  return reqs;
}

/** A field absent from `fields` reads as "" (upstream's fields.Set.Get). */
export function matchesFieldRequirements(reqs: FieldRequirement[], fields: Record<string, string>): boolean {
  return reqs.every((r) => {
    const have = Object.hasOwn(fields, r.field) ? fields[r.field] : '';
    return r.operator === 'Equals' ? have === r.value : have !== r.value;
  });
}

/** The field names the requirements mention, for "field label not supported" checks. */
export function fieldNames(reqs: FieldRequirement[]): string[] {
  return [...new Set(reqs.map((r) => r.field))];
}
