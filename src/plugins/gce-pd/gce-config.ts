/**
 * Where the GCE plugin works: the project and the default zone, from its options, else the
 * standard environment / credentials, else the metadata server of the VM it runs on.
 */
import { GoogleAuth } from 'google-auth-library';
import { PluginError } from '../api/errors.js';
import type { GceAuth } from './compute-client.js';

export const COMPUTE_SCOPE = 'https://www.googleapis.com/auth/compute';

export interface GceLocationOptions {
  project?: string;
  /** Zone used when neither the class, the selected node nor the topology names one. */
  zone?: string;
  /** Metadata server host (default GCE_METADATA_HOST or metadata.google.internal). */
  metadataHost?: string;
  /** Timeout of one metadata server request. */
  metadataTimeoutMs?: number;
}

/** GOOGLE_APPLICATION_CREDENTIALS / ADC through google-auth-library, scoped for Compute. */
export function defaultGceAuth(): GoogleAuth {
  return new GoogleAuth({ scopes: [COMPUTE_SCOPE] });
}

/** One value from the metadata server; undefined when there is none (not on GCE). */
async function metadataValue(path: string, options: GceLocationOptions): Promise<string | undefined> {
  const host = options.metadataHost ?? process.env.GCE_METADATA_HOST ?? 'metadata.google.internal';
  try {
    const response = await fetch(`http://${host}/computeMetadata/v1/${path}`, {
      headers: { 'Metadata-Flavor': 'Google' },
      signal: AbortSignal.timeout(options.metadataTimeoutMs ?? 3_000),
    });
    if (!response.ok) return undefined;
    return (await response.text()).trim();
  } catch {
    return undefined;
  }
}

/** Lazily resolved project and default zone, each looked up once. */
export class GceLocationResolver {
  private project: Promise<string> | undefined;
  private zone: Promise<string | undefined> | undefined;

  constructor(
    private readonly options: GceLocationOptions,
    private readonly auth: GceAuth,
  ) {}

  projectId(): Promise<string> {
    this.project ??= this.lookUpProject().catch((err: unknown) => {
      this.project = undefined;
      throw err;
    });
    return this.project;
  }

  defaultZone(): Promise<string | undefined> {
    this.zone ??= this.lookUpZone();
    return this.zone;
  }

  private async lookUpProject(): Promise<string> {
    const fromEnv = this.options.project ?? process.env.GOOGLE_CLOUD_PROJECT ?? process.env.GCLOUD_PROJECT;
    if (fromEnv) return fromEnv;
    if (this.auth instanceof GoogleAuth) {
      try {
        return await this.auth.getProjectId();
      } catch {
        // fall through to the metadata server
      }
    }
    const fromMetadata = await metadataValue('project/project-id', this.options);
    if (fromMetadata) return fromMetadata;
    throw new PluginError(
      'Backend',
      'cannot determine the GCE project: set the project option, GOOGLE_CLOUD_PROJECT, or run on GCE',
      false,
    );
  }

  private async lookUpZone(): Promise<string | undefined> {
    if (this.options.zone) return this.options.zone;
    const fromMetadata = await metadataValue('instance/zone', this.options);
    // "projects/123456/zones/us-central1-b"
    return fromMetadata ? fromMetadata.slice(fromMetadata.lastIndexOf('/') + 1) : undefined;
  }
}
