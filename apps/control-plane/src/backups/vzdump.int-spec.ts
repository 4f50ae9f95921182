import { call, expectError } from '../../test-support/access-fixture.js';
import { joinNode } from '../../test-support/node-fixture.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import { BackupsModule } from './backups.module.js';

const ARCHIVE = 'volume=local:backup/vzdump-qemu-100-2025_01_31-02_00_00.tar.zst';

describe('/nodes/{node}/vzdump/extractconfig', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ imports: [ClusterModule, BackupsModule] });
  });
  afterAll(() => t.close());

  it('answers a node that never joined with 404, and a joined node whose agent is away with 503', async () => {
    expectError(await call(t, 'GET', '/nodes/nowhere/vzdump/extractconfig', { query: ARCHIVE }), 404, "node 'nowhere' does not exist");
    await joinNode(t, 'away');
    expectError(await call(t, 'GET', '/nodes/away/vzdump/extractconfig', { query: ARCHIVE }), 503, "node 'away' is offline");
  });
});
