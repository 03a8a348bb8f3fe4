/**
 * OpenStack credentials the way the OpenStack CLI finds them: `OS_CLOUD` selects an entry of
 * clouds.yaml (OS_CLIENT_CONFIG_FILE, ./clouds.yaml, ~/.config/openstack/clouds.yaml,
 * /etc/openstack/clouds.yaml), otherwise the `OS_*` variables. Password and application
 * credentials are both supported. Nothing here is ever logged.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { asRecord, asString } from '../cloud-common/http.js';
import { PluginError } from '../api/errors.js';

export interface OpenStackAuthConfig {
  authUrl: string;
  username?: string;
  userId?: string;
  password?: string;
  userDomainName?: string;
  userDomainId?: string;
  projectName?: string;
  projectId?: string;
  projectDomainName?: string;
  projectDomainId?: string;
  applicationCredentialId?: string;
  applicationCredentialName?: string;
  applicationCredentialSecret?: string;
  regionName?: string;
  /** Catalog interface: public (default), internal or admin. */
  interface?: string;
}

type Env = Record<string, string | undefined>;

function configFromEnv(env: Env): OpenStackAuthConfig {
  return {
    authUrl: env.OS_AUTH_URL ?? '',
    username: env.OS_USERNAME,
    userId: env.OS_USER_ID,
    password: env.OS_PASSWORD,
    userDomainName: env.OS_USER_DOMAIN_NAME ?? env.OS_DOMAIN_NAME,
    userDomainId: env.OS_USER_DOMAIN_ID ?? env.OS_DOMAIN_ID,
    projectName: env.OS_PROJECT_NAME ?? env.OS_TENANT_NAME,
    projectId: env.OS_PROJECT_ID ?? env.OS_TENANT_ID,
    projectDomainName: env.OS_PROJECT_DOMAIN_NAME ?? env.OS_DOMAIN_NAME,
    projectDomainId: env.OS_PROJECT_DOMAIN_ID ?? env.OS_DOMAIN_ID,
    applicationCredentialId: env.OS_APPLICATION_CREDENTIAL_ID,
    applicationCredentialName: env.OS_APPLICATION_CREDENTIAL_NAME,
    applicationCredentialSecret: env.OS_APPLICATION_CREDENTIAL_SECRET,
    regionName: env.OS_REGION_NAME,
    interface: env.OS_INTERFACE ?? env.OS_ENDPOINT_TYPE?.replace(/URL$/, ''),
  };
}

/** One `clouds.<name>` entry of clouds.yaml. */
export function configFromCloudsYaml(text: string, cloud: string): OpenStackAuthConfig {
  const entry = asRecord(asRecord(asRecord(parseYaml(text))?.clouds)?.[cloud]);
  if (entry === undefined) {
    throw new PluginError('Backend', `clouds.yaml has no cloud named "${cloud}"`, false);
  }
  const auth = asRecord(entry.auth) ?? {};
  const text_ = (value: unknown): string | undefined =>
    typeof value === 'number' ? String(value) : asString(value);
  return {
    authUrl: text_(auth.auth_url) ?? '',
    username: text_(auth.username),
    userId: text_(auth.user_id),
    password: text_(auth.password),
    userDomainName: text_(auth.user_domain_name) ?? text_(auth.domain_name),
    userDomainId: text_(auth.user_domain_id) ?? text_(auth.domain_id),
    projectName: text_(auth.project_name) ?? text_(auth.tenant_name),
    projectId: text_(auth.project_id) ?? text_(auth.tenant_id),
    projectDomainName: text_(auth.project_domain_name) ?? text_(auth.domain_name),
    projectDomainId: text_(auth.project_domain_id) ?? text_(auth.domain_id),
    applicationCredentialId: text_(auth.application_credential_id),
    applicationCredentialName: text_(auth.application_credential_name),
    applicationCredentialSecret: text_(auth.application_credential_secret),
    regionName: text_(entry.region_name),
    interface: text_(entry.interface),
  };
}

function cloudsYamlCandidates(env: Env): string[] {
  const explicit = env.OS_CLIENT_CONFIG_FILE;
  if (explicit) return [explicit];
  return [join(process.cwd(), 'clouds.yaml'), join(homedir(), '.config', 'openstack', 'clouds.yaml'), '/etc/openstack/clouds.yaml'];
}

async function readFirst(paths: string[]): Promise<string | undefined> {
  for (const path of paths) {
    try {
      return await readFile(path, 'utf8');
    } catch {
      // try the next location
    }
  }
  return undefined;
}

/** Refuses a configuration Keystone cannot authenticate (says which variable is missing). */
export function checkAuthConfig(config: OpenStackAuthConfig): OpenStackAuthConfig {
  const missing = (what: string): never => {
    throw new PluginError('Backend', `OpenStack credentials incomplete: ${what} is not set`, false);
  };
  if (!config.authUrl) missing('OS_AUTH_URL (auth.auth_url)');
  if (config.applicationCredentialId || config.applicationCredentialName) {
    if (!config.applicationCredentialSecret) missing('OS_APPLICATION_CREDENTIAL_SECRET');
    return config;
  }
  if (!config.username && !config.userId) missing('OS_USERNAME');
  if (!config.password) missing('OS_PASSWORD');
  return config;
}

/** Credentials from clouds.yaml when OS_CLOUD is set, else from the OS_* variables. */
export async function loadOpenStackConfig(env: Env = process.env, cloudsYamlPath?: string): Promise<OpenStackAuthConfig> {
  const cloud = env.OS_CLOUD;
  if (cloud) {
    const text = await readFirst(cloudsYamlPath ? [cloudsYamlPath] : cloudsYamlCandidates(env));
    if (text === undefined) throw new PluginError('Backend', `OS_CLOUD=${cloud} but no clouds.yaml was found`, false);
    const fromYaml = configFromCloudsYaml(text, cloud);
    // OS_* variables still override single fields, as the CLI lets them.
    const fromEnv = configFromEnv(env);
    const merged: OpenStackAuthConfig = { ...fromYaml };
    for (const [key, value] of Object.entries(fromEnv) as [keyof OpenStackAuthConfig, string | undefined][]) {
      if (value) merged[key] = value;
    }
    return checkAuthConfig(merged);
  }
  return checkAuthConfig(configFromEnv(env));
}
