import type { AgentRequestRow } from '../agents/agent-request.entity.js';
import { noAnswer } from '../agents/agent-failure.js';
import { ANSWER_GRACE_MS } from '../agents/pending-requests.js';
import { answerError } from '../agents/stored-answer.js';

/** How a task ends whose replica went away, or stopped before the task did. */
export const REPLICA_STOPPED = 'the control plane replica running this task stopped';

/** The end of a task whose replica is gone: the output lines its agents sent after that, and its status. */
export interface OrphanEnd {
  readonly lines: readonly string[];
  readonly exitstatus: string;
}

/**
 * How a running task of a replica that is gone ends, from its recorded agent requests, at `now`
 * (epoch ms): with the answer to its last step when that step was running (the agent's result is
 * `OK`, its failure the error the task would have ended with), at that step's timeout when no
 * answer came, and with REPLICA_STOPPED when the replica stopped elsewhere in the task or before
 * the last step reached its agent. Null while the last step's answer may still come.
 */
export function orphanEnd(
  requests: readonly Pick<AgentRequestRow, 'node' | 'command' | 'endsTask' | 'timeoutMs' | 'sent' | 'lines' | 'answer'>[],
  now: number,
): OrphanEnd | null {
  const lines = requests.flatMap((request) => request.lines.map((line) => line.text));
  const last = requests.find((request) => request.endsTask);
  // A last step its agent never got: the replica stopped before it was sent.
  if (last === undefined || (last.answer !== null && 'lost' in last.answer)) return { lines, exitstatus: REPLICA_STOPPED };
  const { node, command, answer } = last;
  if (answer === null) {
    if (now < last.sent.getTime() + last.timeoutMs + ANSWER_GRACE_MS) return null;
    return { lines, exitstatus: noAnswer(node, command, last.timeoutMs).message };
  }
  return { lines, exitstatus: 'result' in answer ? 'OK' : answerError(node, command, answer).message };
}
