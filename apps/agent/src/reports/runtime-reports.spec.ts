import { encodeFrame, type GuestRuntime } from '@corral/protocol';
import type { OutgoingFrame } from '../connection/outbox.js';
import { jsonLogger } from '../logging/logger.js';
import { FIGURES_EVERY_MS, RuntimeReports } from './runtime-reports.js';

const HOUR = 3_600_000;

const vm = (vmid: number, status: GuestRuntime['status'], pid?: number): GuestRuntime => ({
  vmid,
  type: 'qemu',
  status,
  ...(pid === undefined ? {} : { pid }),
  uptime: 10,
  cpu: 0.01,
  mem: 1024,
});
const ct = (vmid: number, status: GuestRuntime['status'], pid?: number): GuestRuntime => ({ ...vm(vmid, status, pid), type: 'lxc' });

/** A driver whose guests the test sets, and the frames the reports emit, each checked against the protocol. */
function harness(initial: GuestRuntime[] = []) {
  const driver = { guests: initial, failing: false, reads: 0 };
  const frames: OutgoingFrame[] = [];
  const warnings: string[] = [];
  const reports = new RuntimeReports(
    {
      list: async () => {
        driver.reads += 1;
        if (driver.failing) throw new Error('lxc-ls: not found');
        return driver.guests.map((guest) => ({ ...guest }));
      },
    },
    jsonLogger((line) => warnings.push(line)),
  );
  const emit = (frame: OutgoingFrame) => {
    encodeFrame({ ...frame, seq: frames.length + 1 });
    return frames.push(frame);
  };
  /** Reads these guest lists one after another. */
  const read = async (...lists: GuestRuntime[][]) => {
    for (const guests of lists) {
      driver.guests = guests;
      await reports.refresh();
    }
  };
  const events = () => frames.flatMap((frame) => (frame.type === 'event' ? [[frame.event, frame.vmid]] : []));
  const reported = () =>
    frames.flatMap((frame) => (frame.type === 'report' && frame.payload.kind === 'runtime' ? [frame.payload.guests] : []));
  return { driver, frames, warnings, reports, emit, read, events, reported };
}

afterEach(() => jest.useRealTimers());

