import { BUILT_IN_ROLES, isPrivilege, type AccessConfig, type AclEntry, type Role } from '@corral/acl';
import type { EntityManager } from 'typeorm';
import { fullTokenid } from '../full-tokenid.js';
import { AclEntryRow } from '../entities/acl-entry.entity.js';
import { ApiTokenRow } from '../entities/api-token.entity.js';
import { GroupMemberRow } from '../entities/group-member.entity.js';
import { GroupRow } from '../entities/group.entity.js';
import { RealmRow } from '../entities/realm.entity.js';
import { RoleRow } from '../entities/role.entity.js';
import { UserRow } from '../entities/user.entity.js';
import { PoolGuestRow } from '../../inventory/pools/pool-guest.entity.js';
import { PoolStorageRow } from '../../inventory/pools/pool-storage.entity.js';
import { PoolRow } from '../../inventory/pools/pool.entity.js';

export interface UserState {
  readonly userid: string;
  readonly realm: string;
  readonly enable: boolean;
  /** Epoch seconds; 0 = never. */
  readonly expire: number;
  readonly passwordHash: string | null;
  readonly groups: readonly string[];
}

export interface TokenState {
  readonly userid: string;
  readonly tokenid: string;
  /** `<userid>!<tokenid>` */
  readonly fullTokenid: string;
  readonly privsep: boolean;
  readonly expire: number;
  readonly secretHash: string;
}

/**
 * Everything authentication and permission checks read, held in memory: users (with their groups
 * and password hashes), tokens, roles, ACL entries, realms, and pools with their members (PVE keeps
 * them in user.cfg too). Rebuilt after every change to the access tables and to pool membership
 * (access-state.ts), so a disabled user or a deleted token is refused at once.
 */
export interface AccessSnapshot extends AccessConfig {
  readonly users: ReadonlyMap<string, UserState>;
  readonly tokens: ReadonlyMap<string, TokenState>;
  readonly tokensBySecretHash: ReadonlyMap<string, TokenState>;
  readonly groups: ReadonlyMap<string, { readonly groupid: string; readonly members: readonly string[] }>;
  readonly realms: ReadonlyMap<string, RealmRow>;
  /** Every pool id, sorted. */
  readonly pools: readonly string[];
}

export async function loadAccessSnapshot(db: EntityManager): Promise<AccessSnapshot> {
  const [users, members, groups, tokens, roles, acl, realms, pools, poolGuests, poolStorages] = await Promise.all([
    db.find(UserRow),
    db.find(GroupMemberRow),
    db.find(GroupRow),
    db.find(ApiTokenRow),
    db.find(RoleRow),
    db.find(AclEntryRow),
    db.find(RealmRow),
    db.find(PoolRow, { order: { poolid: 'ASC' } }),
    db.find(PoolGuestRow),
    db.find(PoolStorageRow),
  ]);
  const groupsOf = new Map<string, string[]>();
  const membersOf = new Map<string, string[]>(groups.map((g) => [g.groupid, []]));
  for (const { userid, groupid } of members) {
    groupsOf.set(userid, [...(groupsOf.get(userid) ?? []), groupid]);
    membersOf.get(groupid)?.push(userid);
  }
  const tokenStates = tokens.map((t) => ({
    userid: t.userid,
    tokenid: t.tokenid,
    fullTokenid: fullTokenid(t.userid, t.tokenid),
    privsep: t.privsep,
    expire: t.expire,
    secretHash: t.secretHash,
  }));
  return {
    users: new Map(
      users.map((u) => [
        u.userid,
        {
          userid: u.userid,
          realm: u.realm,
          enable: u.enable,
          expire: u.expire,
          passwordHash: u.passwordHash,
          groups: groupsOf.get(u.userid) ?? [],
        },
      ]),
    ),
    tokens: new Map(tokenStates.map((t) => [t.fullTokenid, t])),
    tokensBySecretHash: new Map(tokenStates.map((t) => [t.secretHash, t])),
    groups: new Map([...membersOf].map(([groupid, list]) => [groupid, { groupid, members: list }])),
    realms: new Map(realms.map((r) => [r.realm, r])),
    roles: new Map<string, Role>([...BUILT_IN_ROLES, ...roles.map((r) => [r.roleid, customRole(r)] as const)]),
    acl: acl.map((e): AclEntry => ({ path: e.path, type: e.type, ugid: e.ugid, roleid: e.roleid, propagate: e.propagate })),
    pools: pools.map((p) => p.poolid),
    memberPools: memberPools(poolGuests, poolStorages),
  };
}

function memberPools(guests: readonly PoolGuestRow[], storages: readonly PoolStorageRow[]): Map<string, string[]> {
  const pools = new Map<string, string[]>();
  const add = (path: string, poolid: string) => pools.set(path, [...(pools.get(path) ?? []), poolid]);
  for (const { vmid, poolid } of guests) add(`/vms/${vmid}`, poolid);
  for (const { storage, poolid } of storages) add(`/storage/${storage}`, poolid);
  return pools;
}

export function customRole(row: RoleRow): Role {
  return { roleid: row.roleid, privileges: new Set(row.privs.filter(isPrivilege)), special: false };
}
