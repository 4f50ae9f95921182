import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { DatabaseNotifications } from '../database/notifications.js';
import { LOGGER } from '../logging/loggers.js';
import type { AgentLink, HandedRequests } from './agent-link.js';
import { AGENT_ANSWERS_CHANNEL, AgentRequestsRepository } from './agent-requests.repository.js';
import type { AnswerFrame, RecordedCommand } from './pending-requests.js';

/**
 * Answers that cross replicas (docs/scale-out.md, "Answers of an agent that moved"): the requests
 * of tasks are recorded before they are sent; an answer (or output lines) that reaches a replica
 * where no request waits for it is stored in the request's record and notified; the replica whose
 * link waits for it takes it from there. A task whose replica is gone is ended with the stored
 * answer by the sweep of orphaned tasks.
 */
@Injectable()
export class AgentAnswers implements HandedRequests {
  private links: ReadonlyMap<string, AgentLink> = new Map();

  constructor(
    private readonly requests: AgentRequestsRepository,
    notifications: DatabaseNotifications,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    // null: notifications may have been missed, so every request waiting here looks for its answer.
    notifications.subscribe(AGENT_ANSWERS_CHANNEL, (id) => void this.stored(id));
  }

  /** Hands stored answers to `links`, the link of each node whose agent session this replica holds or held. */
  start(links: ReadonlyMap<string, AgentLink>): void {
    this.links = links;
  }

  record(node: string, session: string, request: RecordedCommand): Promise<void> {
    return this.requests.record({ ...request, node, session });
  }

  forget(id: string): void {
    this.requests.forget(id).catch((error: unknown) => this.logger.warn({ err: error, id }, 'cannot forget an answered agent request'));
  }

  async stray(node: string, frame: AnswerFrame): Promise<void> {
    if (frame.type === 'log') await this.requests.storeLines(node, frame.id, frame.lines);
    else
      await this.requests.storeAnswer(
        node,
        frame.id,
        frame.type === 'result' ? { result: frame.result } : { failure: { code: frame.code, message: frame.message } },
      );
  }

  /** The answer to request `id` was stored (null: any may have been): the link waiting for it here takes it. */
  private async stored(id: string | null): Promise<void> {
    const waiting = new Map<string, AgentLink>();
    for (const link of this.links.values()) for (const each of link.recorded()) if (id === null || each === id) waiting.set(each, link);
    if (waiting.size === 0) return;
    try {
      for (const taken of await this.requests.take([...waiting.keys()])) waiting.get(taken.id)?.handOver(taken.id, taken);
    } catch (error) {
      this.logger.warn({ err: error }, 'cannot take the answers other replicas stored; the requests wait for their timeouts');
    }
  }
}
