import type { FenceOrder, WatchdogOrders } from '../drivers/fence-orders.js';
import { jsonLogger } from '../logging/logger.js';
import { FenceWatchdog } from './fence-watchdog.js';

const MS = 1_000_000n;

function watchdog() {
  const lines: { level: string; msg: string }[] = [];
  const carried: FenceOrder[] = [];
  let exited: (code: number) => void = () => undefined;
  const exit = new Promise<number>((resolve) => (exited = resolve));
  const dog = new FenceWatchdog({
    logger: jsonLogger((line) => lines.push(JSON.parse(line) as { level: string; msg: string })),
    carryOut: async (order) => {
      carried.push(order);
      return 'SIGKILL sent';
    },
    exit: (code) => exited(code),
  });
  return { dog, lines, carried, exit };
}

const inMs = (ms: number) => String(process.hrtime.bigint() + BigInt(ms) * MS);
const VM100: WatchdogOrders['guests'][number] = { label: 'VM 100', order: { kind: 'process', pid: 4242, startTicks: 77 } };
const CT200: WatchdogOrders['guests'][number] = { label: 'CT 200' };

describe('the fence watchdog', () => {
  it('fences at the deadline, not before, carrying out every order and logging each guest, then exits', async () => {
    const { dog, lines, carried, exit } = watchdog();
    const told = process.hrtime.bigint();
    dog.tell({ deadlineNs: String(told + 150n * MS), guests: [VM100, CT200] });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(carried).toEqual([]);
    expect(await exit).toBe(0);
    expect(process.hrtime.bigint() - told).toBeGreaterThanOrEqual(150n * MS);
    expect(carried).toEqual([VM100.order]);
    expect(lines.slice(0, 2).map((line) => line.msg)).toEqual([
      'armed',
      'fence watchdog: HA lease not renewed by the deadline; stopping HA guests VM 100, CT 200',
    ]);
    expect(
      lines
        .slice(2)
        .map((line) => line.msg)
        .sort(),
    ).toEqual([
      'fence watchdog: CT 200: nothing to stop (not running when last told, or its driver has no fence order)',
      'fence watchdog: VM 100: SIGKILL sent',
    ]);
    expect(lines[1]?.level).toBe('error');
  });

  it('keeps the deadline when the agent goes, and moves it when a newer lease comes', async () => {
    const { dog, carried, exit, lines } = watchdog();
    dog.tell({ deadlineNs: inMs(50), guests: [VM100] });
    dog.tell({ deadlineNs: inMs(200), guests: [VM100] });
    const renewed = process.hrtime.bigint();
    dog.agentGone();
    expect(lines.at(-1)?.msg).toMatch(/^the agent is gone: fencing at its lease's deadline/);
    await exit;
    expect(process.hrtime.bigint() - renewed).toBeGreaterThanOrEqual(190n * MS);
    expect(carried).toHaveLength(1);
  });

  it('exits without fencing when stopped (SIGTERM), when disarmed, or when the agent went before arming it', async () => {
    for (const end of [(dog: FenceWatchdog) => dog.stop(), (dog: FenceWatchdog) => dog.tell({ deadlineNs: '0', guests: [] })]) {
      const { dog, carried, exit } = watchdog();
      dog.tell({ deadlineNs: inMs(30), guests: [VM100] });
      end(dog);
      expect(await exit).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(carried).toEqual([]);
      expect(dog.armed).toBe(false);
    }
    const { dog, exit, carried } = watchdog();
    dog.agentGone();
    expect(await exit).toBe(0);
    expect(carried).toEqual([]);
  });

  it('fences at once for a deadline already past', async () => {
    const { dog, carried, exit } = watchdog();
    dog.tell({ deadlineNs: String(process.hrtime.bigint() - 1000n * MS), guests: [VM100] });
    await exit;
    expect(carried).toEqual([VM100.order]);
  });
});
