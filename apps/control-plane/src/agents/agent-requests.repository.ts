import { Injectable } from '@nestjs/common';
import type { LogLine } from '@corral/protocol';
import { DataSource, In, type EntityManager } from 'typeorm';
import { AgentRequestRow } from './agent-request.entity.js';
import type { StoredAnswer } from './stored-answer.js';

/** Notified with a request's id when its answer was stored: the replica waiting for it takes it. */
export const AGENT_ANSWERS_CHANNEL = 'corral_agent_answers';

/** A task's request as recorded before it is sent. */
export type RecordedRequest = Pick<AgentRequestRow, 'id' | 'upid' | 'node' | 'session' | 'command' | 'endsTask' | 'timeoutMs'>;

/** A request whose answer was stored, with the lines that came before it. */
export type TakenAnswer = Pick<AgentRequestRow, 'id' | 'lines'> & { readonly answer: StoredAnswer };

/**
 * The agent_requests table: each command a task sends to an agent is recorded before it is sent
 * and forgotten once its answer was handled. An answer that reaches a replica that was not waiting
 * for it (the agent moved) is stored in its row and notified, for the replica that waits, or for
 * the end of a task whose replica is gone.
 */
@Injectable()
export class AgentRequestsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async record(request: RecordedRequest): Promise<void> {
    await this.dataSource.manager.insert(AgentRequestRow, request);
  }

  async forget(id: string): Promise<void> {
    await this.dataSource.manager.delete(AgentRequestRow, { id });
  }

  /** Output lines of the node's request `id` that reached this replica, which does not wait for them; false when no such request is recorded. */
  async storeLines(node: string, id: string, lines: readonly LogLine[]): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `UPDATE "agent_requests" SET "lines" = "lines" || $3::jsonb WHERE "id" = $1 AND "node" = $2 AND "answer" IS NULL RETURNING "id"`,
      [id, node, JSON.stringify(lines)],
    )) as unknown[][];
    return (rows[0]?.length ?? 0) > 0;
  }

  /** The answer to the node's request `id`, which this replica does not wait for: stored and notified; false when no such request waits for one. */
  async storeAnswer(node: string, id: string, answer: StoredAnswer): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `WITH stored AS (
         UPDATE "agent_requests" SET "answer" = $3::jsonb WHERE "id" = $1 AND "node" = $2 AND "answer" IS NULL RETURNING "id"
       )
       SELECT pg_notify('${AGENT_ANSWERS_CHANNEL}', "id") FROM stored`,
      [id, node, JSON.stringify(answer)],
    )) as unknown[];
    return rows.length > 0;
  }

  /**
   * Answers `gone` every unanswered request of the nodes that was sent to another session than
   * `session` (every session, without it), in the caller's transaction: their agent restarted or
   * went offline, and will never answer them.
   */
  async abandon(db: EntityManager, nodes: readonly string[], why: string, session?: string): Promise<void> {
    if (nodes.length === 0) return;
    await db.query(
      `WITH gone AS (
         UPDATE "agent_requests" SET "answer" = $2::jsonb
         WHERE "node" = ANY($1) AND "answer" IS NULL AND "session" IS DISTINCT FROM $3 RETURNING "id"
       )
       SELECT pg_notify('${AGENT_ANSWERS_CHANNEL}', "id") FROM gone`,
      [nodes, JSON.stringify({ gone: why } satisfies StoredAnswer), session ?? null],
    );
  }

  /**
   * Answers `lost` the unanswered requests of the node's `session` that are not in `known` (what its
   * agent said it runs or holds answers to, and what this replica still waits to send), in the
   * caller's transaction: the agent never got them, and nothing will answer them.
   */
  async lose(db: EntityManager, node: string, session: string, known: readonly string[], why: string): Promise<void> {
    await db.query(
      `WITH lost AS (
         UPDATE "agent_requests" SET "answer" = $4::jsonb
         WHERE "node" = $1 AND "session" = $2 AND "answer" IS NULL AND NOT ("id" = ANY($3)) RETURNING "id"
       )
       SELECT pg_notify('${AGENT_ANSWERS_CHANNEL}', "id") FROM lost`,
      [node, session, known, JSON.stringify({ lost: why } satisfies StoredAnswer)],
    );
  }

  /** Those of the requests `ids` whose answer is stored, with their lines; their rows are removed. */
  async take(ids: readonly string[]): Promise<TakenAnswer[]> {
    if (ids.length === 0) return [];
    const rows = (await this.dataSource.query(
      `DELETE FROM "agent_requests" WHERE "id" = ANY($1) AND "answer" IS NOT NULL RETURNING "id", "lines", "answer"`,
      [ids],
    )) as [TakenAnswer[], number];
    return rows[0];
  }

  /** The recorded requests of the tasks. */
  ofTasks(upids: readonly string[]): Promise<AgentRequestRow[]> {
    if (upids.length === 0) return Promise.resolve([]);
    return this.dataSource.manager.find(AgentRequestRow, { where: { upid: In([...upids]) }, order: { sent: 'ASC' } });
  }
}
