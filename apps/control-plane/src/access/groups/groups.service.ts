import { allows, type Privilege } from '@corral/acl';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ParamsOf, ResultOf } from '../../http/endpoint.js';
import { alreadyExists, isUniqueViolation, notFound } from '../../errors/resource-errors.js';
import type { Principal } from '../../http/principal.js';
import { AccessState } from '../state/access-state.js';
import type { createGroup, getGroup, listGroups, updateGroup } from './groups.endpoints.js';
import { deleteGroup, insertGroup, readGroups, updateGroup as updateGroupRow } from './groups.repository.js';

// PVE's group index shows a group to callers holding any of these on `/access/groups/<group>`.
const SEE_GROUP: readonly Privilege[] = ['User.Modify', 'Sys.Audit', 'Group.Allocate'];

/** Groups. Every write is one `AccessState.write`: all of it or nothing. */
@Injectable()
export class GroupsService {
  constructor(
    private readonly state: AccessState,
    private readonly dataSource: DataSource,
  ) {}

  async list(caller: Principal): Promise<ResultOf<typeof listGroups>> {
    const access = await this.state.current();
    const groups = await readGroups(this.dataSource.manager);
    return groups
      .filter((g) => allows(access, caller.subject, `/access/groups/${g.groupid}`, SEE_GROUP, true))
      .map((g) => ({ groupid: g.groupid, ...commentOf(g.comment), users: g.members.join(',') }));
  }

  async get(groupid: string): Promise<ResultOf<typeof getGroup>> {
    const [group] = await readGroups(this.dataSource.manager, groupid);
    if (!group) throw notFound(`group '${groupid}'`);
    return { ...commentOf(group.comment), members: [...group.members] };
  }

  async create(params: ParamsOf<typeof createGroup>): Promise<void> {
    try {
      await this.state.write((db) => insertGroup(db, { groupid: params.groupid, comment: params.comment || null }));
    } catch (error) {
      if (isUniqueViolation(error)) throw alreadyExists(`group '${params.groupid}'`);
      throw error;
    }
  }

  async update(params: ParamsOf<typeof updateGroup>): Promise<void> {
    // An empty comment clears it, as in PVE.
    const changes = params.comment === undefined ? {} : { comment: params.comment || null };
    await this.state.write(async (db) => {
      if (!(await updateGroupRow(db, params.groupid, changes))) throw notFound(`group '${params.groupid}'`);
    });
  }

  async remove(groupid: string): Promise<void> {
    await this.state.write(async (db) => {
      if (!(await deleteGroup(db, groupid))) throw notFound(`group '${groupid}'`);
    });
  }
}

function commentOf(comment: string | null): { comment?: string } {
  return comment === null ? {} : { comment };
}
