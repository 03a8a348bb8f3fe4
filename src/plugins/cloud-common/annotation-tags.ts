/**
 * An allow-list that turns PVC annotations into tags of the cloud disk made for the claim
 * (external-provisioner#86): `--cloud-tag-from-annotation example.com/cost-center=cost-center`
 * copies the claim's `example.com/cost-center` annotation into the disk's `cost-center` tag (EBS
 * tag, GCE label and description, Cinder metadata). Only the annotation keys the admin listed are
 * read; a claim cannot add any other tag.
 *
 * Our own tags are proof of ownership (the cluster tag, `Name`, `kubernetes.io/created-for/*`):
 * a mapping onto any of them, or onto anything under `kubernetes.io/` or the cloud's reserved
 * prefix, is refused when the flag is read, and our tags are laid over the claim's anyway. A
 * value outside the cloud's limits (length, characters; GCE label values are lower-case) refuses
 * the claim for good with the reason: never truncated into something else.
 */
import { TAG_AWS_NAME, TAG_CLUSTER_PREFIX } from '@pv-controller/kube/annotations.js';
import { isQualifiedName } from '@pv-controller/kube/name-validation.js';
import { PluginError } from '../api/errors.js';
import type { Tags } from './tags.js';

export type TagCloud = 'aws' | 'gce' | 'openstack';

export interface AnnotationTag {
  annotation: string;
  tag: string;
}

interface TagRules {
  key: RegExp;
  keyText: string;
  maxValue: number;
  value?: RegExp;
  valueText?: string;
  reservedPrefixes: readonly string[];
}

const RULES: Record<TagCloud, TagRules> = {
  // EC2: keys 1–128, values 0–256 Unicode characters; `aws:` is reserved.
  aws: { key: /^[\p{L}\p{N}\s_.:/=+\-@]{1,128}$/u, keyText: '1–128 letters, digits, spaces and _.:/=+-@', maxValue: 256, reservedPrefixes: ['aws:'] },
  // GCE labels: keys and values lower-case letters, digits, _ and -, at most 63; a key starts with a letter.
  gce: { key: /^[a-z][a-z0-9_-]{0,62}$/, keyText: 'a lower-case letter, then up to 62 lower-case letters, digits, _ or -', maxValue: 63, value: /^[a-z0-9_-]*$/, valueText: 'lower-case letters, digits, _ and - only (a GCE label value)', reservedPrefixes: ['goog'] },
  // Cinder metadata: keys and values up to 255 characters.
  openstack: { key: /^[^\s]{1,255}$/u, keyText: '1–255 characters, no white space', maxValue: 255, reservedPrefixes: [] },
};

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why a tag key may not be the target of a mapping on this cloud, or undefined. */
function tagKeyProblem(tag: string, cloud: TagCloud): string | undefined {
  const rules = RULES[cloud];
  if (tag === TAG_AWS_NAME || tag.startsWith('kubernetes.io/') || tag.startsWith(TAG_CLUSTER_PREFIX)) {
    return `tag "${tag}" is one of pv-controller's own (Name, kubernetes.io/...), which prove whose disk it is: a claim may never set it`;
  }
  const reserved = rules.reservedPrefixes.find((p) => tag.toLowerCase().startsWith(p));
  if (reserved) return `tag "${tag}": the prefix "${reserved}" is reserved by the cloud`;
  if (!rules.key.test(tag)) return `tag "${tag}" is not a tag key on ${cloud}: ${rules.keyText}`;
  return undefined;
}

/** `annotation=tag` → a mapping, checked for `cloud`; throws a message naming what is wrong. */
export function parseAnnotationTag(text: string, cloud: TagCloud): AnnotationTag {
  const at = text.indexOf('=');
  if (at <= 0 || at === text.length - 1) throw new Error(`must be ANNOTATION=TAG, got "${text}"`);
  const annotation = text.slice(0, at);
  const tag = text.slice(at + 1);
  const keyErrors = isQualifiedName(annotation);
  if (keyErrors.length > 0) throw new Error(`"${annotation}" is not an annotation key: ${keyErrors.join('; ')}`);
  const problem = tagKeyProblem(tag, cloud);
  if (problem) throw new Error(problem);
  return { annotation, tag };
}

/** Checks a whole allow-list: each mapping valid, no tag written by two annotations. */
export function parseAnnotationTags(texts: readonly string[], cloud: TagCloud): AnnotationTag[] {
  const mappings = texts.map((t) => parseAnnotationTag(t, cloud));
  const seen = new Set<string>();
  for (const m of mappings) {
    if (seen.has(m.tag)) throw new Error(`tag "${m.tag}" is the target of two annotations`);
    seen.add(m.tag);
  }
  return mappings;
}

/** The tags a claim's annotations give through the allow-list; throws InvalidParameter for a value the cloud cannot hold. */
export function claimTags(mappings: readonly AnnotationTag[], annotations: Readonly<Record<string, string>>, cloud: TagCloud): Tags {
  const rules = RULES[cloud];
  const tags: Tags = {};
  for (const { annotation, tag } of mappings) {
    if (!Object.hasOwn(annotations, annotation)) continue;
    const value = annotations[annotation]!;
    const problem =
      [...value].length > rules.maxValue ? `is longer than ${rules.maxValue} characters` :
      CONTROL.test(value) ? 'contains a control character' :
      rules.value && !rules.value.test(value) ? `must be ${rules.valueText}` : undefined;
    if (problem) throw new PluginError('InvalidParameter', `annotation "${annotation}" (copied to the disk's tag "${tag}") ${problem}`, false);
    tags[tag] = value;
  }
  return tags;
}
