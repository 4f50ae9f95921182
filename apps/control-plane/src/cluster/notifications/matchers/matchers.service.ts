import { Injectable } from '@nestjs/common';
import { alreadyExists, badParam, isUniqueViolation, notFound } from '../../../errors/resource-errors.js';
import type { ParamsOf } from '../../../http/endpoint.js';
import { checkDigest, entryDigest, flag } from '../../../http/entry-changes.js';
import type { MatcherRow } from './matcher.entity.js';
import type { MatcherEndpoints, MatcherEntry } from './matchers.endpoints.js';
import { MatchersRepository, UnknownTargets, type Matcher } from './matchers.repository.js';

type CreateParams = ParamsOf<MatcherEndpoints['create']>;
type UpdateParams = ParamsOf<MatcherEndpoints['update']>;

/** The matchers of `/cluster/notifications/matchers`. */
@Injectable()
export class MatchersService {
  constructor(private readonly repository: MatchersRepository) {}

  async list(): Promise<MatcherEntry[]> {
    return (await this.repository.all()).map(entryOf);
  }

  async get(name: string): Promise<MatcherEntry & { digest: string }> {
    const matcher = await this.repository.find(name);
    if (!matcher) throw missing(name);
    const entry = entryOf(matcher);
    return { ...entry, digest: entryDigest(entry) };
  }

  async create(params: CreateParams): Promise<void> {
    const row: MatcherRow = {
      name: params.name,
      matchField: params['match-field'] ?? [],
      matchSeverity: params['match-severity'] ?? [],
      mode: params.mode ?? 'all',
      invertMatch: params['invert-match'] ?? false,
      comment: params.comment || null,
      disable: params.disable ?? false,
    };
    await writing(() => this.repository.insert(row, params.target ?? []), params.name);
  }

  async update(params: UpdateParams): Promise<void> {
    const { name, delete: deleted = [], digest } = params;
    const both = deleted.find((key) => params[key] !== undefined);
    if (both !== undefined) throw badParam('delete', `cannot set and delete '${both}' at once`);
    await writing(
      () =>
        this.repository.update(name, (current) => {
          if (!current) throw missing(name);
          checkDigest(entryDigest(entryOf(current)), digest);
          const { row } = current;
          const next: MatcherRow = {
            ...row,
            matchField: deleted.includes('match-field') ? [] : (params['match-field'] ?? row.matchField),
            matchSeverity: deleted.includes('match-severity') ? [] : (params['match-severity'] ?? row.matchSeverity),
            mode: deleted.includes('mode') ? 'all' : (params.mode ?? row.mode),
            invertMatch: deleted.includes('invert-match') ? false : (params['invert-match'] ?? row.invertMatch),
            comment: deleted.includes('comment') ? null : params.comment !== undefined ? params.comment || null : row.comment,
            disable: deleted.includes('disable') ? false : (params.disable ?? row.disable),
          };
          return { row: next, targets: deleted.includes('target') ? [] : params.target };
        }),
      name,
    );
  }

  async remove(name: string): Promise<void> {
    if (!(await this.repository.remove(name))) throw missing(name);
  }
}

/** A write, its database errors turned into the API's: a duplicate name 409, an unknown target 400. */
async function writing(write: () => Promise<void>, name: string): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw alreadyExists(`matcher '${name}'`);
    if (error instanceof UnknownTargets)
      throw badParam(
        'target',
        `unknown target${error.names.length === 1 ? '' : 's'} ${error.names.map((n) => `'${n}'`).join(', ')}: create the webhook first`,
      );
    throw error;
  }
}

function entryOf({ row, targets }: Matcher): MatcherEntry {
  return {
    name: row.name,
    ...(row.matchField.length > 0 ? { 'match-field': row.matchField } : {}),
    ...(row.matchSeverity.length > 0 ? { 'match-severity': row.matchSeverity } : {}),
    mode: row.mode,
    ...flag('invert-match', row.invertMatch),
    ...(targets.length > 0 ? { target: [...targets] } : {}),
    ...(row.comment !== null ? { comment: row.comment } : {}),
    ...flag('disable', row.disable),
    origin: 'user-created',
  };
}

function missing(name: string) {
  return notFound(`matcher '${name}'`);
}
