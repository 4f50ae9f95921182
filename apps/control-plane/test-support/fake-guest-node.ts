import type { GuestRuntime, RequestFrame } from '@corral/protocol';
import type { FakeAgent, FakeAnswer } from '@corral/testing';

/**
 * A fake agent's node that runs and moves VMs as the real ones report it: what it runs goes up in a
 * runtime report, with a vm-start or vm-stop event for each guest that appears or goes (the agent
 * cannot tell a migration from a start), before the command's result. The commands in `failing`
 * fail; `set` makes a VM appear or go as a crash would.
 */
export class FakeGuestNode {
  agent!: FakeAgent;
  readonly asked: RequestFrame[] = [];
  readonly failing = new Set<string>();
  readonly running = new Map<number, GuestRuntime>();

  constructor(private readonly pid: number) {}

  answer(request: RequestFrame): FakeAnswer {
    this.asked.push(request);
    if (this.failing.has(request.command)) return { failure: 'failed', message: `${request.command} failed on purpose` };
    const params = request.params as { guest?: { vmid: number }; online?: boolean; state?: string };
    const vmid = params.guest?.vmid ?? 0;
    switch (request.command) {
      case 'guest.start':
        this.set(vmid, 'running');
        return { result: null };
      case 'guest.stop':
      case 'guest.shutdown':
        this.set((request.params as { vmid: number }).vmid, undefined);
        return { result: null };
      case 'guest.migrate.receive':
        if (params.online === true) this.set(vmid, 'paused');
        return { result: params.online === true ? { nbdPort: 40123, migrationPort: 40124 } : { nbdPort: 40123 } };
      case 'guest.migrate.send': {
        const state = this.running.get(vmid)?.status ?? 'stopped';
        this.set(vmid, undefined);
        return { result: { state } };
      }
      case 'guest.migrate.finish':
        if (params.state === 'running') this.set(vmid, 'running');
        return { result: null };
      case 'guest.migrate.abort':
        this.set(vmid, undefined);
        return { result: null };
      default:
        return { result: null };
    }
  }

  set(vmid: number, status: 'running' | 'paused' | undefined): void {
    const was = this.running.has(vmid);
    if (status === undefined) this.running.delete(vmid);
    else this.running.set(vmid, { vmid, type: 'qemu', status, pid: this.pid, uptime: 1, cpu: 0.01, mem: 64 * 1024 * 1024 });
    this.agent.send({ type: 'report', payload: { kind: 'runtime', guests: [...this.running.values()] } });
    if (was !== this.running.has(vmid)) this.agent.send({ type: 'event', event: was ? 'vm-stop' : 'vm-start', vmid, timestamp: new Date().toISOString() });
  }
}
