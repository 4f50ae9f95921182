import { orphanEnd, REPLICA_STOPPED } from './orphan-ends.js';

const SENT = Date.parse('2026-11-28T10:00:00Z');
const request = (fields: Partial<Parameters<typeof orphanEnd>[0][number]> = {}) => ({
  node: 'alpha',
  command: 'guest.shutdown',
  endsTask: true,
  timeoutMs: 120_000,
  sent: new Date(SENT),
  lines: [],
  answer: null,
  ...fields,
});

describe('the end of a task whose replica is gone', () => {
  it('is the answer to its last step: OK for a result, the error the task would have ended with for a failure', () => {
    const lines = [{ n: 1, text: 'powering down' }];
    expect(orphanEnd([request({ lines, answer: { result: null } })], SENT + 1000)).toEqual({ lines: ['powering down'], exitstatus: 'OK' });
    expect(orphanEnd([request({ answer: { failure: { code: 'failed', message: 'VM 100 is not running' } } })], SENT)).toEqual({
      lines: [],
      exitstatus: 'VM 100 is not running',
    });
    expect(orphanEnd([request({ answer: { gone: 'its agent restarted' } })], SENT)).toEqual({
      lines: [],
      exitstatus: "node 'alpha' went away before it answered guest.shutdown (its agent restarted)",
    });
  });

  it('waits while the last step may still be answered, then ends at its timeout', () => {
    expect(orphanEnd([request()], SENT + 120_000)).toBeNull();
    expect(orphanEnd([request()], SENT + 126_000)).toEqual({
      lines: [],
      exitstatus: "node 'alpha' did not answer guest.shutdown within 120 s",
    });
  });

  it('is the replica stopping when the task was elsewhere than at its last step, with the lines its agents sent', () => {
    expect(orphanEnd([], SENT)).toEqual({ lines: [], exitstatus: REPLICA_STOPPED });
    const step = request({
      endsTask: false,
      command: 'guest.migrate.receive',
      lines: [{ n: 1, text: 'receiving' }],
      answer: { result: null },
    });
    expect(orphanEnd([step], SENT)).toEqual({ lines: ['receiving'], exitstatus: REPLICA_STOPPED });
    // A last step its agent says it never got: the replica stopped before sending it.
    expect(orphanEnd([request({ answer: { lost: 'the replica that asked stopped before sending it' } })], SENT)).toEqual({
      lines: [],
      exitstatus: REPLICA_STOPPED,
    });
  });
});
