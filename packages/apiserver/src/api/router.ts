/**
 * Maps request paths onto resources. Four shapes, as kube-apiserver serves them:
 *   /api/v1/{res}                          /api/v1/namespaces/{ns}/{res}
 *   /apis/{g}/{v}/{res}                    /apis/{g}/{v}/namespaces/{ns}/{res}
 * each followed by an optional `/{name}` and `/{name}/{subresource}`, and the deprecated
 * `/watch/` alias right after the group/version. Segments are taken as go-restful tokenizes an
 * already-decoded path: leading and trailing slashes dropped, inner empty segments kept, nothing
 * resolved. A `.`/`..` in a fixed position names no resource (404); in the namespace or name
 * position it reaches the storage-key checks (storage-key.ts), as upstream.
 */

export interface ResourcePath {
  group: string;
  version: string;
  plural: string;
  /** The namespace named in the path, if any ('' when the segment is empty: all namespaces for a list). */
  namespace?: string;
  name?: string;
  subresource?: string;
  /** The path used the legacy `/watch/` prefix. */
  legacyWatch: boolean;
}

/** Namespace subresources that would otherwise read as `/namespaces/{ns}/{resource}`. */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/** True for paths kube-apiserver hands to go-restful, whose own 404 is a JSON Status. */
export function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/') || path === '/apis' || path.startsWith('/apis/');
}

/** go-restful's tokens of a decoded path: one leading and all trailing slashes dropped. */
export function pathTokens(path: string): string[] {
  const trimmed = path.slice(1).replace(/\/+$/, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

/** Splits a decoded path into its resource coordinates; undefined when it is no resource path. */
export function parseResourcePath(path: string): ResourcePath | undefined {
  if (!isApiPath(path)) return undefined;
  const parts = pathTokens(path);
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    version = parts[1];
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1];
    version = parts[2];
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  const namespacedShape =
    rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && NAMESPACE_SUBRESOURCES.has(rest[2]));
  if (namespacedShape) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length < 1 || rest.length > 3) return undefined;
  const [plural, name, subresource] = rest;
  return { group, version, plural, namespace, name, subresource, legacyWatch };
}

/** The storage prefix of a resource: "persistentvolumes" or "storage.k8s.io/storageclasses". */
export function storageResource(group: string, plural: string): string {
  return group ? `${group}/${plural}` : plural;
}
