/**
 * The structure server-side apply walks: for each value, whether it is owned whole (a leaf:
 * scalars, atomic lists, maps and structs) or field by field, and how list items are told
 * apart (by key fields, or by value for sets). Built from the kind's typed schema
 * (`decode/schema.ts`) walked beside its OpenAPI definition, whose merge markers
 * (`openapi/merge-semantics.ts`) it reads, on first use per type.
 */
import type { FieldSchema, StructSchema, TypeSchema } from '../../decode/schema.js';
import { fieldSemantics, isAtomicStruct, type FieldSemantics } from '../../openapi/merge-semantics.js';

export type ApplyType =
  | { shape: 'leaf' }
  /** Untyped JSON: objects are granular maps, lists atomic (structured-merge-diff's deduced type). */
  | { shape: 'free' }
  | { shape: 'struct'; goType: string; field(name: string): ApplyType | undefined; open: boolean }
  | { shape: 'map'; values: ApplyType }
  | { shape: 'set' }
  | { shape: 'listMap'; keys: readonly string[]; items: ApplyType };

export const LEAF: ApplyType = { shape: 'leaf' };
export const FREE: ApplyType = { shape: 'free' };

export class ApplyTypes {
  private readonly structs = new WeakMap<StructSchema, ApplyType>();

  /** The apply type of a kind's root struct, whose OpenAPI definition is `definition`. */
  forKind(schema: StructSchema, definition: string | undefined): ApplyType {
    return this.typeOf(schema, { definition });
  }

  private typeOf(schema: TypeSchema, marks: FieldSemantics | undefined): ApplyType {
    const values: FieldSemantics = { definition: marks?.definition };
    switch (schema.kind) {
      case 'array':
        return this.arrayType(schema.items, marks);
      case 'map':
        return marks?.mapType === 'atomic' ? LEAF : { shape: 'map', values: this.typeOf(schema.values, values) };
      case 'struct':
        if (marks?.mapType === 'atomic') return LEAF;
        if (marks?.mapType !== 'granular' && marks?.definition !== undefined && isAtomicStruct(marks.definition)) return LEAF;
        return this.structType(schema, marks?.definition);
      case 'free':
        return FREE;
      default:
        return LEAF;
    }
  }

  private arrayType(items: TypeSchema, marks: FieldSemantics | undefined): ApplyType {
    if (marks?.listType === 'set') return { shape: 'set' };
    if (marks?.listType === 'map' && marks.listMapKeys) {
      return { shape: 'listMap', keys: marks.listMapKeys, items: this.typeOf(items, { definition: marks.definition }) };
    }
    return LEAF;
  }

  /** A struct's type; one model is always the same definition, so the type is cached by model. */
  private structType(schema: StructSchema, definition: string | undefined): ApplyType {
    const known = this.structs.get(schema);
    if (known) return known;
    const fields = new Map<string, ApplyType>();
    const fieldType = (name: string): ApplyType | undefined => {
      const cached = fields.get(name);
      if (cached) return cached;
      const f: FieldSchema | undefined = schema.fields.get(name);
      if (!f) return schema.otherFields ? this.typeOf(schema.otherFields, undefined) : undefined;
      const t = this.typeOf(f.type, definition === undefined ? undefined : fieldSemantics(definition, name));
      fields.set(name, t);
      return t;
    };
    const t: ApplyType = { shape: 'struct', goType: schema.goType, field: fieldType, open: schema.otherFields !== undefined };
    this.structs.set(schema, t);
    return t;
  }
}

/** The type of a child of a granular value (struct field or map entry); FREE for untyped maps. */
export function childType(t: ApplyType, key: string): ApplyType | undefined {
  switch (t.shape) {
    case 'struct':
      return t.field(key);
    case 'map':
      return t.values;
    case 'free':
      return FREE;
    default:
      return undefined;
  }
}

/** Whether values of this type are walked field by field (an object whose entries are owned apart). */
export function isGranularObject(t: ApplyType, v: unknown): v is Record<string, unknown> {
  return (t.shape === 'struct' || t.shape === 'map' || t.shape === 'free') && isObject(v);
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
