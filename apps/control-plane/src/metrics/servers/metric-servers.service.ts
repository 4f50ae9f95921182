import { Injectable } from '@nestjs/common';
import { ApiError } from '../../errors/api-error.js';
import { alreadyExists, badParam, isUniqueViolation, notFound } from '../../errors/resource-errors.js';
import type { ParamsOf } from '../../http/endpoint.js';
import { checkDigest, entryDigest, flag, setAndDeleted } from '../../http/entry-changes.js';
import { OPTIONS, type MetricServerSettings, type MetricServerType } from './metric-server-settings.js';
import type { MetricServerRow } from './metric-server.entity.js';
import type { MetricServerEndpoints, MetricServerEntry, MetricServerSummary } from './metric-servers.endpoints.js';
import { MetricServersRepository } from './metric-servers.repository.js';
import { SendFailed, tryServer } from './metric-transports.js';

type CreateParams = ParamsOf<MetricServerEndpoints['create']>;
type UpdateParams = ParamsOf<MetricServerEndpoints['update']>;

const SETTING_NAMES = [...new Set(Object.values(OPTIONS).flat())];

/**
 * The external metric servers of `/cluster/metrics/server`. A server is tried before it is added or
 * changed, as PVE tries it, unless it is disabled; the token is write-only.
 */
@Injectable()
export class MetricServersService {
  constructor(private readonly repository: MetricServersRepository) {}

  async list(): Promise<MetricServerSummary[]> {
    return (await this.repository.all()).map((row) => ({
      id: row.id,
      type: row.type,
      server: row.settings.server,
      port: row.settings.port,
      disable: row.disable ? 1 : 0,
      ...statusOf(row),
    }));
  }

  async get(id: string): Promise<MetricServerEntry> {
    const row = await this.repository.find(id);
    if (row === null) throw missing(id);
    return { ...entryOf(row), ...statusOf(row), digest: digestOf(row) };
  }

  async create(params: CreateParams): Promise<void> {
    if (params.type === 'opentelemetry')
      throw new ApiError('NOT_IMPLEMENTED', 'OpenTelemetry metric servers are not built: use influxdb or graphite');
    const type = params.type;
    const row: MetricServerRow = {
      id: params.id,
      type,
      disable: params.disable ?? false,
      settings: settingsOf(type, params),
      token: tokenOf(type, params.token),
      error: null,
      failingSince: null,
    };
    await tried(row);
    try {
      await this.repository.insert(row);
    } catch (error) {
      if (isUniqueViolation(error)) throw alreadyExists(`metric server '${params.id}'`);
      throw error;
    }
  }

  /** Sets what is given and resets what `delete` names; the changed server is tried before it is saved. */
  async update(params: UpdateParams): Promise<void> {
    const { id, delete: deleted = [], digest } = params;
    const both = setAndDeleted(params, deleted);
    if (both !== undefined) throw badParam('delete', `cannot set and delete '${both}' at once`);
    const current = await this.repository.find(id);
    if (current === null) throw missing(id);
    checkDigest(digestOf(current), digest);
    const foreign = deleted.find((name) => !deletable(current.type).includes(name));
    if (foreign !== undefined) throw badParam('delete', `${current.type} metric servers have no setting '${foreign}'`);
    const kept = Object.fromEntries(Object.entries(current.settings).filter(([name]) => !deleted.includes(name as never)));
    const next: MetricServerRow = {
      ...current,
      disable: deleted.includes('disable') ? false : (params.disable ?? current.disable),
      settings: settingsOf(current.type, { ...kept, ...params }),
      token: deleted.includes('token') ? null : params.token !== undefined ? tokenOf(current.type, params.token) : current.token,
    };
    await tried(next);
    await this.repository.update(id, (locked) => {
      if (locked === null) throw missing(id);
      // Changed by another caller while this one tried the server.
      checkDigest(digestOf(locked), digestOf(current));
      return { ...next, error: locked.error, failingSince: locked.failingSince };
    });
  }

  async remove(id: string): Promise<void> {
    if (!(await this.repository.remove(id))) throw missing(id);
  }
}

/** The settings given that the type takes; one it does not take is a 400 naming it. */
function settingsOf(type: MetricServerType, given: Readonly<Record<string, unknown>>): MetricServerSettings {
  const settings: Record<string, unknown> = {};
  for (const name of SETTING_NAMES) {
    const value = given[name];
    if (value === undefined) continue;
    if (!OPTIONS[type].includes(name)) throw badParam(name, `${type} metric servers have no setting '${name}'`);
    settings[name] = value;
  }
  return settings as unknown as MetricServerSettings;
}

/** What `delete` may name on a server of the type: `disable`, its settings, and InfluxDB's token. */
function deletable(type: MetricServerType): readonly string[] {
  return ['disable', ...(type === 'influxdb' ? ['token'] : []), ...OPTIONS[type]];
}

function tokenOf(type: MetricServerType, token: string | undefined): string | null {
  if (token === undefined) return null;
  if (type !== 'influxdb') throw badParam('token', `${type} metric servers take no token`);
  return token;
}

/** Tries an enabled server; one that cannot be reached is a 400 naming `server`, saying why. */
async function tried(row: MetricServerRow): Promise<void> {
  if (row.disable) return;
  try {
    await tryServer({ type: row.type, settings: row.settings, token: row.token });
  } catch (error) {
    if (error instanceof SendFailed) throw badParam('server', `metric server '${row.id}' does not work: ${error.message}`);
    throw error;
  }
}

/** The settings as PVE shows them: flags as 0 or 1, the token never. */
function entryOf(row: MetricServerRow): Omit<MetricServerEntry, 'digest' | 'error' | 'failing-since'> {
  const { 'verify-certificate': verify, ...settings } = row.settings;
  return {
    id: row.id,
    type: row.type,
    ...settings,
    ...flag('disable', row.disable),
    ...(verify !== undefined ? { 'verify-certificate': verify ? 1 : 0 } : {}),
  };
}

/** PVE's digest, over what a read shows: the token's value is no part of it. */
function digestOf(row: MetricServerRow): string {
  return entryDigest(entryOf(row));
}

function statusOf(row: MetricServerRow): Pick<MetricServerEntry, 'error' | 'failing-since'> {
  if (row.error === null) return {};
  return { error: row.error, ...(row.failingSince !== null ? { 'failing-since': Math.floor(row.failingSince.getTime() / 1000) } : {}) };
}

function missing(id: string): ApiError {
  return notFound(`metric server '${id}'`);
}
