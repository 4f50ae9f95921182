import { NODE_NAME_HINT, NODE_NAME_PATTERN } from '@corral/protocol';
import { hostname } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { DOWNLOAD_ENV } from './download-env.js';

/** The control plane's settings, read once from the environment at start (README has the table). */
export interface Config {
  readonly port: number;
  /** Address to listen on; `null` means every interface. */
  readonly bind: string | null;
  /** Absolute path of the data directory (certificate, embedded database, access log). */
  readonly dataDir: string;
  /** The operator's own certificate and key files, or `null` to use the generated one. */
  readonly tls: { readonly certFile: string; readonly keyFile: string } | null;
  /** An external PostgreSQL, or `null` for the embedded one in `<dataDir>/pg`. */
  readonly databaseUrl: string | null;
  readonly logLevel: LogLevel;
  /** root@pam's password on first start; generated (and written to `<dataDir>/root-password`) when null. */
  readonly rootPassword: string | null;
  /** The cluster's name, as `/access/ticket` and `/cluster/status` report it. */
  readonly clusterName: string;
  /** The OAuth 2.0 issuer whose bearer tokens are accepted, or null: bearer tokens are refused. */
  readonly oidc: OidcConfig | null;
  /** The node of this host, whose agent the control plane starts and joins itself; null: none (CORRAL_LOCAL_AGENT=0). */
  readonly localNode: string | null;
  /** How many days events are kept; older ones are deleted. */
  readonly eventRetentionDays: number;
  /** How long a webhook delivery is retried after its event was dispatched, before it is marked failed (docs/webhooks.md). */
  readonly webhookRetryHours: number;
  /** The longest wait between two attempts of a webhook delivery, in seconds (docs/webhooks.md "Retries"). */
  readonly webhookMaxBackoffS: number;
  /** How long an agent's HA lease lasts after its last heartbeat the control plane granted (CORRAL_HA_LEASE_S, docs/ha.md). */
  readonly haLeaseS: number;
  /** How errors are shaped (CORRAL_ERROR_FORMAT): Corral's `errors` array, or PVE's own shape for strict PVE clients (docs/development.md, "Errors"). */
  readonly errorFormat: ErrorFormat;
  /** Check every success response against its endpoint's `returns` declaration (CORRAL_CHECK_RESPONSES: the test tiers turn it on). */
  readonly checkResponses: boolean;
  /** The appliance index's URL, in PVE's `aplinfo.dat` format (CORRAL_APLINFO_URL). */
  readonly aplinfoUrl: string;
  /** Local or private networks (CIDR) that downloads into storages may reach (CORRAL_DOWNLOAD_ALLOW_NETWORKS). */
  readonly downloadAllowNetworks: readonly string[];
  /** The built web console served at `/` (CORRAL_CONSOLE_DIR); null: the one built beside this control plane, `apps/console/dist`. */
  readonly consoleDir: string | null;
  /** How long a request's headers may take, and its body may pause, before it is answered 408 (CORRAL_HTTP_BODY_TIMEOUT_S). */
  readonly httpBodyTimeoutS: number;
  /** Where the other replicas reach this one (CORRAL_REPLICA_URL, docs/scale-out.md): `https://<host>:<port>`. */
  readonly replicaUrl: string;
  /** The secret every replica of the cluster shares, which signs the requests they forward to each other (CORRAL_CLUSTER_SECRET); null: none forwarded. */
  readonly clusterSecret: string | null;
}

export const ERROR_FORMATS = ['spec', 'pve'] as const;
export type ErrorFormat = (typeof ERROR_FORMATS)[number];

