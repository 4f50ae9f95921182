import { Injectable } from '@nestjs/common';
import { DataSource, In, type EntityManager } from 'typeorm';
import { NodeRow, type NodeInventory } from './node.entity.js';

/** The channel that carries the name of a node whose row changed to every replica. */
export const NODES_CHANNEL = 'corral_nodes';

/** The nodes table. Writes that other replicas must see notify NODES_CHANNEL in their transaction. */
@Injectable()
export class NodesRepository {
  constructor(private readonly dataSource: DataSource) {}

  all(): Promise<NodeRow[]> {
    return this.dataSource.manager.find(NodeRow, { order: { name: 'ASC' } });
  }

  byName(name: string): Promise<NodeRow | null> {
    return this.dataSource.manager.findOneBy(NodeRow, { name });
  }

  /** The rows of those of `names` that exist. */
  named(names: readonly string[]): Promise<NodeRow[]> {
    return this.dataSource.manager.findBy(NodeRow, { name: In([...names]) });
  }

  byCredentialHash(credentialHash: string): Promise<NodeRow | null> {
    return this.dataSource.manager.findOneBy(NodeRow, { credentialHash });
  }

  lock(db: EntityManager, name: string): Promise<NodeRow | null> {
    return db.findOne(NodeRow, { where: { name }, lock: { mode: 'pessimistic_write' } });
  }

  /** A new node, or an existing one taken over by a new agent (a re-join): a fresh credential, not online until it connects. */
  async join(db: EntityManager, name: string, credentialHash: string, existing: boolean): Promise<void> {
    if (existing)
      await db.update(
        NodeRow,
        { name },
        { credentialHash, joinedAt: new Date(), online: false, connection: null, replica: null, lastSeen: null, inventory: null },
      );
    else await db.insert(NodeRow, { name, credentialHash });
    await notifyNode(db, name);
  }

  /**
   * The agent said hello on `connection` of the replica `holder` names, from its address there: the node is online, held by that connection, within the
   * caller's transaction. Resolves true when the node comes back after it was marked offline
   * (not on its first connection since it joined, nor on a reconnect before it was marked offline).
   */
  async connected(
    db: EntityManager,
    name: string,
    connection: string,
    holder: { readonly replica: string; readonly address: string },
    agentVersion: string,
    capabilities: readonly string[],
  ): Promise<boolean> {
    const [rows] = (await db.query(
      `UPDATE "nodes" AS "n" SET "online" = true, "connection" = $2, "replica" = $5, "address" = $6, "last_seen" = now(), "agent_version" = $3, "capabilities" = $4
       FROM (SELECT "name", "online", "last_seen" FROM "nodes" WHERE "name" = $1 FOR UPDATE) AS "before" WHERE "n"."name" = "before"."name"
       RETURNING NOT "before"."online" AND "before"."last_seen" IS NOT NULL AS "back"`,
      [name, connection, agentVersion, [...capabilities], holder.replica, holder.address],
    )) as [{ back: boolean }[], number];
    await notifyNode(db, name);
    return rows[0]?.back === true;
  }

  /** Writes the inventories of several nodes in one transaction, one statement and one commit, and notifies each node. */
  async saveInventories(inventories: ReadonlyMap<string, NodeInventory>): Promise<void> {
    const names = [...inventories.keys()];
    await this.dataSource.transaction(async (db) => {
      await db.query(
        'UPDATE "nodes" AS n SET "inventory" = v."inventory" FROM unnest($1::text[], $2::jsonb[]) AS v("name", "inventory") WHERE n."name" = v."name"',
        [names, names.map((name) => JSON.stringify(inventories.get(name)))],
      );
      await db.query('SELECT pg_notify($1, "name") FROM unnest($2::text[]) AS "name"', [NODES_CHANNEL, names]);
    });
  }

  /**
   * Heartbeats seen on these connections: one write for all of them, every few seconds (not one per
   * heartbeat). Returns the connections that still hold their node; the others were replaced.
   */
  async seen(connections: readonly string[]): Promise<string[]> {
    if (connections.length === 0) return [];
    const [rows] = (await this.dataSource.query(
      'UPDATE "nodes" SET "last_seen" = now() WHERE "connection" = ANY($1) AND "online" RETURNING "connection"',
      [[...connections]],
    )) as [{ connection: string }[], number];
    return rows.map((row) => row.connection);
  }

  /**
   * Marks nodes offline and returns their names: the node held by `connection` (its heartbeats
   * stopped on this replica), or every online node silent for `silentS` seconds (its replica is
   * gone too). Each node changes once, whichever replica asks first: the row lock decides.
   */
  async markOffline(db: EntityManager, which: { readonly connection: string } | { readonly silentS: number }): Promise<string[]> {
    const [rows] = (await db.query(
      'connection' in which
        ? 'UPDATE "nodes" SET "online" = false, "connection" = NULL, "replica" = NULL WHERE "online" AND "connection" = $1 RETURNING "name"'
        : 'UPDATE "nodes" SET "online" = false, "connection" = NULL, "replica" = NULL WHERE "online" AND "last_seen" <= now() - make_interval(secs => $1) RETURNING "name"',
      ['connection' in which ? which.connection : which.silentS],
    )) as [{ name: string }[], number];
    const names = rows.map((row) => row.name);
    for (const name of names) await notifyNode(db, name);
    return names;
  }
}

async function notifyNode(db: EntityManager, name: string): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [NODES_CHANNEL, name]);
}
