import { Inject, Injectable } from '@nestjs/common';
import type { GuestType, LeaseFrame } from '@corral/protocol';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { CONFIG, type Config } from '../config/config.js';
import { LOGGER } from '../logging/loggers.js';

/** One agent session's heartbeat numbers as the lease sees them; kept by its AgentLink, new with each session. */
export interface LeaseCount {
  /** The newest heartbeat `n` received (0: none numbered yet). */
  heard: number;
  /** The `n` of the last lease sent. */
  granted: number;
}

/** A welcomed connection this replica holds, as the liveness tick hands it over. */
export interface LeaseHolder {
  readonly connectionId: string;
  readonly count: LeaseCount;
  readonly send: (frame: LeaseFrame) => void;
}

/**
 * The nodes' HA leases: in each liveness tick,
 * every held connection whose heartbeat `n` rose since its last grant gets `lease_until = now() +
 * CORRAL_HA_LEASE_S` (one UPDATE for all of them), and once that committed, a `lease` frame naming
 * that heartbeat and the node's HA guests. A lease is only ever extended for a new heartbeat: a
 * node whose agent went silent keeps its old `lease_until`, so the HA manager can recover its
 * guests once it passed, knowing that the agent fenced them 5 s before.
 */
@Injectable()
export class AgentLeases {
  private readonly ttlS: number;
  /** The HA guests of the last lease sent to each node's agent, by node. */
  private readonly sent = new Map<string, ReadonlySet<number>>();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(CONFIG) config: Config,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.ttlS = config.haLeaseS;
  }

  /**
   * Whether the last lease this replica sent to the node's agent lists the guest: the HA resource
   * manager starts a guest only then, since its agent refuses an HA start its lease does not cover.
   */
  covers(node: string, vmid: number): boolean {
    return this.sent.get(node)?.has(vmid) === true;
  }

  /** Grants the due leases of `holders` and sends them; never throws (a failed write is retried at the next tick). */
  async renew(holders: readonly LeaseHolder[]): Promise<void> {
    // The numbers are taken before the write: the lease then counts from a moment after each heartbeat arrived.
    const due = holders.flatMap((holder) => (holder.count.heard > holder.count.granted ? [{ holder, upTo: holder.count.heard }] : []));
    if (due.length === 0) return;
    let granted: Map<string, { node: string; guests: { type: GuestType; vmid: number }[] }>;
    try {
      granted = await this.dataSource.transaction(async (db) => {
        const [rows] = (await db.query(
          'UPDATE "nodes" SET "lease_until" = now() + make_interval(secs => $2) WHERE "connection" = ANY($1) AND "online" RETURNING "name", "connection"',
          [due.map((each) => each.holder.connectionId), this.ttlS],
        )) as [{ name: string; connection: string }[], number];
        const byNode = new Map(rows.map((row) => [row.name, { node: row.name, guests: [] as { type: GuestType; vmid: number }[] }]));
        const guests = (await db.query(
          `SELECT g.node, g.type, g.vmid FROM ha_resources r JOIN guests g USING (vmid) WHERE r.state <> 'ignored' AND g.node = ANY($1) ORDER BY g.vmid`,
          [[...byNode.keys()]],
        )) as { node: string; type: GuestType; vmid: number }[];
        for (const guest of guests) byNode.get(guest.node)?.guests.push({ type: guest.type, vmid: guest.vmid });
        return new Map(rows.map((row) => [row.connection, byNode.get(row.name) ?? { node: row.name, guests: [] }]));
      });
    } catch (error) {
      this.logger.warn({ err: error }, 'cannot renew the HA leases');
      return;
    }
    const ttlMs = this.ttlS * 1000;
    for (const { holder, upTo } of due) {
      const lease = granted.get(holder.connectionId);
      if (lease === undefined) continue;
      holder.count.granted = upTo;
      holder.send({ type: 'lease', upTo, ttlMs, guests: lease.guests });
      this.sent.set(lease.node, new Set(lease.guests.map((guest) => guest.vmid)));
    }
  }
}
