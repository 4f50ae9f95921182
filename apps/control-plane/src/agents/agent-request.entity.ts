import type { LogLine } from '@corral/protocol';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { StoredAnswer } from './stored-answer.js';

/**
 * A command a task sent to a node's agent, from before it was sent until its answer was handled:
 * what lets another replica take the answer when the agent moved there (docs/scale-out.md, "Answers
 * of an agent that moved").
 */
@Entity({ name: 'agent_requests' })
@Index('IDX_agent_requests_upid', ['upid'])
// The unanswered requests of a node: answered `gone` when its agent restarts or goes offline.
@Index('IDX_agent_requests_unanswered', ['node'], { where: '"answer" IS NULL' })
export class AgentRequestRow {
  /** The request frame's id. */
  @PrimaryColumn('text')
  id!: string;

  /** The task it works for. */
  @Column('text')
  upid!: string;

  @Column('text')
  node!: string;

  /** The agent session it was sent to: another session never answers it. */
  @Column('text')
  session!: string;

  @Column('text')
  command!: string;

  /** The task's last step: its answer is the task's end, even when the replica running the task is gone. */
  @Column('boolean', { name: 'ends_task' })
  endsTask!: boolean;

  @Column('integer', { name: 'timeout_ms' })
  timeoutMs!: number;

  @Column('timestamptz', { default: () => 'now()' })
  sent!: Date;

  /** Output lines that reached a replica that was not waiting for them, in order. */
  @Column('jsonb', { default: () => `'[]'` })
  lines!: LogLine[];

  /** The answer, once one reached a replica that was not waiting for it (or the agent's session ended). */
  @Column('jsonb', { nullable: true })
  answer!: StoredAnswer | null;
}
