import { Injectable } from '@nestjs/common';
import { ApiError } from '../errors/api-error.js';
import { existingGuest } from '../guests/existing-guest.js';
import type { GuestKind } from '../guests/guest-kinds.js';
import { GuestView } from '../inventory/guests/guest-view.js';
import { NodesService } from '../nodes/nodes.service.js';
import { StoragesService } from '../storage/storages.service.js';
import { type Consolidation, SHOWN, slotOf, type Timeframe } from './history-levels.js';
import { seriesOf } from './history-samples.js';
import { HistoryRepository } from './history.repository.js';

export interface HistoryQuery {
  readonly timeframe: Timeframe;
  readonly cf?: Consolidation | undefined;
}

/** A point as `rrddata` answers it: its interval's start, and the fields that have a value in it. */
export type HistoryPoint = { readonly time: number } & Readonly<Record<string, number>>;

/** `rrddata`: a series' newest points of a time frame, read from the history table (any replica answers). */
@Injectable()
export class HistoryService {
  constructor(
    private readonly repository: HistoryRepository,
    private readonly nodes: NodesService,
    private readonly guests: GuestView,
    private readonly storages: StoragesService,
  ) {}

  node(node: string, query: HistoryQuery): Promise<HistoryPoint[]> {
    return this.points(this.nodeSeries(node), query);
  }

  guest(kind: GuestKind, node: string, vmid: number, query: HistoryQuery): Promise<HistoryPoint[]> {
    return this.points(this.guestSeries(kind, node, vmid), query);
  }

  async storage(node: string, storage: string, query: HistoryQuery): Promise<HistoryPoint[]> {
    return this.points(await this.storageSeries(node, storage), query);
  }

  /** `rrd` of a node, a guest or a storage, once its `series` was found (a 404 otherwise): PVE draws a PNG; Corral answers 501. */
  async graph(series: string | Promise<string>): Promise<never> {
    await series;
    throw new ApiError('NOT_IMPLEMENTED', 'graphs are not built: GET the same path with rrddata in place of rrd for the points');
  }

  /** The node's series, or 404. */
  nodeSeries(node: string): string {
    this.nodes.existing(node);
    return seriesOf.node(node);
  }

  /** The guest's series, or 404: unknown, another kind, or on another node. */
  guestSeries(kind: GuestKind, node: string, vmid: number): string {
    existingGuest(this.guests, kind, node, vmid);
    return seriesOf.guest(vmid);
  }

  /** The storage's series on the node, or 404: an unknown node or storage, or one not defined for the node. */
  async storageSeries(node: string, storage: string): Promise<string> {
    this.storages.onNode(await this.storages.existing(storage), node);
    return seriesOf.storage(node, storage);
  }

  /** One point per interval of the time frame, the last the one under way; an interval without a stored point has only its `time`. */
  private async points(series: string, { timeframe, cf }: HistoryQuery, now = Date.now() / 1000): Promise<HistoryPoint[]> {
    const { level, points } = SHOWN[timeframe];
    const first = slotOf(level, now) - (points - 1) * level.step;
    const stored = await this.repository.read(series, level, first, cf === 'MAX' ? 'max' : 'avg');
    const bySlot = new Map(stored.map((point) => [point.slot, point.fields]));
    return Array.from({ length: points }, (_, index) => {
      const time = first + index * level.step;
      return { ...bySlot.get(time), time };
    });
  }
}
