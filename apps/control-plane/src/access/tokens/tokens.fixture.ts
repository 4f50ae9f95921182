import { dataOf, ROOT, type Headers } from '../../../test-support/access-fixture.js';
import type { TestApp } from '../../../test-support/test-app.js';
import { AclEntryRow } from '../entities/acl-entry.entity.js';
import { ApiTokenRow } from '../entities/api-token.entity.js';

/** The token API's two path forms and what its integration tests read back; the rest is in test-support/access-fixture.ts. */

// Derived rather than imported: only test files may import @corral/testing.
type ApiResponse = Awaited<ReturnType<TestApp['api']['send']>>;
export type Body = Record<string, string | number>;

/** The two path forms of the token API, each sent the bodies its clients send: Corral's JSON, PVE's forms. */
export interface PathForm {
  readonly name: string;
  collection(userid: string): string;
  item(userid: string, tokenid: string): string;
  /** Where a create is posted, and what its body adds. */
  create(userid: string, tokenid: string): { path: string; body: Body };
  readonly contentType: string;
  encode(body: Body): string;
}

export const SPEC_FORM: PathForm = {
  name: "Corral's .../tokens",
  collection: (userid) => `/access/users/${userid}/tokens`,
  item: (userid, tokenid) => `/access/users/${userid}/tokens/${tokenid}`,
  create: (userid, tokenid) => ({ path: `/access/users/${userid}/tokens`, body: { tokenid } }),
  contentType: 'application/json',
  encode: (body) => JSON.stringify(body),
};

export const PVE_FORM: PathForm = {
  name: "PVE's .../token",
  collection: (userid) => `/access/users/${userid}/token`,
  item: (userid, tokenid) => `/access/users/${userid}/token/${tokenid}`,
  create: (userid, tokenid) => ({ path: `/access/users/${userid}/token/${tokenid}`, body: {} }),
  contentType: 'application/x-www-form-urlencoded',
  encode: (body) => new URLSearchParams(Object.entries(body).map(([k, v]): [string, string] => [k, String(v)])).toString(),
};

/** A request as root@pam (Basic), unless `headers` carry other credentials. */
export function send(
  t: TestApp,
  form: PathForm,
  method: string,
  path: string,
  options: { body?: Body; headers?: Headers } = {},
): Promise<ApiResponse> {
  const withBody = options.body !== undefined && Object.keys(options.body).length > 0;
  return t.api.send(path, {
    method,
    headers: { ...ROOT, ...(withBody ? { 'content-type': form.contentType } : {}), ...options.headers },
    ...(withBody && options.body ? { body: form.encode(options.body) } : {}),
  });
}

export interface Created {
  readonly 'full-tokenid': string;
  readonly info: { privsep: 0 | 1; expire: number; comment?: string };
  readonly value: string;
}

/** Creates a token as root@pam and returns the response's data (failing the test on anything but 200). */
export async function createToken(
  t: TestApp,
  form: PathForm,
  userid: string,
  tokenid: string,
  settings: Body = {},
  headers?: Headers,
): Promise<Created> {
  const { path, body } = form.create(userid, tokenid);
  return dataOf<Created>(await send(t, form, 'POST', path, { body: { ...body, ...settings }, ...(headers ? { headers } : {}) }));
}

export function errorsOf(res: ApiResponse): { code: number; message: string; param?: string }[] {
  return res.json<{ errors: { code: number; message: string; param?: string }[] }>().errors;
}

export function storedTokens(t: TestApp, userid: string): Promise<ApiTokenRow[]> {
  return t.dataSource.manager.find(ApiTokenRow, { where: { userid }, order: { tokenid: 'ASC' } });
}

export function aclEntriesOf(t: TestApp, ugid: string): Promise<AclEntryRow[]> {
  return t.dataSource.manager.find(AclEntryRow, { where: { ugid }, order: { path: 'ASC' } });
}
