import { SerialLoads } from './serial-loads.js';

/** A load that the test ends by hand, recording what each load was asked for. */
function manualLoads() {
  const asked: (readonly number[] | null)[] = [];
  const ends: (() => void)[] = [];
  const fails: ((error: Error) => void)[] = [];
  const load = (keys: readonly number[] | null) =>
    new Promise<void>((resolve, reject) => {
      asked.push(keys);
      ends.push(resolve);
      fails.push(reject);
    });
  return {
    asked,
    load: { some: (keys: readonly number[]) => load(keys), all: () => load(null) },
    end: (i: number) => ends[i]?.(),
    fail: (i: number) => fails[i]?.(new Error('connection lost')),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('serial loads of a cache', () => {
  it('runs one load at a time, and loads what was asked meanwhile together, after the running one', async () => {
    const loads = manualLoads();
    const serial = new SerialLoads<number>(loads.load, () => undefined);
    const first = serial.ask(null);
    const second = serial.ask(203);
    const third = serial.ask(204);
    await settle();
    expect(loads.asked).toEqual([null]);
    loads.end(0);
    await first;
    await settle();
    expect(loads.asked).toEqual([null, [203, 204]]);
    let done = false;
    void second.then(() => (done = true));
    await settle();
    expect(done).toBe(false);
    loads.end(1);
    await Promise.all([second, third]);
  });

  it('resolves an ask only with a load that started after it', async () => {
    const loads = manualLoads();
    const serial = new SerialLoads<number>(loads.load, () => undefined);
    void serial.ask(1);
    await settle();
    let done = false;
    void serial.ask(1).then(() => (done = true));
    loads.end(0);
    await settle();
    expect(done).toBe(false);
    expect(loads.asked).toEqual([[1], [1]]);
    loads.end(1);
    await settle();
    expect(done).toBe(true);
  });

  it('reports a failed load of some keys and loads all in its stead; a failed load of all waits for the next ask', async () => {
    const loads = manualLoads();
    const failures: unknown[] = [];
    const serial = new SerialLoads<number>(loads.load, (error) => failures.push(error));
    const asked = serial.ask(7);
    await settle();
    loads.fail(0);
    await settle();
    expect(loads.asked).toEqual([[7], null]);
    loads.fail(1);
    await asked;
    expect(failures).toHaveLength(2);
    void serial.ask(8);
    await settle();
    expect(loads.asked).toEqual([[7], null, [8]]);
    loads.end(2);
  });
});
