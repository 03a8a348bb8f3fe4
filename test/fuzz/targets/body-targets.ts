/** Fuzz targets of request bodies: object bodies of a volume and a claim, each patch type on a volume, and long lists. */
import { JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH } from '@pv-controller/apiserver/endpoints/patch/index.js';
import { objectBodyLaws, patchLaws, PVC_STRATEGY } from '../laws/bodies.js';
import { longListLaws } from '../laws/long-lists.js';

export function objectBody(data: Buffer): void {
  objectBodyLaws(data);
  objectBodyLaws(data, PVC_STRATEGY);
}
export const jsonPatch = (data: Buffer): void => patchLaws(JSON_PATCH, data);
export const mergePatch = (data: Buffer): void => patchLaws(MERGE_PATCH, data);
export const strategicMergePatch = (data: Buffer): void => patchLaws(STRATEGIC_MERGE_PATCH, data);
export const longLists = (data: Buffer): void => longListLaws(data);
