/**
 * Objects read back from a data directory go through the same typed decoder as request bodies,
 * in repair mode: a store written by an older version may hold fields a kind does not have,
 * values of the wrong type, or values nested too deep to encode again. Those are dropped (and
 * logged), so the server can always list, watch and delete what it stores. Then the kind's
 * defaults are applied, as kube-apiserver defaults every object it decodes from etcd: a field
 * defaulted since the object was stored (hostPath.type, say) must not make the next update of
 * an immutable field look like a change.
 */
import type { Logger } from 'pino';
import type { KubeObject } from '@pv-controller/kube/types.js';
import type { ResourceStrategy } from '../resources/strategy.js';
import { storageResource } from '../api/router.js';
import type { ObjectKey } from '../storage/storage.js';
import { decodeSchemaFor } from './schema.js';
import { pruneCustomResource } from '../resources/custom/prune.js';
import { decodeTyped } from './typed-decoder.js';

type StoredObjectRepair = (key: ObjectKey, object: KubeObject) => KubeObject;

/** A repair function for SqliteStorage's `repairLoaded`, knowing the served kinds. */
export function storedObjectRepair(strategies: ResourceStrategy[], log: Logger): StoredObjectRepair {
  const byResource = new Map(strategies.map((s) => [storageResource(s.info.group, s.info.plural), s]));
  return (key, object) => {
    const strategy = byResource.get(key.resource);
    if (!strategy || typeof object !== 'object' || object === null || Array.isArray(object)) return object;
    const { value, unknownFields, dropped } = decodeTyped(object as Record<string, unknown>, decodeSchemaFor(strategy.info), true);
    const repaired = value as KubeObject;
    repaired.metadata ??= {};
    if (strategy.info.custom !== undefined) for (const path of pruneCustomResource(repaired, strategy.info.custom.schema)) unknownFields.push(path);
    strategy.defaults(repaired);
    if (unknownFields.length > 0 || dropped.length > 0) {
      log.warn({ object: key, unknownFields, dropped }, 'stored object repaired on load: fields it could not keep were dropped');
    }
    return repaired;
  };
}
