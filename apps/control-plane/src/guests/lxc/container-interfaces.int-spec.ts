import type { RequestFrame } from '@corral/protocol';
import type { FakeAgent } from '@corral/testing';
import { call, dataOf, expectError } from '../../../test-support/access-fixture.js';
import { joinNode, onlineAgent } from '../../../test-support/node-fixture.js';
import { finished } from '../../../test-support/task-fixture.js';
import { startTestApp, type TestApp } from '../../../test-support/test-app.js';
import { ClusterModule } from '../../cluster/cluster.module.js';
import { TasksModule } from '../../tasks/tasks.module.js';
import { GuestsModule } from '../guests.module.js';

describe("a container's interfaces (GET /nodes/{node}/lxc/{vmid}/interfaces)", () => {
  let t: TestApp;
  let agent: FakeAgent;
  const asked: RequestFrame[] = [];

  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, TasksModule, GuestsModule] });
    agent = await onlineAgent(t, 'pve1', await joinNode(t, 'pve1'), {
      answer: (request) => {
        asked.push(request);
        if (request.command === 'guest.start')
          agent.send({
            type: 'report',
            payload: { kind: 'runtime', guests: [{ vmid: 200, type: 'lxc', status: 'running', pid: 4242, uptime: 1, cpu: 0, mem: 1 }] },
          });
        if (request.command === 'guest.interfaces') {
          return {
            result: [
              {
                name: 'lo',
                hwaddr: '00:00:00:00:00:00',
                addresses: [
                  { family: 'inet', address: '127.0.0.1', prefix: 8 },
                  { family: 'inet6', address: '::1', prefix: 128 },
                ],
              },
              { name: 'eth0', hwaddr: 'bc:24:11:3a:5f:02', addresses: [] },
            ],
          };
        }
        return { result: null };
      },
    });
    const created = dataOf<string>(
      await call(t, 'POST', '/nodes/pve1/lxc', { form: { vmid: 200, ostemplate: 'local:vztmpl/busybox.tar.gz' } }),
    );
    expect(await finished(t, 'pve1', created)).toBe('OK');
  });
  afterAll(async () => {
    agent.close();
    await t.close();
  });

  it('is a 409 while the container does not run, without asking its agent', async () => {
    expectError(await call(t, 'GET', '/nodes/pve1/lxc/200/interfaces'), 409, 'CT 200 is not running');
    expect(asked.map((request) => request.command)).not.toContain('guest.interfaces');
  });

  it("answers PVE's entries for a running one: both MAC fields, the first address of each family, every address", async () => {
    expect(await finished(t, 'pve1', dataOf<string>(await call(t, 'POST', '/nodes/pve1/lxc/200/status/start')))).toBe('OK');
    expect(dataOf(await call(t, 'GET', '/nodes/pve1/lxc/200/interfaces'))).toEqual([
      {
        name: 'lo',
        hwaddr: '00:00:00:00:00:00',
        'hardware-address': '00:00:00:00:00:00',
        inet: '127.0.0.1/8',
        inet6: '::1/128',
        'ip-addresses': [
          { 'ip-address': '127.0.0.1', 'ip-address-type': 'inet', prefix: 8 },
          { 'ip-address': '::1', 'ip-address-type': 'inet6', prefix: 128 },
        ],
      },
      { name: 'eth0', hwaddr: 'bc:24:11:3a:5f:02', 'hardware-address': 'bc:24:11:3a:5f:02', 'ip-addresses': [] },
    ]);
    expect(asked.find((request) => request.command === 'guest.interfaces')?.params).toEqual({ vmid: 200 });
  });

  it('is a 404 for an unknown container', async () => {
    expectError(await call(t, 'GET', '/nodes/pve1/lxc/999/interfaces'), 404, 'CT 999 does not exist');
  });
});
