import type { ResultOf } from '../../http/endpoint.js';
import type { ApiTokenRow } from '../entities/api-token.entity.js';
import type { UserRow } from '../entities/user.entity.js';
import { TEXT_FIELDS, type TextField } from './user-params.js';
import type { getUser, listUsers } from './users.endpoints.js';
import type { StoredUser } from './users.repository.js';

type ListEntry = ResultOf<typeof listUsers>[number];
type Record = ResultOf<typeof getUser>;

/**
 * PVE's two shapes of a user: in the list `groups` is a comma string and
 * `tokens` an array, both only with `full=1`; the single record has `groups` as an array and
 * `tokens` keyed by token id (Ansible's proxmox_user_info reads both).
 */
export function listEntry(user: StoredUser, realmType: string | undefined, full: boolean): ListEntry {
  return {
    userid: user.row.userid,
    ...recordFields(user.row),
    ...(realmType !== undefined ? { 'realm-type': realmType } : {}),
    ...(full ? { groups: user.groups.join(','), tokens: user.tokens.map((t) => ({ tokenid: t.tokenid, ...tokenInfo(t) })) } : {}),
  };
}

export function userRecord(user: StoredUser): Record {
  return {
    ...recordFields(user.row),
    groups: [...user.groups],
    tokens: Object.fromEntries(user.tokens.map((t) => [t.tokenid, tokenInfo(t)])),
  };
}

function recordFields(row: UserRow): Pick<Record, 'enable' | 'expire' | TextField> {
  const text = Object.fromEntries(TEXT_FIELDS.flatMap((field) => (row[field] === null ? [] : [[field, row[field]]])));
  return { enable: row.enable ? 1 : 0, expire: row.expire, ...text };
}

function tokenInfo(token: ApiTokenRow): Record['tokens'][string] {
  return { privsep: token.privsep ? 1 : 0, expire: token.expire, ...(token.comment !== null ? { comment: token.comment } : {}) };
}
