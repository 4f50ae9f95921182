import { PRIVILEGES } from '@corral/acl';
import { addToken, addUser, apiToken, basic, call, dataOf, expectError, grant, ROOT } from '../../../test-support/access-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { roleFlags as flags, PASSWORD } from '../acl/acl.fixture.js';
import { PermissionsModule } from './permissions.module.js';

type PermissionMap = Record<string, Record<string, 0 | 1>>;

const SUMMARY = ['/', '/access', '/access/groups', '/nodes', '/pool', '/sdn', '/storage', '/vms'];

describe('GET /access/permissions', () => {
  let t: TestApp;
  const get = (as: Record<string, string>, query?: string) =>
    call(t, 'GET', '/access/permissions', { as, ...(query !== undefined ? { query } : {}) });

  beforeAll(async () => {
    t = await startTestApp({ imports: [PermissionsModule] });
    await addUser(t, 'dave@pve', { password: PASSWORD, groups: ['devs'] });
    await grant(t, { path: '/vms', type: 'group', ugid: 'devs', roleid: 'PVEVMUser' });
    await grant(t, { path: '/vms/100', type: 'user', ugid: 'dave@pve', roleid: 'PVETemplateUser', propagate: false });
    // A privilege-separated token gets the intersection of its own ACL and its user's.
    await addToken(t, 'dave@pve', 'ci', { privsep: true, secret: 'dave-ci-secret' });
    await grant(t, { path: '/vms', type: 'token', ugid: 'dave@pve!ci', roleid: 'PVEAuditor' });
    await addToken(t, 'dave@pve', 'full', { privsep: false, secret: 'dave-full-secret' });
    await addUser(t, 'erin@pve', { password: PASSWORD });
    await addUser(t, 'auditor@pve', { password: PASSWORD });
    await grant(t, { path: '/access', type: 'user', ugid: 'auditor@pve', roleid: 'PVEAuditor', propagate: false });
  });
  afterAll(() => t.close());

  it("answers the caller's own privileges on the summary and ACL paths that hold any", async () => {
    expect(dataOf(await get(basic('dave@pve', PASSWORD)))).toEqual({
      '/vms': flags('PVEVMUser', 1),
      '/vms/100': flags('PVETemplateUser', 0),
    });
  });

  it('answers root every privilege on every summary path', async () => {
    const map = dataOf<PermissionMap>(await get(ROOT));
    for (const path of SUMMARY) expect(map[path]).toEqual(Object.fromEntries(PRIVILEGES.map((p) => [p, 1])));
  });

  it('answers only the path asked for, keyed as asked, even when nothing is held there', async () => {
    expect(dataOf(await get(basic('dave@pve', PASSWORD), 'path=/vms/100'))).toEqual({ '/vms/100': flags('PVETemplateUser', 0) });
    expect(dataOf(await get(basic('dave@pve', PASSWORD), 'path=/vms/200'))).toEqual({ '/vms/200': flags('PVEVMUser', 1) });
    expect(dataOf(await get(basic('erin@pve', PASSWORD), 'path=/'))).toEqual({ '/': {} });
  });

  it('answers {} for a user without privileges', async () => {
    expect(dataOf(await get(basic('erin@pve', PASSWORD)))).toEqual({});
  });

  describe('about a token', () => {
    const intersection = flags('PVEVMUser', 1);
    const vmsForToken = Object.fromEntries(Object.entries(flags('PVEAuditor', 1)).filter(([p]) => p in intersection));

    it('answers a token caller its own privileges by default', async () => {
      expect(dataOf<PermissionMap>(await get(apiToken('dave@pve!ci', 'dave-ci-secret')))['/vms']).toEqual(vmsForToken);
      expect(dataOf<PermissionMap>(await get(apiToken('dave@pve!full', 'dave-full-secret')))['/vms']).toEqual(flags('PVEVMUser', 1));
    });

    it("answers a user about its own tokens, in PVE's and Corral's form", async () => {
      expect(dataOf<PermissionMap>(await get(basic('dave@pve', PASSWORD), 'userid=dave@pve!ci'))['/vms']).toEqual(vmsForToken);
      expect(dataOf<PermissionMap>(await get(basic('dave@pve', PASSWORD), 'userid=dave@pve=ci'))['/vms']).toEqual(vmsForToken);
    });

    it('answers 403 to a token asking about its user without Sys.Audit on /access', async () => {
      expectError(await get(apiToken('dave@pve!ci', 'dave-ci-secret'), 'userid=dave@pve'), 403, 'permission denied');
    });
  });

  describe('about another user', () => {
    it('answers 403 without Sys.Audit on /access', async () => {
      expectError(await get(basic('erin@pve', PASSWORD), 'userid=dave@pve'), 403, 'permission denied');
      expectError(await get(basic('erin@pve', PASSWORD), 'userid=dave@pve!ci'), 403, 'permission denied');
    });

    it('answers with Sys.Audit on /access', async () => {
      expect(dataOf(await get(basic('auditor@pve', PASSWORD), 'userid=dave@pve'))).toEqual({
        '/vms': flags('PVEVMUser', 1),
        '/vms/100': flags('PVETemplateUser', 0),
      });
    });

    it('answers 400 naming userid for a user or token that does not exist', async () => {
      expectError(await get(basic('auditor@pve', PASSWORD), 'userid=ghost@pve'), 400, "user 'ghost@pve' does not exist", 'userid');
      expectError(await get(basic('dave@pve', PASSWORD), 'userid=dave@pve!gone'), 400, "token 'dave@pve!gone' does not exist", 'userid');
    });

    it('answers 400 naming userid for a malformed id', async () => {
      expectError(await get(basic('auditor@pve', PASSWORD), 'userid=dave'), 400, "parameter 'userid'", 'userid');
    });
  });

  it('answers 401 without credentials', async () => {
    expect((await t.api.get('/access/permissions')).status).toBe(401);
  });
});
