import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { GuestRuntime } from '@corral/protocol';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { GuestView } from '../inventory/guests/guest-view.js';
import { NodeView } from '../inventory/nodes/node-view.js';
import { LOGGER } from '../logging/loggers.js';
import { ReplicaIdentity } from '../replicas/replica-identity.js';
import { AgentHub } from './agent-hub.js';

/** How often reports are published and the others' read. */
const SHARE_MS = 2000;
/** Each read looks this far back too: a publication that committed late is not missed. */
const OVERLAP_S = 5;

/**
 * The guests' live figures (CPU, memory, uptime, pid) the same on every replica: the replica
 * holding a node's agent publishes the node's newest run state to `node_runtime` (every
 * 2 s, the changed ones in one statement), and every other replica reads the reports published
 * since its last read and shows them. A node's published report counts while the node is online
 * and held by the replica that published it; after that its guests show no live figures here until
 * a current one comes (the run state stays the row's). Only replicas set up to run among others
 * (CORRAL_CLUSTER_SECRET) share: a single replica does not write the table.
 */
@Injectable()
export class SharedRuntime implements OnApplicationBootstrap, OnModuleDestroy {
  /** The run state of the nodes whose agents this replica holds that changed since the last publication, by node. */
  private readonly unpublished = new Map<string, ReadonlyMap<number, GuestRuntime>>();
  /** The node's report shown here that another replica published, by node: which replica published it. */
  private readonly shown = new Map<string, string>();
  /** The nodes whose reports this replica published: shown here from its own reports while it holds them. */
  private readonly held = new Set<string>();
  /** The database's time of the newest report read. */
  private readSince: Date | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly dataSource: DataSource,
    private readonly identity: ReplicaIdentity,
    private readonly nodes: NodeView,
    private readonly guests: GuestView,
    private readonly hub: AgentHub,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.identity.clustered) return;
    this.timer = setInterval(() => {
      this.running = this.running.then(() => this.share());
    }, SHARE_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** The run state of a node whose agent this replica holds, after a report: published (as it is then) at the next turn. */
  published(node: string, guests: ReadonlyMap<number, GuestRuntime>): void {
    if (!this.identity.clustered) return;
    this.unpublished.set(node, guests);
    this.held.add(node);
  }

  /** One turn: publish, read the others', and stop showing what is no longer current. */
  async share(): Promise<void> {
    try {
      await this.publish();
      await this.read();
    } catch (error) {
      this.logger.warn({ err: error }, "cannot share the guests' live figures with the other replicas");
    }
    for (const [node, replica] of this.shown) {
      const state = this.nodes.get(node);
      if (state?.online === true && state.replica === replica) continue;
      this.shown.delete(node);
      // Held here now: this replica's own reports show it.
      if (state?.replica !== this.identity.id) this.guests.showReport(node, []);
    }
    // An agent that moved away: its last report here is no longer current, unless another replica's took its place.
    for (const node of this.held) {
      if (this.hub.holds(node)) continue;
      this.held.delete(node);
      if (!this.shown.has(node)) this.guests.showReport(node, []);
    }
  }

  private async publish(): Promise<void> {
    if (this.unpublished.size === 0) return;
    const reports = [...this.unpublished].map(([node, guests]) => ({ node, guests: [...guests.values()] }));
    this.unpublished.clear();
    await this.dataSource.query(
      `INSERT INTO "node_runtime" ("node", "replica", "guests", "at")
       SELECT r."node", $1, r."guests", now() FROM jsonb_to_recordset($2::jsonb) AS r("node" text, "guests" jsonb)
       ON CONFLICT ("node") DO UPDATE SET "replica" = EXCLUDED."replica", "guests" = EXCLUDED."guests", "at" = EXCLUDED."at"`,
      [this.identity.id, JSON.stringify(reports)],
    );
  }

  private async read(): Promise<void> {
    const rows = (await this.dataSource.query(
      `SELECT "node", "replica", "guests", "at" FROM "node_runtime"
       WHERE "replica" <> $1 AND ($2::timestamptz IS NULL OR "at" > $2::timestamptz - make_interval(secs => $3)) ORDER BY "at"`,
      [this.identity.id, this.readSince, OVERLAP_S],
    )) as { node: string; replica: string; guests: GuestRuntime[]; at: Date }[];
    for (const row of rows) {
      this.readSince = row.at;
      const state = this.nodes.get(row.node);
      if (state?.online !== true || state.replica !== row.replica) continue;
      this.guests.showReport(row.node, row.guests);
      this.shown.set(row.node, row.replica);
    }
  }
}
