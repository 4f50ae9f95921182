import type { OutgoingFrame } from './outbox.js';
import { Outbox } from './outbox.js';

const INVENTORY = {
  cpu: 0.1,
  maxcpu: 2,
  mem: 1,
  maxmem: 2,
  uptime: 3,
  disk: 4,
  maxdisk: 5,
  os: 'Debian GNU/Linux 12 (bookworm)',
  kernel: '6.1.0-40-amd64',
};
const result = (id: string): OutgoingFrame => ({ type: 'result', id, result: null });
const inventory = (uptime: number): OutgoingFrame => ({ type: 'report', payload: { kind: 'inventory', ...INVENTORY, uptime } });
const runtime: OutgoingFrame = { type: 'report', payload: { kind: 'runtime', guests: [] } };

/** Adds and "sends" frames, as the connection does while it is live. */
function sent(outbox: Outbox, ...frames: OutgoingFrame[]) {
  return frames.map((frame) => {
    const entry = outbox.add(frame);
    outbox.sent(entry);
    return entry;
  });
}

const seqs = (outbox: Outbox) => outbox.unacknowledged().map((entry) => entry.seq);

describe('the outbox of numbered frames (AckFrame)', () => {
  it('numbers frames from 1 and encodes each once, with its number', () => {
    const outbox = new Outbox();
    const [first, second] = sent(outbox, result('a'), { type: 'log', id: 'b', lines: [{ n: 1, text: 'x' }] });
    expect(first).toEqual({ seq: 1, text: '{"type":"result","seq":1,"id":"a","result":null}', durable: false, answers: 'a' });
    expect(JSON.parse(second?.text ?? '')).toEqual({ type: 'log', seq: 2, id: 'b', lines: [{ n: 1, text: 'x' }] });
  });

  it('keeps frames until a cumulative ack covers them, and says what was acknowledged last', () => {
    const outbox = new Outbox();
    sent(outbox, result('a'), result('b'), result('c'));
    expect(outbox.lastAck).toBeUndefined();
    expect(outbox.answered()).toEqual(['a', 'b', 'c']);
    expect(outbox.ack(2)).toBe(true);
    expect(seqs(outbox)).toEqual([3]);
    expect(outbox.answered()).toEqual(['c']);
    expect(outbox.lastAck).toBe(2);
    expect(outbox.ack(1)).toBe(true);
    expect(outbox.lastAck).toBe(2);
  });

  it('refuses an ack beyond every frame sent, forgetting nothing', () => {
    const outbox = new Outbox();
    sent(outbox, result('a'));
    outbox.add(result('b'));
    expect(outbox.ack(2)).toBe(false);
    expect(seqs(outbox)).toEqual([1, 2]);
  });

  it('keeps only the newest unacknowledged report of each kind, in order with the rest', () => {
    const outbox = new Outbox();
    sent(outbox, inventory(1), runtime, result('a'), inventory(2));
    expect(seqs(outbox)).toEqual([2, 3, 4]);
    expect(JSON.parse(outbox.unacknowledged()[2]?.text ?? '')).toEqual(
      expect.objectContaining({ seq: 4, payload: expect.objectContaining({ uptime: 2 }) }),
    );
  });

  it('keeps every runtime report of changes after the whole one they follow, on disk none, until a newer whole one replaces them all', () => {
    const outbox = new Outbox();
    const changes = (since: number): OutgoingFrame => ({ type: 'report', payload: { kind: 'runtime', guests: [], gone: [100], since } });
    sent(outbox, runtime, changes(1), changes(2));
    expect(seqs(outbox)).toEqual([1, 2, 3]);
    expect(outbox.durable().map((entry) => entry.seq)).toEqual([1]);
    sent(outbox, runtime);
    expect(seqs(outbox)).toEqual([4]);
  });

  it('refuses an invalid frame without using a number', () => {
    const outbox = new Outbox();
    expect(() => outbox.add({ type: 'result', id: 'a', result: Number.NaN })).toThrow(/refusing to send an invalid result frame: result/);
    expect(outbox.add(result('b')).seq).toBe(1);
  });

  it('tells when everything is acknowledged', async () => {
    const outbox = new Outbox();
    await outbox.whenEmpty();
    sent(outbox, result('a'), result('b'));
    let empty = false;
    const waiting = outbox.whenEmpty().then(() => (empty = true));
    outbox.ack(1);
    await Promise.resolve();
    expect(empty).toBe(false);
    outbox.ack(2);
    await waiting;
    expect(empty).toBe(true);
  });
});
