/**
 * A YAML request body as kube-apiserver reads one (sigs.k8s.io/yaml over go-yaml v2): the first
 * document only, YAML 1.1 scalars (yes/no/on/off are booleans, 0755 is octal) except that
 * timestamps and base-60 numbers stay strings, as go-yaml leaves them when decoding into plain
 * values. The nesting limit is checked on the parser's token tree, iteratively, before the
 * document is composed: the `yaml` package composes recursively and gives out after a few
 * hundred levels. Aliases are bounded by the package's alias budget here and by the caller's
 * size check on the result.
 */
import { Composer, LineCounter, Parser, type CST, type Document, type Tags } from 'yaml';

export class YamlBodyError extends Error {}

/** The alias budget of `yaml`'s toJS (its default, stated so it is a decision, not an accident). */
const MAX_ALIAS_COUNT = 100;

/** Implicit YAML 1.1 resolutions go-yaml v2 does not make when decoding into interface{}. */
function goYamlTags(tags: Tags): Tags {
  return tags.filter((tag) =>
    typeof tag === 'string'
      ? !['timestamp', 'intTime', 'floatTime'].includes(tag)
      : tag.tag !== 'tag:yaml.org,2002:timestamp' && tag.format !== 'TIME');
}

interface Nested {
  key?: unknown;
  value?: unknown;
}

function isToken(v: unknown): v is CST.Token {
  return typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string';
}

/** Offset of the first collection in a document token nested deeper than `limit`, if any. */
function tooDeepAt(doc: CST.Document, limit: number): number | undefined {
  if (!doc.value) return undefined;
  const tokens: CST.Token[] = [doc.value];
  const depths: number[] = [1];
  while (tokens.length > 0) {
    const token = tokens.pop()!;
    const depth = depths.pop()!;
    const items = (token as { items?: Nested[] }).items;
    if (!Array.isArray(items)) continue;
    if (depth > limit) return token.offset;
    for (const item of items) {
      for (const child of [item.key, item.value]) {
        if (isToken(child)) {
          tokens.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }
  return undefined;
}

function firstDocument(text: string, limit: number, lines: LineCounter): Document.Parsed | undefined {
  const composer = new Composer({ version: '1.1', customTags: goYamlTags, uniqueKeys: true });
  const docs: Document.Parsed[] = [];
  let seen = false;
  for (const token of new Parser(lines.addNewLine).parse(text)) {
    if (token.type === 'document') {
      if (seen) break;
      seen = true;
      const offset = tooDeepAt(token, limit);
      if (offset !== undefined) {
        throw new YamlBodyError(`yaml: line ${lines.linePos(offset).line}: exceeded max depth of ${limit}`);
      }
    }
    for (const doc of composer.next(token)) docs.push(doc);
  }
  for (const doc of composer.end()) docs.push(doc);
  return docs[0];
}

/** First line of a `yaml` error, in go-yaml's "yaml: line N: …" form. */
function describe(err: { message: string; pos?: [number, number] }, lines: LineCounter): string {
  const text = err.message.split(' at line ')[0].split('\n')[0];
  return err.pos ? `yaml: line ${lines.linePos(err.pos[0]).line}: ${text}` : `yaml: ${text}`;
}

/** The first document of `text` as plain JSON values; YamlBodyError with go-yaml's wording. */
export function parseYamlDocument(text: string, limit: number): unknown {
  const lines = new LineCounter();
  const doc = firstDocument(text, limit, lines);
  if (!doc) return null;
  if (doc.errors.length > 0) throw new YamlBodyError(describe(doc.errors[0], lines));
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown;
  } catch (err) {
    if (err instanceof ReferenceError && err.message.startsWith('Excessive alias count')) {
      throw new YamlBodyError('yaml: document contains excessive aliasing');
    }
    throw new YamlBodyError(describe(err as Error, lines));
  }
}
