// The fence watchdog: started by the agent (watchdog-supervisor.ts) when its HA lease arms; fences
// the node's HA guests at the lease's deadline even after the agent died (docs/agents.md "The HA lease").
// Usage: node fence-watchdog-main.js --host-root ROOT, orders as JSON lines on stdin.
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { WatchdogOrders } from '../drivers/fence-orders.js';
import { openHost } from '../host/host.js';
import { jsonLogger } from '../logging/logger.js';
import { carryOut } from './fence-kill.js';
import { FenceWatchdog } from './fence-watchdog.js';
import { removeWatchdogPid, watchdogPidFile, writeWatchdogPid } from './watchdog-pid-file.js';

const logger = jsonLogger((line) => process.stderr.write(line));
const { values } = parseArgs({ options: { 'host-root': { type: 'string', default: '/' } }, strict: true });
const host = await openHost(values['host-root'] ?? '/');
const pidFile = watchdogPidFile(host);

let pidWritten = false;
const watchdog = new FenceWatchdog({
  logger,
  carryOut: (order) => carryOut(order),
  exit: (code) => void removeWatchdogPid(pidFile, process.pid).finally(() => process.exit(code)),
});
// Not stopped by the terminal's or the agent's signals but SIGTERM, which means "another agent took over".
process.on('SIGTERM', () => watchdog.stop());
process.on('SIGINT', () => undefined);
process.on('SIGHUP', () => undefined);

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  let orders: WatchdogOrders;
  try {
    orders = WatchdogOrders.parse(JSON.parse(line));
  } catch (error) {
    return logger.error('ignoring a malformed order from the agent', { error });
  }
  watchdog.tell(orders);
  // The pid file names a watchdog once it is armed: the agent's handover waits for that.
  if (watchdog.armed && !pidWritten) {
    pidWritten = true;
    writeWatchdogPid(pidFile, process.pid).catch((error: unknown) => logger.error('could not write the pid file', { pidFile, error }));
  }
});
// EOF, or the pipe broke: the agent exited, whichever way. The deadline stands.
lines.on('close', () => watchdog.agentGone());
process.stdin.on('error', () => undefined);
