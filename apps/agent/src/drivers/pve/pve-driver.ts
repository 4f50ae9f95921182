import type { ContainerInterface, GuestRuntime, GuestSpec, GuestType, ParamsOf } from '@corral/protocol';
import type { Socket } from 'node:net';
import type { CommandContext } from '../command-context.js';
import { CommandFailure } from '../../host/command-failure.js';
import type { FenceOrder } from '../fence-orders.js';
import { ProcessFigures, type Figures } from '../../host/process-figures.js';
import { lastWords, runProgram } from '../../host/run-program.js';
import type { GuestDriver } from '../guest-driver.js';
import { cloneArguments, cloneNicArguments, createArguments, tool } from './pve-arguments.js';
import { PveBackups } from './pve-backups.js';
import { parsePctList, parseQmList, type ListedGuest } from './pve-lists.js';
import { PveMigration } from './pve-migration.js';
import { rootCredentialsOf, writeRootCredentials } from '../root-credentials.js';
import { PveVolumes } from './pve-volumes.js';
import { pveSnapshots } from './pve-snapshots.js';
import { pveInterfaces } from './pve-interfaces.js';
import { pveGuestAgent } from './pve-guest-agent.js';

/** The request's signal bounds a guest operation (a full clone of a large disk takes long); this only catches a hung qm. */
const OPERATION_LIMIT_MS = 24 * 3600_000;
const LIST_LIMIT_MS = 30_000;
const MONITOR_BANNER = /^Entering QEMU Monitor for VM \d+[^\n]*\n/;
const MONITOR_PROMPT = 'qm> ';

/**
 * The `pve` driver, for Proxmox VE hosts: every operation is PVE's own
 * `qm` (VMs) or `pct` (containers) command, run with an argument vector, its output lines going to
 * the task log and its last line becoming the task's end text when it fails (`VM 100 already
 * running`), as in PVE's own tasks. PVE keeps its own copy of each guest's configuration: `create`
 * hands it the control plane's, and `start` starts what PVE has.
 *
 * The run state comes from `qm list --full` and `pct list`, the figures of a VM from its process
 * in the kernel's `/proc` (tests hand in figures read from a directory of their own). `pct list`
 * names no process: containers are reported without pid and figures, and a frozen container as
 * running.
 *
 * `qm monitor` is interactive: the command goes to its standard input, which then ends (the monitor
 * stops at the end of its input), and the answer is its output without the banner and prompts.
 *
 * Only tested against recording stand-ins of `qm`, `pct` and `vzdump`: there is no PVE host here.
 */
export class PveDriver implements GuestDriver {
  readonly name = 'pve';
  readonly migration = new PveMigration((program, args, context) => this.run(program, args, context));
  readonly backups = new PveBackups((program, args, context) => this.run(program, args, context));
  readonly volumes = new PveVolumes((program, args, context) => this.run(program, args, context));
  readonly snapshots = pveSnapshots((program, args, context) => this.run(program, args, context));

  constructor(private readonly figures = new ProcessFigures()) {}

  /** `qm create` / `pct create`; root's password hash and keys are then written into the container's mounted root, since pct takes only a plain password. */
  async create(params: ParamsOf<'guest.create'>, context: CommandContext): Promise<void> {
    await this.run(tool(params.guest.type), createArguments(params), context);
    const credentials = rootCredentialsOf(params);
    if (params.guest.type === 'lxc' && credentials !== undefined)
      await this.inMountedRoot(params.guest.vmid, (rootfs) => writeRootCredentials(rootfs, credentials), context);
  }

  async start(guest: GuestSpec, context: CommandContext): Promise<void> {
    await this.run(tool(guest.type), ['start', String(guest.vmid)], context);
  }

  async stop(type: GuestType, vmid: number, context: CommandContext): Promise<void> {
    await this.run(tool(type), ['stop', String(vmid)], context);
  }

  /**
   * PVE's own hard stop: `qm stop` quits QEMU over QMP (killing it if it does not exit), `pct stop`
   * kills the container; `--skiplock` so that a backup's or migration's lock does not refuse it.
   */
  async kill(type: GuestType, vmid: number, context: CommandContext): Promise<void> {
    const [program, ...args] = killArgv(type, vmid);
    await this.run(program, args, context);
  }

  /** The same hard stop, run by the fence watchdog; a second `qm stop` waits for the first one's lock, then finds the guest stopped. */
  async fenceOrder(type: GuestType, vmid: number): Promise<FenceOrder> {
    return { kind: 'run', argv: killArgv(type, vmid) };
  }

  async shutdown({ type, vmid, timeout, forceStop }: ParamsOf<'guest.shutdown'>, context: CommandContext): Promise<void> {
    await this.run(
      tool(type),
      ['shutdown', String(vmid), '--timeout', String(timeout), ...(forceStop ? ['--forceStop', '1'] : [])],
      context,
    );
  }

  async reboot({ guest, timeout }: ParamsOf<'guest.reboot'>, context: CommandContext): Promise<void> {
    await this.run(tool(guest.type), ['reboot', String(guest.vmid), '--timeout', String(timeout)], context);
  }

  async reset(vmid: number, context: CommandContext): Promise<void> {
    await this.run('qm', ['reset', String(vmid)], context);
  }

  async suspend(type: GuestType, vmid: number, context: CommandContext): Promise<void> {
    await this.run(tool(type), ['suspend', String(vmid)], context);
  }

