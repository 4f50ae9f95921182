import { buildBusyboxTemplate, waitFor, type AgentProcess, type ControlPlaneProcess } from '@corral/testing';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, logIn, newContext, screenshot } from '../support/browser.js';
import { startOnTestDatabase } from '../support/control-plane.js';
import { data, guestApi } from '../support/guest-api.js';

const run = promisify(execFile);
const ROOT_PASSWORD = 'console-e2e-root-password';
const AUDITOR_PASSWORD = 'console-e2e-auditor';
/** How long anything here may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 60_000;
/** Run in the page: how many pixels of the console's canvas are not black (0 before the first frame). */
const LIT_PIXELS = `(() => {
  const canvas = document.querySelector('[data-testid=vnc] canvas');
  if (!canvas || canvas.width < 100) return 0;
  const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let lit = 0;
  for (let i = 0; i < pixels.length; i += 4) if (pixels[i] + pixels[i + 1] + pixels[i + 2] > 0) lit += 1;
  return lit;
})()`;

// The web console in a real browser (Debian's Chromium through playwright-core), served by the
// built control plane with a native agent whose VM is a real QEMU process.
describe('the web console', () => {
  let cp: ControlPlaneProcess;
  let agent: AgentProcess | undefined;
  let browser: Browser;
  let root: string;
  let origin: string;
  let api: ReturnType<typeof guestApi>;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-console-'));
    cp = await startOnTestDatabase({ env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD } });
    origin = `https://127.0.0.1:${cp.port}`;
    api = guestApi(cp, ROOT_PASSWORD, PATIENCE_MS);
    await mkdir(join(root, 'host1', 'var/lib/vz/template/cache'), { recursive: true });
    await buildBusyboxTemplate(join(root, 'host1', 'var/lib/vz/template/cache/busybox.tar.gz'));
    agent = await api.onlineNativeAgent(root, 'host1');
    // TCG (kvm 0): a host's KVM may open and still not run guests.
    expect(await api.task('host1', '/nodes/host1/qemu', 'POST', { vmid: 100, name: 'web1', memory: 64, kvm: 0 })).toBe('OK');
    browser = await launchBrowser();
  }, 3 * PATIENCE_MS);

  afterAll(async () => {
    await browser?.close();
    // Guests outlive their agent (as in PVE): whatever a failed test left running is killed here.
    await run('pkill', ['-9', '-f', root]).catch(() => undefined);
    await run('lxc-stop', ['-P', join(root, 'host1/var/lib/corral/lxc'), '-n', '200', '-k']).catch(() => undefined);
    await agent?.kill();
    await cp?.stop();
    await rm(root, { recursive: true, force: true });
  });

  const page = async (viewport?: { width: number; height: number }): Promise<Page> => (await newContext(browser, viewport)).newPage();
  const treeItem = (p: Page, id: string) => p.locator(`[role=tree] a[data-id="${id}"]`);

  it('says why a wrong password is refused, with the API message', async () => {
    const p = await page();
    await logIn(p, origin, 'root@pam', 'not-the-password');
    await expect(p.getByTestId('login-error').textContent()).resolves.toContain('authentication failed');
    await screenshot(p, 'login-refused');
    await p.context().close();
  });

  it('logs in, shows the node online in the tree and on the dashboard, and logs out', async () => {
    const p = await page();
    const sizes: Promise<number>[] = [];
    p.on('requestfinished', (request) => {
      if (!request.url().includes('/api2/json/'))
        sizes.push(request.sizes().then((size) => size.responseBodySize + size.responseHeadersSize));
    });
    await logIn(p, origin, 'root@pam', ROOT_PASSWORD);
    await expect(p.getByTestId('user').textContent()).resolves.toBe('root@pam');
    await treeItem(p, 'node/host1').waitFor();
    await expect(treeItem(p, 'node/host1').getAttribute('href')).resolves.toBe('#/node/host1');
    await expect(treeItem(p, 'node/host1').locator('.corral-status--ok').count()).resolves.toBe(1);
    await expect(treeItem(p, 'qemu/100').textContent()).resolves.toContain('100 (web1)');
    await p.getByText('1 of 1 nodes online').waitFor();
    await expect(p.getByTestId('guest-counts').textContent()).resolves.toContain('VMs: 0 running, 1 stopped');
    // The nodes' CPU and memory over the last hour, from their rrddata.
    await waitFor(async () => (await p.locator('[data-testid=cluster-graphs] .uplot canvas').count()) === 2, {
      timeoutMs: PATIENCE_MS,
      what: "the dashboard's two graphs",
    });
    await screenshot(p, 'dashboard');
    // The console's own files, as sent (gzipped), for the login page and the dashboard after it.
    const consoleBytes = (await Promise.all(sizes)).reduce((sum, size) => sum + size, 0);
    process.stdout.write(`the console's files on the first load: ${consoleBytes} bytes\n`);
    expect(consoleBytes).toBeLessThan(1024 * 1024);

    await treeItem(p, 'node/host1').click();
    await expect(p.getByTestId('node-status').textContent()).resolves.toBe('online');
    // Its graphs from rrddata, one uPlot chart each, over the time frame picked.
    await waitFor(async () => (await p.locator('[data-testid=graphs] .uplot canvas').count()) === 4, {
      timeoutMs: PATIENCE_MS,
      what: "the node's four graphs",
    });
    await p.getByRole('button', { name: 'day' }).click();
    await expect(p.getByRole('button', { name: 'day' }).getAttribute('aria-pressed')).resolves.toBe('true');
    // What its agent reports of the host, each in its tab: read without an error.
    const hostLists: readonly (readonly [string, string])[] = [
      ['Network', 'list-network'],
      ['Disks', 'list-disks'],
      ['Firewall', 'list-firewall-rules'],
    ];
    for (const [tab, list] of hostLists) {
      await p.getByRole('tab', { name: tab }).click();
      await p.locator(`[data-testid=${list}][data-state=success]`).waitFor({ timeout: PATIENCE_MS });
    }
    await p.getByRole('tab', { name: 'Tasks' }).click();
    await p.getByTestId('tasks').getByText('qmcreate 100 on host1').waitFor();
    await screenshot(p, 'node');

    await p.getByRole('button', { name: 'Log out' }).click();
    await p.getByRole('button', { name: 'Log in' }).waitFor();
    // The control plane cleared the HttpOnly ticket cookie: the browser holds no credential now.
    expect((await p.context().cookies()).filter((cookie) => cookie.name === 'PVEAuthCookie')).toEqual([]);
    await p.context().close();
  });

  it('starts a VM, shows its task, its state live and its display, asks before stopping it, and lists the tasks and events', async () => {
    const p = await page();
    await logIn(p, origin, 'root@pam', ROOT_PASSWORD);
    await treeItem(p, 'qemu/100').click();
    await expect(p.getByTestId('guest-status').textContent()).resolves.toBe('stopped');

    await p.getByRole('button', { name: 'Start', exact: true }).click();
    await p.locator('[data-testid=task][data-status=ok]').waitFor({ timeout: PATIENCE_MS });
    await p.locator('[data-testid=guest-status]', { hasText: 'running' }).waitFor({ timeout: PATIENCE_MS });
    await treeItem(p, 'qemu/100').locator('.corral-status--ok').waitFor();
    await screenshot(p, 'vm-running');

    // Its display, through vncproxy and vncwebsocket: noVNC draws the VM's screen (SeaBIOS) on its canvas.
    await p.getByRole('tab', { name: 'Console' }).click();
    await p.locator('[data-testid=vnc-state]', { hasText: 'connected' }).waitFor({ timeout: PATIENCE_MS });
    await waitFor(async () => Number(await p.evaluate(LIT_PIXELS)) > 0, { timeoutMs: PATIENCE_MS, what: 'the VM display drawn' });
    await screenshot(p, 'vm-console');

    await p.getByRole('button', { name: 'Stop', exact: true }).click();
    const dialog = p.getByRole('dialog');
    await expect(dialog.textContent()).resolves.toContain('as if its power were cut');
    await dialog.getByRole('button', { name: 'Stop', exact: true }).click();
    await p.locator('[data-testid=guest-status]', { hasText: 'stopped' }).waitFor({ timeout: PATIENCE_MS });
    expect(data<{ status: string }>(await api.send('/nodes/host1/qemu/100/status/current')).status).toBe('stopped');

    // The tasks, with their logs, and the events the start and the stop recorded.
    await p.getByRole('link', { name: 'Tasks' }).click();
    await p.getByTestId('tasks').getByText('qmstart 100 on host1').waitFor();
    await p.getByRole('button', { name: 'Log of qmstart 100' }).click();
    await expect(p.locator('[data-testid=task][data-status=ok]').textContent()).resolves.toContain('TASK OK');
    await screenshot(p, 'tasks');
    await p.getByRole('link', { name: 'Events' }).click();
    await p.getByTestId('events').getByText('vm-stop').waitFor({ timeout: PATIENCE_MS });
    await p.getByTestId('events').getByText('vm-start').waitFor();
    await p.context().close();
  });

  it("creates a VM through the wizard, showing a refused parameter's message on its step, changes its memory, puts it under HA, clones it, backs it up and restores it, snapshots it and deletes it", async () => {
    const p = await page();
    await logIn(p, origin, 'root@pam', ROOT_PASSWORD);
    await p.getByRole('link', { name: 'Create VM' }).click();
    // The id comes from /cluster/nextid.
    await waitFor(async () => (await p.getByLabel('VM ID').inputValue()) === '101', { timeoutMs: 10_000, what: 'the next free id' });
    await p.getByLabel('Name').fill('wizard1');
    await p.getByRole('button', { name: 'Next' }).click();
    await p.getByRole('button', { name: 'Next' }).click();
    await p.getByLabel('Size (GiB)').fill('0.0625');
    await p.getByRole('button', { name: 'Next' }).click();
    await p.getByLabel('Memory (MiB)').fill('1');
    await p.getByRole('button', { name: 'Review' }).click();
    await p.getByRole('button', { name: 'Create' }).click();
    await expect(p.getByTestId('create-error').textContent()).resolves.toContain('memory');

    await p.getByRole('button', { name: 'CPU and memory' }).click();
    const memoryHelp = p.locator('.pf-v6-c-form__group', { has: p.locator('#memory') }).locator('.pf-v6-c-helper-text__item.pf-m-error');
    await expect(memoryHelp.textContent()).resolves.toMatch(/memory/);
    await screenshot(p, 'wizard-refused');
    await p.getByLabel('Memory (MiB)').fill('64');
    await p.getByLabel('KVM hardware virtualization').uncheck();
    await p.getByRole('button', { name: 'Review' }).click();
    await screenshot(p, 'wizard-review');
    await p.getByRole('button', { name: 'Create' }).click();
    await p.locator('[data-testid=task][data-status=ok]').waitFor({ timeout: PATIENCE_MS });
    await p.getByRole('link', { name: 'Open VM 101' }).click();
    await expect(p.getByTestId('guest-status').textContent()).resolves.toBe('stopped');
    expect(data<Record<string, unknown>>(await api.send('/nodes/host1/qemu/101/config'))).toMatchObject({
      name: 'wizard1',
      memory: '64',
      kvm: 0,
      scsi0: expect.stringMatching(/^local:101\/vm-101-disk-0\.qcow2,size=64M/),
    });

    // Its memory changed in place: first refused, with the API's message under it, then saved.
    await p.getByRole('tab', { name: 'Hardware and options' }).click();
    await p.getByRole('button', { name: 'Edit memory' }).click();
    await p.getByLabel('Value of memory').fill('1');
    await p.getByRole('button', { name: 'Save' }).click();
    const configHelp = p.getByTestId('config').locator('.pf-v6-c-helper-text__item.pf-m-error');
    await expect(configHelp.textContent()).resolves.toMatch(/memory/);
    await p.getByLabel('Value of memory').fill('128');
    await p.getByRole('button', { name: 'Save' }).click();
    await p.getByTestId('config').getByText('128', { exact: true }).waitFor();
    expect(data<{ memory: string }>(await api.send('/nodes/host1/qemu/101/config')).memory).toBe('128');
    await screenshot(p, 'vm-config');

    // Under HA and out of it again.
    await p.getByRole('button', { name: 'Manage with HA' }).click();
    await p.getByRole('dialog').locator('#state').selectOption('stopped');
    await p.getByRole('dialog').getByRole('button', { name: 'Add' }).click();
    await p.getByRole('button', { name: 'Remove from HA' }).waitFor({ timeout: PATIENCE_MS });
    expect(data<{ sid: string }[]>(await api.send('/cluster/ha/resources')).map((r) => r.sid)).toEqual(['vm:101']);
    await p.getByRole('button', { name: 'Remove from HA' }).click();
    await p.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await p.getByRole('button', { name: 'Manage with HA' }).waitFor({ timeout: PATIENCE_MS });

    // A clone, made a template from its own view.
    await p.getByRole('button', { name: 'Clone' }).click();
    await waitFor(async () => (await p.locator('#newid').inputValue()) === '102', { timeoutMs: 10_000, what: 'the next free id' });
    await p.getByRole('dialog').locator('#name').fill('clone1');
    await p.getByRole('dialog').getByRole('button', { name: 'Clone' }).click();
    await p.locator('[data-testid=task][data-status=ok]', { hasText: 'Clone 101: OK' }).waitFor({ timeout: PATIENCE_MS });
    await treeItem(p, 'qemu/102').click();
    await p.getByRole('heading', { name: 'VM 102 (clone1)' }).waitFor();
    await p.getByRole('button', { name: 'Convert to template' }).click();
    await p.getByRole('dialog').getByRole('button', { name: 'Convert' }).click();
    await p.locator('[data-testid=task][data-status=ok]', { hasText: 'Template 102: OK' }).waitFor({ timeout: PATIENCE_MS });
    expect(data<{ template?: number; name: string }>(await api.send('/nodes/host1/qemu/102/config'))).toMatchObject({
      template: 1,
      name: 'clone1',
    });
    expect(await api.task('host1', '/nodes/host1/qemu/102', 'DELETE')).toBe('OK');
    await treeItem(p, 'qemu/101').click();

    // A backup, restored over the VM, then removed.
    await p.getByRole('tab', { name: 'Backups' }).click();
    await p.getByRole('button', { name: 'Back up now' }).click();
    await p.getByRole('dialog').getByRole('button', { name: 'Back up' }).click();
    await p.locator('[data-testid=task][data-status=ok]', { hasText: 'Backup of 101: OK' }).waitFor({ timeout: PATIENCE_MS });
    const backupRow = p.getByTestId('backups').getByText(/^local:backup\/vzdump-qemu-101-/);
    await backupRow.waitFor();
    await p.getByTestId('backups').getByRole('button', { name: 'Restore' }).click();
    await p.getByRole('dialog').getByRole('button', { name: 'Restore' }).click();
    await p.locator('[data-testid=task][data-status=ok]', { hasText: 'Restore of 101: OK' }).waitFor({ timeout: PATIENCE_MS });
    await p.getByTestId('backups').getByRole('button', { name: 'Remove' }).click();
    await p.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await p.getByText('No backups.').waitFor({ timeout: PATIENCE_MS });

    // A snapshot, then the VM deleted after the question.
    await p.getByRole('tab', { name: 'Snapshots' }).click();
    await p.getByLabel('Name').fill('before');
    await p.getByRole('button', { name: 'Take snapshot' }).click();
    await p.locator('[data-testid=task][data-status=ok]', { hasText: 'Snapshot before: OK' }).waitFor({ timeout: PATIENCE_MS });
    await p.getByTestId('snapshots').getByText('before').waitFor();
    expect(data<{ name: string }[]>(await api.send('/nodes/host1/qemu/101/snapshot')).map((s) => s.name)).toContain('before');
    await p.getByRole('tab', { name: 'Summary' }).click();
    await p.getByRole('button', { name: 'Delete', exact: true }).click();
    await p.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
    // The deletion is followed in the task list, its log open.
    await p.getByRole('heading', { name: 'Tasks' }).waitFor();
    await expect(p.locator('[data-testid=task]').getAttribute('data-status')).resolves.toMatch(/running|ok/);
    await p.locator('[data-testid=task][data-status=ok]').waitFor({ timeout: PATIENCE_MS });
    await waitFor(async () => (await treeItem(p, 'qemu/101').count()) === 0, { timeoutMs: PATIENCE_MS, what: 'VM 101 gone from the tree' });
    expect((await api.send('/nodes/host1/qemu/101/config')).status).toBe(404);
    await p.context().close();
  });

  it('creates a container through its wizard, starts it, stops it and deletes it', async () => {
    const p = await page();
    await logIn(p, origin, 'root@pam', ROOT_PASSWORD);
    await p.getByRole('link', { name: 'Create CT' }).click();
    await waitFor(async () => (await p.locator('#vmid').inputValue()) !== '', { timeoutMs: 10_000, what: 'the next free id' });
    await p.locator('#vmid').fill('200');
    await p.getByLabel('Host name').fill('ct1');
    await p.getByLabel('Root password').fill('container-password');
    await p.getByLabel('Unprivileged container').uncheck();
    await p.getByRole('button', { name: 'Template' }).click();
    await expect(p.locator('#template').inputValue()).resolves.toBe('local:vztmpl/busybox.tar.gz');
    await p.getByRole('button', { name: 'Root disk' }).click();
    await p.getByLabel('Size (GiB)').fill('0.5');
    await p.getByRole('button', { name: 'CPU and memory' }).click();
    await p.getByLabel('Memory (MiB)').fill('64');
    await p.getByRole('button', { name: 'Review' }).click();
    await p.getByRole('button', { name: 'Create' }).click();
    await p.locator('[data-testid=task][data-status=ok]').waitFor({ timeout: PATIENCE_MS });
    await p.getByRole('link', { name: 'Open Container 200' }).click();
    await expect(p.getByTestId('guest-status').textContent()).resolves.toBe('stopped');

    await p.getByRole('button', { name: 'Start', exact: true }).click();
    await p.locator('[data-testid=guest-status]', { hasText: 'running' }).waitFor({ timeout: PATIENCE_MS });
    expect(data<{ status: string; name: string }>(await api.send('/nodes/host1/lxc/200/status/current'))).toMatchObject({
      status: 'running',
      name: 'ct1',
    });
    await p.getByRole('button', { name: 'Stop', exact: true }).click();
    await p.getByRole('dialog').getByRole('button', { name: 'Stop', exact: true }).click();
    await p.locator('[data-testid=guest-status]', { hasText: 'stopped' }).waitFor({ timeout: PATIENCE_MS });
    await p.getByRole('button', { name: 'Delete', exact: true }).click();
    await p.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
    // The deletion is followed in the task list, its log open.
    await p.getByRole('heading', { name: 'Tasks' }).waitFor();
    await p.locator('[data-testid=task][data-status=ok]', { hasText: 'vzdestroy 200: OK' }).waitFor({ timeout: PATIENCE_MS });
    expect((await api.send('/nodes/host1/lxc/200/config')).status).toBe(404);
    await p.context().close();
  });

  it('creates a user, grants a role with a refused path first, and shows a new token secret once', async () => {
    const p = await page();
    await logIn(p, origin, 'root@pam', ROOT_PASSWORD);
    await p.getByRole('link', { name: 'Access' }).click();
    await p.getByRole('button', { name: 'Add to users' }).click();
    await p.getByLabel('User (name@realm)').fill('auditor@pve');
    await p.getByLabel('Password').fill(AUDITOR_PASSWORD);
    await p.getByRole('button', { name: 'Add', exact: true }).click();
    await p.getByTestId('list-users').getByText('auditor@pve').waitFor();

    await p.getByRole('tab', { name: 'Permissions' }).click();
    await p.getByRole('button', { name: 'Add to permissions' }).click();
    await p.locator('#path').fill('/nonsense');
    await p.locator('#users').selectOption('auditor@pve');
    await p.locator('#roles').selectOption('PVEAuditor');
    await p.getByRole('button', { name: 'Add', exact: true }).click();
    const pathHelp = p.locator('.pf-v6-c-form__group', { has: p.locator('#path') }).locator('.pf-v6-c-helper-text__item.pf-m-error');
    await expect(pathHelp.textContent()).resolves.toContain("invalid ACL path '/nonsense'");
    await p.locator('#path').fill('/vms/100');
    await p.getByRole('button', { name: 'Add', exact: true }).click();
    await p.getByTestId('list-permissions').getByText('auditor@pve (user)').waitFor();
    await screenshot(p, 'access');
    expect(data<{ path: string; ugid: string; roleid: string }[]>(await api.send('/access/acl'))).toContainEqual(
      expect.objectContaining({ path: '/vms/100', ugid: 'auditor@pve', roleid: 'PVEAuditor' }),
    );

    await p.getByRole('tab', { name: 'API tokens' }).click();
    await p.getByRole('button', { name: 'Add to api tokens' }).click();
    await p.getByLabel('Token id').fill('console');
    await p.getByRole('button', { name: 'Add', exact: true }).click();
    await expect(p.getByTestId('token-secret').textContent()).resolves.toContain('root@pam!console');
    const secret = await p.getByTestId('token-secret').locator('input').inputValue();
    const withToken = await cp.api.send('/access/users', { headers: { authorization: `PVEAPIToken=root@pam!console=${secret}` } });
    expect(withToken.status).toBe(200);
    await p.context().close();
  });

  it('shows an unprivileged user what they may see, with power actions disabled', async () => {
    const p = await page();
    await logIn(p, origin, 'auditor@pve', AUDITOR_PASSWORD);
    await treeItem(p, 'qemu/100').click();
    await p.getByText('You may look at this guest, not start or stop it').waitFor();
    await expect(p.getByRole('link', { name: 'Create VM' }).count()).resolves.toBe(0);
    await expect(p.getByRole('button', { name: 'Start', exact: true }).isDisabled()).resolves.toBe(true);
    await expect(treeItem(p, 'qemu/100').textContent()).resolves.toContain('100 (web1)');
    await p.context().close();
  });

  it('has a dark theme, and works on a narrow screen with the tree behind its toggle', async () => {
    const p = await page({ width: 390, height: 844 });
    await logIn(p, origin, 'root@pam', ROOT_PASSWORD);
    await p.getByRole('button', { name: 'Dark theme' }).click();
    await waitFor(async () => ((await p.locator('html').getAttribute('class')) ?? '').includes('pf-v6-theme-dark'), {
      timeoutMs: 5_000,
      what: 'the dark theme',
    });
    await p.getByRole('button', { name: 'Resource tree' }).click();
    await treeItem(p, 'qemu/100').click();
    await waitFor(() => p.getByRole('button', { name: 'Start', exact: true }).isEnabled(), { timeoutMs: 5_000, what: 'Start offered' });
    await screenshot(p, 'narrow-dark');
    await p.context().close();
  });
});
