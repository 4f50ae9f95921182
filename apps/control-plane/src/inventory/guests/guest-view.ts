import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { EventFrame, GuestRuntime } from '@corral/protocol';
import type { Logger } from 'pino';
import type { EntityManager } from 'typeorm';
import { DatabaseNotifications } from '../../database/notifications.js';
import { recordEvent } from '../../events/record-event.js';
import { LOGGER } from '../../logging/loggers.js';
import type { GuestRow } from './guest.entity.js';
import { GUESTS_CHANNEL, GuestsRepository } from './guests.repository.js';
import { SerialLoads } from '../../database/serial-loads.js';
import type { RuntimeUpdate } from './runtime-update.js';

/** A guest as the hot reads show it: its row, and the live run state (from its agent's replica). */
export interface GuestState {
  readonly row: GuestRow;
  /** The newest runtime report's entry; absent when the guest is stopped or no current report of its node is known. */
  readonly runtime: GuestRuntime | undefined;
}

/**
 * Every guest, in memory (`/cluster/resources` and the guest lists never query
 * per node). Rows are loaded at start and reloaded on NOTIFY `corral_guests`, one load at a time;
 * the run state comes from the runtime reports of the agents this replica holds, which the agents
 * area hands to `report` and `event`, and the live figures of the others' from the reports their
 * replicas share (`showReport`). A changed run state is written to the guest's row (so other
 * replicas show it); a start or stop is written with its event, in the event's transaction.
 *
 * A guest's row `status` is the control plane's record of its run state, and every change between
 * stopped and started comes with its event: from the agent's event, or, when a report shows a change
 * whose event never came (it was lost, or happened while the agent was down), a reconciled one.
 *
 * A migrating guest (locked `migrate`) keeps the run state it had until the migration's end moves
 * its row: its VM leaves the source before the row names the target, and neither is a stop or a
 * start. Each node's last report is kept, so that the row, once moved, shows the target's figures at once (and its status with the target's next report).
 */
@Injectable()
export class GuestView implements OnModuleInit {
  /** Each guest's state, an object replaced (never changed) when its row or run state changes. */
  private readonly guests = new Map<number, GuestState>();
  /** The vmids of each node's rows. */
  private readonly onNodes = new Map<string, Set<number>>();
  /** Every guest's state in vmid order, and each vmid's place in it, until a guest comes or goes. */
  private sorted: { readonly states: GuestState[]; readonly places: ReadonlyMap<number, number> } | undefined;
  /** Each node's run state from its last runtime report, by vmid. */
  private readonly reports = new Map<string, ReadonlyMap<number, GuestRuntime>>();
  /** The nodes whose last report came from another replica (`showReport`). */
  private readonly shown = new Set<string>();
  private readonly loads: SerialLoads<number>;

  constructor(
    private readonly repository: GuestsRepository,
    @Inject(LOGGER) private readonly logger: Logger,
    notifications: DatabaseNotifications,
  ) {
    this.loads = new SerialLoads({ some: (vmids) => this.load(vmids), all: () => this.reloadAll() }, (error) =>
      this.logger.warn({ err: error }, 'cannot reload the guests'),
    );
    notifications.subscribe(GUESTS_CHANNEL, (vmid) => this.loads.ask(vmid === null ? null : Number(vmid)));
  }

  async onModuleInit(): Promise<void> {
    await this.reloadAll();
  }

  get(vmid: number): GuestState | undefined {
    return this.guests.get(vmid);
  }

  /** Every guest, by vmid: the view's own list, kept until a guest comes or goes (a changed guest's state is replaced in it). */
  list(): readonly GuestState[] {
    if (this.sorted === undefined) {
      const states = [...this.guests.values()].sort((a, b) => a.row.vmid - b.row.vmid);
      this.sorted = { states, places: new Map(states.map((state, place) => [state.row.vmid, place])) };
    }
    return this.sorted.states;
  }

  /** The guests on `node`, by vmid. */
  onNode(node: string): GuestState[] {
    return [...(this.onNodes.get(node) ?? [])].sort((a, b) => a - b).flatMap((vmid) => this.guests.get(vmid) ?? []);
  }

  /** Whether a guest on `node` holds a lock, as the view last loaded its row. */
  hasLockOn(node: string): boolean {
    for (const vmid of this.onNodes.get(node) ?? []) if ((this.guests.get(vmid)?.row.lock ?? null) !== null) return true;
    return false;
  }

  /**
   * Reloads one guest: a change this replica made shows in its next response, not only after the
   * notification. Resolves once a load that started after this call has ended.
   */
  reload(vmid: number): Promise<void> {
    return this.loads.ask(vmid);
  }

  /**
   * A runtime report of an agent this replica holds: the guests of `node` it changed (every one,
   * for a whole report) take their run state from the node's. An agent speaks only for its node: a
   * guest it lists that another node hosts (and that is not migrating) is left out and logged.
   */
  async report(node: string, update: RuntimeUpdate): Promise<void> {
    this.reports.set(node, update.guests);
    this.shown.delete(node);
    const vmids = update.changed === 'all' ? [...(this.onNodes.get(node) ?? []), ...update.guests.keys()] : update.changed;
    for (const vmid of new Set(vmids)) {
      const row = this.guests.get(vmid)?.row;
      if (row === undefined) continue;
      if (row.node === node) await this.takeRuntime(row);
      else if (update.guests.has(vmid) && row.lock !== 'migrate')
        this.logger.warn({ node, vmid, host: row.node }, 'refused the run state of a guest its node does not host');
    }
  }

