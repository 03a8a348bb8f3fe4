/**
 * The controller works on plain JSON objects (kube/types.ts); client-node's generated API takes
 * and returns its model classes. The two meet here.
 *
 * Way out: a plain object is handed to the generated call as its body. The generated code runs
 * `ObjectSerializer.serialize(body, 'V1…')`, which copies each model field by name (for the kinds
 * the controller exchanges the model names equal the wire names — pinned by a test) and passes a
 * string in a Date-typed field through unchanged. So the server receives its own timestamp
 * strings back, byte for byte. (Deserializing into models first would turn "…:05Z" into
 * "…:05.000Z"; the API server compares e.g. status.lastPhaseTransitionTime as sent.)
 *
 * Way in: the generated code has deserialized the response into models (metav1.Time fields as
 * Date, MicroTime fields left as strings, absent fields absent). `toPlain` turns that back into
 * plain JSON, formatting each Date the way metav1.Time is written on the wire (RFC 3339, whole
 * seconds). `ObjectSerializer.serialize` is not used for this: it adds every absent field as an
 * explicit `undefined` and writes Dates with milliseconds.
 */

/** A plain object as the generated API's model type (see the file comment for why this holds). */
export function asModel<M>(obj: object): M {
  return obj as M;
}

/** A model returned by the generated API, as plain JSON. */
export function toPlain<T>(model: unknown): T {
  return plainValue(model) as T;
}

function plainValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return metaTime(value);
  if (Array.isArray(value)) return value.map(plainValue);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v !== undefined) out[k] = plainValue(v);
  }
  return out;
}

/** metav1.Time's wire form: RFC 3339 in UTC with whole seconds (milliseconds only if present). */
export function metaTime(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}
