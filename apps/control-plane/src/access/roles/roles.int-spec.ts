import { BUILT_IN_ROLES, PRIVILEGES } from '@corral/acl';
import { addRole, addUser, basic, call, dataOf, expectError, grant } from '../../../test-support/access-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { aclRows, PASSWORD, roleRows } from '../acl/acl.fixture.js';
import { RolesModule } from './roles.module.js';

type Listing = { roleid: string; privs: string; special: 0 | 1 };

describe('/access/roles', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ imports: [RolesModule] });
    await addUser(t, 'nobody@pve', { password: PASSWORD });
    // Sys.Modify is in Administrator only: granted on /access, it is all the role API needs.
    await addUser(t, 'roleadmin@pve', { password: PASSWORD });
    await grant(t, { path: '/access', type: 'user', ugid: 'roleadmin@pve', roleid: 'Administrator' });
  });
  afterAll(() => t.close());

  describe('GET', () => {
    it('lists every built-in role with special 1 and its privileges sorted, to any authenticated caller', async () => {
      const roles = dataOf<Listing[]>(await call(t, 'GET', '/access/roles', { as: basic('nobody@pve', PASSWORD) }));
      expect(
        roles
          .filter((r) => r.special === 1)
          .map((r) => r.roleid)
          .sort(),
      ).toEqual([...BUILT_IN_ROLES.keys()].sort());
      expect(roles).toContainEqual({
        roleid: 'PVEAuditor',
        privs: 'Datastore.Audit,Mapping.Audit,Pool.Audit,SDN.Audit,Sys.Audit,VM.Audit,VM.GuestAgent.Audit',
        special: 1,
      });
      expect(roles).toContainEqual({ roleid: 'NoAccess', privs: '', special: 1 });
      expect(roles.find((r) => r.roleid === 'Administrator')?.privs).toBe(PRIVILEGES.join(','));
    });

    it('lists custom roles with special 0', async () => {
      await addRole(t, 'Listed', ['VM.Console', 'VM.Audit']);
      const roles = dataOf<Listing[]>(await call(t, 'GET', '/access/roles'));
      expect(roles).toContainEqual({ roleid: 'Listed', privs: 'VM.Audit,VM.Console', special: 0 });
    });

    it('answers one role as PVE does, {privilege: 1}', async () => {
      expect(dataOf(await call(t, 'GET', '/access/roles/PVETemplateUser', { as: basic('nobody@pve', PASSWORD) }))).toEqual({
        'VM.Audit': 1,
        'VM.Clone': 1,
      });
      expect(dataOf(await call(t, 'GET', '/access/roles/NoAccess'))).toEqual({});
    });

    it('answers 404 for an unknown role', async () => {
      expectError(await call(t, 'GET', '/access/roles/Ghost'), 404, "role 'Ghost' does not exist");
    });

    it('answers 401 without credentials', async () => {
      expect((await t.api.get('/access/roles')).status).toBe(401);
    });
  });

  describe('POST', () => {
    it('creates a role with its privileges stored sorted and once', async () => {
      dataOf(await call(t, 'POST', '/access/roles', { form: { roleid: 'Operator', privs: 'VM.PowerMgmt,VM.Audit;VM.Console VM.Audit' } }));
      expect((await roleRows(t)).find((r) => r.roleid === 'Operator')?.privs).toEqual(['VM.Audit', 'VM.Console', 'VM.PowerMgmt']);
      expect(dataOf(await call(t, 'GET', '/access/roles/Operator'))).toEqual({ 'VM.Audit': 1, 'VM.Console': 1, 'VM.PowerMgmt': 1 });
    });

    it('creates a role without privileges', async () => {
      dataOf(await call(t, 'POST', '/access/roles', { form: { roleid: 'Empty' }, as: basic('roleadmin@pve', PASSWORD) }));
      expect((await roleRows(t)).find((r) => r.roleid === 'Empty')?.privs).toEqual([]);
    });

    it('answers 400 naming privs for an unknown privilege, and creates nothing', async () => {
      const res = await call(t, 'POST', '/access/roles', { form: { roleid: 'Flyer', privs: 'VM.Audit,VM.Fly' } });
      expectError(res, 400, "unknown privilege 'VM.Fly'", 'privs');
      expect((await roleRows(t)).map((r) => r.roleid)).not.toContain('Flyer');
    });

    it.each(['PVEOperator', 'Administrator', 'NoAccess'])(
      'answers 400 naming roleid for the reserved id %s, and creates nothing',
      async (roleid) => {
        const before = await roleRows(t);
        expectError(
          await call(t, 'POST', '/access/roles', { form: { roleid, privs: 'VM.Audit' } }),
          400,
          `'${roleid}' is reserved`,
          'roleid',
        );
        expect(await roleRows(t)).toEqual(before);
      },
    );

    it('answers 409 for an existing role and leaves it as it was', async () => {
      await addRole(t, 'Taken', ['Sys.Audit']);
      expectError(
        await call(t, 'POST', '/access/roles', { form: { roleid: 'Taken', privs: 'VM.Audit' } }),
        409,
        "role 'Taken' already exists",
      );
      expect((await roleRows(t)).find((r) => r.roleid === 'Taken')?.privs).toEqual(['Sys.Audit']);
    });

    it('answers 400 naming roleid for an id with bad characters', async () => {
      expectError(await call(t, 'POST', '/access/roles', { form: { roleid: 'a b' } }), 400, "parameter 'roleid'", 'roleid');
    });

    it('answers 403 without Sys.Modify on /access, and creates nothing', async () => {
      expectError(
        await call(t, 'POST', '/access/roles', { form: { roleid: 'Sneaky' }, as: basic('nobody@pve', PASSWORD) }),
        403,
        'permission denied',
      );
      expect((await roleRows(t)).map((r) => r.roleid)).not.toContain('Sneaky');
    });
  });

  describe('PUT', () => {
    beforeEach(() => addRole(t, 'Changing', ['VM.Audit']));
    afterEach(() => call(t, 'DELETE', '/access/roles/Changing'));
    const privsOf = async () => (await roleRows(t)).find((r) => r.roleid === 'Changing')?.privs;

    it('replaces the privileges', async () => {
      dataOf(
        await call(t, 'PUT', '/access/roles/Changing', {
          form: { privs: 'Sys.Audit,Datastore.Audit' },
          as: basic('roleadmin@pve', PASSWORD),
        }),
      );
      expect(await privsOf()).toEqual(['Datastore.Audit', 'Sys.Audit']);
    });

    it('adds to them with append', async () => {
      dataOf(await call(t, 'PUT', '/access/roles/Changing', { form: { privs: 'VM.Console,VM.Audit', append: 1 } }));
      expect(await privsOf()).toEqual(['VM.Audit', 'VM.Console']);
    });

    it('clears them when no privs are given, as PVE', async () => {
      dataOf(await call(t, 'PUT', '/access/roles/Changing'));
      expect(await privsOf()).toEqual([]);
    });

    it('takes effect on the ACL evaluation at once', async () => {
      await addUser(t, 'changing@pve', { password: PASSWORD });
      await grant(t, { path: '/', type: 'user', ugid: 'changing@pve', roleid: 'Changing' });
      // The role is granted on / and propagates to /access: once it holds Sys.Modify, so does the user.
      expect((await call(t, 'POST', '/access/roles', { form: { roleid: 'ByChanging' }, as: basic('changing@pve', PASSWORD) })).status).toBe(
        403,
      );
      dataOf(await call(t, 'PUT', '/access/roles/Changing', { form: { privs: 'Sys.Modify' } }));
      dataOf(await call(t, 'POST', '/access/roles', { form: { roleid: 'ByChanging' }, as: basic('changing@pve', PASSWORD) }));
    });

    it('answers 400 naming append when append comes without privs, and changes nothing', async () => {
      expectError(await call(t, 'PUT', '/access/roles/Changing', { form: { append: 1 } }), 400, "'append' needs 'privs'", 'append');
      expect(await privsOf()).toEqual(['VM.Audit']);
    });

    it('answers 400 naming privs for an unknown privilege, and changes nothing', async () => {
      expectError(
        await call(t, 'PUT', '/access/roles/Changing', { form: { privs: 'Sys.Audit,Bogus' } }),
        400,
        "unknown privilege 'Bogus'",
        'privs',
      );
      expect(await privsOf()).toEqual(['VM.Audit']);
    });

    it('answers 400 naming roleid for a built-in role', async () => {
      expectError(
        await call(t, 'PUT', '/access/roles/PVEAuditor', { form: { privs: 'Sys.Modify' } }),
        400,
        "built-in role 'PVEAuditor' cannot be changed",
        'roleid',
      );
      expect(dataOf(await call(t, 'GET', '/access/roles/PVEAuditor'))).not.toHaveProperty('Sys.Modify');
    });

    it('answers 404 for an unknown role', async () => {
      expectError(await call(t, 'PUT', '/access/roles/Ghost', { form: { privs: 'VM.Audit' } }), 404, "role 'Ghost' does not exist");
      expect((await roleRows(t)).map((r) => r.roleid)).not.toContain('Ghost');
    });

    it('answers 403 without Sys.Modify on /access', async () => {
      expectError(
        await call(t, 'PUT', '/access/roles/Changing', { form: { privs: 'Sys.Modify' }, as: basic('nobody@pve', PASSWORD) }),
        403,
        'permission denied',
      );
      expect(await privsOf()).toEqual(['VM.Audit']);
    });
  });

  describe('DELETE', () => {
    it('deletes a custom role and the ACL entries granting it, and no others', async () => {
      await addRole(t, 'Doomed', ['VM.Audit']);
      await grant(t, { path: '/vms/100', type: 'user', ugid: 'nobody@pve', roleid: 'Doomed' });
      await grant(t, { path: '/vms/100', type: 'user', ugid: 'nobody@pve', roleid: 'PVEVMUser' });
      dataOf(await call(t, 'DELETE', '/access/roles/Doomed', { as: basic('roleadmin@pve', PASSWORD) }));
      expect((await roleRows(t)).map((r) => r.roleid)).not.toContain('Doomed');
      const left = await aclRows(t);
      expect(left.filter((e) => e.roleid === 'Doomed')).toEqual([]);
      expect(left).toContainEqual(expect.objectContaining({ path: '/vms/100', ugid: 'nobody@pve', roleid: 'PVEVMUser' }));
      expectError(await call(t, 'GET', '/access/roles/Doomed'), 404, "role 'Doomed' does not exist");
    });

    it('answers 400 naming roleid for a built-in role', async () => {
      expectError(await call(t, 'DELETE', '/access/roles/Administrator'), 400, "built-in role 'Administrator' cannot be deleted", 'roleid');
      expect(dataOf<Listing[]>(await call(t, 'GET', '/access/roles')).map((r) => r.roleid)).toContain('Administrator');
    });

    it('answers 404 for an unknown role', async () => {
      expectError(await call(t, 'DELETE', '/access/roles/Ghost'), 404, "role 'Ghost' does not exist");
    });

    it('answers 403 without Sys.Modify on /access, and deletes nothing', async () => {
      await addRole(t, 'Kept', ['VM.Audit']);
      await grant(t, { path: '/', type: 'user', ugid: 'nobody@pve', roleid: 'Kept' });
      expectError(await call(t, 'DELETE', '/access/roles/Kept', { as: basic('nobody@pve', PASSWORD) }), 403, 'permission denied');
      expect((await roleRows(t)).map((r) => r.roleid)).toContain('Kept');
      expect(await aclRows(t)).toContainEqual(expect.objectContaining({ path: '/', roleid: 'Kept' }));
    });
  });
});
