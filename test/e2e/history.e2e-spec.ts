import { waitFor, type AgentProcess, type ControlPlaneProcess } from '@corral/testing';
import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { diskWritingBootSector } from '../support/boot-sector.js';
import { startOnTestDatabase, testDatabaseUrl } from '../support/control-plane.js';
import { data, guestApi } from '../support/guest-api.js';

const run = promisify(execFile);
const ROOT_PASSWORD = 'history-e2e-root-password';
/** How long anything here may take on a slow, shared machine: never a measure of speed. */
const PATIENCE_MS = 60_000;
/** A bridge of the test's own, the VM's card on it, and the host's address there. */
const BRIDGE = 'corralhist0';
const HOST_ADDRESS = '10.213.77.1';
/**
 * PVE counts a node's traffic on its physical network cards, known by their names (`eth*`, `en*`),
 * and a test cannot make traffic arrive on the machine's own: a veth pair named as Ethernet cards,
 * one end a port of the bridge, stands for them. The broadcasts that reach the VM reach it too.
 */
const NIC_PAIR = ['encorralh0', 'encorralh1'] as const;

type Point = { time: number } & Record<string, number | undefined>;

// The history of a real node and a real VM (QEMU, TCG) through a real agent on the native driver:
// the VM's network boot (iPXE) takes the broadcasts the host sends on its bridge while it asks for
// an address, then it boots a program that keeps its vCPU busy writing its disk; rrddata shows it,
// a point a minute.
describe('the history of a node and a VM on the native driver', () => {
  let cp: ControlPlaneProcess;
  let agent: AgentProcess | undefined;
  let root: string;
  let api: ReturnType<typeof guestApi>;
  let broadcasts: NodeJS.Timeout | undefined;

  const history = async (path: string): Promise<Point[]> =>
    data<Point[]>(await api.send(`${path}/rrddata?timeframe=hour`)).filter((point) => Object.keys(point).length > 1);

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'corral-history-'));
    await run('ip', ['link', 'add', BRIDGE, 'type', 'bridge']);
    await run('ip', ['address', 'add', `${HOST_ADDRESS}/24`, 'dev', BRIDGE]);
    await run('ip', ['link', 'set', BRIDGE, 'up']);
    await run('ip', ['link', 'add', NIC_PAIR[0], 'type', 'veth', 'peer', 'name', NIC_PAIR[1]]);
    await run('ip', ['link', 'set', NIC_PAIR[0], 'master', BRIDGE, 'up']);
    await run('ip', ['link', 'set', NIC_PAIR[1], 'up']);
    cp = await startOnTestDatabase({ databaseUrl: await testDatabaseUrl(), env: { CORRAL_ROOT_PASSWORD: ROOT_PASSWORD } });
    api = guestApi(cp, ROOT_PASSWORD, PATIENCE_MS);
    agent = await api.onlineNativeAgent(root, 'host1');
  }, 2 * PATIENCE_MS);

  afterAll(async () => {
    clearInterval(broadcasts);
    // Guests outlive their agent (as in PVE): the VM is killed here.
    await run('pkill', ['-9', '-f', root]).catch(() => undefined);
    await agent?.kill();
    await cp?.stop();
    await run('ip', ['link', 'del', NIC_PAIR[0]]).catch(() => undefined);
    await run('ip', ['link', 'del', BRIDGE]).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  });

  it(
    'shows a rising cpu and the disk writes of a busy VM, and the traffic of its node, typed as PVE types them',
    async () => {
      expect(
        await api.task('host1', '/nodes/host1/qemu', 'POST', {
          vmid: 100,
          name: 'busy',
          memory: 64,
          scsi0: 'local:0.0625,format=raw',
          net0: `virtio,bridge=${BRIDGE}`,
          boot: 'order=net0;scsi0',
          // TCG on every machine: a host's KVM may open and still not run a guest (nested, as on
          // some test machines), and this guest must run its program.
          kvm: 0,
        }),
      ).toBe('OK');
      const disk = await open(join(root, 'host1/var/lib/vz/images/100/vm-100-disk-0.raw'), 'r+');
      await disk.write(diskWritingBootSector(), 0, 512, 0);
      await disk.close();
      // A point of the VM while it is stopped: its cpu 0.
      await waitFor(async () => (await history('/nodes/host1/qemu/100')).length > 0, {
        timeoutMs: 2 * PATIENCE_MS,
        what: "the stopped VM's first point",
      });

      // Broadcasts on the bridge reach every card on it; the VM's network boot takes them while it asks for an address.
      const socket = createSocket('udp4');
      await new Promise<void>((resolve) => socket.bind(0, HOST_ADDRESS, resolve));
      socket.setBroadcast(true);
      broadcasts = setInterval(() => socket.send(Buffer.alloc(1000), 9, '10.213.77.255'), 20);
      try {
        expect(await api.task('host1', '/nodes/host1/qemu/100/status/start')).toBe('OK');
        let vm: Point[] = [];
        await waitFor(
          async () => {
            vm = await history('/nodes/host1/qemu/100');
            return (
              vm.some((point) => (point['diskwrite'] ?? 0) > 0 && (point['cpu'] ?? 0) > 0.05) &&
              vm.some((point) => (point['netin'] ?? 0) > 0)
            );
          },
          { timeoutMs: 5 * PATIENCE_MS, what: 'points of the VM writing its disk and receiving broadcasts' },
        );
        const cpu = vm.map((point) => point['cpu'] ?? 0);
        expect(cpu[0]).toBe(0);
        expect(Math.max(...cpu)).toBeGreaterThan(0.05);
        for (const point of vm) {
          expect(Number.isInteger(point.time)).toBe(true);
          for (const field of ['cpu', 'maxcpu', 'mem', 'maxmem', 'maxdisk']) expect(typeof point[field]).toBe('number');
        }
        expect(vm.at(-1)).toMatchObject({ maxcpu: 1, maxmem: 64 * 1024 ** 2, maxdisk: 64 * 1024 ** 2 });

        let node: Point[] = [];
        await waitFor(
          async () => {
            node = await history('/nodes/host1');
            return node.some((point) => (point['netin'] ?? 0) > 0 && (point['diskwrite'] ?? 0) > 0);
          },
          { timeoutMs: 2 * PATIENCE_MS, what: "a point of the node's traffic" },
        );
        expect(node.some((point) => (point['cpu'] ?? 0) > 0)).toBe(true);
        for (const field of [
          'cpu',
          'maxcpu',
          'memused',
          'memtotal',
          'rootused',
          'roottotal',
          'loadavg',
          'iowait',
          'netin',
          'netout',
          'diskwrite',
        ])
          expect(typeof node.at(-1)?.[field]).toBe('number');
      } finally {
        clearInterval(broadcasts);
        socket.close();
      }
      expect(await api.task('host1', '/nodes/host1/qemu/100/status/stop')).toBe('OK');
    },
    10 * PATIENCE_MS,
  );
});
