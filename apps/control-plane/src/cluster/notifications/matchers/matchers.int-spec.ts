import { call, dataOf, expectError, type Form } from '../../../../test-support/access-fixture.js';
import { startTestApp, type TestApp } from '../../../../test-support/test-app.js';
import { NotificationsModule } from '../notifications.module.js';
import type { MatcherEntry } from './matchers.endpoints.js';

const MATCHERS = '/cluster/notifications/matchers';

describe('matchers API (/cluster/notifications/matchers)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ imports: [NotificationsModule] });
    for (const name of ['ops', 'audit'])
      dataOf(
        await call(t, 'POST', '/cluster/notifications/endpoints/webhook', { form: { name, url: `https://hooks.example.com/${name}` } }),
      );
  });
  afterAll(() => t.close());

  const create = async (form: Form) => dataOf(await call(t, 'POST', MATCHERS, { form }));
  const read = async (name: string) => dataOf<MatcherEntry & { digest: string }>(await call(t, 'GET', `${MATCHERS}/${name}`));

  it("creates a matcher with PVE's names and reads it back", async () => {
    await create({
      name: 'guests',
      'match-field': ['exact:type=vm-start,vm-stop', 'regex:node=^pve[12]$', 'exact:pool=prod'],
      'match-severity': 'info,error',
      mode: 'any',
      'invert-match': 1,
      target: ['ops', 'audit'],
      comment: 'guest power',
    });
    expect(await read('guests')).toEqual({
      name: 'guests',
      'match-field': ['exact:type=vm-start,vm-stop', 'regex:node=^pve[12]$', 'exact:pool=prod'],
      'match-severity': ['info,error'],
      mode: 'any',
      'invert-match': 1,
      target: ['audit', 'ops'],
      comment: 'guest power',
      origin: 'user-created',
      digest: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    expect(dataOf<MatcherEntry[]>(await call(t, 'GET', MATCHERS))).toEqual([
      expect.objectContaining({ name: 'guests', target: ['audit', 'ops'] }),
    ]);
  });

  it("accepts Corral's own event kinds, PVE's `hostname` for the node, and a matcher without rules", async () => {
    await create({
      name: 'corral-kinds',
      'match-field': ['exact:type=node-up,node-down', 'exact:hostname=pve1', 'exact:vmid=100,101'],
      target: 'ops',
    });
    await create({ name: 'everything', target: 'ops' });
    expect(await read('everything')).toEqual({
      name: 'everything',
      mode: 'all',
      target: ['ops'],
      origin: 'user-created',
      digest: expect.any(String),
    });
  });

  it.each([
    [{ 'match-field': 'exact:type=vm-explode' }, 'match-field', "unknown event type 'vm-explode'"],
    [{ 'match-field': 'exact:color=red' }, 'match-field', "unknown field 'color'"],
    [{ 'match-field': 'regex:node=pve(' }, 'match-field', 'is no regular expression'],
    [{ 'match-field': 'type=vm-start' }, 'match-field', 'is not exact:<field>=<value>'],
    [{ 'match-field': 'exact:vmid=abc' }, 'match-field', "'abc' is no vmid"],
    [{ 'match-severity': 'info,fatal' }, 'match-severity', "unknown severity 'fatal'"],
    [{ 'match-calendar': 'mon..fri 8-17' }, 'match-calendar', 'Corral does not match on calendar events'],
    [{ mode: 'most' }, 'mode', 'expected all or any'],
    [{ target: ['ops', 'nowhere', 'gone'] }, 'target', "unknown targets 'nowhere', 'gone'"],
  ])('refuses %j with a 400 naming %s', async (form, param, message) => {
    expectError(await call(t, 'POST', MATCHERS, { form: { name: 'bad', ...form } }), 400, message, param);
    expectError(await call(t, 'GET', `${MATCHERS}/bad`), 404, "matcher 'bad' does not exist");
  });

  it('answers 409 for a name that exists', async () => {
    expectError(await call(t, 'POST', MATCHERS, { form: { name: 'guests' } }), 409, "matcher 'guests' already exists");
  });

  it('changes a matcher: a list replaces the stored one, delete resets, a stale digest is refused', async () => {
    await create({ name: 'change', 'match-field': 'exact:type=vm-start', target: ['ops', 'audit'], mode: 'any', comment: 'c' });
    const { digest } = await read('change');
    dataOf(
      await call(t, 'PUT', `${MATCHERS}/change`, {
        form: { target: 'audit', 'match-field': ['exact:type=ct-start', 'exact:node=pve2'], delete: 'mode,comment', digest },
      }),
    );
    expect(await read('change')).toEqual({
      name: 'change',
      'match-field': ['exact:type=ct-start', 'exact:node=pve2'],
      mode: 'all',
      target: ['audit'],
      origin: 'user-created',
      digest: expect.any(String),
    });
    expectError(await call(t, 'PUT', `${MATCHERS}/change`, { form: { disable: 1, digest } }), 409, 'file changed by other user');
    expectError(await call(t, 'PUT', `${MATCHERS}/change`, { form: { target: 'nowhere' } }), 400, "unknown target 'nowhere'", 'target');
    dataOf(await call(t, 'PUT', `${MATCHERS}/change`, { form: { delete: 'target,match-field', disable: 1 } }));
    expect(await read('change')).toEqual({ name: 'change', mode: 'all', disable: 1, origin: 'user-created', digest: expect.any(String) });
  });

  it('answers 404 for a matcher that does not exist, and deletes one that does', async () => {
    for (const method of ['GET', 'PUT', 'DELETE'])
      expectError(
        await call(t, method, `${MATCHERS}/ghost`, method === 'PUT' ? { form: { comment: 'x' } } : {}),
        404,
        "matcher 'ghost' does not exist",
      );
    await create({ name: 'gone', target: 'ops' });
    expect(dataOf(await call(t, 'DELETE', `${MATCHERS}/gone`))).toBeNull();
    expectError(await call(t, 'GET', `${MATCHERS}/gone`), 404, "matcher 'gone' does not exist");
  });
});
