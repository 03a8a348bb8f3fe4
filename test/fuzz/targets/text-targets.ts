/** Fuzz targets of the text parsers: each feeds the fuzzer's bytes to that parser's laws. */
import { pathPatternLaws } from '../laws/nfs-path-pattern.js';
import { fieldSelectorLaws, labelSelectorLaws, quantityLaws, queryLaws, requestTargetLaws } from '../laws/text-parsers.js';

const text = (data: Buffer): string => data.toString('utf8');

export const quantity = (data: Buffer): void => quantityLaws(text(data));
export const labelSelector = (data: Buffer): void => labelSelectorLaws(text(data));
export const fieldSelector = (data: Buffer): void => fieldSelectorLaws(text(data));
/** Request lines arrive as bytes: latin1 keeps every byte one character, as node hands `req.url` over. */
export const requestTarget = (data: Buffer): void => requestTargetLaws(data.toString('latin1'));
export const queryParameters = (data: Buffer): void => queryLaws(data.toString('latin1'));

/** `pattern\nname\nnamespace\nlabel value\nannotation value`: the claim's values after the pattern. */
export function nfsPathPattern(data: Buffer): void {
  const [pattern = '', name = 'c', namespace = 'ns', label = 'v', annotation = 'w'] = text(data).split('\n');
  pathPatternLaws(pattern, { name, namespace, uid: 'u', labels: { app: label, 'x/y': label }, annotations: { note: annotation } });
}