describe('runtime reports', () => {
  it('sends one report at once on a connection, taking the first read as the baseline: guests already running get no event', async () => {
    const { reports, emit, frames, driver } = harness([vm(100, 'running', 4242), ct(200, 'stopped')]);
    reports.start(HOUR, emit);
    await reports.refresh();
    reports.stop();
    expect(frames).toEqual([{ type: 'report', payload: { kind: 'runtime', guests: [vm(100, 'running', 4242), ct(200, 'stopped')] } }]);
    // The refresh asked for while the connection's first read waited to begin shared it.
    expect(driver.reads).toBe(1);
  });

  it('reports a guest as making while its create runs, and once it ended the guest it made, no longer making', async () => {
    const { reports, emit, frames, driver } = harness([vm(100, 'running', 4242)]);
    reports.start(HOUR, emit);
    await reports.refresh();
    await reports.making(101, async () => {
      await reports.refresh();
      driver.guests = [vm(100, 'running', 4242), vm(101, 'stopped')];
    });
    reports.stop();
    expect(frames.map((frame) => (frame.type === 'report' ? frame.payload : frame))).toEqual([
      { kind: 'runtime', guests: [vm(100, 'running', 4242)] },
      { kind: 'runtime', guests: [vm(100, 'running', 4242)], making: [101] },
      { kind: 'runtime', guests: [vm(100, 'running', 4242), vm(101, 'stopped')] },
    ]);
  });

  it('reports a start and a stop with the event of the guest type, the events first, with the time seen', async () => {
    jest.useFakeTimers({ now: new Date('2025-03-01T10:00:00Z'), doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const { reports, emit, frames, read, events } = harness();
    reports.start(HOUR, emit);
    await read([vm(100, 'stopped'), ct(200, 'stopped')], [vm(100, 'running', 4242), ct(200, 'running', 5151)]);
    expect(frames.slice(1)).toEqual([
      { type: 'event', event: 'vm-start', vmid: 100, timestamp: '2025-03-01T10:00:00.000Z' },
      { type: 'event', event: 'ct-start', vmid: 200, timestamp: '2025-03-01T10:00:00.000Z' },
      { type: 'report', payload: { kind: 'runtime', guests: [vm(100, 'running', 4242), ct(200, 'running', 5151)] } },
    ]);
    await read([vm(100, 'stopped'), ct(200, 'stopped')]);
    expect(events().slice(2)).toEqual([
      ['vm-stop', 100],
      ['ct-stop', 200],
    ]);
    reports.stop();
  });

  it('counts a guest that appears running as started and one that disappears as stopped', async () => {
    const { reports, emit, read, events } = harness();
    reports.start(HOUR, emit);
    await read([], [vm(101, 'running', 7000)], []);
    reports.stop();
    expect(events()).toEqual([
      ['vm-start', 101],
      ['vm-stop', 101],
    ]);
  });

  it('sends a report but no event when a guest is paused or resumed; stopping a paused guest is a stop', async () => {
    const { reports, emit, read, events, reported } = harness();
    reports.start(HOUR, emit);
    await read([vm(100, 'running', 4242)], [vm(100, 'paused', 4242)], [vm(100, 'running', 4242)]);
    expect(events()).toEqual([]);
    expect(reported().map((guests) => guests[0]?.status)).toEqual(['running', 'paused', 'running']);
    await read([vm(100, 'paused', 4242)], [vm(100, 'stopped')]);
    reports.stop();
    expect(events()).toEqual([['vm-stop', 100]]);
  });

  it('reports a stop and a start when the process changed between two reads (a reboot)', async () => {
    const { reports, emit, read, events } = harness();
    reports.start(HOUR, emit);
    await read([vm(100, 'running', 4242)], [vm(100, 'running', 4343)]);
    reports.stop();
    expect(events()).toEqual([
      ['vm-stop', 100],
      ['vm-start', 100],
    ]);
  });

  it('sends no report for figures alone until FIGURES_EVERY_MS passed since the last one, and none for no change at all', async () => {
    jest.useFakeTimers({ now: new Date('2025-03-01T10:00:00Z'), doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const { reports, emit, read, reported } = harness();
    reports.start(HOUR, emit);
    await read([vm(100, 'running', 4242)], [{ ...vm(100, 'running', 4242), uptime: 11, cpu: 0.02 }]);
    expect(reported()).toHaveLength(1);
    jest.setSystemTime(Date.now() + FIGURES_EVERY_MS);
    await reports.refresh();
    jest.setSystemTime(Date.now() + FIGURES_EVERY_MS);
    await reports.refresh();
    reports.stop();
    expect(reported()).toEqual([[vm(100, 'running', 4242)], [{ ...vm(100, 'running', 4242), uptime: 11, cpu: 0.02 }]]);
  });

  it('keeps the baseline across connections: what changed while disconnected is reported after the reconnect, with one report at once', async () => {
    const { reports, emit, driver, events, reported } = harness([vm(100, 'running', 4242)]);
    reports.start(HOUR, emit);
    await reports.refresh();
    reports.stop();
    driver.guests = [vm(100, 'stopped')];
    reports.start(HOUR, emit);
    await reports.refresh();
    reports.start(HOUR, emit);
    await reports.refresh();
    reports.stop();
    expect(events()).toEqual([['vm-stop', 100]]);
    expect(reported()).toHaveLength(3);
  });

  it('takes a read before the first connection as the baseline, without frames', async () => {
    const { reports, emit, driver, frames, events } = harness([vm(100, 'running', 4242)]);
    await reports.refresh();
    expect(frames).toEqual([]);
    reports.start(HOUR, emit);
    driver.guests = [vm(100, 'stopped')];
    await reports.refresh();
    reports.stop();
    expect(events()).toEqual([['vm-stop', 100]]);
  });

  it('logs a failed read and goes on with the next one; refresh never throws', async () => {
    const { reports, emit, driver, read, warnings, events } = harness([vm(100, 'stopped')]);
    reports.start(HOUR, emit);
    await reports.refresh();
    driver.failing = true;
    await expect(reports.refresh()).resolves.toBeUndefined();
    expect(warnings.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: 'warn', msg: "cannot report the guests' run state", error: 'lxc-ls: not found' }),
    ]);
    driver.failing = false;
    await read([vm(100, 'running', 4242)]);
    reports.stop();
    expect(events()).toEqual([['vm-start', 100]]);
  });

  it('sends a control plane that accepts them reports of what changed since the report before, and a whole one with the figures', async () => {
    jest.useFakeTimers({ now: new Date('2025-03-01T10:00:00Z'), doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const { reports, emit, read, frames } = harness();
    const payloads = () => frames.flatMap((frame) => (frame.type === 'report' ? [frame.payload] : []));
    reports.start(HOUR, emit, { changes: true });
    await read([vm(100, 'running', 4242), vm(101, 'stopped')]);
    await reports.making(102, () => read([vm(100, 'running', 4242), vm(101, 'stopped')]));
    await read([vm(100, 'running', 4242), vm(101, 'stopped'), vm(102, 'stopped')]);
    await read([{ ...vm(100, 'running', 4242), uptime: 99 }, vm(102, 'stopped')]);
    expect(payloads()).toEqual([
      { kind: 'runtime', guests: [vm(100, 'running', 4242), vm(101, 'stopped')] },
      { kind: 'runtime', guests: [], gone: [], since: 1, making: [102] },
      // The read once the making ended: the end of `making` is the change.
      { kind: 'runtime', guests: [], gone: [], since: 2 },
      { kind: 'runtime', guests: [vm(102, 'stopped')], gone: [], since: 3 },
      // Figures alone (vm 100's uptime) wait for the next whole report.
      { kind: 'runtime', guests: [], gone: [101], since: 4 },
    ]);
    jest.setSystemTime(Date.now() + FIGURES_EVERY_MS);
    await reports.refresh();
    reports.start(HOUR, emit, { changes: true });
    await reports.refresh();
    reports.stop();
    expect(payloads().slice(5)).toEqual([
      { kind: 'runtime', guests: [{ ...vm(100, 'running', 4242), uptime: 99 }, vm(102, 'stopped')] },
      // A new connection starts with a whole report.
      { kind: 'runtime', guests: [{ ...vm(100, 'running', 4242), uptime: 99 }, vm(102, 'stopped')] },
    ]);
  });

  it('reads once for the refreshes asked for while a read waits to begin', async () => {
    const { reports, emit, driver } = harness([vm(100, 'stopped')]);
    reports.start(HOUR, emit);
    await Promise.all([reports.refresh(), reports.refresh(), reports.refresh()]);
    await Promise.all([reports.refresh(), reports.refresh()]);
    reports.stop();
    expect(driver.reads).toBe(2);
  });

  it('reads every interval while started and not after stop', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const { reports, emit, driver } = harness([vm(100, 'stopped')]);
    reports.start(2_000, emit);
    await jest.advanceTimersByTimeAsync(6_000);
    expect(driver.reads).toBe(4);
    reports.stop();
    await jest.advanceTimersByTimeAsync(6_000);
    expect(driver.reads).toBe(4);
  });
});