  async resume(type: GuestType, vmid: number, context: CommandContext): Promise<void> {
    await this.run(tool(type), ['resume', String(vmid)], context);
  }

  async destroy(guest: GuestSpec, context: CommandContext): Promise<void> {
    await this.run(tool(guest.type), ['destroy', String(guest.vmid), '--purge'], context);
  }

  async clone(params: ParamsOf<'guest.clone'>, context: CommandContext): Promise<void> {
    const program = tool(params.target.type);
    await this.run(program, cloneArguments(params), context);
    const nics = cloneNicArguments(params);
    if (nics.length > 0) await this.run(program, nics, context);
  }

  async template(guest: GuestSpec, context: CommandContext): Promise<void> {
    await this.run(tool(guest.type), ['template', String(guest.vmid)], context);
  }

  /** PVE renders its own files from its config of the VM: `qm cloudinit update` regenerates the drive. */
  async writeCloudinit({ vmid }: ParamsOf<'guest.cloudinit.write'>, context: CommandContext): Promise<void> {
    await this.run('qm', ['cloudinit', 'update', String(vmid)], context);
  }

  async monitor(vmid: number, command: string, context: CommandContext): Promise<string> {
    const said = (await this.run('qm', ['monitor', String(vmid)], { ...context, log: () => undefined }, `${command}\n`)).replace(
      MONITOR_BANNER,
      '',
    );
    const answer = said.startsWith(MONITOR_PROMPT) ? said.slice(MONITOR_PROMPT.length) : said;
    const output = answer.endsWith(MONITOR_PROMPT) ? answer.slice(0, -MONITOR_PROMPT.length) : answer;
    // qm prints a failed command's error and goes on.
    if (output.startsWith('ERROR: ')) throw new Error(output.slice('ERROR: '.length).trim());
    return output;
  }

  guestAgent(params: ParamsOf<'guest.agent'>, context: CommandContext): Promise<unknown> {
    return pveGuestAgent((args, quiet, input) => this.run('qm', args, quiet, input), params, context);
  }

  /** PVE's own answer (`pvesh get .../lxc/<vmid>/interfaces`), read back into the protocol's shape. */
  async containerInterfaces(vmid: number, context: CommandContext): Promise<ContainerInterface[]> {
    const json = await this.run('pvesh', ['get', `/nodes/localhost/lxc/${vmid}/interfaces`, '--output-format', 'json'], {
      ...context,
      log: () => undefined,
    });
    return pveInterfaces(json);
  }

  /** A PVE node serves its VMs' consoles itself. */
  async vnc(): Promise<Socket> {
    throw new CommandFailure('unavailable', "VNC is not available with the pve driver: use the PVE node's own console (its vncproxy)");
  }

  async list(signal: AbortSignal): Promise<GuestRuntime[]> {
    const [vms, containers] = await Promise.all([
      this.read('qm', ['list', '--full'], signal).then(parseQmList),
      this.read('pct', ['list'], signal).then(parsePctList),
    ]);
    this.figures.keepOnly(new Set(vms.flatMap((vm) => (vm.pid === undefined ? [] : [vm.vmid]))));
    const figures = await Promise.all(vms.map((vm) => (vm.pid === undefined ? undefined : this.figures.read(vm.vmid, vm.pid))));
    return [...vms.map((vm, index) => runtime('qemu', vm, figures[index])), ...containers.map((container) => runtime('lxc', container))];
  }

  /** Runs a guest operation, its output lines to the task log; fails with its last line, PVE's error (its progress lines go to stderr too). */
  /** Runs `work` on the container's root file system, mounted by `pct mount` where it says (`mounted CT 200 in '/var/lib/lxc/200/rootfs'`). */
  private async inMountedRoot(vmid: number, work: (rootfs: string) => Promise<void>, context: CommandContext): Promise<void> {
    const said = await this.run('pct', ['mount', String(vmid)], context);
    try {
      const rootfs = /in '([^']+)'/.exec(said)?.[1];
      if (rootfs === undefined) throw new Error(`pct mount ${vmid} did not say where it mounted the container: ${said.trim()}`);
      await work(rootfs);
    } finally {
      await this.run('pct', ['unmount', String(vmid)], context);
    }
  }

  private async run(program: string, args: readonly string[], context: CommandContext, input?: string): Promise<string> {
    const output = await runProgram(program, args, { signal: context.signal, onLine: context.log, timeoutMs: OPERATION_LIMIT_MS, input });
    if (output.code !== 0) throw new Error(lastWords(output, 1));
    return output.stdout;
  }

  private async read(program: string, args: readonly string[], signal: AbortSignal): Promise<string> {
    const output = await runProgram(program, args, { signal, timeoutMs: LIST_LIMIT_MS });
    if (output.code !== 0) throw new Error(`${program} ${args.join(' ')} failed: ${lastWords(output)}`);
    return output.stdout;
  }
}

/** A listed guest as the agent reports it; without figures (a container, a stopped VM, a process gone meanwhile) they are 0. */
function runtime(type: GuestType, guest: ListedGuest, figures?: Figures): GuestRuntime {
  return {
    vmid: guest.vmid,
    type,
    status: guest.status,
    ...(guest.pid === undefined ? {} : { pid: guest.pid }),
    uptime: 0,
    cpu: 0,
    mem: 0,
    ...figures,
  };
}

function killArgv(type: GuestType, vmid: number): [string, ...string[]] {
  return [tool(type), 'stop', String(vmid), '--skiplock', '1'];
}
