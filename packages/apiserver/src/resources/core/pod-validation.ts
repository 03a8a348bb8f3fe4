/**
 * ValidatePodSpec for what a Pod of ours carries (containers, restart and DNS policies, volumes)
 * and ValidatePodUpdate's rule that a Pod's spec is fixed but for a few fields
 * (pkg/apis/core/validation/validation.go).
 */
import { isDNS1123Label } from '@pv-controller/kube/name-validation.js';
import type { KubeObject, Pod, StatusCause } from '@pv-controller/kube/types.js';
import { canonicalJson } from '../object-utils.js';
import { diffText, jsonEqual } from '../common.js';
import { appendCauses, duplicate, forbidden, invalidEach, notSupported, required } from '../../api/field-errors.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const objectsIn = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];

function validateContainers(containers: unknown, field: string, seen: Set<string>, need: boolean): StatusCause[] {
  const list = objectsIn(containers);
  if (need && list.length === 0) return [required(field)];
  const causes: StatusCause[] = [];
  list.forEach((c, i) => {
    const at = `${field}[${i}]`;
    const name = typeof c.name === 'string' ? c.name : '';
    if (!name) causes.push(required(`${at}.name`));
    else {
      appendCauses(causes, invalidEach(`${at}.name`, name, isDNS1123Label(name)));
      if (seen.has(name)) causes.push(duplicate(`${at}.name`, name));
      seen.add(name);
    }
    if (!c.image) causes.push(required(`${at}.image`));
    if (typeof c.imagePullPolicy === 'string' && !PULL_POLICIES.includes(c.imagePullPolicy)) {
      causes.push(notSupported(`${at}.imagePullPolicy`, c.imagePullPolicy, PULL_POLICIES));
    }
  });
  return causes;
}

/**
 * The spec checks, in ValidatePodSpec's order for the fields it shares with ours. `path` is where
 * the spec sits: "spec" in a Pod, "spec.template.spec" in a workload's pod template.
 */
export function validatePodSpec(pod: Pick<Pod, 'spec'>, path = 'spec'): StatusCause[] {
  const spec = (isObject(pod.spec) ? pod.spec : {}) as Json;
  const names = new Set<string>();
  const causes = [
    ...validateContainers(spec.containers, `${path}.containers`, names, true),
    ...validateContainers(spec.initContainers, `${path}.initContainers`, names, false),
  ];
  if (typeof spec.restartPolicy === 'string' && !RESTART_POLICIES.includes(spec.restartPolicy)) {
    causes.push(notSupported(`${path}.restartPolicy`, spec.restartPolicy, RESTART_POLICIES));
  }
  if (typeof spec.dnsPolicy === 'string' && !DNS_POLICIES.includes(spec.dnsPolicy)) {
    causes.push(notSupported(`${path}.dnsPolicy`, spec.dnsPolicy, DNS_POLICIES));
  }
  return causes;
}

const MUTABLE_FIELDS_MESSAGE = 'pod updates may not change fields other than `spec.containers[*].image`,' +
  '`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),' +
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** The new spec with what an update may change taken from the stored one (ValidatePodUpdate's "munged" spec). */
function withMutableFieldsOf(next: Json, prev: Json): Json {
  const munged: Json = structuredClone(next);
  for (const key of ['containers', 'initContainers']) {
    const stored = objectsIn(prev[key]);
    if (Array.isArray(munged[key])) {
      munged[key] = (munged[key] as unknown[]).map((c, i) => (isObject(c) && stored[i] ? { ...c, image: stored[i].image } : c));
    }
  }
  munged.activeDeadlineSeconds = prev.activeDeadlineSeconds;
  const storedTolerations = Array.isArray(prev.tolerations) ? prev.tolerations : [];
  const nextTolerations = Array.isArray(munged.tolerations) ? munged.tolerations : [];
  // Each toleration as one canonical string in a set: comparing every stored one with every new one
  // took 9.9 s for 20,000 tolerations in reversed order.
  const offered = new Set(nextTolerations.map(canonicalJson));
  if (storedTolerations.every((t) => offered.has(canonicalJson(t)))) munged.tolerations = prev.tolerations;
  const grace = prev.terminationGracePeriodSeconds;
  if (typeof grace === 'number' && grace < 0 && munged.terminationGracePeriodSeconds === 1) munged.terminationGracePeriodSeconds = grace;
  for (const key of Object.keys(munged)) if (munged[key] === undefined) delete munged[key];
  return munged;
}

/** ValidatePodUpdate's spec rules: the same containers, and nothing but the mutable fields changed. */
export function validatePodSpecUpdate(next: KubeObject, prev: KubeObject): StatusCause[] {
  const nextSpec = (isObject(next.spec) ? next.spec : {}) as Json;
  const prevSpec = (isObject(prev.spec) ? prev.spec : {}) as Json;
  if (objectsIn(nextSpec.containers).length !== objectsIn(prevSpec.containers).length) {
    return [forbidden('spec.containers', 'pod updates may not add or remove containers')];
  }
  const munged = withMutableFieldsOf(nextSpec, prevSpec);
  if (jsonEqual(munged, prevSpec)) return [];
  return [forbidden('spec', `${MUTABLE_FIELDS_MESSAGE}\n${diffText(prevSpec, munged)}`)];
}
