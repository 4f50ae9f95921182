import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { EventFrame, GuestRuntime } from '@corral/protocol';
import type { Logger } from 'pino';
import type { EntityManager } from 'typeorm';
import { AgentHub } from '../agents/agent-hub.js';
import { DatabaseNotifications } from '../database/notifications.js';
import { LOGGER } from '../logging/loggers.js';
import type { GuestRow } from './guest.entity.js';
import { GUESTS_CHANNEL, GuestsRepository } from './guests.repository.js';

/** A guest as the hot reads show it: its row, and the live run state where this replica holds its agent. */
export interface GuestState {
  readonly row: GuestRow;
  /** The newest runtime report's entry; absent when the guest is stopped or its agent is held elsewhere. */
  readonly runtime: GuestRuntime | undefined;
}

/**
 * Every guest, in memory (DESIGN.md "State": `/cluster/resources` and the guest lists never query
 * per node). Rows are loaded at start and reloaded on NOTIFY `corral_guests`; the run state comes
 * from the runtime reports of the agents this replica holds. A changed run state is written to the
 * guest's row (so other replicas show it); a start or stop is written with its event, in the
 * event's transaction.
 */
@Injectable()
export class GuestView implements OnModuleInit {
  private guests = new Map<number, GuestRow>();
  private readonly runtime = new Map<number, GuestRuntime>();

  constructor(
    private readonly repository: GuestsRepository,
    @Inject(LOGGER) private readonly logger: Logger,
    notifications: DatabaseNotifications,
    hub: AgentHub,
  ) {
    notifications.subscribe(GUESTS_CHANNEL, (vmid) => void (vmid === null ? this.reloadAllLogged() : this.reload(Number(vmid))));
    hub.onGuests({ runtime: (node, guests) => this.report(node, guests), event: (db, node, frame) => this.event(db, node, frame) });
  }

  async onModuleInit(): Promise<void> {
    await this.reloadAll();
  }

  get(vmid: number): GuestState | undefined {
    const row = this.guests.get(vmid);
    return row && { row, runtime: this.runtime.get(vmid) };
  }

  list(): GuestState[] {
    return [...this.guests.values()].map((row) => ({ row, runtime: this.runtime.get(row.vmid) }));
  }

  /** Reloads one guest now: a change this replica made shows in its next response, not only after the notification. */
  async reload(vmid: number): Promise<void> {
    try {
      const row = await this.repository.get(vmid);
      if (row) this.guests.set(vmid, row);
      else {
        this.guests.delete(vmid);
        this.runtime.delete(vmid);
      }
    } catch (error) {
      this.logger.warn({ err: error, vmid }, 'cannot reload a guest; reloading all');
      await this.reloadAllLogged();
    }
  }

  private async report(node: string, guests: readonly GuestRuntime[]): Promise<void> {
    const reported = new Map(guests.map((guest) => [guest.vmid, guest]));
    for (const row of this.guests.values()) {
      if (row.node !== node) continue;
      const runtime = reported.get(row.vmid);
      if (runtime && runtime.status !== 'stopped') this.runtime.set(row.vmid, runtime);
      else this.runtime.delete(row.vmid);
      const status = runtime?.status ?? 'stopped';
      if (status === row.status) continue;
      try {
        this.guests.set(row.vmid, await this.repository.update(row.vmid, async () => ({ status })));
      } catch (error) {
        this.logger.warn({ err: error, vmid: row.vmid }, 'cannot save the run state of a guest');
      }
    }
  }

  private async event(db: EntityManager, node: string, frame: EventFrame): Promise<void> {
    const status = frame.event === 'vm-start' || frame.event === 'ct-start' ? 'running' : frame.event === 'vm-stop' || frame.event === 'ct-stop' ? 'stopped' : undefined;
    if (status === undefined) return;
    await this.repository.setStatus(db, frame.vmid, node, status);
  }

  private async reloadAllLogged(): Promise<void> {
    await this.reloadAll().catch((error: unknown) => this.logger.warn({ err: error }, 'cannot reload the guests'));
  }

  private async reloadAll(): Promise<void> {
    this.guests = new Map((await this.repository.all()).map((row) => [row.vmid, row]));
  }
}
