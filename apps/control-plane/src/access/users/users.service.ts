import { SUPERUSER } from '@corral/acl';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { ParamsOf, ResultOf } from '../../http/endpoint.js';
import { realmOf } from '../access-params.js';
import { alreadyExists, badParam, isUniqueViolation, notFound } from '../../errors/resource-errors.js';
import { hashPassword } from '../auth/passwords.js';
import type { Principal } from '../../http/principal.js';
import type { UserRow } from '../entities/user.entity.js';
import { AccessState } from '../state/access-state.js';
import { TEXT_FIELDS, type TextField } from './user-params.js';
import { listEntry, userRecord } from './user-records.js';
import { visibleUsers } from './user-visibility.js';
import type { createUser, getUser, listUsers, updateUser } from './users.endpoints.js';
import {
  deleteUser,
  insertUser,
  lockRealm,
  lockUser,
  missingGroups,
  readUsers,
  setGroups,
  updateUser as updateUserRow,
} from './users.repository.js';

const RECOVERY = 'it is the recovery account';

/** Users. Every write is one `AccessState.write`: all of it or nothing. */
@Injectable()
export class UsersService {
  constructor(
    private readonly state: AccessState,
    private readonly dataSource: DataSource,
  ) {}

  async list(caller: Principal, params: ParamsOf<typeof listUsers>): Promise<ResultOf<typeof listUsers>> {
    const access = await this.state.current();
    const visible = visibleUsers(access, caller);
    const users = await readUsers(this.dataSource.manager);
    return users
      .filter(({ row }) => visible(row.userid) && (params.enabled === undefined || row.enable === params.enabled))
      .map((user) => listEntry(user, access.realms.get(user.row.realm)?.type, params.full === true));
  }

  async get(userid: string): Promise<ResultOf<typeof getUser>> {
    const [user] = await readUsers(this.dataSource.manager, userid);
    if (!user) throw notFound(`user '${userid}'`);
    return userRecord(user);
  }

  async create(params: ParamsOf<typeof createUser>): Promise<void> {
    const { userid } = params;
    const realm = realmOf(userid);
    const groups = [...new Set(params.groups ?? [])];
    // Hashed before the transaction: scrypt takes a while, and locks should not wait for it.
    const passwordHash = params.password === undefined ? null : await hashPassword(params.password);
    try {
      await this.state.write(async (db) => {
        const realmRow = await lockRealm(db, realm);
        if (!realmRow) throw badParam('userid', `realm '${realm}' does not exist`);
        if (passwordHash !== null && realmRow.type === 'oidc') {
          throw badParam('password', `realm '${realm}' authenticates with bearer tokens: its users have no password`);
        }
        if (await lockUser(db, userid)) throw alreadyExists(`user '${userid}'`);
        await requireGroups(db, groups);
        await insertUser(db, {
          userid,
          realm,
          enable: params.enable ?? true,
          expire: params.expire ?? 0,
          passwordHash,
          ...textChanges(params),
        });
        await setGroups(db, userid, groups, false);
      });
    } catch (error) {
      // A concurrent create of the same user won between the check and the insert.
      if (isUniqueViolation(error)) throw alreadyExists(`user '${userid}'`);
      throw error;
    }
  }

  async update(params: ParamsOf<typeof updateUser>): Promise<void> {
    const { userid } = params;
    // Corral's decision: root@pam stays able to log in, so that access can always be repaired.
    if (userid === SUPERUSER && params.enable === false) throw badParam('enable', `${SUPERUSER} cannot be disabled: ${RECOVERY}`);
    if (userid === SUPERUSER && params.expire) throw badParam('expire', `${SUPERUSER} cannot expire: ${RECOVERY}`);
    if (params.append !== undefined && params.groups === undefined) throw badParam('append', "parameter 'append' needs 'groups'");
    const cleared = params.delete ?? [];
    const twice = cleared.find((field) => params[field] !== undefined);
    if (twice !== undefined) throw badParam('delete', `parameter 'delete': '${twice}' is also given a value`);
    const changes: Partial<UserRow> = {
      ...textChanges(params),
      ...Object.fromEntries(cleared.map((field) => [field, null])),
      ...(params.enable !== undefined ? { enable: params.enable } : {}),
      ...(params.expire !== undefined ? { expire: params.expire } : {}),
    };
    await this.state.write(async (db) => {
      if (!(await lockUser(db, userid))) throw notFound(`user '${userid}'`);
      if (params.groups !== undefined) {
        const groups = [...new Set(params.groups)];
        await requireGroups(db, groups);
        await setGroups(db, userid, groups, params.append !== true);
      }
      await updateUserRow(db, userid, changes);
    });
  }

  async remove(userid: string): Promise<void> {
    if (userid === SUPERUSER) throw badParam('userid', `${SUPERUSER} cannot be deleted: ${RECOVERY}`);
    await this.state.write(async (db) => {
      if (!(await deleteUser(db, userid))) throw notFound(`user '${userid}'`);
    });
  }
}

async function requireGroups(db: EntityManager, groups: readonly string[]): Promise<void> {
  const [missing] = await missingGroups(db, groups);
  if (missing !== undefined) throw badParam('groups', `group '${missing}' does not exist`);
}

/** The text fields given; an empty value clears one, as in PVE. */
function textChanges(params: Partial<Record<TextField, string>>): Partial<Record<TextField, string | null>> {
  return Object.fromEntries(TEXT_FIELDS.filter((field) => params[field] !== undefined).map((field) => [field, params[field] || null]));
}
