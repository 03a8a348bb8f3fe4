/**
 * The registry's door to field ownership: the managedFields a create or update leaves on the
 * object, and the object a server-side apply produces. One context per resource and subresource.
 */
import { BadRequestError } from '@pv-controller/kube/errors.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { applySchemaFor } from '../../decode/custom-schema.js';
import { apiVersionOf } from '../../decode/object-decode.js';
import { definitionNameOf } from '../../openapi/definitions.js';
import { jsonEqual } from '../../resources/object-utils.js';
import type { ResourceInfo } from '../../resources/strategy.js';
import { ApplyTypes } from './apply-type.js';
import { emptyObjectOf, frozenEmptyObjectOf, withByValueStructs } from './empty-object.js';
import { applyConfiguration, recordUpdate, withoutManagedFields, type OwnershipContext } from './field-manager.js';
import { decodeManagers, encodeManagers, isResetRequest, ManagedFieldsError, type EncodedEntry, type Managers } from './managed-fields.js';

const applyTypes = new ApplyTypes();

export interface OwnershipRequest {
  /** The fieldManager parameter, else the name kube-apiserver takes from the User-Agent. */
  manager: string;
  subresource?: string;
  now: string;
}

export function contextFor(info: ResourceInfo, req: OwnershipRequest): OwnershipContext {
  const subresource = req.subresource ?? '';
  const statusResets = info.statusResetsMetadata === true ? ['spec', 'metadata'] : ['spec'];
  const resetFields = info.hasStatus ? (subresource === 'status' ? statusResets : ['status']) : [];
  return {
    manager: req.manager,
    apiVersion: apiVersionOf(info),
    subresource,
    now: req.now,
    type: applyTypes.forKind(applySchemaFor(info), info.custom?.definition ?? definitionNameOf(info)),
    resetFields,
    complete: (obj) => withByValueStructs(info.group, info.kind, obj),
  };
}

function encoded(managers: Managers): EncodedEntry[] | undefined {
  return managers.size === 0 ? undefined : encodeManagers(managers);
}

/** Managers a write sent itself: used when valid and not empty; undefined means "keep the live ones". */
function suppliedManagers(supplied: unknown): Managers | undefined {
  if (!Array.isArray(supplied) || supplied.length === 0) return undefined;
  try {
    return decodeManagers(supplied);
  } catch (err) {
    if (err instanceof ManagedFieldsError) return undefined;
    throw err;
  }
}

/**
 * The managedFields of a written object. `prev` is the stored object (none on create), `next`
 * the decoded and defaulted body before the strategy's hooks, `supplied` the managedFields the
 * body carried. undefined: the object keeps no managedFields (cleared, or never tracked).
 */
export function managedFieldsAfterWrite(
  info: ResourceInfo,
  prev: KubeObject | undefined,
  next: KubeObject,
  supplied: unknown,
  req: OwnershipRequest,
): EncodedEntry[] | undefined {
  const ctx = contextFor(info, req);
  // A body that sends the stored record back unchanged (read-modify-write) reads as the stored
  // one, whose decoding is cached.
  const stored = prev?.metadata.managedFields;
  const ownRecord = ctx.subresource === '' && !(stored !== undefined && jsonEqual(supplied, stored)) ? supplied : undefined;
  if (prev !== undefined && isResetRequest(ownRecord)) return undefined;
  let managers = suppliedManagers(ownRecord);
  if (managers === undefined) {
    try {
      managers = decodeManagers(prev?.metadata.managedFields);
    } catch (err) {
      if (err instanceof ManagedFieldsError) return undefined;
      throw err;
    }
  }
  // An object whose record was cleared is not tracked again until someone applies.
  if (prev !== undefined && managers.size === 0) return undefined;
  recordUpdate(managers, withoutManagedFields(prev ?? frozenEmptyObjectOf(info.group, info.kind)), next, ctx);
  return encoded(managers);
}

export interface AppliedObject {
  object: KubeObject;
  managedFields: EncodedEntry[] | undefined;
}

/** Applies a configuration (already parsed and checked) to `live`, or to nothing when creating. */
export function applyToObject(info: ResourceInfo, live: KubeObject | undefined, config: KubeObject, force: boolean, req: OwnershipRequest): AppliedObject {
  const ctx = contextFor(info, req);
  const empty = emptyObjectOf(info.group, info.kind);
  let out;
  try {
    out = applyConfiguration(live ?? empty, empty, config, force, ctx);
  } catch (err) {
    if (err instanceof ManagedFieldsError) throw new BadRequestError(`failed to decode managed fields: ${err.message}`);
    throw err;
  }
  return { object: out.object, managedFields: encoded(out.managers) };
}
