import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';

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
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const CONFIG = Symbol('CONFIG');

const optionalText = z
  .string()
  .transform((value) => value.trim())
  .transform((value) => (value === '' ? undefined : value))
  .optional();

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
    CORRAL_TLS_CERT: optionalText,
    CORRAL_TLS_KEY: optionalText,
    CORRAL_LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
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
  });
}
