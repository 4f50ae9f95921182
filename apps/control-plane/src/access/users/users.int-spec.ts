import { addGroup, addUser, basic, call, dataOf, expectError, grant, ROOT, write } from '../../../test-support/access-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { sha256 } from '../auth/authenticator.js';
import { aclRows } from '../acl/acl.fixture.js';
import { ApiTokenRow } from '../entities/api-token.entity.js';
import { RealmRow } from '../entities/realm.entity.js';
import { groupsOf, userRow } from './users.fixture.js';
import { UsersModule } from './users.module.js';

interface ListEntry {
  userid: string;
  enable: number;
  groups?: string;
  tokens?: unknown[];
  'realm-type'?: string;
}

describe('users API (/access/users)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ imports: [UsersModule] });
    await write(t, (db) => db.insert(RealmRow, { realm: 'sso', type: 'oidc', comment: '', autocreate: false }));
    for (const group of ['dev', 'ops', 'qa', 'sec']) await addGroup(t, group);
  });
  afterAll(() => t.close());

  const useridsSeenBy = async (as: Record<string, string>) =>
    dataOf<ListEntry[]>(await call(t, 'GET', '/access/users', { as })).map((u) => u.userid);
  const addToken = (userid: string, tokenid: string, secret: string) =>
    write(t, (db) => db.insert(ApiTokenRow, { userid, tokenid, privsep: true, expire: 0, comment: 'build', secretHash: sha256(secret) }));

  describe('POST /access/users', () => {
    it("creates a user from PVE's form with a comma list of groups, stores a scrypt hash, and the user logs in with the password", async () => {
      const res = await call(t, 'POST', '/access/users', {
        form: {
          userid: 'ann@pve',
          password: 'ann-password-1',
          groups: 'dev,ops',
          email: 'ann@example.com',
          firstname: 'Ann',
          comment: 'first',
          expire: 4102444800,
        },
      });
      expect(dataOf(res)).toBeNull();
      expect(dataOf(await call(t, 'GET', '/access/users/ann@pve'))).toEqual({
        enable: 1,
        expire: 4102444800,
        email: 'ann@example.com',
        firstname: 'Ann',
        comment: 'first',
        groups: ['dev', 'ops'],
        tokens: {},
      });
      expect((await userRow(t, 'ann@pve'))?.passwordHash).toMatch(/^\$scrypt\$ln=15,r=8,p=3\$/);
      expect((await call(t, 'GET', '/access/users/ann@pve', { as: basic('ann@pve', 'ann-password-1') })).status).toBe(200);
    });

    it('takes a JSON body (userid and password) and groups as repeated form keys', async () => {
      const json = await t.api.send('/access/users', {
        method: 'POST',
        headers: { ...ROOT, 'content-type': 'application/json' },
        body: JSON.stringify({ userid: 'jay@pve', password: 'jay-password-1' }),
      });
      expect(dataOf(json)).toBeNull();
      expect((await call(t, 'GET', '/access/users/jay@pve', { as: basic('jay@pve', 'jay-password-1') })).status).toBe(200);
      expect(dataOf(await call(t, 'POST', '/access/users', { form: { userid: 'rep@pve', groups: ['dev', 'qa'] } }))).toBeNull();
      expect(await groupsOf(t, 'rep@pve')).toEqual(['dev', 'qa']);
    });

    it('creates a user without a password, who cannot log in with one', async () => {
      expect(dataOf(await call(t, 'POST', '/access/users', { form: { userid: 'nopass@pve', enable: 1 } }))).toBeNull();
      expect((await userRow(t, 'nopass@pve'))?.passwordHash).toBeNull();
      expectError(await call(t, 'GET', '/access/users', { as: basic('nopass@pve', 'any-password') }), 401, 'authentication failed');
    });

    it('creates a user of an oidc realm without a password, and refuses one with a password naming it', async () => {
      expectError(
        await call(t, 'POST', '/access/users', { form: { userid: 'sam@sso', password: 'sam-password-1' } }),
        400,
        "realm 'sso' authenticates with bearer tokens",
        'password',
      );
      expect(await userRow(t, 'sam@sso')).toBeNull();
      expect(dataOf(await call(t, 'POST', '/access/users', { form: { userid: 'sam@sso' } }))).toBeNull();
      expect(await userRow(t, 'sam@sso')).toEqual(expect.objectContaining({ realm: 'sso', passwordHash: null }));
    });

    it('answers an unknown realm with 400 naming userid, and writes nothing', async () => {
      expectError(
        await call(t, 'POST', '/access/users', { form: { userid: 'x@nowhere', password: 'x-password-1' } }),
        400,
        "realm 'nowhere' does not exist",
        'userid',
      );
      expect(await userRow(t, 'x@nowhere')).toBeNull();
    });

    it('answers an unknown group with 400 naming groups, and writes neither the user nor its other groups', async () => {
      expectError(
        await call(t, 'POST', '/access/users', { form: { userid: 'gus@pve', groups: 'dev,ghost' } }),
        400,
        "group 'ghost' does not exist",
        'groups',
      );
      expect(await userRow(t, 'gus@pve')).toBeNull();
      expect(await groupsOf(t, 'gus@pve')).toEqual([]);
    });

    it('answers an existing user with 409 and leaves it as it was', async () => {
      await call(t, 'POST', '/access/users', { form: { userid: 'dup@pve', comment: 'original' } });
      expectError(
        await call(t, 'POST', '/access/users', { form: { userid: 'dup@pve', comment: 'second', groups: 'dev' } }),
        409,
        "user 'dup@pve' already exists",
      );
      expect(await userRow(t, 'dup@pve')).toEqual(expect.objectContaining({ comment: 'original' }));
      expect(await groupsOf(t, 'dup@pve')).toEqual([]);
    });

    it('lets exactly one of two concurrent creates of the same user win; the other gets 409', async () => {
      const results = await Promise.all(
        [1, 2].map((n) => call(t, 'POST', '/access/users', { form: { userid: 'race@pve', comment: `create ${n}` } })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      for (const loser of results.filter((r) => r.status === 409)) expectError(loser, 409, "user 'race@pve' already exists");
    });

    it('names each bad parameter with 400', async () => {
      expectError(
        await call(t, 'POST', '/access/users', { form: { userid: 'short@pve', password: 'seven77' } }),
        400,
        'at least 8 characters',
        'password',
      );
      expectError(await call(t, 'POST', '/access/users', { form: { userid: 'no-realm' } }), 400, "must be '<name>@<realm>'", 'userid');
      expectError(
        await call(t, 'POST', '/access/users', { form: { userid: 'mail@pve', email: 'not an address' } }),
        400,
        'must be an e-mail address',
        'email',
      );
      expectError(
        await call(t, 'POST', '/access/users', { form: { userid: 'x@pve', colour: 'red' } }),
        400,
        "unknown parameter 'colour'",
        'colour',
      );
      expect(await userRow(t, 'short@pve')).toBeNull();
      expect(await userRow(t, 'mail@pve')).toBeNull();
    });

    it('needs Realm.AllocateUser on the realm and User.Modify on each group given (on /access/groups when none is)', async () => {
      await addUser(t, 'creator@pve', { password: 'creator-password-1' });
      const as = basic('creator@pve', 'creator-password-1');
      await grant(t, { path: '/access/realm/pve', type: 'user', ugid: 'creator@pve', roleid: 'PVEUserAdmin' });
      expectError(await call(t, 'POST', '/access/users', { form: { userid: 'c1@pve' }, as }), 403, 'permission denied');
      await grant(t, { path: '/access/groups/qa', type: 'user', ugid: 'creator@pve', roleid: 'PVEUserAdmin' });
      expectError(await call(t, 'POST', '/access/users', { form: { userid: 'c1@pve', groups: 'qa,sec' }, as }), 403, 'permission denied');
      expectError(await call(t, 'POST', '/access/users', { form: { userid: 'c1@pam', groups: 'qa' }, as }), 403, 'permission denied');
      expect(await userRow(t, 'c1@pve')).toBeNull();
      expect(await userRow(t, 'c1@pam')).toBeNull();
      expect(dataOf(await call(t, 'POST', '/access/users', { form: { userid: 'c1@pve', groups: 'qa' }, as }))).toBeNull();
      expect(await groupsOf(t, 'c1@pve')).toEqual(['qa']);
    });
  });

  describe('GET /access/users', () => {
    it("lists PVE's entries: realm-type always, groups and tokens only with full=1", async () => {
      await addUser(t, 'lou@pve', { groups: ['dev', 'ops'] });
      await addToken('lou@pve', 'ci', 'lou-secret');
      const plain = dataOf<ListEntry[]>(await call(t, 'GET', '/access/users'));
      expect(plain.find((u) => u.userid === 'lou@pve')).toEqual({ userid: 'lou@pve', enable: 1, expire: 0, 'realm-type': 'pve' });
      expect(plain.find((u) => u.userid === 'root@pam')).toEqual(
        expect.objectContaining({ 'realm-type': 'pam', comment: 'Corral administrator' }),
      );
      expect(plain.map((u) => u.userid)).toEqual([...plain.map((u) => u.userid)].sort());
      const full = dataOf<ListEntry[]>(await call(t, 'GET', '/access/users', { query: 'full=1' }));
      expect(full.find((u) => u.userid === 'lou@pve')).toEqual({
        userid: 'lou@pve',
        enable: 1,
        expire: 0,
        'realm-type': 'pve',
        groups: 'dev,ops',
        tokens: [{ tokenid: 'ci', privsep: 1, expire: 0, comment: 'build' }],
      });
    });

    it('filters by enabled', async () => {
      await addUser(t, 'off@pve');
      dataOf(await call(t, 'PUT', '/access/users/off@pve', { form: { enable: 0 } }));
      const disabled = dataOf<ListEntry[]>(await call(t, 'GET', '/access/users', { query: 'enabled=0' }));
      expect(disabled.map((u) => u.userid)).toEqual(['off@pve']);
      const enabled = dataOf<ListEntry[]>(await call(t, 'GET', '/access/users', { query: 'enabled=1' }));
      expect(enabled.map((u) => u.userid)).not.toContain('off@pve');
      expect(enabled.every((u) => u.enable === 1)).toBe(true);
    });

    it('shows a caller only itself, then the members of groups it has Sys.Audit on, then everyone with it on /access/groups', async () => {
      await addUser(t, 'watcher@pve', { password: 'watcher-password-1' });
      await addUser(t, 'dana@pve', { groups: ['qa'] });
      await addUser(t, 'eve@pve', { groups: ['sec'] });
      const as = basic('watcher@pve', 'watcher-password-1');
      expect(await useridsSeenBy(as)).toEqual(['watcher@pve']);
      await grant(t, { path: '/access/groups/qa', type: 'user', ugid: 'watcher@pve', roleid: 'PVEAuditor' });
      const seen = await useridsSeenBy(as);
      expect(seen).toContain('dana@pve');
      expect(seen).toContain('watcher@pve');
      expect(seen).not.toContain('eve@pve');
      expect(seen).not.toContain('root@pam');
      await grant(t, { path: '/access/groups', type: 'user', ugid: 'watcher@pve', roleid: 'PVEAuditor' });
      expect(await useridsSeenBy(as)).toEqual(await useridsSeenBy(ROOT));
    });

    it('shows a privilege-separated token without ACL entries nothing, not even its user', async () => {
      await addUser(t, 'tok@pve');
      await addToken('tok@pve', 'ro', 'tok-secret');
      expect(dataOf(await call(t, 'GET', '/access/users', { as: { authorization: 'PVEAPIToken=tok@pve!ro=tok-secret' } }))).toEqual([]);
    });
  });

  describe('GET /access/users/{userid}', () => {
    it('lets users read themselves, and others only with User.Modify or Sys.Audit on a group of theirs', async () => {
      await addUser(t, 'reader@pve', { password: 'reader-password-1' });
      await addUser(t, 'fay@pve', { groups: ['dev'] });
      await addUser(t, 'gil@pve', { groups: ['ops'] });
      const as = basic('reader@pve', 'reader-password-1');
      expect(dataOf(await call(t, 'GET', '/access/users/reader@pve', { as }))).toEqual({ enable: 1, expire: 0, groups: [], tokens: {} });
      expectError(await call(t, 'GET', '/access/users/fay@pve', { as }), 403, 'permission denied');
      await grant(t, { path: '/access/groups/dev', type: 'user', ugid: 'reader@pve', roleid: 'PVEAuditor' });
      expect(dataOf(await call(t, 'GET', '/access/users/fay@pve', { as }))).toEqual({ enable: 1, expire: 0, groups: ['dev'], tokens: {} });
      expectError(await call(t, 'GET', '/access/users/gil@pve', { as }), 403, 'permission denied');
    });

    it('returns tokens keyed by token id, and 404 for an unknown user', async () => {
      await addUser(t, 'kit@pve');
      await addToken('kit@pve', 'deploy', 'kit-secret');
      expect(dataOf<{ tokens: unknown }>(await call(t, 'GET', '/access/users/kit@pve')).tokens).toEqual({
        deploy: { privsep: 1, expire: 0, comment: 'build' },
      });
      expectError(await call(t, 'GET', '/access/users/ghost@pve'), 404, "user 'ghost@pve' does not exist");
    });
  });

  describe('PUT /access/users/{userid}', () => {
    it('sets fields, clears them with an empty value or delete, and replaces or appends groups', async () => {
      await addUser(t, 'max@pve', { groups: ['dev'] });
      const put = (form: Record<string, string | number>) => call(t, 'PUT', '/access/users/max@pve', { form });
      dataOf(await put({ firstname: 'Max', lastname: 'Power', email: 'max@example.com', comment: 'c', keys: 'x!y=', expire: 4102444800 }));
      const max = { enable: 1, expire: 4102444800, firstname: 'Max', lastname: 'Power', tokens: {} };
      expect(dataOf(await call(t, 'GET', '/access/users/max@pve'))).toEqual({
        ...max,
        email: 'max@example.com',
        comment: 'c',
        keys: 'x!y=',
        groups: ['dev'],
      });
      dataOf(await put({ comment: '', delete: 'email,keys' }));
      dataOf(await put({ groups: 'ops' }));
      dataOf(await put({ groups: 'qa', append: 1 }));
      expect(dataOf(await call(t, 'GET', '/access/users/max@pve'))).toEqual({ ...max, groups: ['ops', 'qa'] });
      dataOf(await put({ groups: '' }));
      expect(await groupsOf(t, 'max@pve')).toEqual([]);
    });

    it('refuses an unknown group with 400 naming groups and changes nothing else of the request', async () => {
      await addUser(t, 'ned@pve', { groups: ['dev'] });
      expectError(
        await call(t, 'PUT', '/access/users/ned@pve', { form: { groups: 'ops,ghost', comment: 'changed' } }),
        400,
        "group 'ghost' does not exist",
        'groups',
      );
      expect(await groupsOf(t, 'ned@pve')).toEqual(['dev']);
      expect((await userRow(t, 'ned@pve'))?.comment).toBeNull();
    });

    it('names bad parameters: append without groups, an unknown or doubly given delete field', async () => {
      await addUser(t, 'ola@pve');
      expectError(await call(t, 'PUT', '/access/users/ola@pve', { form: { append: 1 } }), 400, "'append' needs 'groups'", 'append');
      expectError(
        await call(t, 'PUT', '/access/users/ola@pve', { form: { delete: 'password' } }),
        400,
        "'password' cannot be deleted",
        'delete',
      );
      expectError(
        await call(t, 'PUT', '/access/users/ola@pve', { form: { delete: 'comment', comment: 'x' } }),
        400,
        "'comment' is also given a value",
        'delete',
      );
      expect((await userRow(t, 'ola@pve'))?.comment).toBeNull();
    });

    it('refuses to disable root@pam or give it an expiry (400), as it is the recovery account', async () => {
      expectError(await call(t, 'PUT', '/access/users/root@pam', { form: { enable: 0 } }), 400, 'root@pam cannot be disabled', 'enable');
      expectError(
        await call(t, 'PUT', '/access/users/root@pam', { form: { expire: 4102444800 } }),
        400,
        'root@pam cannot expire',
        'expire',
      );
      expect(await userRow(t, 'root@pam')).toEqual(expect.objectContaining({ enable: true, expire: 0 }));
      dataOf(await call(t, 'PUT', '/access/users/root@pam', { form: { comment: 'still root' } }));
    });

    it('answers an unknown user with 404', async () => {
      expectError(await call(t, 'PUT', '/access/users/ghost@pve', { form: { comment: 'x' } }), 404, "user 'ghost@pve' does not exist");
      expect(await userRow(t, 'ghost@pve')).toBeNull();
    });

    it('disabling a user refuses its Basic credentials at once, and enabling it accepts them again', async () => {
      await addUser(t, 'dis@pve', { password: 'dis-password-1' });
      const as = basic('dis@pve', 'dis-password-1');
      expect((await call(t, 'GET', '/access/users/dis@pve', { as })).status).toBe(200);
      dataOf(await call(t, 'PUT', '/access/users/dis@pve', { form: { enable: 0 } }));
      expectError(await call(t, 'GET', '/access/users/dis@pve', { as }), 401, 'authentication failed');
      dataOf(await call(t, 'PUT', '/access/users/dis@pve', { form: { enable: 1 } }));
      expect((await call(t, 'GET', '/access/users/dis@pve', { as })).status).toBe(200);
    });

    it('needs User.Modify on a group of the user and, as in PVE, on the groups given (on /access/groups when none are)', async () => {
      await addUser(t, 'lead@pve', { password: 'lead-password-1' });
      await addUser(t, 'quinn@pve', { groups: ['qa'] });
      await addUser(t, 'sid@pve', { groups: ['sec'] });
      await grant(t, { path: '/access/groups/qa', type: 'user', ugid: 'lead@pve', roleid: 'PVEUserAdmin' });
      const as = basic('lead@pve', 'lead-password-1');
      expectError(await call(t, 'PUT', '/access/users/quinn@pve', { form: { comment: 'x' }, as }), 403, 'permission denied');
      expectError(
        await call(t, 'PUT', '/access/users/sid@pve', { form: { comment: 'x', groups: 'qa', append: 1 }, as }),
        403,
        'permission denied',
      );
      expect((await userRow(t, 'sid@pve'))?.comment).toBeNull();
      dataOf(await call(t, 'PUT', '/access/users/quinn@pve', { form: { comment: 'x', groups: 'qa', append: 1 }, as }));
      expect((await userRow(t, 'quinn@pve'))?.comment).toBe('x');
    });
  });

  describe('DELETE /access/users/{userid}', () => {
    it('deletes the user, its tokens, memberships and the ACL entries of it and of its tokens, in one go', async () => {
      await addUser(t, 'gone@pve', { groups: ['dev'] });
      await addUser(t, 'stay@pve');
      await addToken('gone@pve', 'ci', 'gone-secret');
      await addToken('stay@pve', 'ci', 'stay-secret');
      for (const [type, ugid] of [
        ['user', 'gone@pve'],
        ['token', 'gone@pve!ci'],
        ['user', 'stay@pve'],
        ['token', 'stay@pve!ci'],
        ['group', 'dev'],
      ] as const) {
        await grant(t, { path: '/vms', type, ugid, roleid: 'PVEAuditor' });
      }
      dataOf(await call(t, 'DELETE', '/access/users/gone@pve'));
      expect(await userRow(t, 'gone@pve')).toBeNull();
      expect(await groupsOf(t, 'gone@pve')).toEqual([]);
      expect(await t.dataSource.manager.countBy(ApiTokenRow, { userid: 'gone@pve' })).toBe(0);
      const left = (await aclRows(t)).filter((e) => e.path === '/vms').map((e) => `${e.type}:${e.ugid}`);
      expect(left.sort()).toEqual(['group:dev', 'token:stay@pve!ci', 'user:stay@pve']);
      expectError(await call(t, 'GET', '/access/users/gone@pve'), 404, "user 'gone@pve' does not exist");
      expectError(await call(t, 'DELETE', '/access/users/gone@pve'), 404, "user 'gone@pve' does not exist");
    });

    it('refuses to delete root@pam (400), as it is the recovery account', async () => {
      expectError(await call(t, 'DELETE', '/access/users/root@pam'), 400, 'root@pam cannot be deleted', 'userid');
      expect(await userRow(t, 'root@pam')).not.toBeNull();
    });

    it("needs Realm.AllocateUser on the user's realm and User.Modify on a group of the user", async () => {
      await addUser(t, 'half@pve', { password: 'half-password-1' });
      await addUser(t, 'full@pve', { password: 'full-password-1' });
      await addUser(t, 'victim@pve', { groups: ['qa'] });
      await addUser(t, 'other@pve', { groups: ['sec'] });
      await grant(t, { path: '/access/groups/qa', type: 'user', ugid: 'half@pve', roleid: 'PVEUserAdmin' });
      await grant(t, { path: '/access/groups/qa', type: 'user', ugid: 'full@pve', roleid: 'PVEUserAdmin' });
      await grant(t, { path: '/access/realm/pve', type: 'user', ugid: 'full@pve', roleid: 'PVEUserAdmin' });
      expectError(
        await call(t, 'DELETE', '/access/users/victim@pve', { as: basic('half@pve', 'half-password-1') }),
        403,
        'permission denied',
      );
      expectError(
        await call(t, 'DELETE', '/access/users/other@pve', { as: basic('full@pve', 'full-password-1') }),
        403,
        'permission denied',
      );
      expect(await userRow(t, 'victim@pve')).not.toBeNull();
      expect(await userRow(t, 'other@pve')).not.toBeNull();
      dataOf(await call(t, 'DELETE', '/access/users/victim@pve', { as: basic('full@pve', 'full-password-1') }));
      expect(await userRow(t, 'victim@pve')).toBeNull();
    });
  });
});
