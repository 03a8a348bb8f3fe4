/**
 * What a GCE disk carries besides its name: labels where the value is a legal GCE label value
 * (keys sanitised from the tag keys), and the full tags as JSON in the description, which is
 * what the plugin trusts when it asks "is this disk ours?".
 */
import { TAG_AWS_NAME } from '@pv-controller/kube/annotations.js';
import { asRecord, asString } from '../cloud-common/http.js';
import type { Tags } from '../cloud-common/tags.js';

const MAX_LABEL_LENGTH = 63;
const LEGAL_VALUE = /^[a-z0-9_-]{0,63}$/;
const LEGAL_KEY = /^[a-z][a-z0-9_-]{0,62}$/;

/**
 * A tag key as a GCE label key: lower-case, every character outside `[a-z0-9_-]` becomes `-`,
 * a leading non-letter gets a `k` in front, at most 63 characters.
 * `kubernetes.io/created-for/pvc/name` ⇒ `kubernetes-io-created-for-pvc-name`.
 */
export function labelKeyOf(tagKey: string): string {
  let key = tagKey.toLowerCase().replace(/[^a-z0-9_-]/g, '-');
  if (!/^[a-z]/.test(key)) key = `k${key}`;
  return key.slice(0, MAX_LABEL_LENGTH);
}

export function isLegalLabelValue(value: string): boolean {
  return LEGAL_VALUE.test(value);
}

/** Labels for the tags whose values GCE accepts as they are (values are never rewritten). */
export function labelsForTags(tags: Tags): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(tags)) {
    if (key === TAG_AWS_NAME) continue; // the disk name itself
    const labelKey = labelKeyOf(key);
    if (LEGAL_KEY.test(labelKey) && isLegalLabelValue(value)) labels[labelKey] = value;
  }
  return labels;
}

/** The description of a disk: its tags as JSON. */
export function descriptionForTags(tags: Tags): string {
  return JSON.stringify(tags);
}

/** The tags in a disk's description; {} when it holds none (not ours, or not JSON). */
export function tagsOfDescription(description: string | undefined): Tags {
  if (description === undefined || description === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(description);
  } catch {
    return {};
  }
  const tags: Tags = {};
  for (const [key, value] of Object.entries(asRecord(parsed) ?? {})) {
    const text = asString(value);
    if (text !== undefined) tags[key] = text;
  }
  return tags;
}
