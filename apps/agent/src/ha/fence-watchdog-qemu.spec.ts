import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GuestSpec } from '@corral/protocol';
import { waitFor } from '@corral/testing';
import { watchdogScript } from '../../test-support/fence-watchdog-process.js';
import { WEB1 } from '../../test-support/guest-specs.js';
import { removeHostRoot } from '../../test-support/host-roots.js';
import type { CommandContext } from '../drivers/command-context.js';
import { NativeQemu } from '../drivers/native/qemu/native-qemu.js';
import { openHost, type Host } from '../host/host.js';
import { jsonLogger } from '../logging/logger.js';
import { FENCE_MARGIN_MS, HaLease } from './ha-lease.js';
import { SelfFence } from './self-fence.js';
import { watchdogLogFile } from './watchdog-pid-file.js';
import { WatchdogSupervisor } from './watchdog-supervisor.js';

const context = (): CommandContext => ({ signal: new AbortController().signal, log: () => undefined });
const vm = (vmid: number): GuestSpec => ({
  ...WEB1,
  vmid,
  name: `watched${vmid}`,
  memoryMiB: 64,
  cores: 1,
  sockets: 1,
  nics: [],
  volumes: [
    {
      key: 'scsi0',
      volid: `local:${vmid}/vm-${vmid}-disk-0.qcow2`,
      path: `/var/lib/vz/images/${vmid}/vm-${vmid}-disk-0.qcow2`,
      format: 'qcow2',
      size: 16 * 1024 * 1024,
    },
  ],
  config: {},
});

/** Gone, or a zombie where PID 1 reaps no orphans: either way no longer running the VM. */
const gone = async (pid: number) => /^$|^\d+ \(.*\) Z/.test(await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => ''));

describe('the fence watchdog on real QEMU (TCG)', () => {
  let dir: string;
  let host: Host;
  let qemu: NativeQemu;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-watchdog-qemu-'));
    host = await openHost(dir);
    qemu = new NativeQemu(host, undefined, { accelerator: 'tcg' });
  });
  afterEach(() => removeHostRoot(dir));

  async function running(vmid: number): Promise<number> {
    await qemu.create({ guest: vm(vmid), allocate: ['scsi0'] }, context());
    await qemu.start(vm(vmid), context());
    const [listed] = await qemu.list(new AbortController().signal);
    return listed?.pid ?? 0;
  }

  it("kills the VM's QEMU (the driver's order: its pid file) at the deadline once the agent is gone, also a QEMU started after the watchdog was told", async () => {
    const order = await qemu.fenceOrder(160);
    expect(order).toEqual({ kind: 'pidfile', path: join(host.root, 'run/corral/qemu/160.pid') });
    const watchdog = spawn(process.execPath, [watchdogScript(), '--host-root', host.root], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    });
    const deadline = process.hrtime.bigint() + 4_000_000_000n;
    watchdog.stdin.end(`${JSON.stringify({ deadlineNs: String(deadline), guests: [{ label: 'VM 160', order }] })}\n`);
    const pid = await running(160);
    expect(await gone(pid)).toBe(false);
    expect(process.hrtime.bigint()).toBeLessThan(deadline);
    await once(watchdog, 'exit');
    expect(process.hrtime.bigint()).toBeGreaterThanOrEqual(deadline);
    await waitFor(() => gone(pid), { timeoutMs: 5000, what: 'QEMU to die' });
    await qemu.destroy(vm(160), context());
  });

  it("and the agent's own self-fence at the same deadline both stop it, neither failing", async () => {
    const pid = await running(161);
    const lines: { level: string; msg: string }[] = [];
    const logger = jsonLogger((line) => lines.push(JSON.parse(line) as { level: string; msg: string }));
    const driver = {
      kill: (_type: unknown, vmid: number, killContext: CommandContext) => qemu.kill(vmid, killContext),
      fenceOrder: (_type: unknown, vmid: number) => qemu.fenceOrder(vmid),
    };
    const fence = new SelfFence(driver, logger);
    const supervisor = new WatchdogSupervisor({ host, driver, logger, script: watchdogScript() });
    const lease = new HaLease({ fence, logger, onRenewed: (deadline, guests) => supervisor.update(deadline, guests) });
    lease.heartbeat();
    lease.grant({ type: 'lease', upTo: 1, ttlMs: FENCE_MARGIN_MS + 1500, guests: [{ type: 'qemu', vmid: 161 }] });
    await supervisor.settled();
    await waitFor(() => lease.fenced, { timeoutMs: 5000, what: 'the self-fence' });
    await fence.settled();
    await waitFor(() => supervisor.pid === undefined, { timeoutMs: 5000, what: 'the watchdog to fence and exit' });
    expect(await gone(pid)).toBe(true);
    const fenced = lines.filter((line) => line.msg.startsWith('self-fence:')).map((line) => line.msg);
    expect(fenced[0]).toMatch(/stopping HA guests VM 161$/);
    expect(fenced.at(-1)).toBe('self-fence: VM 161 stopped');
    // The watchdog may kill first: the agent's own kill then finds the VM gone, which is no failure.
    expect(fenced.slice(1, -1).every((line) => line === 'self-fence: VM 161 is not running')).toBe(true);
    expect(await readFile(watchdogLogFile(host), 'utf8')).toMatch(
      new RegExp(`fence watchdog: VM 161: (SIGKILL sent to pid ${pid}|pid ${pid}.* is gone already|no process: .*161.pid names none)`),
    );
    await qemu.destroy(vm(161), context());
  });
});
