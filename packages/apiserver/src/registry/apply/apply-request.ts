/**
 * An `application/apply-patch+yaml` body: one YAML (or JSON) object of the kind, checked as
 * kube-apiserver checks it before merging: its type meta must name the kind, it may not carry
 * managedFields, and every field must exist in the kind's schema.
 */
import { ApiError, BadRequestError } from '@pv-controller/kube/errors.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { inspectValue } from '../../decode/request-body.js';
import { MAX_NESTING_DEPTH } from '../../decode/typed-decoder.js';
import { parseYamlDocument } from '../../decode/yaml-body.js';
import { MAX_BODY_BYTES } from '../../api/http-io.js';
import { apiVersionOf } from '../../decode/object-decode.js';
import type { ResourceInfo } from '../../resources/strategy.js';
import { isObject } from './apply-type.js';
import { ApplyTypeError } from './errors.js';
import { contextFor } from './ownership.js';
import { configFieldSet } from './walk.js';

function groupVersionKind(config: Record<string, unknown>): string {
  const apiVersion = typeof config.apiVersion === 'string' ? config.apiVersion : '';
  const kind = typeof config.kind === 'string' ? config.kind : '';
  const slash = apiVersion.indexOf('/');
  const [group, version] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  return `${group}/${version}, Kind=${kind}`;
}

function parseConfigText(raw: Uint8Array): unknown {
  try {
    return parseYamlDocument(Buffer.from(raw).toString('utf8'), MAX_NESTING_DEPTH);
  } catch (err) {
    throw new BadRequestError(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The configuration of an apply request, or the 400/500 kube-apiserver answers for it. */
export function parseApplyConfig(info: ResourceInfo, raw: Uint8Array, namespace: string, name: string): KubeObject {
  const config = raw.length === 0 ? {} : parseConfigText(raw);
  if (!isObject(config)) {
    throw new BadRequestError('error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}');
  }
  if (inspectValue(config, MAX_NESTING_DEPTH, MAX_BODY_BYTES) !== undefined) throw new BadRequestError('invalid JSON patch');
  if (config.apiVersion !== apiVersionOf(info) || config.kind !== info.kind) {
    throw new BadRequestError(`invalid object type: ${groupVersionKind(config)}`);
  }
  const meta = config.metadata;
  if (meta !== undefined && meta !== null && !isObject(meta)) throw new BadRequestError('metadata must be an object');
  if (isObject(meta) && meta.managedFields !== undefined && meta.managedFields !== null) {
    throw new BadRequestError('metadata.managedFields must be nil');
  }
  try {
    configFieldSet(config, contextFor(info, { manager: '', now: '' }).type);
  } catch (err) {
    if (!(err instanceof ApplyTypeError)) throw err;
    const gvk = `${info.group}/${info.version}, Kind=${info.kind}`;
    throw new ApiError(500, '', `failed to create typed patch object (${namespace}/${name}; ${gvk}): ${err.message}`);
  }
  return config as unknown as KubeObject;
}
