import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { recordEvent } from '../../../events/record-event.js';
import type { HaCrmState, HaRequestedState } from '../../../inventory/ha/ha-resource.entity.js';
import type { Candidate } from './recovery-target.js';

/** An HA resource with where its guest is, as a manager round sees it. */
export interface ManagedGuest {
  readonly vmid: number;
  readonly type: 'vm' | 'ct';
  readonly state: HaRequestedState;
  readonly crmState: HaCrmState;
  readonly group: string | null;
  readonly maxRestart: number;
  readonly restarts: number;
  readonly maxRelocate: number;
  readonly relocations: number;
  readonly node: string;
  readonly nodeOnline: boolean;
  /** The node's lease passed unrenewed (or it never had one): its agent has stopped its HA guests by now. */
  readonly leaseExpired: boolean;
  readonly leaseUntil: Date | null;
}

/** The SQL of the HA manager and of the local resource managers. */
@Injectable()
export class HaManagerRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Every HA resource not `ignored`, with its guest's node and that node's state. */
  async managed(): Promise<ManagedGuest[]> {
    const rows = (await this.dataSource.query(
      `SELECT r."vmid", r."type", r."state", r."crm_state", r."group", r."max_restart", r."restarts", r."max_relocate", r."relocations", g."node", n."online",
              n."lease_until", n."lease_until" IS NULL OR n."lease_until" < now() AS "expired"
       FROM "ha_resources" r JOIN "guests" g USING ("vmid") JOIN "nodes" n ON n."name" = g."node"
       WHERE r."state" <> 'ignored' ORDER BY r."vmid"`,
    )) as {
      vmid: number;
      type: 'vm' | 'ct';
      state: HaRequestedState;
      crm_state: HaCrmState;
      group: string | null;
      max_restart: number;
      restarts: number;
      max_relocate: number;
      relocations: number;
      node: string;
      online: boolean;
      lease_until: Date | null;
      expired: boolean;
    }[];
    return rows.map((row) => ({
      vmid: row.vmid,
      type: row.type,
      state: row.state,
      crmState: row.crm_state,
      group: row.group,
      maxRestart: row.max_restart,
      restarts: row.restarts,
      maxRelocate: row.max_relocate,
      relocations: row.relocations,
      node: row.node,
      nodeOnline: row.online,
      leaseExpired: row.expired,
      leaseUntil: row.lease_until,
    }));
  }

  /** Sets the manager state of resources whose state is another, with `event` in the same transaction; returns those changed. */
  async setCrmState(
    vmids: readonly number[],
    crmState: HaCrmState,
    event?: (db: EntityManager, changed: readonly number[]) => Promise<void>,
  ): Promise<number[]> {
    if (vmids.length === 0) return [];
    return this.dataSource.transaction(async (db) => {
      const [rows] = (await db.query(
        'UPDATE "ha_resources" SET "crm_state" = $2 WHERE "vmid" = ANY($1) AND "crm_state" <> $2 RETURNING "vmid"',
        [[...vmids], crmState],
      )) as [{ vmid: number }[], number];
      const changed = rows.map((row) => row.vmid);
      if (changed.length > 0 && event) await event(db, changed);
      return changed;
    });
  }

  /** Back to a settled state: errors and failed starts forgotten (from `error`, PVE asks for `disabled` first). */
  async settle(vmid: number, crmState: HaCrmState): Promise<void> {
    await this.dataSource.query('UPDATE "ha_resources" SET "crm_state" = $2, "restarts" = 0 WHERE "vmid" = $1', [vmid, crmState]);
  }

  /** The nodes online now, each with how many of `managed` it holds: where a guest may go. */
  async candidates(managed: readonly ManagedGuest[]): Promise<Candidate[]> {
    const load = new Map<string, number>();
    for (const guest of managed) load.set(guest.node, (load.get(guest.node) ?? 0) + 1);
    const rows = (await this.dataSource.query('SELECT "name" FROM "nodes" WHERE "online" ORDER BY "name"')) as { name: string }[];
    return rows.map((row) => ({ node: row.name, haGuests: load.get(row.name) ?? 0 }));
  }

  /** A start ran on the guest's node: failed ones counted against `max_restart`, a success clears the counts. */
  async started(
    vmid: number,
    ok: boolean,
  ): Promise<{ restarts: number; maxRestart: number; relocations: number; maxRelocate: number } | null> {
    const [rows] = (await this.dataSource.query(
      `UPDATE "ha_resources" SET "restarts" = CASE WHEN $2 THEN 0 ELSE "restarts" + 1 END, "relocations" = CASE WHEN $2 THEN 0 ELSE "relocations" END
       WHERE "vmid" = $1 RETURNING "restarts", "max_restart", "relocations", "max_relocate"`,
      [vmid, ok],
    )) as [{ restarts: number; max_restart: number; relocations: number; max_relocate: number }[], number];
    const row = rows[0];
    return row
      ? { restarts: row.restarts, maxRestart: row.max_restart, relocations: row.relocations, maxRelocate: row.max_relocate }
      : null;
  }

  /** The guest is moved to another node after its failed starts: one relocation more, its restarts counted afresh there. */
  async relocated(vmid: number): Promise<void> {
    await this.dataSource.query('UPDATE "ha_resources" SET "relocations" = "relocations" + 1, "restarts" = 0 WHERE "vmid" = $1', [vmid]);
  }

  /** Records an HA event of its own transaction. */
  async event(event: Parameters<typeof recordEvent>[1]): Promise<void> {
    await this.dataSource.transaction((db) => recordEvent(db, event));
  }

  /** The manager's round: the holder's row written (its `since` kept while it stays the holder). */
  async round(holder: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO "ha_manager" ("id", "holder", "since", "last_round") VALUES (1, $1, now(), now())
       ON CONFLICT ("id") DO UPDATE SET "holder" = $1, "last_round" = now(), "since" = CASE WHEN "ha_manager"."holder" = $1 THEN "ha_manager"."since" ELSE now() END`,
      [holder],
    );
  }
}
