/**
 * StorageClass parameters of a CSI class: which `csi.storage.k8s.io/` keys the provisioner
 * consumes (and strips before CreateVolume), the filesystem type, and the checks
 * validateParameters makes before anything is created (external-provisioner makes the same
 * checks while preparing CreateVolume, after the claim is already taken).
 */
import {
  CSI_PARAM_FSTYPE,
  CSI_PARAM_FSTYPE_DEPRECATED,
  CSI_PARAM_PV_NAME,
  CSI_PARAM_PVC_NAME,
  CSI_PARAM_PVC_NAMESPACE,
  CSI_PARAMETER_PREFIX,
} from '@pv-controller/kube/annotations.js';
import type { ParameterProblem } from '../api/errors.js';
import { knownPrefixedSecretKeys, SECRET_KINDS, secretParameter, secretTemplates } from './secret-params.js';
import { isDns1123Label, isDns1123Subdomain, unknownTokens } from './templates.js';

const CONSUMED = new Set([CSI_PARAM_FSTYPE, ...knownPrefixedSecretKeys()]);

function isDeprecatedFsTypeKey(key: string): boolean {
  return key.toLowerCase() === CSI_PARAM_FSTYPE_DEPRECATED;
}

/**
 * The parameters CreateVolume carries: the class's minus the `csi.storage.k8s.io/` keys the
 * provisioner consumed (the deprecated unprefixed keys stay, as external-provisioner leaves
 * them), plus the claim's and PV's names (`--extra-create-metadata`).
 */
export function driverParameters(
  parameters: Record<string, string>,
  meta: { pvcName: string; pvcNamespace: string; pvName: string },
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parameters)) if (!k.startsWith(CSI_PARAMETER_PREFIX)) out[k] = v;
  out[CSI_PARAM_PVC_NAME] = meta.pvcName;
  out[CSI_PARAM_PVC_NAMESPACE] = meta.pvcNamespace;
  out[CSI_PARAM_PV_NAME] = meta.pvName;
  return out;
}

/**
 * The filesystem of a mount volume: `csi.storage.k8s.io/fstype`, else the deprecated `fstype`
 * (any case), else `defaultFsType` (external-provisioner's `--default-fstype`, empty by default
 * since v2: the driver then picks).
 */
export function fsTypeOf(parameters: Record<string, string>, defaultFsType: string): string {
  for (const [k, v] of Object.entries(parameters)) if (k === CSI_PARAM_FSTYPE || isDeprecatedFsTypeKey(k)) if (v !== '') return v;
  return defaultFsType;
}

function prefixProblems(parameters: Record<string, string>): ParameterProblem[] {
  return Object.keys(parameters)
    .filter((k) => k.startsWith(CSI_PARAMETER_PREFIX) && !CONSUMED.has(k))
    .map((parameter) => ({ parameter, message: `unknown parameter in the reserved namespace "${CSI_PARAMETER_PREFIX}"` }));
}

function fsTypeProblems(parameters: Record<string, string>): ParameterProblem[] {
  const keys = Object.keys(parameters).filter((k) => k === CSI_PARAM_FSTYPE || isDeprecatedFsTypeKey(k));
  if (keys.length <= 1) return [];
  return [{ parameter: CSI_PARAM_FSTYPE, message: `the filesystem type is given twice (${keys.map((k) => `"${k}"`).join(', ')})` }];
}

/** A template without tokens must already be a valid name; one with tokens may use only the tokens its field allows. */
function templateProblem(template: string, field: 'name' | 'namespace'): string | undefined {
  const unknown = unknownTokens(template, field);
  if (unknown.length > 0) return `unknown token(s) in the ${field} template: ${unknown.map((t) => `\${${t}}`).join(', ')}`;
  if (template.includes('${')) return undefined;
  const valid = field === 'name' ? isDns1123Subdomain(template) : isDns1123Label(template);
  return valid ? undefined : `"${template}" is not a valid ${field === 'name' ? 'secret name' : 'namespace name'}`;
}

function secretProblems(parameters: Record<string, string>): ParameterProblem[] {
  const problems: ParameterProblem[] = [];
  for (const kind of SECRET_KINDS) {
    const templates = secretTemplates(kind, parameters);
    if (templates === undefined) continue;
    const parameter = secretParameter(kind, parameters);
    if (typeof templates === 'string') {
      problems.push({ parameter, message: templates });
      continue;
    }
    const message = templateProblem(templates.name, 'name') ?? templateProblem(templates.namespace, 'namespace');
    if (message) problems.push({ parameter, message });
  }
  // One class-level mistake (e.g. the default pair) is reported once, not once per kind.
  return problems.filter((p, i) => problems.findIndex((q) => q.parameter === p.parameter && q.message === p.message) === i);
}

export function validateCsiParameters(parameters: Record<string, string>): ParameterProblem[] {
  return [...prefixProblems(parameters), ...fsTypeProblems(parameters), ...secretProblems(parameters)];
}
