/** The one error type of the plugin seam: every plugin failure is a PluginError with a stable code. */

/** Parameter problems are reported by validateParameters / validateAttributes, naming the parameter. */
export interface ParameterProblem {
  parameter: string;
  message: string;
}

export type PluginErrorCode =
  | 'InvalidParameter'
  | 'InUse'
  | 'Unsafe'
  | 'NotSupported'
  | 'Transient'
  /**
   * The backend may still be doing it (a call that timed out or whose answer was lost): the same
   * call, same name, must be repeated until it answers — the claim keeps its intent and node,
   * nothing is cleaned up (external-provisioner's ProvisioningInBackground). Always retryable.
   */
  | 'InProgress'
  | 'Backend';

/** Every plugin failure. `retryable`: trying again later may succeed without anyone's help. */
export class PluginError extends Error {
  constructor(
    readonly code: PluginErrorCode,
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PluginError';
  }
}