export interface OidcConfig {
  readonly issuer: string;
  readonly audience: string;
  /** Where the issuer's keys are; null: found through `<issuer>/.well-known/openid-configuration`. */
  readonly jwksUrl: string | null;
  /** The `oidc` realm the token's users belong to. */
  readonly realm: string;
  /** The claim that holds the user name. */
  readonly userClaim: string;
  /** Create a user of the realm the first time a valid token names one. */
  readonly autocreate: boolean;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const CONFIG = Symbol('CONFIG');

const optionalText = z
  .string()
  .transform((value) => value.trim())
  .transform((value) => (value === '' ? undefined : value))
  .optional();

/** A setting in whole seconds from `min` to `max` (as many digits as `max` has), `fallback` when unset. */
function secondsBetween(min: number, max: number, fallback: number) {
  const message = `must be a whole number of seconds from ${min} to ${max}`;
  return z
    .string()
    .regex(new RegExp(`^\\d{1,${String(max).length}}$`), message)
    .transform(Number)
    .refine((seconds) => seconds >= min && seconds <= max, message)
    .default(fallback);
}

const Env = z
  .object({
    CORRAL_PORT: z
      .string()
      .regex(/^\d{1,5}$/, 'must be a port number from 0 to 65535')
      .transform(Number)
      .refine((port) => port <= 65535, 'must be a port number from 0 to 65535')
      .default(8006),
    CORRAL_BIND: optionalText,
    CORRAL_DATA_DIR: optionalText,
    CORRAL_CONSOLE_DIR: optionalText,
    CORRAL_TLS_CERT: optionalText,
    CORRAL_TLS_KEY: optionalText,
    CORRAL_LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
    CORRAL_ROOT_PASSWORD: z.string().min(8, 'must be at least 8 characters').max(64, 'must be at most 64 characters').optional(),
    CORRAL_CLUSTER_NAME: optionalText.pipe(
      z
        .string()
        .regex(/^[A-Za-z][A-Za-z0-9-]{0,14}$/, 'must be a letter and up to 14 letters, digits or dashes')
        .optional(),
    ),
    CORRAL_OIDC_ISSUER: optionalText.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional()),
    CORRAL_OIDC_AUDIENCE: optionalText,
    CORRAL_OIDC_JWKS_URL: optionalText.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional()),
    CORRAL_OIDC_REALM: optionalText.pipe(
      z
        .string()
        .regex(/^[A-Za-z][A-Za-z0-9._-]+$/, 'must be a realm name')
        .optional(),
    ),
    CORRAL_OIDC_USER_CLAIM: optionalText,
    CORRAL_OIDC_AUTOCREATE: z.enum(['0', '1']).optional(),
    CORRAL_LOCAL_AGENT: z.enum(['0', '1']).default('1'),
    CORRAL_NODE_NAME: optionalText.pipe(z.string().regex(NODE_NAME_PATTERN, NODE_NAME_HINT).optional()),
    CORRAL_EVENT_RETENTION_DAYS: z
      .string()
      .regex(/^\d{1,5}$/, 'must be a whole number of days, at least 7')
      .transform(Number)
      .refine((days) => days >= 7, 'must be at least 7 days (stream clients may resume from a week back)')
      .default(7),
    CORRAL_WEBHOOK_RETRY_HOURS: z
      .string()
      .regex(/^\d{1,5}(\.\d+)?$/, 'must be a number of hours, such as 24 or 0.5')
      .transform(Number)
      .refine((hours) => hours > 0, 'must be more than 0 hours')
      .default(24),
    CORRAL_WEBHOOK_MAX_BACKOFF_S: z
      .string()
      .regex(/^\d{1,6}$/, 'must be a whole number of seconds, at least 1')
      .transform(Number)
      .refine((seconds) => seconds >= 1, 'must be a whole number of seconds, at least 1')
      .default(600),
    CORRAL_HA_LEASE_S: secondsBetween(10, 600, 30),
    CORRAL_HTTP_BODY_TIMEOUT_S: secondsBetween(1, 3600, 30),
    CORRAL_ERROR_FORMAT: z.enum(ERROR_FORMATS, { error: 'must be spec or pve' }).default('spec'),
    CORRAL_CHECK_RESPONSES: z.enum(['0', '1']).default('0'),
    CORRAL_REPLICA_URL: optionalText.pipe(z.url({ protocol: /^https$/, error: 'must be an https:// URL' }).optional()),
    CORRAL_CLUSTER_SECRET: z
      .string()
      .regex(/^[\x21-\x7e]{32,256}$/, 'must be 32 to 256 printable characters without spaces (such as `openssl rand -hex 32`)')
      .optional(),
    ...DOWNLOAD_ENV,
    DATABASE_URL: optionalText.pipe(
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
        .optional(),
    ),
  })
  .refine((env) => (env.CORRAL_TLS_CERT === undefined) === (env.CORRAL_TLS_KEY === undefined), {
    message: 'CORRAL_TLS_CERT and CORRAL_TLS_KEY must be set together',
    path: ['CORRAL_TLS_CERT'],
  })
  .refine((env) => (env.CORRAL_OIDC_ISSUER === undefined) === (env.CORRAL_OIDC_AUDIENCE === undefined), {
    message: 'CORRAL_OIDC_ISSUER and CORRAL_OIDC_AUDIENCE must be set together',
    path: ['CORRAL_OIDC_ISSUER'],
  });

