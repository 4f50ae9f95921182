import type { CancelFrame, LogLine, RequestFrame } from '@corral/protocol';
import { waitFor } from '@corral/testing';
import { PendingRequests } from './pending-requests.js';

/** Node alpha's pending requests, and what they sent to its agent. */
function pendingOf() {
  const sent: (RequestFrame | CancelFrame)[] = [];
  const pending = new PendingRequests('alpha', (frame) => sent.push(frame));
  /** The id of the request sent last. */
  const lastId = () => sent.findLast((frame) => frame.type === 'request')?.id ?? '';
  return { pending, sent, lastId };
}

describe('the pending requests of an agent session', () => {
  it("ends a request whose result fails its command's schema, and maps the agent's failure to the error that says whose fault it is", async () => {
    const { pending, lastId } = pendingOf();
    const malformed = pending.request('node.dns.get', {}, { timeoutMs: 1000 });
    pending.answer({ type: 'result', seq: 1, id: lastId(), result: { search: 'example.com' } });
    await expect(malformed).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringMatching(/^node 'alpha' answered with a result that fails its schema: node\.dns\.get: /),
    });

    const refused = pending.request('node.dns.get', {}, { timeoutMs: 1000 });
    pending.answer({ type: 'failure', seq: 2, id: lastId(), code: 'unknown-command', message: "unknown command 'node.dns.get'" });
    await expect(refused).rejects.toMatchObject({
      code: 'AGENT_TOO_OLD',
      message: "the agent of node 'alpha' is older than this control plane: unknown command 'node.dns.get'",
    });
  });

  it('gives a request the output lines of its log frames, until it is answered', async () => {
    const { pending, lastId } = pendingOf();
    const lines: LogLine[][] = [];
    const answer = pending.request('node.apt.update', {}, { timeoutMs: 1000, onLog: (each) => lines.push([...each]) });
    const id = lastId();
    pending.answer({ type: 'log', seq: 1, id, lines: [{ n: 1, text: 'Hit:1 http://deb.debian.org bookworm InRelease' }] });
    pending.answer({ type: 'log', seq: 2, id: 'another', lines: [{ n: 1, text: 'not this one' }] });
    pending.answer({ type: 'result', seq: 3, id, result: null });
    pending.answer({ type: 'log', seq: 4, id, lines: [{ n: 2, text: 'too late' }] });
    await expect(answer).resolves.toBeNull();
    expect(lines).toEqual([[{ n: 1, text: 'Hit:1 http://deb.debian.org bookworm InRelease' }]]);
  });

  it("tells the agent to cancel a request whose signal aborts, which then rejects with the signal's reason", async () => {
    const { pending, sent, lastId } = pendingOf();
    const controller = new AbortController();
    const answer = pending.request('node.dns.get', {}, { timeoutMs: 1000, signal: controller.signal });
    controller.abort(new Error('the task was stopped'));
    await expect(answer).rejects.toThrow('the task was stopped');
    expect(sent).toEqual([expect.objectContaining({ type: 'request' }), { type: 'cancel', id: lastId() }]);

    // Already aborted: nothing is sent.
    await expect(pending.request('node.dns.get', {}, { timeoutMs: 1000, signal: controller.signal })).rejects.toThrow(
      'the task was stopped',
    );
    expect(sent).toHaveLength(2);
  });

  it('sends the unanswered requests again with their ids, and fails them all with the error for each command', async () => {
    const { pending, sent } = pendingOf();
    const answers = [pending.request('node.dns.get', {}, { timeoutMs: 1000 }), pending.request('node.apt.update', {}, { timeoutMs: 1000 })];
    pending.resend();
    expect(sent.slice(2)).toEqual(sent.slice(0, 2));
    pending.failAll((command) => new Error(`${command} is lost`));
    await expect(Promise.allSettled(answers)).resolves.toEqual([
      { status: 'rejected', reason: new Error('node.dns.get is lost') },
      { status: 'rejected', reason: new Error('node.apt.update is lost') },
    ]);
    pending.resend();
    expect(sent).toHaveLength(4);
  });
});

