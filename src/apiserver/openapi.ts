/**
 * OpenAPI stubs, just enough for default `kubectl apply` validation: a 5-byte protobuf v2
 * document (kubectl ≤1.26) and v3 group-version documents whose item paths carry a PATCH with
 * `x-kubernetes-group-version-kind` and a `fieldValidation` parameter (kubectl 1.27+ then leaves
 * validation to the server and builds strategic merge patches from its compiled-in types).
 */
import { createHash } from 'node:crypto';
import type { ResourceStrategy } from './resources/strategy.js';

/** gnostic `Document { swagger: "2.0" }` in protobuf. */
export const OPENAPI_V2_STUB = Buffer.from([0x0a, 0x03, 0x32, 0x2e, 0x30]);

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

function servedGroupVersions(strategies: ResourceStrategy[]): Array<{ group: string; version: string }> {
  const seen = new Map<string, { group: string; version: string }>();
  for (const s of strategies) seen.set(gvPath(s.info.group, s.info.version), { group: s.info.group, version: s.info.version });
  return [...seen.values()];
}

export function openApiV3Document(strategies: ResourceStrategy[], group: string, version: string): Record<string, unknown> | undefined {
  const served = strategies.filter((s) => s.info.group === group && s.info.version === version);
  if (served.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  for (const s of served) {
    const i = s.info;
    const base = `/${gvPath(i.group, i.version)}${i.namespaced ? '/namespaces/{namespace}' : ''}/${i.plural}/{name}`;
    paths[base] = {
      patch: {
        operationId: `patch${i.kind}`,
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': { group: i.group, version: i.version, kind: i.kind },
        parameters: [
          { name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'dryRun', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'fieldManager', in: 'query', schema: { type: 'string', uniqueItems: true } },
        ],
        responses: { '200': { description: 'OK' } },
      },
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths,
    components: { schemas: {} },
  };
}

export function openApiV3Index(strategies: ResourceStrategy[]): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const { group, version } of servedGroupVersions(strategies)) {
    const doc = JSON.stringify(openApiV3Document(strategies, group, version));
    const hash = createHash('sha512').update(doc).digest('hex').slice(0, 64).toUpperCase();
    paths[gvPath(group, version)] = { serverRelativeURL: `/openapi/v3/${gvPath(group, version)}?hash=${hash}` };
  }
  return { paths };
}
