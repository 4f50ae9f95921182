import { call, dataOf, expectError, type Form } from '../../../../test-support/access-fixture.js';
import { startTestApp, type TestApp } from '../../../../test-support/test-app.js';
import { NotificationsModule } from '../notifications.module.js';
import { WebhookSecretRow } from './webhook-secret.entity.js';
import type { TargetEntry, WebhookEntry } from './webhooks.endpoints.js';

const WEBHOOKS = '/cluster/notifications/endpoints/webhook';
const b64 = (text: string) => Buffer.from(text).toString('base64');
const SIGNING_KEY = 'the-signing-key-4f9a';
const TOKEN = 'bearer-token-77c1';

describe('webhook targets API (/cluster/notifications/endpoints/webhook)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ imports: [NotificationsModule] });
  });
  afterAll(() => t.close());

  const create = async (form: Form) => dataOf(await call(t, 'POST', WEBHOOKS, { form }));
  const read = async (name: string) => dataOf<WebhookEntry & { digest: string }>(await call(t, 'GET', `${WEBHOOKS}/${name}`));
  const storedSecrets = async (webhook: string) =>
    Object.fromEntries(
      (await t.dataSource.manager.find(WebhookSecretRow, { where: { webhook } })).map((row) => [
        row.name,
        Buffer.from(row.value, 'base64').toString(),
      ]),
    );

  it("creates a webhook with PVE's names and reads it back: headers with values, secrets by name only", async () => {
    await create({
      name: 'ops',
      url: 'https://hooks.example.com/corral?team=ops',
      method: 'post',
      header: [`name=X-Team,value=${b64('ops')}`, `name=Authorization,value=${b64('Bearer {{ secrets.token }}')}`],
      secret: [`name=signing,value=${b64(SIGNING_KEY)}`, `name=token,value=${b64(TOKEN)}`],
      comment: 'the ops channel',
    });
    expect(await read('ops')).toEqual({
      name: 'ops',
      url: 'https://hooks.example.com/corral?team=ops',
      method: 'post',
      header: [`name=X-Team,value=${b64('ops')}`, `name=Authorization,value=${b64('Bearer {{ secrets.token }}')}`],
      secret: ['name=signing', 'name=token'],
      comment: 'the ops channel',
      timeout: 10,
      origin: 'user-created',
      digest: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    expect(await storedSecrets('ops')).toEqual({ signing: SIGNING_KEY, token: TOKEN });
  });

  it('never returns a secret value: not in the list, the entry or the targets', async () => {
    await create({ name: 'quiet', url: 'https://hooks.example.com/q', secret: `name=signing,value=${b64(SIGNING_KEY)}`, disable: 1 });
    for (const path of [WEBHOOKS, `${WEBHOOKS}/quiet`, `${WEBHOOKS}/ops`, '/cluster/notifications/targets']) {
      const text = (await call(t, 'GET', path)).text;
      expect(text).not.toContain(SIGNING_KEY);
      expect(text).not.toContain(b64(SIGNING_KEY));
      expect(text).not.toContain(b64(TOKEN));
    }
    expect(dataOf<WebhookEntry[]>(await call(t, 'GET', WEBHOOKS)).find((entry) => entry.name === 'quiet')).toEqual({
      name: 'quiet',
      url: 'https://hooks.example.com/q',
      method: 'post',
      secret: ['name=signing'],
      disable: 1,
      timeout: 10,
      origin: 'user-created',
    });
    expect(dataOf<TargetEntry[]>(await call(t, 'GET', '/cluster/notifications/targets'))).toEqual(
      expect.arrayContaining([
        { name: 'ops', type: 'webhook', comment: 'the ops channel', origin: 'user-created' },
        { name: 'quiet', type: 'webhook', disable: 1, origin: 'user-created' },
      ]),
    );
  });

  it.each([
    [{ url: 'ftp://files.example.com/x' }, 'url', 'must be http:// or https://'],
    [{ url: 'not a url' }, 'url', 'is not a URL'],
    [{ url: 'https://user:pw@hooks.example.com/' }, 'url', 'must not hold credentials'],
    [{ url: 'https://hooks.example.com/{{ secrets.path }}' }, 'url', 'does not fill in templates'],
    [{ url: 'http://127.0.0.1:9000/' }, 'url', 'only with allow-local=1'],
    [{ url: 'http://[::1]/' }, 'url', 'only with allow-local=1'],
    [{ url: 'http://169.254.169.254/latest/meta-data' }, 'url', 'only with allow-local=1'],
    [{ method: 'put' }, 'method', 'Corral sends each event by POST'],
    [{ method: 'patch' }, 'method', 'expected post, put or get'],
    [{ body: b64('{{ message }}') }, 'body', "Corral sends the event's JSON body"],
    [{ header: 'name=X-A,value=not base64!' }, 'header', 'is not base64'],
    [{ header: `name=X-Corral-Event-Id,value=${b64('1')}` }, 'header', 'Corral sets the header'],
    [{ header: `name=Content-Type,value=${b64('text/plain')}` }, 'header', 'Corral sets the header'],
    [{ header: 'name=X-A' }, 'header', 'has no value'],
    [{ header: `name=X-A,value=${b64('a\r\nX-Injected: 1')}` }, 'header', 'no header value may carry'],
    [{ header: `name=X-A,value=${b64('{{ fields.type }}')}` }, 'header', 'only one Corral fills in'],
    [{ header: `name=X-A,value=${b64('{{ secrets.nope }}')}` }, 'header', "refers to secret 'nope'"],
    [{ header: [`name=X-A,value=${b64('1')}`, `name=x-a,value=${b64('2')}`] }, 'header', 'each header may be given once'],
    [{ secret: 'name=signing' }, 'secret', "secret 'signing' has no value"],
    [{ secret: `name=bad name,value=${b64('x')}` }, 'secret', 'is no secret name'],
    [{ timeout: 0 }, 'timeout', 'must be at least 1'],
    [{ name: '1st' }, 'name', 'must be a letter'],
    [{ verify: 1 }, 'verify', "unknown parameter 'verify'"],
  ])('refuses %j with a 400 naming %s', async (change, param, message) => {
    expectError(
      await call(t, 'POST', WEBHOOKS, { form: { name: 'bad', url: 'https://hooks.example.com/x', ...change } }),
      400,
      message,
      param,
    );
    expectError(await call(t, 'GET', `${WEBHOOKS}/bad`), 404, "webhook 'bad' does not exist");
  });

  it('takes a loopback URL with allow-local=1, and shows the flag', async () => {
    await create({ name: 'local', url: 'http://127.0.0.1:9000/hook', 'allow-local': 1, timeout: 3 });
    expect(await read('local')).toEqual(expect.objectContaining({ url: 'http://127.0.0.1:9000/hook', 'allow-local': 1, timeout: 3 }));
    expectError(await call(t, 'PUT', `${WEBHOOKS}/local`, { form: { delete: 'allow-local' } }), 400, 'only with allow-local=1', 'url');
  });

  it('answers 409 for a name that exists', async () => {
    expectError(
      await call(t, 'POST', WEBHOOKS, { form: { name: 'ops', url: 'https://elsewhere.example.com/' } }),
      409,
      "webhook 'ops' already exists",
    );
  });

  it('changes a webhook: a secret without a value keeps its value, a list replaces the stored one, delete resets', async () => {
    await create({
      name: 'change',
      url: 'https://hooks.example.com/a',
      comment: 'old',
      header: `name=X-A,value=${b64('a')}`,
      secret: [`name=signing,value=${b64('one')}`, `name=other,value=${b64('two')}`],
    });
    // As PVE's GUI sends them back: names only.
    dataOf(
      await call(t, 'PUT', `${WEBHOOKS}/change`, {
        form: { secret: ['name=signing'], url: 'https://hooks.example.com/b', delete: 'header,comment' },
      }),
    );
    expect(await storedSecrets('change')).toEqual({ signing: 'one' });
    const entry = await read('change');
    expect(entry).toEqual({
      name: 'change',
      url: 'https://hooks.example.com/b',
      method: 'post',
      secret: ['name=signing'],
      timeout: 10,
      origin: 'user-created',
      digest: expect.any(String),
    });
    dataOf(await call(t, 'PUT', `${WEBHOOKS}/change`, { form: { secret: `name=signing,value=${b64('three')}`, digest: entry.digest } }));
    expect(await storedSecrets('change')).toEqual({ signing: 'three' });
    dataOf(await call(t, 'PUT', `${WEBHOOKS}/change`, { form: { delete: 'secret' } }));
    expect(await storedSecrets('change')).toEqual({});
  });

  it('refuses a stale digest, a secret to keep that is not stored, setting and deleting at once, and headers left without their secret', async () => {
    await create({
      name: 'strict',
      url: 'https://hooks.example.com/s',
      header: `name=Authorization,value=${b64('Bearer {{ secrets.token }}')}`,
      secret: `name=token,value=${b64(TOKEN)}`,
    });
    expectError(
      await call(t, 'PUT', `${WEBHOOKS}/strict`, { form: { comment: 'x', digest: '0'.repeat(40) } }),
      409,
      'file changed by other user',
    );
    expectError(
      await call(t, 'PUT', `${WEBHOOKS}/strict`, { form: { secret: ['name=token', 'name=new'] } }),
      400,
      "secret 'new' has no value",
      'secret',
    );
    expectError(
      await call(t, 'PUT', `${WEBHOOKS}/strict`, { form: { comment: 'x', delete: 'comment' } }),
      400,
      "cannot set and delete 'comment'",
      'delete',
    );
    expectError(await call(t, 'PUT', `${WEBHOOKS}/strict`, { form: { delete: 'secret' } }), 400, "refers to secret 'token'", 'header');
    expectError(await call(t, 'PUT', `${WEBHOOKS}/strict`, { form: { method: 'get' } }), 400, 'by POST', 'method');
    expect(await storedSecrets('strict')).toEqual({ token: TOKEN });
  });

  it('refuses to delete a webhook a matcher names, and deletes it once no matcher does', async () => {
    await create({ name: 'used', url: 'https://hooks.example.com/u' });
    dataOf(await call(t, 'POST', '/cluster/notifications/matchers', { form: { name: 'uses-it', target: 'used' } }));
    expectError(await call(t, 'DELETE', `${WEBHOOKS}/used`), 409, "webhook 'used' is a target of matcher 'uses-it'");
    dataOf(await call(t, 'DELETE', '/cluster/notifications/matchers/uses-it'));
    expect(dataOf(await call(t, 'DELETE', `${WEBHOOKS}/used`))).toBeNull();
    for (const method of ['GET', 'PUT', 'DELETE']) {
      expectError(
        await call(t, method, `${WEBHOOKS}/used`, method === 'PUT' ? { form: { comment: 'x' } } : {}),
        404,
        "webhook 'used' does not exist",
      );
    }
    expectError(await call(t, 'GET', `${WEBHOOKS}/used/deliveries`), 404, "webhook 'used' does not exist");
  });
});
