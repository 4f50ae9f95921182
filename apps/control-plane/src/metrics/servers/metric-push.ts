import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from 'pino';
import { AgentHub } from '../../agents/agent-hub.js';
import { GuestView } from '../../inventory/guests/guest-view.js';
import { NodeView, type NodeState } from '../../inventory/nodes/node-view.js';
import { StorageView } from '../../inventory/storage/storage-view.js';
import { LOGGER } from '../../logging/loggers.js';
import { graphiteLines } from './graphite-lines.js';
import { influxLines } from './influx-lines.js';
import { ExportGenerations } from './metric-export.js';
import { readObjects, type MetricObject } from './metric-objects.js';
import { MetricOutbox, type FlushOutcome } from './metric-outbox.js';
import { DEFAULTS } from './metric-server-settings.js';
import type { MetricServerRow } from './metric-server.entity.js';
import type { ExportedMetric } from './metric-servers.endpoints.js';
import { MetricServersRepository } from './metric-servers.repository.js';

/** How often the figures are read and sent: PVE's status daemon sends them every 10 s too. */
const READ_EVERY_MS = 10_000;
/** How long the readings are kept for the export after it was last asked for: as long as it keeps them. */
const EXPORT_IN_USE_S = 30 * 60;

interface Sender {
  readonly outbox: MetricOutbox;
  /** Why its last flush failed, as recorded; null: it worked. */
  error: string | null;
}

/**
 * Every 10 s, reads the figures of the nodes whose agents this replica holds, of their guests and of
 * their storages from the in-memory views (the agents' newest reports), and sends them to each
 * enabled metric server through the server's outbox, so a slow or dead server delays nothing but its
 * own sends; a server's status (its `error`) is written when the outcome of its sends changes. While
 * `/cluster/metrics/export` is in use, it reads every node's figures and keeps them for it. With no
 * server and no export, a tick is one small query.
 */
@Injectable()
export class MetricPush implements OnApplicationBootstrap, OnModuleDestroy {
  readonly generations = new ExportGenerations();
  private readonly senders = new Map<string, Sender>();
  private timer: NodeJS.Timeout | undefined;
  private flushes = new Set<Promise<void>>();
  /** When the export was last asked for (epoch seconds). */
  private exportAskedAt = -Infinity;

  constructor(
    private readonly nodes: NodeView,
    private readonly guests: GuestView,
    private readonly storages: StorageView,
    private readonly hub: AgentHub,
    private readonly repository: MetricServersRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(Date.now() / 1000), READ_EVERY_MS).unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.flushes);
  }

  /**
   * The kept readings: the newest, or (`history`) all kept; of the nodes named, or (`local-only`)
   * held here. The first call in 30 minutes reads the figures at once; from then on, every tick
   * keeps them, until the export has not been asked for in 30 minutes.
   */
  exported(
    query: { history?: boolean; 'local-only'?: boolean; 'node-list'?: readonly string[]; 'start-time'?: number },
    now = Date.now() / 1000,
  ): ExportedMetric[] {
    this.exportAskedAt = now;
    const newest = this.generations.newest();
    if (newest === undefined || now - newest >= READ_EVERY_MS / 1000) this.generations.add(now, this.read(this.nodes.list()));
    const named = query['node-list'] !== undefined ? new Set(query['node-list']) : undefined;
    const held = (name: string) => this.hub.holds(name) && (named?.has(name) ?? true);
    const nodes = query['local-only'] === true ? new Set(this.nodes.list().flatMap((node) => (held(node.name) ? [node.name] : []))) : named;
    return this.generations.query({ history: query.history ?? false, startTime: query['start-time'] ?? 0, ...(nodes ? { nodes } : {}) });
  }

  /**
   * Reads the figures at `now` (epoch seconds): those of the nodes held here, for the enabled metric
   * servers, and while the export is in use every node's, for it; then sends. Settles when the sends
   * it started have; never throws.
   */
  async tick(now: number): Promise<void> {
    const exporting = now - this.exportAskedAt < EXPORT_IN_USE_S;
    let servers: MetricServerRow[] = [];
    try {
      servers = await this.repository.enabled();
    } catch (error) {
      this.logger.warn({ err: error }, 'cannot read the metric servers');
    }
    for (const id of this.senders.keys()) if (!servers.some((server) => server.id === id)) this.senders.delete(id);
    if (!exporting && servers.length === 0) return;
    let held: MetricObject[];
    try {
      const nodes = this.nodes.list();
      if (exporting) {
        const objects = this.read(nodes);
        this.generations.add(now, objects);
        held = objects.filter((object) => this.hub.holds(object.node));
      } else held = this.read(nodes.filter((node) => this.hub.holds(node.name)));
    } catch (error) {
      this.logger.warn({ err: error }, 'cannot read the figures for the metric servers');
      return;
    }
    const influx = servers.some((server) => server.type === 'influxdb') ? held.flatMap((object) => influxLines(object, now)) : [];
    const started = servers.map((server) => {
      const sender = this.senderOf(server);
      sender.outbox.queue(
        server.type === 'influxdb'
          ? influx
          : held.flatMap((object) => graphiteLines(object, now, server.settings.path ?? DEFAULTS.graphitePath)),
      );
      return this.flush(server.id, sender);
    });
    await Promise.all(started);
  }

  private read(nodes: readonly NodeState[]): MetricObject[] {
    return readObjects(nodes, { guestsOn: (node) => this.guests.onNode(node), storages: this.storages.list() });
  }

  /** The server's sender, made on its first tick, sending with its current settings. */
  private senderOf(server: MetricServerRow): Sender {
    const destination = { type: server.type, settings: server.settings, token: server.token };
    let sender = this.senders.get(server.id);
    if (sender === undefined) this.senders.set(server.id, (sender = { outbox: new MetricOutbox(destination), error: server.error }));
    else sender.outbox.destination = destination;
    return sender;
  }

  private flush(id: string, sender: Sender): Promise<void> {
    const flush = sender.outbox
      .flush()
      .then((outcome) => this.record(id, sender, outcome))
      .catch((error: unknown) => this.logger.warn({ err: error, server: id }, 'cannot record the status of a metric server'))
      .finally(() => this.flushes.delete(flush));
    this.flushes.add(flush);
    return flush;
  }

  private async record(id: string, sender: Sender, outcome: FlushOutcome): Promise<void> {
    if (outcome === null) return;
    const error = outcome.sent ? null : outcome.error;
    if (error === sender.error) return;
    if (error === null) this.logger.info({ server: id }, 'the metric server takes the figures again');
    else
      this.logger.warn(
        { server: id, error, pending: sender.outbox.pendingLines, dropped: sender.outbox.dropped },
        'cannot send the figures to a metric server',
      );
    sender.error = error;
    await this.repository.setError(id, error);
  }
}
