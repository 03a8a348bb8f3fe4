/** Options every cloud plugin accepts, and the helpers that turn them into policies. */
import { pino, type Logger } from 'pino';
import type { AnnotationTag } from './annotation-tags.js';
import type { ProvisionRequest } from '../api/core.js';
import { PluginError } from '../api/errors.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
import { DEFAULT_WAIT } from './wait.js';
import type { TopologyResolver } from './zones.js';

export interface WaitPolicy {
  /** How long a new disk may take to become ready before provision gives up (retryably). */
  timeoutMs: number;
  intervalMs: number;
  maxIntervalMs: number;
}

export interface CloudPluginOptions {
  /** Structured logger; credentials and tokens are never passed to it. */
  logger?: Logger;
  retry?: Partial<RetryPolicy>;
  wait?: Partial<WaitPolicy>;
  /** Node zones from the controller's node cache (selectedNode, zones with nodes). */
  topology?: TopologyResolver;
  /** Uniform random in [0, 1) for backoff jitter (tests pin it). */
  random?: () => number;
  /** PVC annotations copied to disk tags (`--cloud-tag-from-annotation`; annotation-tags.ts). */
  annotationTags?: AnnotationTag[];
}

export interface ResolvedCloudOptions {
  logger: Logger;
  retry: RetryPolicy;
  wait: WaitPolicy;
  topology?: TopologyResolver;
  random: () => number;
  annotationTags: AnnotationTag[];
}

export function resolveCloudOptions(options: CloudPluginOptions, component: string): ResolvedCloudOptions {
  const logger = (options.logger ?? pino({ level: 'info' })).child({ component });
  return {
    logger,
    retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    wait: { ...DEFAULT_WAIT, ...options.wait },
    topology: options.topology,
    random: options.random ?? Math.random,
    annotationTags: options.annotationTags ?? [],
  };
}

/**
 * The zone of the node the scheduler selected, when the plugin can learn it. Without a topology
 * resolver the selected node cannot be placed, so it is ignored (logged); a node without a zone
 * label is a retryable failure (its cloud controller may not have labelled it yet).
 */
export async function selectedNodeZone(
  req: ProvisionRequest,
  options: ResolvedCloudOptions,
): Promise<string | undefined> {
  if (req.selectedNode === undefined) return undefined;
  if (options.topology === undefined) {
    options.logger.warn(
      { node: req.selectedNode, pv: req.pvName },
      'selected node given but no topology resolver configured; choosing the zone from the class',
    );
    return undefined;
  }
  const zone = await options.topology.zoneOfNode(req.selectedNode, req.signal);
  if (zone === undefined || zone === '') {
    throw new PluginError(
      'Backend',
      `selected node "${req.selectedNode}" has no topology.kubernetes.io/zone label`,
      true,
    );
  }
  return zone;
}

/** Throws PluginError 'InvalidParameter' listing every problem, or returns nothing. */
export function assertNoProblems(problems: { parameter: string; message: string }[], kind = 'StorageClass'): void {
  if (problems.length === 0) return;
  const text = problems.map((problem) => `${problem.parameter}: ${problem.message}`).join('; ');
  throw new PluginError('InvalidParameter', `invalid ${kind} parameters: ${text}`, false);
}