export class ConfigError extends Error {}

/** Parses the environment once; the result is frozen and injected wherever settings are needed. */
export function loadConfig(env: Record<string, string | undefined>, cwd: string): Config {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid environment: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  const absolute = (path: string) => (isAbsolute(path) ? path : resolve(cwd, path));
  return Object.freeze({
    port: e.CORRAL_PORT,
    bind: e.CORRAL_BIND ?? null,
    dataDir: absolute(e.CORRAL_DATA_DIR ?? './var'),
    tls:
      e.CORRAL_TLS_CERT && e.CORRAL_TLS_KEY
        ? Object.freeze({ certFile: absolute(e.CORRAL_TLS_CERT), keyFile: absolute(e.CORRAL_TLS_KEY) })
        : null,
    databaseUrl: e.DATABASE_URL ?? null,
    logLevel: e.CORRAL_LOG_LEVEL,
    rootPassword: e.CORRAL_ROOT_PASSWORD ?? null,
    clusterName: e.CORRAL_CLUSTER_NAME ?? 'corral',
    oidc:
      e.CORRAL_OIDC_ISSUER && e.CORRAL_OIDC_AUDIENCE
        ? Object.freeze({
            issuer: e.CORRAL_OIDC_ISSUER,
            audience: e.CORRAL_OIDC_AUDIENCE,
            jwksUrl: e.CORRAL_OIDC_JWKS_URL ?? null,
            realm: e.CORRAL_OIDC_REALM ?? 'oidc',
            userClaim: e.CORRAL_OIDC_USER_CLAIM ?? 'sub',
            autocreate: e.CORRAL_OIDC_AUTOCREATE === '1',
          })
        : null,
    localNode: e.CORRAL_LOCAL_AGENT === '1' ? (e.CORRAL_NODE_NAME ?? hostNodeName()) : null,
    eventRetentionDays: e.CORRAL_EVENT_RETENTION_DAYS,
    webhookRetryHours: e.CORRAL_WEBHOOK_RETRY_HOURS,
    webhookMaxBackoffS: e.CORRAL_WEBHOOK_MAX_BACKOFF_S,
    haLeaseS: e.CORRAL_HA_LEASE_S,
    errorFormat: e.CORRAL_ERROR_FORMAT,
    checkResponses: e.CORRAL_CHECK_RESPONSES === '1',
    aplinfoUrl: e.CORRAL_APLINFO_URL,
    downloadAllowNetworks: e.CORRAL_DOWNLOAD_ALLOW_NETWORKS,
    consoleDir: e.CORRAL_CONSOLE_DIR ? absolute(e.CORRAL_CONSOLE_DIR) : null,
    httpBodyTimeoutS: e.CORRAL_HTTP_BODY_TIMEOUT_S,
    replicaUrl: (e.CORRAL_REPLICA_URL ?? `https://${hostname()}:${e.CORRAL_PORT}`).replace(/\/+$/, ''),
    clusterSecret: e.CORRAL_CLUSTER_SECRET ?? null,
  });
}

/** The host name's first label, as PVE names a node; `localhost` when it is not a valid node name. */
function hostNodeName(): string {
  const label = hostname().split('.')[0] ?? '';
  return NODE_NAME_PATTERN.test(label) ? label : 'localhost';
}
