import { addToken, addUser, basic, call, dataOf, expectError, grant, ROOT } from '../../../test-support/access-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { PermissionsModule } from '../permissions/permissions.module.js';
import { aclRows, paramsOf, PASSWORD, roleFlags } from './acl.fixture.js';
import { AclModule } from './acl.module.js';

type Listing = { path: string; type: string; ugid: string; roleid: string; propagate: 0 | 1 };

describe('/access/acl', () => {
  let t: TestApp;
  const rowsOn = async (path: string) =>
    (await aclRows(t)).filter((row) => row.path === path).map(({ type, ugid, roleid, propagate }) => ({ type, ugid, roleid, propagate }));

  beforeAll(async () => {
    t = await startTestApp({ imports: [AclModule, PermissionsModule] });
    await addUser(t, 'alice@pve', { groups: ['ops'] });
    await addUser(t, 'bob@pve');
    await addUser(t, 'nobody@pve', { password: PASSWORD });
    await addToken(t, 'alice@pve', 'ci', { privsep: true, secret: 'unused' });
    // May change the ACL on /vms/100 through VM.Allocate only (PVE's perm-modify), holding PVEVMAdmin there.
    await addUser(t, 'vmadmin@pve', { password: PASSWORD });
    await grant(t, { path: '/vms/100', type: 'user', ugid: 'vmadmin@pve', roleid: 'PVEVMAdmin' });
    // The same on /vms/101, but not propagating.
    await addUser(t, 'vmlocal@pve', { password: PASSWORD });
    await grant(t, { path: '/vms/101', type: 'user', ugid: 'vmlocal@pve', roleid: 'PVEVMAdmin', propagate: false });
    await addUser(t, 'auditor@pve', { password: PASSWORD });
    await grant(t, { path: '/access', type: 'user', ugid: 'auditor@pve', roleid: 'PVEAuditor' });
  });
  afterAll(() => t.close());

  describe('PUT (PVE)', () => {
    it('grants a role to users, groups and tokens on a path, propagating by default', async () => {
      dataOf(
        await call(t, 'PUT', '/access/acl', {
          form: { path: '/vms/200', roles: 'PVEVMUser', users: 'alice@pve', groups: 'ops', tokens: 'alice@pve!ci' },
        }),
      );
      expect(await rowsOn('/vms/200')).toEqual([
        { type: 'group', ugid: 'ops', roleid: 'PVEVMUser', propagate: true },
        { type: 'token', ugid: 'alice@pve!ci', roleid: 'PVEVMUser', propagate: true },
        { type: 'user', ugid: 'alice@pve', roleid: 'PVEVMUser', propagate: true },
      ]);
    });

    it('grants every role to every holder listed, on the normalised path', async () => {
      dataOf(
        await call(t, 'PUT', '/access/acl', {
          form: { path: '//storage//local/', roles: 'PVEDatastoreUser,PVEAuditor', users: 'alice@pve,bob@pve', propagate: 0 },
        }),
      );
      expect(await rowsOn('/storage/local')).toEqual([
        { type: 'user', ugid: 'alice@pve', roleid: 'PVEAuditor', propagate: false },
        { type: 'user', ugid: 'alice@pve', roleid: 'PVEDatastoreUser', propagate: false },
        { type: 'user', ugid: 'bob@pve', roleid: 'PVEAuditor', propagate: false },
        { type: 'user', ugid: 'bob@pve', roleid: 'PVEDatastoreUser', propagate: false },
      ]);
    });

    it('writes an entry named twice once, whichever form names the token', async () => {
      dataOf(
        await call(t, 'PUT', '/access/acl', {
          form: { path: '/vms/201', roles: 'PVEVMUser,PVEVMUser', tokens: 'alice@pve!ci,alice@pve=ci' },
        }),
      );
      expect(await rowsOn('/vms/201')).toEqual([{ type: 'token', ugid: 'alice@pve!ci', roleid: 'PVEVMUser', propagate: true }]);
    });

    it('updates the propagate flag of an entry granted again', async () => {
      dataOf(await call(t, 'PUT', '/access/acl', { form: { path: '/nodes', roles: 'PVEAuditor', users: 'bob@pve', propagate: 0 } }));
      dataOf(await call(t, 'PUT', '/access/acl', { form: { path: '/nodes', roles: 'PVEAuditor', users: 'bob@pve', propagate: 1 } }));
      expect(await rowsOn('/nodes')).toEqual([{ type: 'user', ugid: 'bob@pve', roleid: 'PVEAuditor', propagate: true }]);
    });

    it('revokes with delete=1, only what it names', async () => {
      await grant(t, { path: '/sdn', type: 'user', ugid: 'alice@pve', roleid: 'PVESDNUser' });
      await grant(t, { path: '/sdn', type: 'user', ugid: 'bob@pve', roleid: 'PVESDNUser' });
      dataOf(await call(t, 'PUT', '/access/acl', { form: { path: '/sdn', roles: 'PVESDNUser', users: 'alice@pve', delete: 1 } }));
      expect(await rowsOn('/sdn')).toEqual([{ type: 'user', ugid: 'bob@pve', roleid: 'PVESDNUser', propagate: true }]);
    });

    it('revokes an entry that does not exist without an error', async () => {
      const before = await aclRows(t);
      dataOf(await call(t, 'PUT', '/access/acl', { form: { path: '/pool/none', roles: 'PVEPoolUser', groups: 'ops', delete: 1 } }));
      expect(await aclRows(t)).toEqual(before);
    });

    it('revokes an entry on a path no longer valid for new entries, as PVE', async () => {
      await grant(t, { path: '/legacy', type: 'user', ugid: 'bob@pve', roleid: 'PVEAuditor' });
      dataOf(await call(t, 'PUT', '/access/acl', { form: { path: '/legacy', roles: 'PVEAuditor', users: 'bob@pve', delete: 1 } }));
      expect(await rowsOn('/legacy')).toEqual([]);
    });

    it('answers 401 without credentials', async () => {
      expect((await call(t, 'PUT', '/access/acl', { form: { path: '/', roles: 'PVEAuditor', users: 'bob@pve' }, as: {} })).status).toBe(
        401,
      );
    });
  });

  describe("Corral's POST and DELETE", () => {
    it("adds entries from a JSON body, reading Corral's user@realm=token as the token", async () => {
      const body = JSON.stringify({ path: '/vms/300', roles: 'PVEVMUser', tokens: 'alice@pve=ci', propagate: false });
      const res = await t.api.send('/access/acl', { method: 'POST', body, headers: { ...ROOT, 'content-type': 'application/json' } });
      dataOf(res);
      expect(await rowsOn('/vms/300')).toEqual([{ type: 'token', ugid: 'alice@pve!ci', roleid: 'PVEVMUser', propagate: false }]);
    });

    it('removes entries with the parameters in a form or the query string', async () => {
      await grant(t, { path: '/vms/301', type: 'user', ugid: 'alice@pve', roleid: 'PVEVMUser' });
      await grant(t, { path: '/vms/301', type: 'group', ugid: 'ops', roleid: 'PVEVMUser' });
      dataOf(await call(t, 'DELETE', '/access/acl', { form: { path: '/vms/301', roles: 'PVEVMUser', users: 'alice@pve' } }));
      dataOf(await call(t, 'DELETE', '/access/acl', { query: 'path=/vms/301&roles=PVEVMUser&groups=ops' }));
      expect(await rowsOn('/vms/301')).toEqual([]);
    });

    it('refuses delete on POST, which always adds', async () => {
      const res = await call(t, 'POST', '/access/acl', { form: { path: '/vms/302', roles: 'PVEVMUser', users: 'bob@pve', delete: 1 } });
      expectError(res, 400, "unknown parameter 'delete'", 'delete');
      expect(await rowsOn('/vms/302')).toEqual([]);
    });
  });

  describe('bad input: 400 naming the parameter, and nothing written', () => {
    let before: Awaited<ReturnType<typeof aclRows>>;
    beforeEach(async () => {
      before = await aclRows(t);
    });
    afterEach(async () => {
      expect(await aclRows(t)).toEqual(before);
    });

    it('names users, groups and tokens when none of them is given', async () => {
      const res = await call(t, 'PUT', '/access/acl', { form: { path: '/', roles: 'PVEAuditor' } });
      expectError(res, 400, "either 'users', 'groups' or 'tokens' is required", 'users');
      expect(paramsOf(res)).toEqual(['users', 'groups', 'tokens']);
    });

    it.each(['/foo', '/vms/99', '/storage/a b'])('names path for the invalid ACL path %s', async (path) => {
      expectError(
        await call(t, 'PUT', '/access/acl', { form: { path, roles: 'PVEAuditor', users: 'bob@pve' } }),
        400,
        `invalid ACL path '${path}'`,
        'path',
      );
    });

    it('names roles when it is missing', async () => {
      expectError(
        await call(t, 'POST', '/access/acl', { form: { path: '/', users: 'bob@pve' } }),
        400,
        "parameter 'roles' is missing",
        'roles',
      );
    });

    it('names roles when it lists none', async () => {
      expectError(
        await call(t, 'PUT', '/access/acl', { form: { path: '/', roles: ',', users: 'bob@pve' } }),
        400,
        'at least one role is required',
        'roles',
      );
    });

    it('names roles for an unknown role, even next to a known one', async () => {
      const res = await call(t, 'PUT', '/access/acl', { form: { path: '/', roles: 'PVEAuditor,Ghost', users: 'bob@pve' } });
      expectError(res, 400, "role 'Ghost' does not exist", 'roles');
    });

    it('names each of users, groups and tokens that holds an unknown id, writing none of the known ones', async () => {
      const res = await call(t, 'PUT', '/access/acl', {
        form: {
          path: '/vms/400',
          roles: 'PVEVMUser',
          users: 'alice@pve,ghost@pve',
          groups: 'ops,phantoms',
          tokens: 'alice@pve!ci,alice@pve!gone',
        },
      });
      expectError(res, 400, "user 'ghost@pve' does not exist", 'users');
      expect(res.json<{ errors: { param: string; message: string }[] }>().errors).toEqual([
        expect.objectContaining({ param: 'users', message: expect.stringContaining("user 'ghost@pve' does not exist") }),
        expect.objectContaining({ param: 'groups', message: expect.stringContaining("group 'phantoms' does not exist") }),
        expect.objectContaining({ param: 'tokens', message: expect.stringContaining("token 'alice@pve!gone' does not exist") }),
      ]);
    });

    it('names tokens for a token id that is not user@realm!tokenid', async () => {
      expectError(
        await call(t, 'PUT', '/access/acl', { form: { path: '/', roles: 'PVEAuditor', tokens: 'alice@pve' } }),
        400,
        "parameter 'tokens'",
        'tokens',
      );
    });

    it('names users for a malformed user id', async () => {
      expectError(
        await call(t, 'PUT', '/access/acl', { form: { path: '/', roles: 'PVEAuditor', users: 'alice' } }),
        400,
        "parameter 'users'",
        'users',
      );
    });

    it('answers 403 to a caller who may not change the ACL on the path', async () => {
      expectError(
        await call(t, 'PUT', '/access/acl', {
          form: { path: '/', roles: 'PVEAuditor', users: 'nobody@pve' },
          as: basic('nobody@pve', PASSWORD),
        }),
        403,
        'permission denied',
      );
      expectError(
        await call(t, 'POST', '/access/acl', {
          form: { path: '/vms/101', roles: 'PVEVMUser', users: 'bob@pve' },
          as: basic('vmadmin@pve', PASSWORD),
        }),
        403,
        'permission denied',
      );
    });
  });

  describe('a caller without Permissions.Modify on the path', () => {
    it('may grant a role whose privileges it holds there, through VM.Allocate', async () => {
      dataOf(
        await call(t, 'PUT', '/access/acl', {
          form: { path: '/vms/100', roles: 'PVEVMUser', users: 'bob@pve' },
          as: basic('vmadmin@pve', PASSWORD),
        }),
      );
      expect(await rowsOn('/vms/100')).toContainEqual({ type: 'user', ugid: 'bob@pve', roleid: 'PVEVMUser', propagate: true });
    });

    it.each(['Administrator', 'PVEAuditor', 'NoAccess'])(
      'may not grant %s, whose privileges it lacks there, and nothing is written',
      async (roleid) => {
        const before = await aclRows(t);
        const res = await call(t, 'PUT', '/access/acl', {
          form: { path: '/vms/100', roles: `PVEVMUser,${roleid}`, users: 'alice@pve' },
          as: basic('vmadmin@pve', PASSWORD),
        });
        expectError(res, 403, 'permission denied');
        expect(res.reason).toContain('/vms/100');
        expect(await aclRows(t)).toEqual(before);
      },
    );

    it('may grant a propagating entry only with privileges that propagate', async () => {
      const res = await call(t, 'PUT', '/access/acl', {
        form: { path: '/vms/101', roles: 'PVEVMUser', users: 'bob@pve' },
        as: basic('vmlocal@pve', PASSWORD),
      });
      expectError(res, 403, 'permission denied');
      expect(await rowsOn('/vms/101')).not.toContainEqual(expect.objectContaining({ ugid: 'bob@pve' }));
      dataOf(
        await call(t, 'PUT', '/access/acl', {
          form: { path: '/vms/101', roles: 'PVEVMUser', users: 'bob@pve', propagate: 0 },
          as: basic('vmlocal@pve', PASSWORD),
        }),
      );
      expect(await rowsOn('/vms/101')).toContainEqual({ type: 'user', ugid: 'bob@pve', roleid: 'PVEVMUser', propagate: false });
    });

    it('may revoke only roles whose privileges it holds there', async () => {
      await grant(t, { path: '/vms/100', type: 'user', ugid: 'alice@pve', roleid: 'PVEAuditor' });
      await grant(t, { path: '/vms/100', type: 'user', ugid: 'alice@pve', roleid: 'PVETemplateUser' });
      expectError(
        await call(t, 'DELETE', '/access/acl', {
          form: { path: '/vms/100', roles: 'PVEAuditor', users: 'alice@pve' },
          as: basic('vmadmin@pve', PASSWORD),
        }),
        403,
        'permission denied',
      );
      dataOf(
        await call(t, 'DELETE', '/access/acl', {
          form: { path: '/vms/100', roles: 'PVETemplateUser', users: 'alice@pve' },
          as: basic('vmadmin@pve', PASSWORD),
        }),
      );
      const left = (await rowsOn('/vms/100')).filter((row) => row.ugid === 'alice@pve').map((row) => row.roleid);
      expect(left).toEqual(['PVEAuditor']);
    });
  });

  describe('GET', () => {
    beforeAll(async () => {
      await grant(t, { path: '/', type: 'group', ugid: 'ops', roleid: 'PVEAuditor', propagate: false });
    });

    it('shows root every entry, propagate as 1 or 0', async () => {
      const listed = dataOf<Listing[]>(await call(t, 'GET', '/access/acl'));
      const rows = await aclRows(t);
      expect(listed).toHaveLength(rows.length);
      expect(listed).toContainEqual({ path: '/', type: 'group', ugid: 'ops', roleid: 'PVEAuditor', propagate: 0 });
      expect(listed).toContainEqual({ path: '/vms/100', type: 'user', ugid: 'vmadmin@pve', roleid: 'PVEVMAdmin', propagate: 1 });
    });

    it('shows a caller with Sys.Audit on /access every entry', async () => {
      expect(dataOf<Listing[]>(await call(t, 'GET', '/access/acl', { as: basic('auditor@pve', PASSWORD) }))).toHaveLength(
        (await aclRows(t)).length,
      );
    });

    it('shows another caller only the entries on paths where it may change the ACL', async () => {
      const listed = dataOf<Listing[]>(await call(t, 'GET', '/access/acl', { as: basic('vmadmin@pve', PASSWORD) }));
      expect(new Set(listed.map((entry) => entry.path))).toEqual(new Set(['/vms/100']));
      expect(listed).toHaveLength((await rowsOn('/vms/100')).length);
    });

    it('shows a caller without such rights nothing', async () => {
      expect(dataOf(await call(t, 'GET', '/access/acl', { as: basic('nobody@pve', PASSWORD) }))).toEqual([]);
    });
  });

  it('takes effect at once: a role granted on / shows in the permissions, and is gone once revoked', async () => {
    await addUser(t, 'carol@pve', { password: PASSWORD });
    const carol = basic('carol@pve', PASSWORD);
    expect(dataOf(await call(t, 'GET', '/access/permissions', { as: carol }))).toEqual({});
    dataOf(await call(t, 'PUT', '/access/acl', { form: { path: '/', roles: 'PVEAuditor', users: 'carol@pve' } }));
    const auditor = roleFlags('PVEAuditor', 1);
    const granted = dataOf<Record<string, Record<string, number>>>(await call(t, 'GET', '/access/permissions', { as: carol }));
    expect(granted['/']).toEqual(auditor);
    expect(granted['/vms']).toEqual(auditor);
    expect(dataOf(await call(t, 'GET', '/access/permissions', { as: carol, query: 'path=/' }))).toEqual({ '/': auditor });
    dataOf(await call(t, 'PUT', '/access/acl', { form: { path: '/', roles: 'PVEAuditor', users: 'carol@pve', delete: 1 } }));
    expect(dataOf(await call(t, 'GET', '/access/permissions', { as: carol }))).toEqual({});
    expect(dataOf(await call(t, 'GET', '/access/permissions', { as: carol, query: 'path=/' }))).toEqual({ '/': {} });
  });
});
