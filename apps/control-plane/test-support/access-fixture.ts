import type { ApiResponse } from '@corral/testing';
import { realmOf } from '../src/access/access-params.js';
import { sha256 } from '../src/access/auth/authenticator.js';
import { hashPassword } from '../src/access/auth/passwords.js';
import { AclEntryRow } from '../src/access/entities/acl-entry.entity.js';
import { ApiTokenRow } from '../src/access/entities/api-token.entity.js';
import { GroupMemberRow } from '../src/access/entities/group-member.entity.js';
import { GroupRow } from '../src/access/entities/group.entity.js';
import { RoleRow } from '../src/access/entities/role.entity.js';
import { UserRow } from '../src/access/entities/user.entity.js';
import { AccessState } from '../src/access/state/access-state.js';
import { TEST_ROOT_PASSWORD, type TestApp } from './test-app.js';

/** Requests and access rows shared by the access integration tests. */

export type Headers = Record<string, string>;
export type Form = Record<string, string | number | readonly string[]>;

export function basic(userid: string, password: string): Headers {
  return { authorization: `Basic ${Buffer.from(`${userid}:${password}`).toString('base64')}` };
}

export const ROOT = basic('root@pam', TEST_ROOT_PASSWORD);

/** `scheme` is PVE's `PVEAPIToken` or Corral's `SVCAPIToken`. */
export function apiToken(fullTokenid: string, secret: string, scheme = 'PVEAPIToken'): Headers {
  return { authorization: `${scheme}=${fullTokenid}=${secret}` };
}

/** A request as PVE's clients send it (a form; repeated keys for arrays), as root@pam unless `as` says otherwise. */
export function call(
  t: TestApp,
  method: string,
  path: string,
  options: { form?: Form; as?: Headers; query?: string } = {},
): Promise<ApiResponse> {
  const pairs = Object.entries(options.form ?? {}).flatMap(([k, v]): [string, string][] =>
    Array.isArray(v) ? v.map((item: string) => [k, item]) : [[k, String(v)]],
  );
  const body = new URLSearchParams(pairs).toString();
  return t.api.send(path, {
    method,
    headers: { ...(options.as ?? ROOT), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    ...(body ? { body } : {}),
    ...(options.query !== undefined ? { query: options.query } : {}),
  });
}

/** The response's data; fails the test, showing the body, unless the status is 200. */
export function dataOf<T>(res: ApiResponse): T {
  expect({ status: res.status, text: res.text }).toEqual({ status: 200, text: expect.any(String) });
  return res.json<{ data: T }>().data;
}

/** Expects Corral's error envelope with this status, the first error's message containing `message` (and naming `param`). */
export function expectError(res: ApiResponse, status: number, message: string, param?: string): void {
  expect(res.status).toBe(status);
  const [first] = res.json<{ errors: { code: number; message: string; param?: string }[] }>().errors;
  expect(first).toEqual(
    expect.objectContaining({ code: status, message: expect.stringContaining(message), ...(param !== undefined ? { param } : {}) }),
  );
}

/** Written through AccessState, as the API writes, so that the snapshot sees it at once. */
export function write(t: TestApp, change: Parameters<AccessState['write']>[0]): Promise<unknown> {
  return t.app.get(AccessState).write(change);
}

/** A user with a password (none: it cannot log in with one), an expiry and groups, creating the groups that are missing. */
export async function addUser(
  t: TestApp,
  userid: string,
  options: { password?: string; expire?: number; groups?: readonly string[] } = {},
): Promise<void> {
  const passwordHash = options.password === undefined ? null : await hashPassword(options.password);
  await write(t, async (db) => {
    await db.insert(UserRow, { userid, realm: realmOf(userid), expire: options.expire ?? 0, passwordHash });
    for (const groupid of options.groups ?? []) {
      await db.createQueryBuilder().insert().into(GroupRow).values({ groupid }).orIgnore().execute();
      await db.insert(GroupMemberRow, { groupid, userid });
    }
  });
}

export async function addGroup(t: TestApp, groupid: string, comment: string | null = null): Promise<void> {
  await write(t, (db) => db.insert(GroupRow, { groupid, comment }));
}

/** A token whose secret is stored as the API stores it, as a SHA-256. */
export async function addToken(
  t: TestApp,
  userid: string,
  tokenid: string,
  options: { privsep: boolean; secret: string; expire?: number },
): Promise<void> {
  await write(t, (db) =>
    db.insert(ApiTokenRow, { userid, tokenid, privsep: options.privsep, expire: options.expire ?? 0, secretHash: sha256(options.secret) }),
  );
}

export async function addRole(t: TestApp, roleid: string, privs: string[]): Promise<void> {
  await write(t, (db) => db.insert(RoleRow, { roleid, privs }));
}

/** An ACL entry, propagating unless it says otherwise. */
export async function grant(
  t: TestApp,
  entry: { path: string; type: 'user' | 'group' | 'token'; ugid: string; roleid: string; propagate?: boolean },
): Promise<void> {
  await write(t, (db) => db.insert(AclEntryRow, { ...entry, propagate: entry.propagate ?? true }));
}
