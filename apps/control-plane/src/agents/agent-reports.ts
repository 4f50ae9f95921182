import { Injectable } from '@nestjs/common';
import type { EventFrame, ReportFrame } from '@corral/protocol';
import { DataSource, type EntityManager } from 'typeorm';
import { recordEvent } from '../events/record-event.js';
import { NodeView } from '../inventory/nodes/node-view.js';
import type { NodeFrames } from './agent-link.js';
import type { RuntimeUpdate } from '../inventory/guests/runtime-update.js';
import { NodeRuntimes } from './node-runtimes.js';

/** What the guests area does with an agent's guest frames (`AgentHub.onGuests`). */
export interface GuestListener {
  /** A runtime report: every guest the node's driver knows, with its run state, which of them it changed, and the guests being made. */
  runtime(node: string, update: RuntimeUpdate): Promise<void>;
  /**
   * A guest event, inside the transaction that writes it to the event table; resolves false when
   * the frame is no event of the guest (a migrating VM appears on its target and leaves its source
   * without starting or stopping), which is then not written.
   */
  event(db: EntityManager, node: string, frame: EventFrame): Promise<boolean>;
}

/**
 * The reports and events of the agents this replica holds, and who follows them: an inventory
 * goes to the node view, a runtime report (applied to the node's run state, `NodeRuntimes`) to the
 * guest listeners, and an event to the event table
 * (`(session, seq)` in its details, its `origin` when a new agent process sends it again), inside
 * the transaction that also gives it to the guest listeners. An event whose `(node, session, seq)`
 * is in the table already is not written again: it arrived twice (its ack was lost with a
 * connection, a replica, or an agent process).
 */
@Injectable()
export class AgentReports implements NodeFrames {
  private readonly guestListeners: GuestListener[] = [];
  private readonly runtimes = new NodeRuntimes();

  constructor(
    private readonly dataSource: DataSource,
    private readonly view: NodeView,
  ) {}

  onGuests(listener: GuestListener): void {
    this.guestListeners.push(listener);
  }

  async handle(node: string, session: string, frame: ReportFrame | EventFrame): Promise<void> {
    if (frame.type === 'report') {
      if (frame.payload.kind === 'inventory') {
        const { kind: _kind, ...inventory } = frame.payload;
        this.view.report(node, inventory);
        return;
      }
      const update = this.runtimes.apply(node, session, frame.seq, frame.payload);
      if (update !== undefined) for (const listener of this.guestListeners) await listener.runtime(node, update);
      return;
    }
    // Its identity: where a previous agent process first sent it, else this session's number.
    const { session: from, seq } = frame.origin ?? { session, seq: frame.seq };
    await this.dataSource.transaction(async (db) => {
      // One node's events are checked and written one at a time across replicas: two replicas may
      // handle the same event at once, when its agent moved from one to the other before the ack.
      await db.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [AGENT_EVENTS_LOCK_CLASS, node]);
      if (await recorded(db, node, from, seq)) return;
      for (const listener of this.guestListeners) if (!(await listener.event(db, node, frame))) return;
      await recordEvent(db, {
        event: frame.event,
        node,
        vmid: frame.vmid,
        timestamp: new Date(frame.timestamp),
        details: { session: from, seq },
      });
    });
  }
}

/** The class of the per-node advisory locks that serialize agent events (the two-key form: apart from every single-key lock). */
const AGENT_EVENTS_LOCK_CLASS = 0x61657674; // "aevt" in ASCII

/** Whether the event table holds the agent event `(node, session, seq)`. */
async function recorded(db: EntityManager, node: string, session: string, seq: number): Promise<boolean> {
  const rows = (await db.query(
    `SELECT 1 FROM "events" WHERE "node" = $1 AND "details" ? 'seq' AND "details"->>'session' = $2 AND "details"->>'seq' = $3 LIMIT 1`,
    [node, session, String(seq)],
  )) as unknown[];
  return rows.length > 0;
}
