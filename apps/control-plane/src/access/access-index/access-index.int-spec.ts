import { addUser, basic, call, dataOf } from '../../../test-support/access-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { PASSWORD } from '../acl/acl.fixture.js';
import { AccessIndexModule } from './access-index.module.js';

describe('GET /access', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ imports: [AccessIndexModule] });
    await addUser(t, 'nobody@pve', { password: PASSWORD });
  });
  afterAll(() => t.close());

  it('lists the access API to any authenticated caller', async () => {
    expect(dataOf(await call(t, 'GET', '/access', { as: basic('nobody@pve', PASSWORD) }))).toEqual(
      ['users', 'groups', 'roles', 'acl', 'domains', 'ticket', 'password', 'permissions'].map((subdir) => ({ subdir })),
    );
  });

  it('answers 401 on the index without credentials', async () => {
    expect((await t.api.get('/access')).status).toBe(401);
  });
});
