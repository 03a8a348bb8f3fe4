/**
 * Keystone v3: a scoped token (password or application credential) and the Cinder v3 endpoint
 * from its service catalog. The token is cached until shortly before it expires and dropped on
 * a 401, so the next call authenticates again. The token and the secrets are never logged.
 */
import { asRecord, asString, requestJson } from '../cloud-common/http.js';
import { PluginError } from '../api/errors.js';
import type { OpenStackAuthConfig } from './os-config.js';

export interface KeystoneSession {
  token: string;
  /** The Cinder v3 base URL including the project, e.g. http://cinder:8776/v3/<project-id>. */
  volumeEndpoint: string;
  projectId: string;
  expiresAt: number;
}

/** Catalog service types of the block-storage v3 API, newest name first. */
const VOLUME_SERVICE_TYPES = ['block-storage', 'volumev3'];
const EXPIRY_MARGIN_MS = 60_000;

function nameOrId(name: string | undefined, id: string | undefined): Record<string, string> {
  return id ? { id } : { name: name ?? '' };
}

/** The body of POST /v3/auth/tokens for the configured kind of credential. */
export function authRequestBody(config: OpenStackAuthConfig): unknown {
  if (config.applicationCredentialId || config.applicationCredentialName) {
    const credential: Record<string, unknown> = { secret: config.applicationCredentialSecret };
    if (config.applicationCredentialId) credential.id = config.applicationCredentialId;
    else {
      credential.name = config.applicationCredentialName;
      credential.user = { ...nameOrId(config.username, config.userId), domain: nameOrId(config.userDomainName, config.userDomainId) };
    }
    return { auth: { identity: { methods: ['application_credential'], application_credential: credential } } };
  }
  const user: Record<string, unknown> = { ...nameOrId(config.username, config.userId), password: config.password };
  if (!config.userId) user.domain = nameOrId(config.userDomainName ?? 'Default', config.userDomainId);
  const auth: Record<string, unknown> = { identity: { methods: ['password'], password: { user } } };
  if (config.projectId) auth.scope = { project: { id: config.projectId } };
  else if (config.projectName) {
    auth.scope = { project: { name: config.projectName, domain: nameOrId(config.projectDomainName ?? 'Default', config.projectDomainId) } };
  }
  return { auth };
}

/** Picks the block-storage endpoint for the interface and region; appends the project if absent. */
export function volumeEndpointOf(catalog: unknown, projectId: string, config: OpenStackAuthConfig): string {
  const wantedInterface = config.interface ?? 'public';
  const services = Array.isArray(catalog) ? catalog.map((s) => asRecord(s) ?? {}) : [];
  for (const type of VOLUME_SERVICE_TYPES) {
    for (const service of services.filter((s) => asString(s.type) === type)) {
      const endpoints = Array.isArray(service.endpoints) ? service.endpoints.map((e) => asRecord(e) ?? {}) : [];
      const endpoint = endpoints.find(
        (e) =>
          asString(e.interface) === wantedInterface &&
          (!config.regionName || asString(e.region_id) === config.regionName || asString(e.region) === config.regionName),
      );
      const url = asString(endpoint?.url)?.replace(/\/$/, '');
      if (url) return url.endsWith(projectId) ? url : `${url}/${projectId}`;
    }
  }
  throw new PluginError(
    'Backend',
    `no ${wantedInterface} block-storage (volumev3) endpoint${config.regionName ? ` in region ${config.regionName}` : ''} in the Keystone catalog`,
    false,
  );
}

function describeKeystoneError(_status: number, body: unknown): { message: string; reason?: string } {
  const error = asRecord(asRecord(body)?.error);
  return { message: asString(error?.message) ?? 'no message', reason: asString(error?.title) };
}

export class KeystoneClient {
  private session: KeystoneSession | undefined;

  constructor(private readonly config: () => Promise<OpenStackAuthConfig>) {}

  /** A valid session, authenticating when there is none or it is about to expire. */
  async current(signal: AbortSignal): Promise<KeystoneSession> {
    if (this.session && this.session.expiresAt - EXPIRY_MARGIN_MS > Date.now()) return this.session;
    this.session = await this.authenticate(signal);
    return this.session;
  }

  /** Forgets the token (after a 401). */
  invalidate(): void {
    this.session = undefined;
  }

  private async authenticate(signal: AbortSignal): Promise<KeystoneSession> {
    const config = await this.config();
    const base = config.authUrl.replace(/\/$/, '');
    const url = `${base.endsWith('/v3') ? base : `${base}/v3`}/auth/tokens`;
    const response = await requestJson(url, { method: 'POST', headers: {}, body: authRequestBody(config), signal }, describeKeystoneError);
    const token = response.headers.get('x-subject-token');
    const body = asRecord(asRecord(response.body)?.token);
    const projectId = asString(asRecord(body?.project)?.id);
    if (!token || !body || !projectId) {
      throw new PluginError('Backend', 'Keystone answered without a project-scoped token', false);
    }
    const expiresAt = Date.parse(asString(body.expires_at) ?? '') || Date.now() + 3_600_000;
    return { token, projectId, expiresAt, volumeEndpoint: volumeEndpointOf(body.catalog, projectId, config) };
  }
}
