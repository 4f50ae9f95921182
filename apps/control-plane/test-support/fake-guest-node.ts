import type { GuestRuntime, GuestType, RequestFrame } from '@corral/protocol';
import type { FakeAgent, FakeAnswer } from '@corral/testing';
import { joinNode, onlineAgent } from './node-fixture.js';
import type { Type } from '@nestjs/common';
import { startTestApp, type TestApp } from './test-app.js';

/**
 * A fake agent's node that runs and moves guests as the real ones report it: a vm-/ct-start or -stop
 * event for each guest that appears or goes (the agent cannot tell a migration from a start), then
 * what it runs in a runtime report, before the command's result. The commands in `failing`
 * fail; `set` makes a VM appear or go as a crash would.
 */
export class FakeGuestNode {
  agent!: FakeAgent;
  readonly asked: RequestFrame[] = [];
  readonly failing = new Set<string>();
  readonly running = new Map<number, GuestRuntime>();
  /** Each guest's type, as the requests name it (VMs unless one said otherwise). */
  private readonly types = new Map<number, GuestType>();

  constructor(private readonly pid: number) {}

  /** Joins the node `name` and brings its fake agent online, answering as this node. */
  async join(t: TestApp, name: string): Promise<void> {
    this.agent = await onlineAgent(t, name, await joinNode(t, name), { answer: (request) => this.answer(request) });
  }

  /** Forgets what it was asked, and lets every command succeed again: before each test. */
  reset(): void {
    this.asked.length = 0;
    this.failing.clear();
  }

  /** The commands it was asked, in order. */
  commands(): string[] {
    return this.asked.map((request) => request.command);
  }

  answer(request: RequestFrame): FakeAnswer {
    this.asked.push(request);
    if (this.failing.has(request.command)) return { failure: 'failed', message: `${request.command} failed on purpose` };
    const params = request.params as { guest?: { vmid: number; type: GuestType }; online?: boolean; state?: string; type?: GuestType };
    const vmid = params.guest?.vmid ?? 0;
    const type = params.guest?.type ?? params.type;
    if (type !== undefined) this.types.set(params.guest?.vmid ?? (request.params as { vmid: number }).vmid, type);
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
    const type = this.types.get(vmid) ?? 'qemu';
    if (status === undefined) this.running.delete(vmid);
    else this.running.set(vmid, { vmid, type, status, pid: this.pid, uptime: 1, cpu: 0.01, mem: 64 * 1024 * 1024 });
    const prefix = type === 'qemu' ? 'vm' : 'ct';
    if (was !== this.running.has(vmid))
      this.agent.send({ type: 'event', event: was ? `${prefix}-stop` : `${prefix}-start`, vmid, timestamp: new Date().toISOString() });
    this.agent.send({ type: 'report', payload: { kind: 'runtime', guests: [...this.running.values()] } });
  }
}

/** A test app of these modules with each fake node joined under its name: for migrations between them. */
export async function startWithFakeNodes(imports: Type[], nodes: Readonly<Record<string, FakeGuestNode>>): Promise<TestApp> {
  const t = await startTestApp({ imports });
  for (const [name, node] of Object.entries(nodes)) await node.join(t, name);
  return t;
}

/** Closes the fake agents, then the app. */
export async function closeWithFakeNodes(t: TestApp, nodes: Readonly<Record<string, FakeGuestNode>>): Promise<void> {
  for (const node of Object.values(nodes)) node.agent.close();
  await t.close();
}
