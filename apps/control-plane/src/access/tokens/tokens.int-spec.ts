import { addUser, basic, grant } from '../../../test-support/access-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { sha256 } from '../auth/authenticator.js';
import { aclEntriesOf, createToken, errorsOf, PVE_FORM, send, SPEC_FORM, storedTokens, type PathForm } from './tokens.fixture.js';
import { TokensModule } from './tokens.module.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const nowS = () => Math.floor(Date.now() / 1000);

describe('API token management', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ imports: [TokensModule] });
  });
  afterAll(() => t.close());

  describe.each([SPEC_FORM, PVE_FORM])('on $name paths', (form: PathForm) => {
    // Each form works on its own user, so the two runs don't see each other's tokens.
    const userid = form === SPEC_FORM ? 'spec@pve' : 'pve@pve';
    beforeAll(() => addUser(t, userid));

    it('creates a token with privsep 1 and no expiry by default, shows the lowercase UUID secret once and stores only its SHA-256', async () => {
      const created = await createToken(t, form, userid, 'ci');
      expect(created).toEqual({ 'full-tokenid': `${userid}!ci`, info: { privsep: 1, expire: 0 }, value: expect.stringMatching(UUID) });
      const [row] = await storedTokens(t, userid);
      expect(row).toEqual(
        expect.objectContaining({ userid, tokenid: 'ci', privsep: true, expire: 0, comment: null, secretHash: sha256(created.value) }),
      );
      expect(JSON.stringify(row)).not.toContain(created.value);
      const read = await send(t, form, 'GET', form.item(userid, 'ci'));
      expect(read.json()).toEqual({ data: { privsep: 1, expire: 0 } });
    });

    it('creates a token with comment, expire and privsep 0, and lists tokens by id, omitting an absent comment', async () => {
      const expire = nowS() + 86_400;
      const created = await createToken(t, form, userid, 'backup', { comment: 'nightly backups', expire, privsep: 0 });
      expect(created.info).toEqual({ privsep: 0, expire, comment: 'nightly backups' });
      expect((await send(t, form, 'GET', form.item(userid, 'backup'))).json()).toEqual({
        data: { privsep: 0, expire, comment: 'nightly backups' },
      });
      expect((await send(t, form, 'GET', form.collection(userid))).json()).toEqual({
        data: [
          { tokenid: 'backup', privsep: 0, expire, comment: 'nightly backups' },
          { tokenid: 'ci', privsep: 1, expire: 0 },
        ],
      });
    });

    it('answers 409 for a token that exists, and keeps its secret', async () => {
      const before = await storedTokens(t, userid);
      const { path, body } = form.create(userid, 'ci');
      const res = await send(t, form, 'POST', path, { body: { ...body, comment: 'again' } });
      expect(res.status).toBe(409);
      expect(errorsOf(res)).toEqual([{ code: 409, message: `token '${userid}!ci' already exists` }]);
      expect(await storedTokens(t, userid)).toEqual(before);
    });

    it('answers 404 for an unknown user and writes nothing', async () => {
      const { path, body } = form.create('ghost@pve', 'ci');
      const res = await send(t, form, 'POST', path, { body });
      expect(res.status).toBe(404);
      expect(errorsOf(res)).toEqual([{ code: 404, message: "user 'ghost@pve' does not exist" }]);
      expect(await storedTokens(t, 'ghost@pve')).toEqual([]);
      for (const [method, path] of [
        ['GET', form.collection('ghost@pve')],
        ['GET', form.item('ghost@pve', 'ci')],
        ['PUT', form.item('ghost@pve', 'ci')],
        ['DELETE', form.item('ghost@pve', 'ci')],
      ] as const) {
        const other = await send(t, form, method, path);
        expect({ method, status: other.status, errors: errorsOf(other) }).toEqual({
          method,
          status: 404,
          errors: [{ code: 404, message: "user 'ghost@pve' does not exist" }],
        });
      }
    });

    it('answers 404 naming the full token id for an unknown token', async () => {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await send(t, form, method, form.item(userid, 'nope'), method === 'PUT' ? { body: { comment: 'x' } } : {});
        expect({ method, status: res.status, errors: errorsOf(res) }).toEqual({
          method,
          status: 404,
          errors: [{ code: 404, message: `token '${userid}!nope' does not exist` }],
        });
      }
      expect((await storedTokens(t, userid)).map((row) => row.tokenid)).toEqual(['backup', 'ci']);
    });

    it('answers 400 naming each bad parameter of a create, and writes nothing', async () => {
      const cases: [string, Record<string, string | number>, string][] = [
        ['1bad', {}, 'tokenid'],
        ['a', {}, 'tokenid'],
        ['ok-id', { expire: -1 }, 'expire'],
        ['ok-id', { expire: 'soon' }, 'expire'],
        ['ok-id', { privsep: 2 }, 'privsep'],
        ['ok-id', { color: 'red' }, 'color'],
        ['ok-id', { comment: 'x'.repeat(4097) }, 'comment'],
      ];
      for (const [tokenid, settings, param] of cases) {
        const { path, body } = form.create(userid, tokenid);
        const res = await send(t, form, 'POST', path, { body: { ...body, ...settings } });
        expect({ tokenid, settings: Object.keys(settings), status: res.status, param: errorsOf(res)[0]?.param }).toEqual({
          tokenid,
          settings: Object.keys(settings),
          status: 400,
          param,
        });
      }
      expect((await storedTokens(t, userid)).map((row) => row.tokenid)).toEqual(['backup', 'ci']);
    });

    it('changes comment, expire and privsep, and clears the comment with delete', async () => {
      const expire = nowS() + 3600;
      const changed = await send(t, form, 'PUT', form.item(userid, 'ci'), { body: { comment: 'build server', expire, privsep: 0 } });
      expect(changed.json()).toEqual({ data: { privsep: 0, expire, comment: 'build server' } });
      const cleared = await send(t, form, 'PUT', form.item(userid, 'ci'), { body: { delete: 'comment', privsep: 1 } });
      expect(cleared.json()).toEqual({ data: { privsep: 1, expire } });
      const [, row] = await storedTokens(t, userid);
      expect(row).toEqual(expect.objectContaining({ tokenid: 'ci', privsep: true, expire, comment: null }));
    });

    it('regenerates the secret: the response has the new one and the full token id, and only its hash is stored', async () => {
      const [, before] = await storedTokens(t, userid);
      const res = await send(t, form, 'PUT', form.item(userid, 'ci'), { body: { regenerate: 1 } });
      const data = res.json<{ data: { value: string } }>().data;
      expect(data).toEqual({ privsep: 1, expire: before?.expire, 'full-tokenid': `${userid}!ci`, value: expect.stringMatching(UUID) });
      const [, after] = await storedTokens(t, userid);
      expect(after?.secretHash).toBe(sha256(data.value));
      expect(after?.secretHash).not.toBe(before?.secretHash);
    });

    it('refuses to delete anything but the comment, or to set and delete it at once, and changes nothing', async () => {
      const before = await storedTokens(t, userid);
      const cases: [Record<string, string | number>, string, string][] = [
        [{ delete: 'expire' }, 'delete', "parameter 'delete': only 'comment' can be deleted"],
        [
          { delete: 'comment', comment: 'both', privsep: 0 },
          'delete',
          "parameter 'delete': cannot set and delete 'comment' at the same time",
        ],
        [{ regenerate: 'yes', comment: 'changed' }, 'regenerate', "parameter 'regenerate': expected a boolean (0 or 1), got 'yes'"],
        [{ tokenid: 'other', comment: 'changed' }, 'tokenid', "parameter 'tokenid' conflicts with the value given in the path"],
      ];
      for (const [body, param, message] of cases) {
        const res = await send(t, form, 'PUT', form.item(userid, 'ci'), { body });
        expect(errorsOf(res)).toEqual([{ code: 400, param, message }]);
      }
      expect(await storedTokens(t, userid)).toEqual(before);
    });

    it('deletes a token together with its ACL entries, and nothing of other tokens', async () => {
      await grant(t, { path: '/vms', type: 'token', ugid: `${userid}!backup`, roleid: 'PVEVMUser' });
      await grant(t, { path: '/storage', type: 'token', ugid: `${userid}!backup`, roleid: 'PVEDatastoreUser' });
      await grant(t, { path: '/vms', type: 'token', ugid: `${userid}!ci`, roleid: 'PVEAuditor' });
      const res = await send(t, form, 'DELETE', form.item(userid, 'backup'));
      expect(res.json()).toEqual({ data: null });
      expect((await storedTokens(t, userid)).map((row) => row.tokenid)).toEqual(['ci']);
      expect(await aclEntriesOf(t, `${userid}!backup`)).toEqual([]);
      expect(await aclEntriesOf(t, `${userid}!ci`)).toHaveLength(1);
      expect((await send(t, form, 'GET', form.item(userid, 'backup'))).status).toBe(404);
    });
  });

  it('answers 409 to the loser of two concurrent creates of one token, and keeps the winner', async () => {
    await addUser(t, 'race@pve');
    const { path, body } = SPEC_FORM.create('race@pve', 'twin');
    const results = await Promise.all([1, 2].map(() => send(t, SPEC_FORM, 'POST', path, { body })));
    expect(results.map((res) => res.status).sort()).toEqual([200, 409]);
    const [winner, loser] = results[0]?.status === 200 ? results : [...results].reverse();
    expect(loser && errorsOf(loser)).toEqual([{ code: 409, message: "token 'race@pve!twin' already exists" }]);
    const [row] = await storedTokens(t, 'race@pve');
    expect(row?.secretHash).toBe(sha256(winner?.json<{ data: { value: string } }>().data.value ?? ''));
  });

  describe('expiry', () => {
    const expire = nowS() + 30 * 86_400;
    beforeAll(() => addUser(t, 'temp@pve', { expire }));

    it("gives a token its user's expiry by default", async () => {
      expect((await createToken(t, PVE_FORM, 'temp@pve', 'default')).info).toEqual({ privsep: 1, expire });
      expect((await createToken(t, SPEC_FORM, 'temp@pve', 'sooner', { expire: expire - 60 })).info).toEqual({
        privsep: 1,
        expire: expire - 60,
      });
    });

    it('refuses a token that would outlive its user, on create and on change, and writes nothing', async () => {
      const before = await storedTokens(t, 'temp@pve');
      const message = `parameter 'expire': a token cannot outlive its user, and 'temp@pve' expires at ${expire}`;
      for (const late of [expire + 1, 0]) {
        const created = await send(t, SPEC_FORM, 'POST', SPEC_FORM.collection('temp@pve'), { body: { tokenid: 'late', expire: late } });
        expect(errorsOf(created)).toEqual([{ code: 400, param: 'expire', message }]);
        const changed = await send(t, PVE_FORM, 'PUT', PVE_FORM.item('temp@pve', 'default'), {
          body: { expire: late, comment: 'changed' },
        });
        expect(errorsOf(changed)).toEqual([{ code: 400, param: 'expire', message }]);
      }
      expect(await storedTokens(t, 'temp@pve')).toEqual(before);
    });
  });

  describe('permissions (self, or User.Modify on a group of the user)', () => {
    beforeAll(async () => {
      await addUser(t, 'alice@pve', { password: 'alice-password', groups: ['staff'] });
      await addUser(t, 'bob@pve', { password: 'bob-password', groups: ['staff'] });
      await addUser(t, 'carol@pve', { password: 'carol-password', groups: ['admins'] });
      await grant(t, { path: '/access/groups/staff', type: 'user', ugid: 'carol@pve', roleid: 'PVEUserAdmin' });
    });
    const alice = basic('alice@pve', 'alice-password');

    it('lets a user manage its own tokens', async () => {
      const created = await createToken(t, PVE_FORM, 'alice@pve', 'mine', {}, alice);
      expect(created['full-tokenid']).toBe('alice@pve!mine');
      expect((await send(t, SPEC_FORM, 'GET', SPEC_FORM.collection('alice@pve'), { headers: alice })).json()).toEqual({
        data: [{ tokenid: 'mine', privsep: 1, expire: 0 }],
      });
      expect((await send(t, PVE_FORM, 'DELETE', PVE_FORM.item('alice@pve', 'mine'), { headers: alice })).status).toBe(200);
    });

    it("answers 403 for another user's tokens without User.Modify, and writes nothing", async () => {
      const { path, body } = SPEC_FORM.create('bob@pve', 'sneaky');
      for (const [method, target, sent] of [
        ['GET', SPEC_FORM.collection('bob@pve'), {}],
        ['POST', path, body],
      ] as const) {
        const res = await send(t, SPEC_FORM, method, target, { body: sent, headers: alice });
        expect({ method, status: res.status, errors: errorsOf(res) }).toEqual({
          method,
          status: 403,
          errors: [{ code: 403, message: 'permission denied' }],
        });
      }
      expect(await storedTokens(t, 'bob@pve')).toEqual([]);
    });

    it("lets a user with User.Modify on a group of the user manage that user's tokens, and no one else's", async () => {
      const carol = basic('carol@pve', 'carol-password');
      expect((await createToken(t, PVE_FORM, 'bob@pve', 'ops', {}, carol))['full-tokenid']).toBe('bob@pve!ops');
      expect((await send(t, PVE_FORM, 'GET', PVE_FORM.collection('bob@pve'), { headers: carol })).json()).toEqual({
        data: [{ tokenid: 'ops', privsep: 1, expire: 0 }],
      });
      await addUser(t, 'dave@pve', { groups: ['admins'] });
      expect((await send(t, PVE_FORM, 'GET', PVE_FORM.collection('dave@pve'), { headers: carol })).status).toBe(403);
    });
  });
});
