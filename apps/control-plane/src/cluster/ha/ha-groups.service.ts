import { Injectable } from '@nestjs/common';
import { ApiError } from '../../errors/api-error.js';
import { alreadyExists, badParam, isForeignKeyViolation, isUniqueViolation, notFound } from '../../errors/resource-errors.js';
import type { ParamsOf } from '../../http/endpoint.js';
import type { HaGroupNode, HaGroupRow } from '../../inventory/ha/ha-group.entity.js';
import { groupNodesText, parseGroupNodes } from './ha-group-nodes.js';
import type { HaGroupEndpoints, HaGroupEntry } from './ha-groups.endpoints.js';
import { HaGroupsRepository } from './ha-groups.repository.js';
import { checkDigest, entryDigest, flag, setAndDeleted } from '../../http/entry-changes.js';
import { sidOf } from './manager/sid.js';

type CreateParams = ParamsOf<HaGroupEndpoints['create']>;
type UpdateParams = ParamsOf<HaGroupEndpoints['update']>;

/**
 * The HA groups of `/cluster/ha/groups` (docs/ha.md "Configuration"): every node a group names is
 * a joined node, and a group HA resources name cannot be deleted.
 */
@Injectable()
export class HaGroupsService {
  constructor(private readonly repository: HaGroupsRepository) {}

  async list(): Promise<HaGroupEntry[]> {
    return (await this.repository.all()).map(entryOf);
  }

  async get(group: string): Promise<HaGroupEntry> {
    const row = await this.repository.find(group);
    if (!row) throw missing(group);
    return entryOf(row);
  }

  async create(params: CreateParams): Promise<void> {
    const row: HaGroupRow = {
      group: params.group,
      nodes: await this.joinedNodes(params.nodes),
      restricted: params.restricted ?? false,
      nofailback: params.nofailback ?? false,
      comment: params.comment || null,
    };
    try {
      await this.repository.insert(row);
    } catch (error) {
      if (isUniqueViolation(error)) throw alreadyExists(`HA group '${params.group}'`);
      throw error;
    }
  }

  /** Sets what is given and resets what `delete` names; `nodes` replaces the list. */
  async update(params: UpdateParams): Promise<void> {
    const { group, delete: deleted = [], digest } = params;
    const both = setAndDeleted(params, deleted);
    if (both !== undefined) throw badParam('delete', `cannot set and delete '${both}' at once`);
    const nodes = params.nodes !== undefined ? await this.joinedNodes(params.nodes) : undefined;
    await this.repository.update(group, (current) => {
      if (!current) throw missing(group);
      checkDigest(entryOf(current).digest, digest);
      return {
        ...current,
        nodes: nodes ?? current.nodes,
        restricted: deleted.includes('restricted') ? false : (params.restricted ?? current.restricted),
        nofailback: deleted.includes('nofailback') ? false : (params.nofailback ?? current.nofailback),
        comment: deleted.includes('comment') ? null : params.comment !== undefined ? params.comment || null : current.comment,
      };
    });
  }

  /** Refused (409) while resources name it: the foreign key restricts the delete, so a resource added meanwhile is refused too. */
  async remove(group: string): Promise<void> {
    try {
      if (!(await this.repository.remove(group))) throw missing(group);
    } catch (error) {
      if (!isForeignKeyViolation(error)) throw error;
      const sids = (await this.repository.resourcesOf(group)).map(sidOf);
      throw new ApiError(
        'IN_USE',
        `HA group '${group}' is used by the HA resource${sids.length === 1 ? '' : 's'} ${sids.join(', ')}: move or remove them first`,
      );
    }
  }

  /** The nodes given, each a joined node: otherwise a 400 on `nodes` naming those that are not. */
  private async joinedNodes(text: string): Promise<HaGroupNode[]> {
    const nodes = parseGroupNodes(text);
    const joined = await this.repository.nodesOf(nodes.map((entry) => entry.node));
    const unknown = nodes.filter((entry) => !joined.has(entry.node)).map((entry) => `'${entry.node}'`);
    if (unknown.length > 0)
      throw badParam(
        'nodes',
        `node${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} ${unknown.length === 1 ? 'does' : 'do'} not exist`,
      );
    return nodes;
  }
}

/** The group as PVE's `GET /cluster/ha/groups` shows it. */
function entryOf(row: HaGroupRow): HaGroupEntry {
  const entry = {
    group: row.group,
    type: 'group' as const,
    nodes: groupNodesText(row.nodes),
    ...flag('restricted', row.restricted),
    ...flag('nofailback', row.nofailback),
    ...(row.comment !== null ? { comment: row.comment } : {}),
  };
  return { ...entry, digest: entryDigest(entry) };
}

function missing(group: string): ApiError {
  return notFound(`HA group '${group}'`);
}
