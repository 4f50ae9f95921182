import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { fillSecrets } from '../webhooks/header-templates.js';
import { DeliveriesRepository, type ClaimedDelivery, type QueueHead } from './deliveries.repository.js';
import type { DeliverySettings } from './delivery-settings.js';
import { retryDelayMs } from './retry-schedule.js';
import { signatureOf } from './signature.js';
import { postWebhook, type WebhookRequest } from './webhook-request.js';
import { WorkLoop } from './work-loop.js';

/** The secret whose value keys `X-Corral-Signature`. */
const SIGNING_SECRET = 'signing';

/**
 * The workers that send deliveries (docs/webhooks.md "Delivery"): each pass claims the due heads
 * of the delivery queues, one per (webhook, ordering key), and sends them without waiting for
 * one another, at most `perWebhook` at a time to one webhook and `inFlight` in all, so a receiver
 * that hangs holds up only its own queues. Every replica runs one; claims keep them from sending
 * one queue twice at once (DeliveriesRepository.claim). Woken by new deliveries on any replica
 * (their NOTIFY), by a finished request, and when the soonest retry is due.
 */
export class WebhookSender {
  private readonly loop: WorkLoop;
  /** Requests in flight, in all and by webhook. */
  private readonly sending = new Set<Promise<void>>();
  private readonly busy = new Map<string, number>();

  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly settings: DeliverySettings,
    private readonly logger: Logger,
  ) {
    this.loop = new WorkLoop(
      () => this.sendDue(),
      (error) => {
        logger.warn({ err: error }, 'webhooks: cannot read the deliveries; trying again');
        return settings.pollMs;
      },
    );
  }

  wake(): void {
    this.loop.wake();
  }

  /** Claims nothing more, and lets the requests under way end (each within its timeout), so their results are recorded. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.sending]);
  }

  /** Claims and starts what is due and has room; resolves with the wait until the soonest retry. */
  private async sendDue(): Promise<number> {
    const room = this.settings.inFlight - this.sending.size;
    if (room <= 0) return this.settings.pollMs;
    const heads = await this.repository.heads(room * 4);
    const chosen: QueueHead[] = [];
    const counts = new Map(this.busy);
    let wait = this.settings.pollMs;
    for (const head of heads) {
      if (head.dueInMs > 0) {
        wait = Math.min(wait, head.dueInMs);
        break;
      }
      const count = counts.get(head.webhook) ?? 0;
      if (chosen.length === room || count >= this.settings.perWebhook) continue;
      counts.set(head.webhook, count + 1);
      chosen.push(head);
    }
    const token = randomUUID();
    const claimed = await this.repository.claim(
      chosen.map((head) => head.id),
      token,
      this.settings.leaseGraceMs,
    );
    if (claimed.length === 0) return wait;
    const secrets = await this.repository.secretsOf([...new Set(claimed.map((delivery) => delivery.webhook))]);
    for (const delivery of claimed) this.start(delivery, token, secrets.get(delivery.webhook) ?? new Map<string, Buffer>());
    return wait;
  }

  private start(delivery: ClaimedDelivery, token: string, secrets: ReadonlyMap<string, Buffer>): void {
    this.busy.set(delivery.webhook, (this.busy.get(delivery.webhook) ?? 0) + 1);
    const sending: Promise<void> = this.send(delivery, token, secrets).finally(() => {
      const left = (this.busy.get(delivery.webhook) ?? 1) - 1;
      if (left === 0) this.busy.delete(delivery.webhook);
      else this.busy.set(delivery.webhook, left);
      this.sending.delete(sending);
      this.loop.wake();
    });
    this.sending.add(sending);
  }

  /** One attempt, and its record; a record that cannot be written leaves the claim to expire, and the delivery is sent again. */
  private async send(delivery: ClaimedDelivery, token: string, secrets: ReadonlyMap<string, Buffer>): Promise<void> {
    const outcome = await postWebhook(requestOf(delivery, secrets, Math.floor(Date.now() / 1000)));
    // URLs and headers may hold credentials: the log names the webhook and the delivery only.
    const log = this.logger.child({ webhook: delivery.webhook, delivery: delivery.id, eventSeq: delivery.eventSeq });
    try {
      const state = await this.repository.record(
        delivery.id,
        token,
        outcome,
        retryDelayMs(delivery.attempts + 1, this.settings),
        this.settings.retryWindowMs,
      );
      if (outcome.kind === 'delivered') log.debug({ status: outcome.status }, 'webhook: delivered');
      else if (state === 'failed')
        log.warn({ error: outcome.error }, 'webhook: delivery failed for good; the next one of its queue goes on');
      else log.debug({ error: outcome.error }, 'webhook: attempt failed; retrying');
    } catch (error) {
      log.warn({ err: error }, 'webhook: cannot record an attempt; the delivery will be sent again');
    }
  }
}

/** The request of one attempt: the event's body, Corral's headers, the webhook's own (secrets filled in). */
function requestOf(delivery: ClaimedDelivery, secrets: ReadonlyMap<string, Buffer>, timestamp: number): WebhookRequest {
  const key = secrets.get(SIGNING_SECRET);
  const headers: Record<string, string> = {};
  for (const header of delivery.headers) headers[header.name] = fillSecrets(header.value, secrets);
  return {
    url: delivery.url,
    headers: {
      ...headers,
      'content-type': 'application/json',
      'user-agent': 'Corral-Webhook/1',
      'x-corral-event-id': delivery.eventId,
      'x-corral-event-seq': String(delivery.eventSeq),
      'x-corral-delivery': delivery.id,
      'x-corral-timestamp': String(timestamp),
      ...(key !== undefined ? { 'x-corral-signature': signatureOf(key, timestamp, delivery.body) } : {}),
    },
    body: delivery.body,
    timeoutMs: delivery.timeoutS * 1000,
    allowLocal: delivery.allowLocal,
  };
}
