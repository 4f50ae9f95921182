import { waitFor } from '@corral/testing';
import { addUser, apiToken, basic, grant } from '../../../test-support/access-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { createToken, errorsOf, PVE_FORM, send, SPEC_FORM, storedTokens } from './tokens.fixture.js';
import { TokensModule } from './tokens.module.js';

const nowS = () => Math.floor(Date.now() / 1000);

/** Tokens created through the API, used as credentials on the same API. */
describe('authenticating with API tokens', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ imports: [TokensModule] });
  });
  afterAll(() => t.close());

  const listRootTokens = (headers: Record<string, string>) => send(t, PVE_FORM, 'GET', PVE_FORM.collection('root@pam'), { headers });

  it("accepts a new token in every credential form: PVEAPIToken, SVCAPIToken, Corral's <userid>=<secret> and the token query parameter", async () => {
    const { value } = await createToken(t, SPEC_FORM, 'root@pam', 'full', { privsep: 0 });
    const forms = {
      pve: apiToken('root@pam!full', value),
      svc: apiToken('root@pam!full', value, 'SVCAPIToken'),
      spec: { authorization: `SVCAPIToken=root@pam=${value}` },
    };
    for (const [name, headers] of Object.entries(forms)) {
      const res = await listRootTokens(headers);
      expect({ name, status: res.status }).toEqual({ name, status: 200 });
      expect(res.json<{ data: { tokenid: string }[] }>().data.map((token) => token.tokenid)).toContain('full');
    }
    const byQuery = await t.api.get(PVE_FORM.collection('root@pam'), `token=${encodeURIComponent(`SVCAPIToken=root@pam!full=${value}`)}`);
    expect(byQuery.status).toBe(200);
    expect((await t.api.get(PVE_FORM.collection('root@pam'))).status).toBe(401);
  });

  it("refuses a regenerated token's old secret at once and accepts the new one", async () => {
    const { value: old } = await createToken(t, PVE_FORM, 'root@pam', 'rotate', { privsep: 0 });
    expect((await listRootTokens(apiToken('root@pam!rotate', old))).status).toBe(200);
    const res = await send(t, PVE_FORM, 'PUT', PVE_FORM.item('root@pam', 'rotate'), { body: { regenerate: 1 } });
    const { value: fresh } = res.json<{ data: { value: string } }>().data;
    const refused = await listRootTokens(apiToken('root@pam!rotate', old));
    expect({ status: refused.status, errors: errorsOf(refused) }).toEqual({
      status: 401,
      errors: [{ code: 401, message: 'authentication failed' }],
    });
    expect((await listRootTokens(apiToken('root@pam!rotate', fresh))).status).toBe(200);
  });

  it('refuses a deleted token', async () => {
    const { value } = await createToken(t, SPEC_FORM, 'root@pam', 'gone', { privsep: 0 });
    expect((await listRootTokens(apiToken('root@pam!gone', value))).status).toBe(200);
    expect((await send(t, SPEC_FORM, 'DELETE', SPEC_FORM.item('root@pam', 'gone'))).status).toBe(200);
    expect((await listRootTokens(apiToken('root@pam!gone', value))).status).toBe(401);
  });

  it('refuses a token once it has expired', async () => {
    const expire = nowS() + 5; // whole seconds: a slow machine still sees it work first
    const { value } = await createToken(t, PVE_FORM, 'root@pam', 'brief', { privsep: 0, expire });
    expect((await listRootTokens(apiToken('root@pam!brief', value))).status).toBe(200);
    await waitFor(async () => (await listRootTokens(apiToken('root@pam!brief', value))).status === 401, {
      timeoutMs: 10_000,
      intervalMs: 250,
      what: 'the token to expire',
    });
    expect(nowS()).toBeGreaterThanOrEqual(expire);
  });

  describe('privilege separation', () => {
    beforeAll(() => addUser(t, 'alice@pve', { password: 'alice-password' }));

    it('gives a privsep=1 token without ACL entries nothing: 403, even on its own user, and it cannot create a token without separation', async () => {
      const { value } = await createToken(t, PVE_FORM, 'root@pam', 'sep');
      const token = apiToken('root@pam!sep', value);
      const before = await storedTokens(t, 'root@pam');
      for (const [method, path, body] of [
        ['GET', PVE_FORM.collection('root@pam'), {}],
        ['GET', PVE_FORM.collection('alice@pve'), {}],
        ['POST', PVE_FORM.item('root@pam', 'escalate'), { privsep: 0 }],
      ] as const) {
        const res = await send(t, PVE_FORM, method, path, { body, headers: token });
        expect({ method, path, status: res.status, errors: errorsOf(res) }).toEqual({
          method,
          path,
          status: 403,
          errors: [{ code: 403, message: 'permission denied' }],
        });
      }
      expect(await storedTokens(t, 'root@pam')).toEqual(before);
    });

    it('lets a privsep=1 token do what its own ACL entries grant', async () => {
      const { value } = await createToken(t, PVE_FORM, 'root@pam', 'useradmin');
      await grant(t, { path: '/access/groups', type: 'token', ugid: 'root@pam!useradmin', roleid: 'PVEUserAdmin' });
      const res = await send(t, PVE_FORM, 'GET', PVE_FORM.collection('alice@pve'), { headers: apiToken('root@pam!useradmin', value) });
      expect(res.json()).toEqual({ data: [] });
    });

    it("is never its user's self: a token of a user without User.Modify cannot manage that user's tokens, even without separation", async () => {
      const { value } = await createToken(t, PVE_FORM, 'alice@pve', 'own', { privsep: 0 }, basic('alice@pve', 'alice-password'));
      const res = await send(t, PVE_FORM, 'GET', PVE_FORM.collection('alice@pve'), { headers: apiToken('alice@pve!own', value) });
      expect(res.status).toBe(403);
    });
  });
});
