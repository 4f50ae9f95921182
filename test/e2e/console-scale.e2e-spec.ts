import { AgentProcess, waitFor, type ControlPlaneProcess } from '@corral/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser, logIn, newContext, screenshot } from '../support/browser.js';
import { startOnTestDatabase } from '../support/control-plane.js';
import { data, guestApi } from '../support/guest-api.js';

const ROOT_PASSWORD = 'console-scale-root-password';
const GUESTS = 1000;
const FIRST_VMID = 1000;
/** Creates in flight at once, as an automation would send them. */
const PARALLEL = 12;
/** How long anything here may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 120_000;

// The web console on a cluster of 1,000 guests (simulated: the sim driver, at once): the tree
// keeps only the rows in view in the page, and reaches the last guest by scrolling.
describe('the web console with 1,000 guests', () => {
  let cp: ControlPlaneProcess;
  let agent: AgentProcess | undefined;
  let browser: Browser;
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-console-scale-'));
    cp = await startOnTestDatabase({ env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD } });
    const api = guestApi(cp, ROOT_PASSWORD, PATIENCE_MS);
    agent = AgentProcess.agent(await api.joinedAgentConfig(root, 'sim1'), { CORRAL_DRIVER: 'sim', CORRAL_SIM_SPEED: '0' });
    await waitFor(async () => data<{ node: string; status: string }[]>(await api.send('/nodes')).some((n) => n.status === 'online'), {
      timeoutMs: PATIENCE_MS,
      what: 'sim1 online',
    });
    let next = FIRST_VMID;
    const worker = async () => {
      while (next < FIRST_VMID + GUESTS) {
        const vmid = next++;
        expect(await api.task('sim1', '/nodes/sim1/qemu', 'POST', { vmid, name: `g${vmid}`, memory: 64 })).toBe('OK');
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    browser = await launchBrowser();
  }, 5 * PATIENCE_MS);

  afterAll(async () => {
    await browser?.close();
    await agent?.kill();
    await cp?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('shows the dashboard, keeps a few dozen tree rows in the page, and scrolls to the last guest', async () => {
    const p = await (await newContext(browser)).newPage();
    const started = Date.now();
    await logIn(p, origin(), 'root@pam', ROOT_PASSWORD);
    await p.getByTestId('guest-counts').getByText(`VMs: 0 running, ${GUESTS} stopped`).waitFor({ timeout: PATIENCE_MS });
    process.stdout.write(`the dashboard of ${GUESTS} guests, from the login's click: ${Date.now() - started} ms\n`);
    await screenshot(p, 'dashboard-1000');

    const rows = await p.locator('[role=tree] [role=treeitem]').count();
    expect(rows).toBeGreaterThan(5);
    expect(rows).toBeLessThan(100);
    await p.evaluate("document.querySelector('[role=tree]').scrollTop = 1e9");
    const last = p.locator(`[role=tree] a[data-id="qemu/${FIRST_VMID + GUESTS - 1}"]`);
    await last.waitFor();
    await last.click();
    await p.getByRole('heading', { name: `VM ${FIRST_VMID + GUESTS - 1} (g${FIRST_VMID + GUESTS - 1})` }).waitFor();
    await p.context().close();
  });

  const origin = () => `https://127.0.0.1:${cp.port}`;
});
