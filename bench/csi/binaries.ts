/**
 * The CSI peers of the side-by-side runs: Kubernetes' CSI mock driver and the real sidecars,
 * built into the control plane's binary cache (tools/cluster/binaries.ts), and whether each
 * provisioner under test can run here.
 */
import { binDir, controlPlaneUnavailable, csiBinaryPath, isExecutable } from '../../tools/cluster/binaries.js';
import { hasFlag } from '../proc/controller.js';

/** The two provisioners compared: the real sidecars, or our controller. */
export const PROVISIONER_KINDS = ['external-provisioner', 'pv-controller'] as const;
export type ProvisionerKind = (typeof PROVISIONER_KINDS)[number];

type CsiBinaryName = Parameters<typeof csiBinaryPath>[0];

/** Why `kind` cannot be measured here (a missing binary, or our CLI without --csi-address), or undefined. */
export function csiPeersUnavailable(kind: ProvisionerKind, withResizer = false): string | undefined {
  const plane = controlPlaneUnavailable();
  if (plane) return plane;
  const needed: CsiBinaryName[] = ['csi-mock', ...(kind === 'external-provisioner' ? (['csi-provisioner', ...(withResizer ? ['csi-resizer' as const] : [])] as const) : [])];
  const missing = needed.filter((n) => !isExecutable(csiBinaryPath(n)));
  if (missing.length > 0) return `the CSI peers are not built (missing ${missing.join(', ')} in ${binDir()})`;
  if (kind === 'pv-controller' && !hasFlag('controller', '--csi-address')) {
    return '`pv-controller controller --help` has no --csi-address yet (the CSI wiring has not landed in this checkout)';
  }
  return undefined;
}
