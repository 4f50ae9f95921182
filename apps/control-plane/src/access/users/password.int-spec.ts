import { addToken, addUser, basic, call, dataOf, expectError, grant, ROOT, write } from '../../../test-support/access-fixture.js';
import { startTestApp, TEST_ROOT_PASSWORD, type TestApp } from '../../../test-support/test-app.js';
import { RealmRow } from '../entities/realm.entity.js';
import { userRow } from './users.fixture.js';
import { UsersModule } from './users.module.js';

describe('PUT /access/password', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ imports: [UsersModule] });
  });
  afterAll(() => t.close());

  const change = (as: Record<string, string>, form: Record<string, string>) => call(t, 'PUT', '/access/password', { form, as });
  const canLogIn = async (userid: string, password: string) =>
    (await call(t, 'GET', `/access/users/${userid}`, { as: basic(userid, password) })).status === 200;
  const hashOf = async (userid: string) => (await userRow(t, userid))?.passwordHash;

  it('lets users change their own password with their current one; the old one is refused at once, even though it was cached', async () => {
    await addUser(t, 'pat@pve', { password: 'old-password-1' });
    expect(await canLogIn('pat@pve', 'old-password-1')).toBe(true);
    const res = await change(basic('pat@pve', 'old-password-1'), {
      userid: 'pat@pve',
      password: 'new-password-1',
      'confirmation-password': 'old-password-1',
    });
    expect(dataOf(res)).toBeNull();
    expect(await canLogIn('pat@pve', 'old-password-1')).toBe(false);
    expect(await canLogIn('pat@pve', 'new-password-1')).toBe(true);
  });

  it('needs the confirmation password of callers other than root@pam, and refuses a wrong one without changing anything', async () => {
    await addUser(t, 'cat@pve', { password: 'cat-password-1' });
    const before = await hashOf('cat@pve');
    const as = basic('cat@pve', 'cat-password-1');
    expectError(
      await change(as, { userid: 'cat@pve', password: 'cat-password-2' }),
      400,
      "parameter 'confirmation-password' is missing",
      'confirmation-password',
    );
    expectError(
      await change(as, { userid: 'cat@pve', password: 'cat-password-2', 'confirmation-password': 'wrong-password' }),
      400,
      'wrong password',
      'confirmation-password',
    );
    expect(await hashOf('cat@pve')).toBe(before);
  });

  it("lets root@pam change anyone's password without confirmation", async () => {
    await addUser(t, 'ida@pve', { password: 'ida-password-1' });
    dataOf(await change(ROOT, { userid: 'ida@pve', password: 'ida-password-2' }));
    expect(await canLogIn('ida@pve', 'ida-password-2')).toBe(true);
  });

  it("lets a user admin (Realm.AllocateUser and User.Modify on a group of the user) change another pve user's password, confirmed with its own", async () => {
    await addUser(t, 'admin@pve', { password: 'admin-password-1' });
    await addUser(t, 'joe@pve', { password: 'joe-password-1', groups: ['staff'] });
    const as = basic('admin@pve', 'admin-password-1');
    expectError(
      await change(as, { userid: 'joe@pve', password: 'joe-password-2', 'confirmation-password': 'admin-password-1' }),
      403,
      'permission denied',
    );
    await grant(t, { path: '/access/groups/staff', type: 'user', ugid: 'admin@pve', roleid: 'PVEUserAdmin' });
    expectError(
      await change(as, { userid: 'joe@pve', password: 'joe-password-2', 'confirmation-password': 'admin-password-1' }),
      403,
      'permission denied',
    );
    await grant(t, { path: '/access/realm/pve', type: 'user', ugid: 'admin@pve', roleid: 'PVEUserAdmin' });
    expect(await canLogIn('joe@pve', 'joe-password-1')).toBe(true);
    dataOf(await change(as, { userid: 'joe@pve', password: 'joe-password-2', 'confirmation-password': 'admin-password-1' }));
    expect(await canLogIn('joe@pve', 'joe-password-2')).toBe(true);
  });

  it("keeps root@pam's password, and other pam users', to root@pam even for an administrator of everything", async () => {
    await addUser(t, 'boss@pve', { password: 'boss-password-1' });
    await addUser(t, 'ops@pam', { password: 'ops-password-1' });
    await grant(t, { path: '/', type: 'user', ugid: 'boss@pve', roleid: 'Administrator' });
    const rootHash = await hashOf('root@pam');
    const opsHash = await hashOf('ops@pam');
    const as = basic('boss@pve', 'boss-password-1');
    expectError(
      await change(as, { userid: 'root@pam', password: 'taken-over-1', 'confirmation-password': 'boss-password-1' }),
      403,
      'permission denied',
    );
    expectError(
      await change(as, { userid: 'ops@pam', password: 'taken-over-1', 'confirmation-password': 'boss-password-1' }),
      403,
      'permission denied',
    );
    expect(await hashOf('root@pam')).toBe(rootHash);
    expect(await hashOf('ops@pam')).toBe(opsHash);
    expect(await canLogIn('root@pam', TEST_ROOT_PASSWORD)).toBe(true);
    // A pam user still changes its own.
    dataOf(
      await change(basic('ops@pam', 'ops-password-1'), {
        userid: 'ops@pam',
        password: 'ops-password-2',
        'confirmation-password': 'ops-password-1',
      }),
    );
    expect(await canLogIn('ops@pam', 'ops-password-2')).toBe(true);
  });

  it('refuses API tokens, as PVE does', async () => {
    await addUser(t, 'bot@pve', { password: 'bot-password-1' });
    await addToken(t, 'bot@pve', 'ci', { privsep: false, secret: 'bot-secret' });
    const before = await hashOf('bot@pve');
    const res = await change(
      { authorization: 'PVEAPIToken=bot@pve!ci=bot-secret' },
      { userid: 'bot@pve', password: 'bot-password-2', 'confirmation-password': 'bot-password-1' },
    );
    expectError(res, 403, 'permission denied');
    expect(res.reason).toContain('not available with an API token');
    expect(await hashOf('bot@pve')).toBe(before);
  });

  it('answers an unknown user with 404, a short password with 400, and a user of an oidc realm with 400 naming password', async () => {
    expectError(await change(ROOT, { userid: 'ghost@pve', password: 'ghost-password-1' }), 404, "user 'ghost@pve' does not exist");
    await addUser(t, 'lee@pve', { password: 'lee-password-1' });
    expectError(await change(ROOT, { userid: 'lee@pve', password: 'short' }), 400, 'at least 8 characters', 'password');
    expect(await canLogIn('lee@pve', 'lee-password-1')).toBe(true);
    await write(t, (db) => db.insert(RealmRow, { realm: 'sso', type: 'oidc', comment: '', autocreate: false }));
    await addUser(t, 'sam@sso');
    expectError(
      await change(ROOT, { userid: 'sam@sso', password: 'sam-password-1' }),
      400,
      "realm 'sso' authenticates with bearer tokens",
      'password',
    );
    expect(await hashOf('sam@sso')).toBeNull();
  });
});
