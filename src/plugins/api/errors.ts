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
