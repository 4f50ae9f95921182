import type { InventoryReport } from '@corral/protocol';
import type { OutgoingFrame } from '../connection/outbox.js';
import type { Inventory } from '../host/inventory.js';
import type { Logger } from '../logging/logger.js';

/**
 * Sends the node's inventory (`report` of kind `inventory`) while a connection is live: read every
 * interval, sent when it differs from the last one sent. The inventory's own polling decides how
 * often it changes; a new connection gets one report at once, as it may reach another replica.
 */
export class InventoryReports {
  private timer: NodeJS.Timeout | undefined;
  private lastSent: string | undefined;
  /** Counts starts and stops, so that a read that ends after a stop sends nothing. */
  private generation = 0;
  private reading = false;

  constructor(
    private readonly inventory: Pick<Inventory, 'read'>,
    private readonly emit: (frame: OutgoingFrame) => void,
    private readonly logger: Logger,
  ) {}

  start(intervalMs: number): void {
    this.stop();
    this.lastSent = undefined;
    void this.tick();
    this.timer = setInterval(() => void this.tick(), intervalMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.generation += 1;
  }

  private async tick(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    const generation = this.generation;
    try {
      const payload: InventoryReport = { kind: 'inventory', ...(await this.inventory.read()) };
      const text = JSON.stringify(payload);
      if (generation !== this.generation || text === this.lastSent) return;
      this.emit({ type: 'report', payload });
      this.lastSent = text;
    } catch (error) {
      this.logger.warn('cannot report the inventory', { error });
    } finally {
      this.reading = false;
    }
  }
}
