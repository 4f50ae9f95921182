import { API_MODULES } from '../app.module.js';
import { addUser, basic, call, expectError } from '../../test-support/access-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { EndpointRegistry } from '../http/endpoint-registry.js';

// Any value fills the other placeholders (guest, storage, volume, interface, task): the node is checked first.
const PLACEHOLDER = /\{([^}]+)\}/g;

describe('an unknown node', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ imports: API_MODULES, env: { CORRAL_APLINFO_URL: 'http://127.0.0.1:9/aplinfo.dat' } });
  });
  afterAll(() => t.close());

  it('is a 404 on every endpoint under /nodes/{node}, before its parameters are checked or an agent is asked', async () => {
    const endpoints = t.app.get(EndpointRegistry).declarations.filter((declaration) => /^\/nodes\/\{node\}(?:\/|$)/.test(declaration.path));
    expect(endpoints.length).toBeGreaterThan(50);
    for (const { method, path } of endpoints) {
      const res = await call(
        t,
        method,
        path.replace(PLACEHOLDER, (_, name: string) => (name === 'node' ? 'nosuchnode' : '100')),
      );
      expect({ endpoint: `${method} ${path}`, status: res.status }).toEqual({ endpoint: `${method} ${path}`, status: 404 });
      expectError(res, 404, "node 'nosuchnode' does not exist");
    }
  });

  it('is a 401 without credentials, and a 404 for a user without privileges, who may list the nodes anyway', async () => {
    expect((await t.api.get('/nodes/nosuchnode/status')).status).toBe(401);
    await addUser(t, 'nobody@pve', { password: 'nobody-password' });
    expectError(
      await call(t, 'GET', '/nodes/nosuchnode/status', { as: basic('nobody@pve', 'nobody-password') }),
      404,
      "node 'nosuchnode' does not exist",
    );
  });
});
