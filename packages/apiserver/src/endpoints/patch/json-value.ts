/** JSON values as patches see them (the JSON boundary: everything is checked before use). */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function cloneJson<T>(v: T): T {
  return structuredClone(v);
}

/** Sets an own property, also for the key "__proto__" (which plain assignment would not). */
export function setKey(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}
