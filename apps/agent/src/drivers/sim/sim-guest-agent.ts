import { QGA_COMMANDS, type GuestSpec, type ParamsOf } from '@corral/protocol';
import { CommandFailure } from '../../host/command-failure.js';
import { GUEST_AGENT_NOT_RUNNING } from '../guest-messages.js';
import { guestAgentOptions } from '../qga-config.js';
import type { SimGuest } from './sim-state.js';

/** What a simulated VM's guest agent knows of it: its cards' MACs, recorded at its start when its config enables the agent. */
export function simulatedAgent(guest: GuestSpec): Pick<SimGuest, 'agent'> {
  if (guest.type !== 'qemu' || !guestAgentOptions(guest.config['agent']).enabled) return {};
  return { agent: { macs: guest.nics.map((nic) => nic.mac.toLowerCase()) } };
}

const GIB = 1024 ** 3;

/**
 * The simulator's guest agent: plausible answers, in QGA's shapes, from a Debian guest that runs
 * one program at a time to completion. A VM started without `agent: 1` has none: PVE's error.
 */
export class SimGuestAgent {
  private readonly frozen = new Set<number>();
  private readonly exits = new Map<string, { path: string; input: string }>();
  private nextPid = 1000;

  answer(guest: SimGuest, { command, arguments: args }: Omit<ParamsOf<'guest.agent'>, 'vmid'>): unknown {
    if (guest.agent === undefined) throw new CommandFailure('unavailable', GUEST_AGENT_NOT_RUNNING);
    const address = `10.${Math.floor(guest.vmid / 250) % 250}.${guest.vmid % 250}.${2 + (guest.vmid % 200)}`;
    switch (command) {
      case 'guest-ping':
        return {};
      case 'guest-info':
        return {
          version: '7.2.0',
          supported_commands: QGA_COMMANDS.map((name) => ({ name, enabled: true, 'success-response': name !== 'guest-shutdown' })),
        };
      case 'guest-get-osinfo':
        return {
          id: 'debian',
          name: 'Debian GNU/Linux',
          'pretty-name': 'Debian GNU/Linux 12 (bookworm)',
          version: '12 (bookworm)',
          'version-id': '12',
          'kernel-release': '6.1.0-18-amd64',
          'kernel-version': '#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1',
          machine: 'x86_64',
        };
      case 'guest-get-host-name':
        return { 'host-name': guest.name };
      case 'guest-get-time':
        return Date.now() * 1_000_000;
      case 'guest-get-timezone':
        return { offset: 0, zone: 'UTC' };
      case 'guest-get-users':
        return [];
      case 'guest-get-vcpus':
        return [{ 'logical-id': 0, online: true, 'can-offline': false }];
      case 'guest-get-fsinfo':
        return [
          {
            name: 'sda1',
            mountpoint: '/',
            type: 'ext4',
            'used-bytes': 2 * GIB,
            'total-bytes': 8 * GIB,
            disk: [
              {
                'bus-type': 'scsi',
                bus: 0,
                target: 0,
                unit: 0,
                dev: '/dev/sda1',
                'pci-controller': { domain: 0, bus: 0, slot: 5, function: 0 },
              },
            ],
          },
        ];
      case 'guest-network-get-interfaces':
        return [
          {
            name: 'lo',
            'hardware-address': '00:00:00:00:00:00',
            'ip-addresses': [
              { 'ip-address-type': 'ipv4', 'ip-address': '127.0.0.1', prefix: 8 },
              { 'ip-address-type': 'ipv6', 'ip-address': '::1', prefix: 128 },
            ],
          },
          ...guest.agent.macs.map((mac, index) => ({
            name: `eth${index}`,
            'hardware-address': mac,
            'ip-addresses': index === 0 ? [{ 'ip-address-type': 'ipv4', 'ip-address': address, prefix: 24 }] : [],
          })),
        ];
      case 'guest-fsfreeze-status':
        return this.frozen.has(guest.vmid) ? 'frozen' : 'thawed';
      case 'guest-fsfreeze-freeze':
        this.frozen.add(guest.vmid);
        return 1;
      case 'guest-fsfreeze-thaw':
        return this.frozen.delete(guest.vmid) ? 1 : 0;
      case 'guest-fstrim':
        return { paths: [{ path: '/', trimmed: 0, minimum: 0 }] };
      case 'guest-shutdown':
        return null;
      case 'guest-exec':
        return this.exec(guest.vmid, args);
      case 'guest-exec-status':
        return this.status(guest.vmid, args);
    }
  }

  /** Forgets what a VM's agent held, once the VM stops. */
  forget(vmid: number): void {
    this.frozen.delete(vmid);
    for (const key of this.exits.keys()) if (key.startsWith(`${vmid}:`)) this.exits.delete(key);
  }

  private exec(vmid: number, args: ParamsOf<'guest.agent'>['arguments']): { pid: number } {
    const pid = this.nextPid++;
    const { path, 'input-data': input } = args as { path: string; 'input-data'?: string };
    this.exits.set(`${vmid}:${pid}`, { path, input: input ?? '' });
    return { pid };
  }

  /** The program has exited: `cat` echoes its input, anything else says it is simulated. */
  private status(vmid: number, args: ParamsOf<'guest.agent'>['arguments']): unknown {
    const { pid } = args as { pid: number };
    const run = this.exits.get(`${vmid}:${pid}`);
    if (run === undefined) throw new CommandFailure('failed', `Agent error: Invalid parameter 'pid'`);
    const out = /(?:^|\/)cat$/.test(run.path) ? run.input : Buffer.from(`${run.path}: simulated\n`).toString('base64');
    return { exited: true, exitcode: 0, 'out-data': out };
  }
}
