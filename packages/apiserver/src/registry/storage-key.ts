/**
 * The checks every read and write makes on the namespace and name it was given before they become
 * a storage key, with kube-apiserver's answers: its generic store's key functions refuse a missing
 * namespace or name and a name that is no valid path segment (400), and its etcd3 storage refuses
 * a key with a `.` or `..` segment (a 500 without a reason). Names and namespaces from the URL
 * are never resolved, so this is what keeps `/namespaces/x/persistentvolumeclaims/..` from
 * meaning the namespace x.
 */
import { BadRequestError, InternalError, UnknownServerError } from '@pv-controller/kube/errors.js';
import { goQuote } from '@pv-controller/kube/name-validation.js';
import { nameIsPathSegment } from '../resources/object-meta.js';
import type { ResourceInfo } from '../resources/strategy.js';

/** What a key check needs to know of a resource. */
type KeyedResource = Pick<ResourceInfo, 'plural' | 'namespaced'>;

const isDotSegment = (s: string): boolean => s === '.' || s === '..';

function invalidKey(info: KeyedResource, namespace: string, name?: string): UnknownServerError {
  const key = [info.plural, namespace, ...(name === undefined ? [] : [name])].join('/');
  return new UnknownServerError(`invalid key: ${goQuote(`/${key}`)}`);
}

/** The key of one object: `namespace` is ignored for cluster-scoped resources. */
export function requireObjectKey(info: KeyedResource, namespace: string, name: string): void {
  if (info.namespaced && namespace === '') throw new BadRequestError('Namespace parameter required.');
  if (name === '') throw new BadRequestError('Name parameter required.');
  const problems = nameIsPathSegment(name, false);
  if (problems.length > 0) throw new BadRequestError(`Name parameter invalid: ${goQuote(name)}: ${problems.join(';')}`);
  if (info.namespaced && isDotSegment(namespace)) throw invalidKey(info, namespace, name);
}

/** The key prefix of a list or watch; `undefined` or '' is every namespace. */
export function requireCollectionKey(info: KeyedResource, namespace: string | undefined): void {
  if (info.namespaced && namespace !== undefined && isDotSegment(namespace)) throw invalidKey(info, namespace);
}

/** A collection write (deletecollection) names its namespace, as the one-object key functions do. */
export function requireNamespaceForCollectionWrite(info: KeyedResource, namespace: string | undefined): void {
  if (info.namespaced && namespace === '') throw new BadRequestError('Namespace parameter required.');
  requireCollectionKey(info, namespace);
}

/**
 * What NamespaceLifecycle answers when a create names a namespace that is no valid path segment:
 * its namespace lookup goes through a client that refuses the name, and the admission error
 * surfaces as an internal error.
 */
export function requireLookupableNamespace(namespace: string): void {
  const problems = nameIsPathSegment(namespace, false);
  if (problems.length === 0) return;
  throw new InternalError(`invalid resource name ${goQuote(namespace)}: [${problems.join(' ')}]`);
}