  /**
   * The live figures of `node`'s guests from a report another replica received (the one holding
   * its agent), or none (`[]`) once that report is no longer current: shown, never written (the
   * holder writes the run state). The run state stays the row's: the report was published up to a
   * few seconds ago, and the row is what the holder wrote as it learned a change (before the task
   * that made it ended).
   */
  showReport(node: string, guests: readonly GuestRuntime[]): void {
    this.reports.set(node, new Map(guests.map((guest) => [guest.vmid, guest])));
    this.shown.add(node);
    for (const vmid of this.onNodes.get(node) ?? []) {
      const row = this.guests.get(vmid)?.row;
      if (row !== undefined) this.showRuntime(row);
    }
  }

  /**
   * The guest's run state from its node's last report, written to its row when it changed; a
   * migrating guest's stays. A start or stop the row had not recorded gets its event, marked
   * `reconciled`, in the same transaction.
   */
  private async takeRuntime(row: GuestRow): Promise<void> {
    if (!this.showRuntime(row)) return;
    const status = this.reports.get(row.node)?.get(row.vmid)?.status ?? 'stopped';
    if (status === row.status) return;
    try {
      const updated = await this.repository.update(row.vmid, async (current, db) => {
        if (current.node !== row.node || current.lock === 'migrate') return {};
        const up = status !== 'stopped';
        if (up !== (current.status !== 'stopped')) {
          const event = current.type === 'qemu' ? (up ? 'vm-start' : 'vm-stop') : up ? 'ct-start' : 'ct-stop';
          await recordEvent(db, { event, node: row.node, vmid: row.vmid, details: { reconciled: 1 } });
        }
        return { status };
      });
      this.keep(updated);
    } catch (error) {
      this.logger.warn({ err: error, vmid: row.vmid }, 'cannot save the run state of a guest');
    }
  }

  /**
   * The guest's run figures from its node's last report, in memory; false for a migrating guest,
   * whose stay as they were. A row that was reloaded does not take its status from that report:
   * the report may be older than the change that made the row reload (an event), and the node's
   * next report brings the status. Another replica's report gives only the figures of a guest its
   * row says runs, with the row's run state.
   */
  private showRuntime(row: GuestRow): boolean {
    if (row.lock === 'migrate') return false;
    const runtime = this.reports.get(row.node)?.get(row.vmid);
    const shown = this.shown.has(row.node);
    const up = shown ? row.status !== 'stopped' : runtime?.status !== 'stopped';
    this.hold({ row, runtime: runtime && up ? (shown ? { ...runtime, status: row.status } : runtime) : undefined });
    return true;
  }

  /**
   * A guest event of `node`, within the transaction that records it; false when it is not to be
   * recorded. An agent speaks only for its node: an event about a guest its node does not host (or
   * about no guest at all) is refused and logged. A start or stop of a migrating guest is its VM
   * appearing on the target or leaving the source: no event.
   */
  async event(db: EntityManager, node: string, frame: EventFrame): Promise<boolean> {
    const row = await this.repository.get(frame.vmid, db);
    if (row?.lock === 'migrate') return false;
    if (row?.node !== node) {
      this.logger.warn(
        { node, vmid: frame.vmid, event: frame.event, host: row?.node ?? null },
        'refused an event about a guest its node does not host',
      );
      return false;
    }
    const status =
      frame.event === 'vm-start' || frame.event === 'ct-start'
        ? 'running'
        : frame.event === 'vm-stop' || frame.event === 'ct-stop'
          ? 'stopped'
          : undefined;
    if (status === undefined) return true;
    await this.repository.setStatus(db, frame.vmid, node, status);
    return true;
  }

  /** Loads the rows of `vmids`, replacing what the view held of them. */
  private async load(vmids: readonly number[]): Promise<void> {
    const rows = new Map((await this.repository.some(vmids)).map((row) => [row.vmid, row]));
    for (const vmid of vmids) {
      const row = rows.get(vmid);
      if (row) {
        this.keep(row);
        this.showRuntime(row);
      } else this.forget(vmid);
    }
  }

  private async reloadAll(): Promise<void> {
    const rows = await this.repository.all();
    const present = new Set(rows.map((row) => row.vmid));
    for (const vmid of [...this.guests.keys()]) if (!present.has(vmid)) this.forget(vmid);
    for (const row of rows) this.keep(row);
  }

  /** Holds `row`, in place of the guest's row before, with the run state it had. */
  private keep(row: GuestRow): void {
    const before = this.guests.get(row.vmid);
    if (before !== undefined && before.row.node !== row.node) this.onNodes.get(before.row.node)?.delete(row.vmid);
    this.hold({ row, runtime: before?.runtime });
    const vmids = this.onNodes.get(row.node);
    if (vmids === undefined) this.onNodes.set(row.node, new Set([row.vmid]));
    else vmids.add(row.vmid);
  }

  /** The guest's new state, also in the kept list: in its place, or the list is made again for a new guest. */
  private hold(state: GuestState): void {
    const vmid = state.row.vmid;
    if (!this.guests.has(vmid)) this.sorted = undefined;
    this.guests.set(vmid, state);
    const sorted = this.sorted;
    const place = sorted?.places.get(vmid);
    if (sorted !== undefined && place !== undefined) sorted.states[place] = state;
  }

  private forget(vmid: number): void {
    const row = this.guests.get(vmid)?.row;
    if (row === undefined) return;
    this.guests.delete(vmid);
    this.sorted = undefined;
    this.onNodes.get(row.node)?.delete(vmid);
  }
}
