import { addGroup, addUser, basic, call, dataOf, expectError, grant } from '../../../test-support/access-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { aclRows } from '../acl/acl.fixture.js';
import { GroupMemberRow } from '../entities/group-member.entity.js';
import { GroupRow } from '../entities/group.entity.js';
import { UserRow } from '../entities/user.entity.js';
import { GroupsModule } from './groups.module.js';

describe('groups API (/access/groups)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ imports: [GroupsModule] });
  });
  afterAll(() => t.close());

  const groupRow = (groupid: string) => t.dataSource.manager.findOne(GroupRow, { where: { groupid } });

  it('creates, reads, lists, updates and clears the comment of a group', async () => {
    dataOf(await call(t, 'POST', '/access/groups', { form: { groupid: 'dev', comment: 'developers' } }));
    await addUser(t, 'bo@pve', { groups: ['dev'] });
    await addUser(t, 'al@pve', { groups: ['dev'] });
    expect(dataOf(await call(t, 'GET', '/access/groups/dev'))).toEqual({ comment: 'developers', members: ['al@pve', 'bo@pve'] });
    expect(dataOf(await call(t, 'GET', '/access/groups'))).toContainEqual({
      groupid: 'dev',
      comment: 'developers',
      users: 'al@pve,bo@pve',
    });
    dataOf(await call(t, 'PUT', '/access/groups/dev', { form: { comment: 'all developers' } }));
    expect((await groupRow('dev'))?.comment).toBe('all developers');
    dataOf(await call(t, 'PUT', '/access/groups/dev', { form: { comment: '' } }));
    expect(dataOf(await call(t, 'GET', '/access/groups/dev'))).toEqual({ members: ['al@pve', 'bo@pve'] });
  });

  it('lists a group without members with an empty users string, sorted by id', async () => {
    dataOf(await call(t, 'POST', '/access/groups', { form: { groupid: 'aaa-empty' } }));
    const list = dataOf<{ groupid: string }[]>(await call(t, 'GET', '/access/groups'));
    expect(list[0]).toEqual({ groupid: 'aaa-empty', users: '' });
    expect(list.map((g) => g.groupid)).toEqual([...list.map((g) => g.groupid)].sort());
  });

  it('answers a duplicate with 409 and leaves the group as it was', async () => {
    await addGroup(t, 'dup', 'original');
    expectError(
      await call(t, 'POST', '/access/groups', { form: { groupid: 'dup', comment: 'second' } }),
      409,
      "group 'dup' already exists",
    );
    expect((await groupRow('dup'))?.comment).toBe('original');
  });

  it('lets exactly one of two concurrent creates of the same group win; the other gets 409', async () => {
    const results = await Promise.all(
      [1, 2].map((n) => call(t, 'POST', '/access/groups', { form: { groupid: 'race', comment: `create ${n}` } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
  });

  it('answers an unknown group with 404 on read, update and delete', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      expectError(
        await call(t, method, '/access/groups/ghost', method === 'PUT' ? { form: { comment: 'x' } } : {}),
        404,
        "group 'ghost' does not exist",
      );
    }
    expect(await groupRow('ghost')).toBeNull();
  });

  it('names a bad group id with 400 and writes nothing', async () => {
    expectError(await call(t, 'POST', '/access/groups', { form: { groupid: 'bad/id' } }), 400, 'must be 1 to 64 letters', 'groupid');
    expectError(await call(t, 'POST', '/access/groups', { form: {} }), 400, "parameter 'groupid' is missing", 'groupid');
    expect(await groupRow('bad/id')).toBeNull();
  });

  it("deletes a group with its memberships and the group's ACL entries, keeping a user's entry that has the same id", async () => {
    await addUser(t, 'cy@pve', { groups: ['doomed'] });
    await grant(t, { path: '/vms', type: 'group', ugid: 'doomed', roleid: 'PVEAuditor' });
    await grant(t, { path: '/storage', type: 'group', ugid: 'doomed', roleid: 'PVEAuditor' });
    await grant(t, { path: '/vms', type: 'user', ugid: 'doomed', roleid: 'PVEAuditor' });
    dataOf(await call(t, 'DELETE', '/access/groups/doomed'));
    expect(await groupRow('doomed')).toBeNull();
    expect(await t.dataSource.manager.countBy(GroupMemberRow, { groupid: 'doomed' })).toBe(0);
    expect(await t.dataSource.manager.countBy(UserRow, { userid: 'cy@pve' })).toBe(1);
    expect((await aclRows(t)).filter((e) => e.ugid === 'doomed').map((e) => `${e.type}:${e.path}`)).toEqual(['user:/vms']);
  });

  describe('as a user without root', () => {
    const as = basic('gina@pve', 'gina-password-1');
    beforeAll(async () => {
      await addUser(t, 'gina@pve', { password: 'gina-password-1' });
      await addGroup(t, 'qa');
      await addGroup(t, 'sec', 'security');
    });

    it('lists only the groups it holds User.Modify, Sys.Audit or Group.Allocate on, and reads only those', async () => {
      expect(dataOf(await call(t, 'GET', '/access/groups', { as }))).toEqual([]);
      await grant(t, { path: '/access/groups/qa', type: 'user', ugid: 'gina@pve', roleid: 'PVEAuditor' });
      expect(dataOf(await call(t, 'GET', '/access/groups', { as }))).toEqual([{ groupid: 'qa', users: '' }]);
      expect(dataOf(await call(t, 'GET', '/access/groups/qa', { as }))).toEqual({ members: [] });
      expectError(await call(t, 'GET', '/access/groups/sec', { as }), 403, 'permission denied');
    });

    it('needs Group.Allocate on /access/groups to create, update or delete, and writes nothing without it', async () => {
      await grant(t, { path: '/access/groups/sec', type: 'user', ugid: 'gina@pve', roleid: 'PVEUserAdmin' });
      expectError(await call(t, 'POST', '/access/groups', { form: { groupid: 'mine' }, as }), 403, 'permission denied');
      expectError(await call(t, 'PUT', '/access/groups/sec', { form: { comment: 'taken' }, as }), 403, 'permission denied');
      expectError(await call(t, 'DELETE', '/access/groups/sec', { as }), 403, 'permission denied');
      expect(await groupRow('mine')).toBeNull();
      expect((await groupRow('sec'))?.comment).toBe('security');
      await grant(t, { path: '/access/groups', type: 'user', ugid: 'gina@pve', roleid: 'PVEUserAdmin' });
      dataOf(await call(t, 'POST', '/access/groups', { form: { groupid: 'mine' }, as }));
      dataOf(await call(t, 'DELETE', '/access/groups/mine', { as }));
      expect(await groupRow('mine')).toBeNull();
    });
  });
});
