/**
 * Secret name and namespace templates (external-provisioner v6's getSecretReference): `${pv.name}`
 * and `${pvc.namespace}` anywhere; in a name also `${pvc.name}` and `${pvc.annotations['KEY']}`
 * (external-provisioner accepts these for every secret kind since v4.0.2; a namespace never
 * takes what the claim's author controls). The result must be a DNS-1123 subdomain (name) or
 * label (namespace).
 */

export interface TemplateContext {
  pvName: string;
  /** Absent when the claim is not known (a PV whose claim is gone). */
  claim?: { name: string; namespace: string; annotations: Record<string, string> };
}

const TOKEN = /\$\{([^}]*)\}/g;
const ANNOTATION_TOKEN = /^pvc\.annotations\['([^']*)'\]$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN_PART = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function isDns1123Label(value: string): boolean {
  return value.length <= 63 && DNS1123_LABEL.test(value);
}

export function isDns1123Subdomain(value: string): boolean {
  return value.length > 0 && value.length <= 253 && value.split('.').every((part) => DNS1123_SUBDOMAIN_PART.test(part));
}

type Field = 'name' | 'namespace';

/** The tokens of a template that `field` does not allow; [] when every token is known. */
export function unknownTokens(template: string, field: Field): string[] {
  return [...template.matchAll(TOKEN)].map((m) => m[1]).filter((token) => !allowed(token, field));
}

function allowed(token: string, field: Field): boolean {
  if (token === 'pv.name' || token === 'pvc.namespace') return true;
  return field === 'name' && (token === 'pvc.name' || ANNOTATION_TOKEN.test(token));
}

function valueOf(token: string, field: Field, ctx: TemplateContext): string | undefined {
  if (!allowed(token, field)) return undefined;
  if (token === 'pv.name') return ctx.pvName;
  if (!ctx.claim) return undefined;
  if (token === 'pvc.namespace') return ctx.claim.namespace;
  if (token === 'pvc.name') return ctx.claim.name;
  const key = ANNOTATION_TOKEN.exec(token)?.[1] ?? '';
  return ctx.claim.annotations[key];
}

/** The template with its tokens replaced, or the reason it cannot be (a token without a value, an invalid result). */
export function resolveTemplate(template: string, field: Field, ctx: TemplateContext): { value: string } | { error: string } {
  const missing: string[] = [];
  const value = template.replace(TOKEN, (_whole, token: string) => {
    const v = valueOf(token, field, ctx);
    if (v === undefined) missing.push(token);
    return v ?? '';
  });
  if (missing.length > 0) return { error: `"${template}" has tokens without a value: ${missing.map((t) => `\${${t}}`).join(', ')}` };
  const valid = field === 'name' ? isDns1123Subdomain(value) : isDns1123Label(value);
  if (!valid) {
    const what = field === 'name' ? 'secret name' : 'namespace name';
    return { error: value === template ? `"${template}" is not a valid ${what}` : `"${template}" resolved to "${value}", which is not a valid ${what}` };
  }
  return { value };
}