describe('the recorded requests of tasks', () => {
  function recordedOf() {
    const records: { recorded: unknown[]; forgotten: string[] } = { recorded: [], forgotten: [] };
    const sent: RequestFrame[] = [];
    const pending = new PendingRequests('alpha', (frame) => frame.type === 'request' && sent.push(frame), {
      record: async (request) => void records.recorded.push(request),
      forget: (id) => void records.forgotten.push(id),
    });
    return { pending, sent, records };
  }

  it('records a request of a task before it is sent, and forgets it once answered here; a request without a task is not recorded', async () => {
    const { pending, sent, records } = recordedOf();
    const answer = pending.request('node.apt.update', {}, { timeoutMs: 1000, upid: 'UPID:alpha:1', endsTask: true });
    await waitFor(() => sent.length === 1, { timeoutMs: 1000, what: 'the request' });
    const id = sent[0]?.id ?? '';
    expect(records.recorded).toEqual([{ id, upid: 'UPID:alpha:1', command: 'node.apt.update', endsTask: true, timeoutMs: 1000 }]);
    pending.answer({ type: 'result', seq: 1, id, result: null });
    await expect(answer).resolves.toBeNull();
    expect(records.forgotten).toEqual([id]);
    void pending.request('node.dns.get', {}, { timeoutMs: 1000 }).catch(() => undefined);
    expect(records.recorded).toHaveLength(1);
    pending.failAll(() => new Error('done'));
  });

  it('keeps the recorded requests waiting when asked, and settles them with the answer another replica stored, lines first', async () => {
    const { pending, sent } = recordedOf();
    const lines: LogLine[] = [];
    const recorded = pending.request(
      'node.apt.update',
      {},
      { timeoutMs: 1000, upid: 'UPID:alpha:1', onLog: (each) => lines.push(...each) },
    );
    const failed = pending.request(
      'guest.shutdown',
      { type: 'qemu', vmid: 100, timeout: 1, forceStop: false },
      { timeoutMs: 1000, upid: 'UPID:alpha:2' },
    );
    const plain = pending.request('node.dns.get', {}, { timeoutMs: 1000 });
    await waitFor(() => sent.length === 3, { timeoutMs: 1000, what: 'the requests' });
    pending.failAll(() => new Error('moved'), { keepRecorded: true });
    await expect(plain).rejects.toThrow('moved');
    const [first, second] = pending.recorded();
    pending.handOver(first ?? '', { lines: [{ n: 1, text: 'Hit:1' }], answer: { result: null } });
    await expect(recorded).resolves.toBeNull();
    expect(lines).toEqual([{ n: 1, text: 'Hit:1' }]);
    pending.handOver(second ?? '', { lines: [], answer: { gone: 'its agent restarted' } });
    await expect(failed).rejects.toMatchObject({
      code: 'NODE_UNAVAILABLE',
      message: "node 'alpha' went away before it answered guest.shutdown (its agent restarted)",
    });
    expect(pending.recorded()).toEqual([]);
  });

  it('lets go of the requests that end their task at shutdown, unsettled, naming their tasks', async () => {
    const { pending, sent } = recordedOf();
    let settled = false;
    void pending.request('node.apt.update', {}, { timeoutMs: 1000, upid: 'UPID:alpha:1', endsTask: true }).finally(() => (settled = true));
    const step = pending.request('node.dns.get', {}, { timeoutMs: 1000, upid: 'UPID:alpha:2' });
    await waitFor(() => sent.length === 2, { timeoutMs: 1000, what: 'the requests' });
    expect(pending.release()).toEqual(['UPID:alpha:1']);
    pending.failAll(() => new Error('shutting down'));
    await expect(step).rejects.toThrow('shutting down');
    expect(pending.recorded()).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(settled).toBe(false);
  });
});
