import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonLogger } from '../logging/logger.js';
import type { Outbox, OutgoingFrame } from '../connection/outbox.js';
import { OUTBOX_FILE, OutboxStore } from './outbox-store.js';

const started = (vmid: number): OutgoingFrame => ({ type: 'event', event: 'vm-start', vmid, timestamp: '2026-05-04T09:30:41.000Z' });
const runtime = (vmids: number[]): OutgoingFrame => ({
  type: 'report',
  payload: { kind: 'runtime', guests: vmids.map((vmid) => ({ vmid, type: 'qemu', status: 'running', uptime: 1, cpu: 0, mem: 1 })) },
});
const result: OutgoingFrame = { type: 'result', id: 'a', result: null };

/** Sends (as a live connection does) and returns the entry. */
const sent = (outbox: Outbox, frame: OutgoingFrame) => {
  const entry = outbox.add(frame);
  outbox.sent(entry);
  return entry;
};
const frames = (outbox: Outbox) => outbox.unacknowledged().map((entry) => JSON.parse(entry.text) as Record<string, unknown>);

describe('the outbox on disk', () => {
  let dir: string;
  let logs: string[];
  const logger = () => jsonLogger((line) => logs.push(line));
  /** What a new agent process finds: its outbox, once what it stored itself is written. */
  const restart = async () => {
    const opened = await OutboxStore.open(dir, logger());
    await opened.store.flushed();
    return opened;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-outbox-'));
    logs = [];
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('starts empty, in a new session, without a file', async () => {
    const { outbox } = await restart();
    expect(outbox.unacknowledged()).toEqual([]);
    expect(logs).toEqual([]);
  });

  it('after a restart, sends first in its new session the events left unacknowledged, each with its origin, and the newest report', async () => {
    const first = await restart();
    sent(first.outbox, started(100));
    sent(first.outbox, result);
    sent(first.outbox, runtime([100]));
    sent(first.outbox, started(101));
    sent(first.outbox, runtime([100, 101]));
    first.outbox.ack(1);
    await first.store.flushed();

    const second = await restart();
    expect(second.outbox.session).not.toBe(first.outbox.session);
    expect(frames(second.outbox)).toEqual([
      {
        type: 'event',
        seq: 1,
        event: 'vm-start',
        vmid: 101,
        timestamp: '2026-05-04T09:30:41.000Z',
        origin: { session: first.outbox.session, seq: 4 },
      },
      { ...runtime([100, 101]), seq: 2 },
    ]);

    // Unacknowledged again: a third process still sends the event under its first identity.
    const third = await restart();
    expect(frames(third.outbox)[0]).toEqual(expect.objectContaining({ vmid: 101, origin: { session: first.outbox.session, seq: 4 } }));
  });

  it('forgets what was acknowledged: nothing is sent again', async () => {
    const first = await restart();
    sent(first.outbox, started(100));
    first.outbox.ack(1);
    await first.store.flushed();
    expect((await restart()).outbox.unacknowledged()).toEqual([]);
  });

  it('writes nothing for results, failures and logs', async () => {
    const first = await restart();
    sent(first.outbox, result);
    await first.store.flushed();
    expect(await readdir(dir)).toEqual([]);
  });

  it.each([
    ['not JSON', '{"session": "s", "frames": ['],
    ['not an outbox', '{"guests": []}'],
    ['a frame the protocol refuses', JSON.stringify({ session: 's', frames: [{ type: 'event', seq: 1, event: 'vm-boom', vmid: 100 }] })],
  ])('sets a corrupt file (%s) aside, logs it and starts empty', async (_what, text) => {
    await writeFile(join(dir, OUTBOX_FILE), text);
    const { outbox } = await restart();
    expect(outbox.unacknowledged()).toEqual([]);
    expect(logs.join('')).toMatch(/the stored outbox is not valid: set aside/);
    const files = await readdir(dir);
    expect(files).toEqual(expect.arrayContaining([expect.stringMatching(/^outbox\.json\.corrupt-\d+$/)]));
    expect(await readFile(join(dir, files.find((file) => file.includes('corrupt')) ?? ''), 'utf8')).toBe(text);
  });

  it('keeps at most its bound of bytes of frames, the newest, and logs that the oldest were left out', async () => {
    const maxBytes = 1_000;
    const first = await OutboxStore.open(dir, logger(), maxBytes);
    first.outbox.add(runtime([100, 101, 102, 103, 104, 105]));
    for (let vmid = 100; vmid < 120; vmid++) first.outbox.add(started(vmid));
    await first.store.flushed();
    expect((await readFile(join(dir, OUTBOX_FILE))).length).toBeLessThanOrEqual(maxBytes + 80);
    expect(logs.join('')).toMatch(/the stored outbox is full: its oldest frames are left out/);
    const kept = (await restart()).outbox.unacknowledged().map((entry) => JSON.parse(entry.text) as { type: string; vmid?: number });
    expect(kept.length).toBeGreaterThan(3);
    expect(kept.at(-1)).toEqual(expect.objectContaining({ vmid: 119 }));
    expect(kept.every((frame) => frame.type === 'event')).toBe(true);
  });
});
