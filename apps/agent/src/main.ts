#!/usr/bin/env node
// corral-agent: dials the control plane named in its config file and runs its commands on this host.
import { AGENT_STREAMS_PATH } from '@corral/protocol';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Agent } from './agent.js';
import { createCommandHandlers } from './commands/command-handlers.js';
import { AGENT_USAGE, parseAgentArguments, UsageError } from './config/agent-arguments.js';
import { ConfigError, readAgentConfig } from './config/agent-config.js';
import { ControlPlanes } from './connection/control-planes.js';
import { dial } from './connection/dial.js';
import { OutboxStore } from './state/outbox-store.js';
import { DriverSettingError, selectDriver } from './drivers/select-driver.js';
import { HaLease } from './ha/ha-lease.js';
import { SelfFence } from './ha/self-fence.js';
import { WatchdogSupervisor } from './ha/watchdog-supervisor.js';
import { detectCapabilities } from './host/capabilities.js';
import { createInventory } from './host/inventory.js';
import { WatchedStorages } from './commands/storage/watched-storages.js';
import { openHost } from './host/host.js';
import { jsonLogger } from './logging/logger.js';
import { RuntimeReports } from './reports/runtime-reports.js';

// Exits rather than waiting for the event loop to empty: a program that an aborted command started
// must not keep a stopped agent around.
process.exit(await main());

async function main(): Promise<number> {
  let invocation;
  try {
    invocation = parseAgentArguments(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`corral-agent: ${error.message}\nRun 'corral-agent --help' for its usage.\n`);
    return 2;
  }
  if (invocation.kind === 'help') {
    process.stdout.write(AGENT_USAGE);
    return 0;
  }
  const logger = jsonLogger((line) => process.stderr.write(line));
  let loaded;
  try {
    loaded = await readAgentConfig(invocation.configPath);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    logger.error(error.message);
    return 1;
  }
  const { config } = loaded;
  if (loaded.readableByOthers)
    logger.warn('the config file holds the credential but others may read it: chmod 600 it', { config: invocation.configPath });
  let host;
  try {
    host = await openHost(config.hostRoot);
  } catch (error) {
    logger.error((error as Error).message);
    return 1;
  }
  logger.info('host root', { root: host.root, live: host.live });
  let selected;
  try {
    selected = await selectDriver(host, config.stateDir, process.env, logger);
  } catch (error) {
    if (!(error instanceof DriverSettingError)) throw error;
    logger.error(error.message);
    return 1;
  }
  const { driver, reason } = selected;
  logger.info('guest driver', { driver: driver.name, reason });
  const runtime = new RuntimeReports(driver, logger);
  // The baseline of the guests' run state, before any command can change it.
  void runtime.refresh();
  const { version } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  const watched = new WatchedStorages(host, logger);
  const inventory = createInventory(host, watched);
  const controlPlanes = new ControlPlanes(config.urls);
  // A stream goes to the replica that asked for it: the one the agent is connected to.
  const openStream = (stream: string) => dial({ ...config, url: controlPlanes.current }, `${AGENT_STREAMS_PATH}/${stream}`);
  const fence = new SelfFence(driver, logger, runtime);
  // The fence watchdog fences at the lease's deadline even when this process is gone (docs/agents.md "The HA lease").
  const watchdog = new WatchdogSupervisor({
    host,
    driver,
    logger,
    script: fileURLToPath(new URL('./ha/fence-watchdog-main.js', import.meta.url)),
  });
  const lease = new HaLease({ fence, logger, onRenewed: (deadline, guests) => watchdog.update(deadline, guests) });
  // After every guest command: the run state read, and the watchdog told the guests' processes now.
  const afterCommand = {
    refresh: () => runtime.refresh().finally(() => watchdog.refresh()),
    making: <T>(vmid: number, operation: () => Promise<T>) => runtime.making(vmid, operation).finally(() => watchdog.refresh()),
  };
  const handlers = createCommandHandlers(host, driver, afterCommand, openStream, watched, logger, fence);
  // Before anything is emitted: the new session starts with what the previous process left unacknowledged.
  const { outbox, store } = await OutboxStore.open(config.stateDir, logger);
  const agent = new Agent({
    config,
    controlPlanes,
    version,
    capabilities: await detectCapabilities(),
    handlers,
    inventory,
    runtime,
    lease,
    logger,
    outbox,
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => agent.stop());
  if (process.env['CORRAL_AGENT_STOP_WITH_PARENT'] === '1') stopWithParent(() => agent.stop());
  const exitCode = await agent.run();
  inventory.close();
  await store.flushed();
  return exitCode;
}

/** The control plane's local agent goes when the control plane does, even after a kill -9: its parent changes then. */
function stopWithParent(stop: () => void): void {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop();
  }, 1000).unref();
}
