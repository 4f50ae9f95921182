import { FakeAgent } from '@corral/testing';
import { call, dataOf, expectError } from '../../../test-support/access-fixture.js';
import { events, joinNode } from '../../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { ClusterModule } from '../cluster.module.js';

const createToken = async (t: TestApp, form: Record<string, string | number> = {}) =>
  dataOf<{ id: string; token: string; expire: number; fingerprint: string; replace: number; node?: string }>(
    await call(t, 'POST', '/cluster/join-tokens', { form }),
  );
const join = (t: TestApp, token: string, node: string) => call(t, 'POST', '/cluster/join', { form: { token, node }, as: {} });

describe('joining nodes with join tokens', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule] });
  });
  afterAll(() => t.close());

  it('creates a single-use token with the fingerprint to pin, lists it without its secret, and trades it once for a credential', async () => {
    const before = Math.floor(Date.now() / 1000);
    const created = await createToken(t, { comment: 'rack 4' });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{16}$/),
      token: expect.stringMatching(/^[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/),
      expire: expect.any(Number),
      replace: 0,
      comment: 'rack 4',
      fingerprint: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/),
    });
    expect(created.expire - before).toBeGreaterThanOrEqual(900);
    expect(created.expire - before).toBeLessThanOrEqual(901 + 60);
    expect(dataOf<unknown[]>(await call(t, 'GET', '/cluster/join-tokens'))).toContainEqual({
      id: created.id,
      expire: created.expire,
      replace: 0,
      comment: 'rack 4',
    });

    const joined = dataOf<{ node: string; credential: string }>(await join(t, created.token, 'alpha'));
    expect(joined).toEqual({ node: 'alpha', credential: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), urls: [] });
    expect((await events(t)).filter((e) => e.node === 'alpha')).toEqual([
      { seq: expect.any(Number), event: 'cluster-join', node: 'alpha' },
    ]);
    expect(dataOf<{ id: string }[]>(await call(t, 'GET', '/cluster/join-tokens')).map((token) => token.id)).not.toContain(created.id);

    // Replayed: the token is gone.
    expectError(await join(t, created.token, 'alpha-2'), 401, 'authentication failed');
  });

  it('refuses forged, expired and wrong-secret tokens with 401, and a wrong secret does not burn the real token', async () => {
    const { id, token } = await createToken(t);
    expectError(await join(t, 'not-a-token', 'beta'), 401, 'authentication failed');
    expectError(await join(t, `${id}.${'A'.repeat(43)}`, 'beta'), 401, 'authentication failed');
    expect((await join(t, token, 'beta')).status).toBe(200);

    const expired = await createToken(t);
    await t.dataSource.query('UPDATE "join_tokens" SET "expire" = $2 WHERE "id" = $1', [expired.id, Math.floor(Date.now() / 1000) - 1]);
    const res = await join(t, expired.token, 'gamma');
    expectError(res, 401, 'authentication failed');
    expect(res.reason).toContain('invalid, expired or already used');
    expect((await call(t, 'GET', '/nodes/gamma')).status).toBe(404);
  });

  it('refuses a node name that is taken (409, the token stays usable) unless the token was created to replace it', async () => {
    const oldCredential = await joinNode(t, 'delta');
    const plain = await createToken(t);
    expectError(await join(t, plain.token, 'delta'), 409, "node 'delta' already exists");
    expect((await join(t, plain.token, 'delta-2')).status).toBe(200);

    const bound = await createToken(t, { node: 'delta', replace: 1 });
    expect(bound).toEqual(expect.objectContaining({ node: 'delta', replace: 1 }));
    expectError(await join(t, bound.token, 'epsilon'), 403, 'permission denied');
    const rejoined = dataOf<{ credential: string }>(await join(t, bound.token, 'delta'));
    expect(rejoined.credential).not.toBe(oldCredential);
    expect((await events(t)).filter((e) => e.node === 'delta').map((e) => e.event)).toEqual(['cluster-join', 'cluster-join']);
    // The old agent's credential is dead.
    await expect(FakeAgent.connect({ url: t.agentUrl, ca: t.cert, node: 'delta', credential: oldCredential })).rejects.toThrow(
      'upgrade refused: 401',
    );
    const agent = await FakeAgent.connect({ url: t.agentUrl, ca: t.cert, node: 'delta', credential: rejoined.credential });
    agent.close();
  });

  it('refuses bad parameters with 400 naming them, and replace without a node', async () => {
    expectError(await call(t, 'POST', '/cluster/join-tokens', { form: { ttl: 10 } }), 400, 'at least 60', 'ttl');
    expectError(await call(t, 'POST', '/cluster/join-tokens', { form: { replace: 1 } }), 400, 'needs node', 'replace');
    const { token } = await createToken(t);
    expectError(await join(t, token, '-bad-'), 400, 'host name label', 'node');
  });

  it('revokes a token', async () => {
    const { id, token } = await createToken(t);
    expect((await call(t, 'DELETE', `/cluster/join-tokens/${id}`)).status).toBe(200);
    expectError(await join(t, token, 'zeta'), 401, 'authentication failed');
    expectError(await call(t, 'DELETE', `/cluster/join-tokens/${id}`), 404, 'does not exist');
  });

  it('lets one of two concurrent joins of one new name win; the other gets 409 and keeps its token', async () => {
    const [first, second] = await Promise.all([createToken(t), createToken(t)]);
    const results = await Promise.all([join(t, first.token, 'eta'), join(t, second.token, 'eta')]);
    expect(results.map((res) => res.status).sort()).toEqual([200, 409]);
    expect((await events(t)).filter((e) => e.node === 'eta')).toHaveLength(1);
  });
});
