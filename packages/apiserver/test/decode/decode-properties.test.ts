/**
 * Property tests of object decoding and validation. Bodies are generated from the kind's own
 * schema (the one the decoder uses), with values of every leaf type both well-formed and
 * hostile (wrong types, absurd quantities and times, huge numbers, unknown fields): each body
 * decodes or is refused with a Status, a decoded object decodes to itself, and validation
 * answers it with causes, never a throw.
 */
import { test } from 'node:test';
import fc from 'fast-check';
import { schemaForKind, type TypeSchema } from '@pv-controller/apiserver/decode/schema.js';
import { objectBodyLaws, PV_STRATEGY, PVC_STRATEGY } from '../../../../test/fuzz/laws/bodies.js';
import type { ResourceStrategy } from '@pv-controller/apiserver/resources/strategy.js';

const hostile = fc.constantFrom<unknown>(null, true, -1, 0.5, 1e308, -0, 2 ** 53 + 1, 'x', '', [], {}, '1e2147483647', '\u0000', { a: [1] });

function leaf(kind: string): fc.Arbitrary<unknown> {
  switch (kind) {
    case 'string': return fc.oneof(fc.constantFrom('', 'a', 'ReadWriteOnce', 'Retain', 'Delete', 'Block', 'Filesystem', 'In', 'Bound', '/tmp/x', 'kubernetes.io/pv-protection'), fc.string({ maxLength: 8 }));
    case 'bool': return fc.boolean();
    case 'int32': case 'int64': return fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom(2147483648, -2147483649, 2 ** 63, 1.5, 1e21));
    case 'float64': return fc.double();
    case 'time': case 'microTime': return fc.oneof(fc.constantFrom('2024-01-01T00:00:00Z', '2024-02-30T25:61:61Z', '0000-01-01T00:00:00.999999999+23:59', '2024-01-01T00:00:00.123456Z', 'now'), fc.date({ noInvalidDate: true }).map((d) => d.toISOString()));
    case 'quantity': return fc.oneof(fc.constantFrom('1Gi', '0', '-1', '1e400', '2010e420', '0.000000001m', '1.5Ki', 'ten', '9223372036854775807Ei', 5, 1.5), fc.bigInt({ min: 0n, max: 1n << 70n }).map(String));
    case 'intOrString': return fc.oneof(fc.integer(), fc.string({ maxLength: 4 }));
    default: return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Values of `schema`'s type, one in eight replaced by a hostile value of any type. */
function valueOf(schema: TypeSchema, depth: number): fc.Arbitrary<unknown> {
  const typed = ((): fc.Arbitrary<unknown> => {
    if (schema.kind === 'array') return depth > 5 ? fc.constant([]) : fc.array(valueOf(schema.items, depth + 1), { maxLength: 2 });
    if (schema.kind === 'map') return depth > 5 ? fc.constant({}) : fc.dictionary(fc.string({ maxLength: 6 }), valueOf(schema.values, depth + 1), { maxKeys: 2 });
    if (schema.kind === 'struct') return depth > 5 ? fc.constant({}) : structOf(schema.fields, depth);
    return leaf(schema.kind);
  })();
  return fc.oneof({ weight: 7, arbitrary: typed }, { weight: 1, arbitrary: hostile });
}

function structOf(fields: Map<string, { type: TypeSchema }>, depth: number): fc.Arbitrary<unknown> {
  const names = [...fields.keys()];
  return fc.subarray(names, { maxLength: Math.min(4, names.length) }).chain((chosen) =>
    fc.record({
      known: fc.tuple(...chosen.map((n) => valueOf(fields.get(n)!.type, depth + 1))).map((vs) => Object.fromEntries(chosen.map((n, i) => [n, vs[i]]))),
      unknown: fc.dictionary(fc.constantFrom('foo', 'Spec', 'f€o', '__proto__', 'constructor'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 1 }),
    }).map(({ known, unknown }) => ({ ...unknown, ...known })));
}

function bodiesOf(s: ResourceStrategy): fc.Arbitrary<Buffer> {
  const schema = schemaForKind(s.info.group, s.info.version, s.info.kind);
  const spec = schema.fields.get('spec')!.type;
  const metadata = schema.fields.get('metadata')!.type;
  const status = schema.fields.get('status')!.type;
  return fc.record({ metadata: valueOf(metadata, 1), spec: valueOf(spec, 1), status: valueOf(status, 1) }, { requiredKeys: ['spec'] })
    .map((parts) => Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: s.info.kind, ...parts })));
}

for (const strategy of [PV_STRATEGY, PVC_STRATEGY]) {
  test(`any ${strategy.info.kind} body generated from its schema decodes to a fixed point or is refused, and validation never throws`, () => {
    fc.assert(fc.property(bodiesOf(strategy), (raw) => objectBodyLaws(raw, strategy)), { numRuns: 1500 });
  });
}

test('any JSON text at all is refused with a Status or decodes as a volume with the decoding laws', () => {
  fc.assert(fc.property(fc.json({ maxDepth: 4 }), (text) => objectBodyLaws(Buffer.from(text))), { numRuns: 2000 });
  fc.assert(fc.property(fc.uint8Array({ maxLength: 40 }), (raw) => objectBodyLaws(raw)), { numRuns: 1000 });
});
