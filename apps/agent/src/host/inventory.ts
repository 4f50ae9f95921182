import { release } from 'node:os';
import type { InventoryReport, StorageSpace } from '@corral/protocol';
import { cpuCount, readCpuLoad, readMemory, readOsName, readRootFilesystem, uptimeSeconds } from './host-facts.js';
import type { Host } from './host.js';
import { readHistoryFigures } from './history-figures.js';

export type InventoryFacts = Omit<InventoryReport, 'kind'>;

/** Polled and cached host facts (systeminformation); read() is cheap after the first call. */
export interface Inventory {
  read(): Promise<InventoryFacts>;
  close(): void;
}

/** Often enough for `/nodes` to look alive, seldom enough to cost nothing (PVE's pvestatd polls every 10 s). */
const POLL_INTERVAL_MS = 5000;

/** The space of the storages the inventory reports (`WatchedStorages`). */
export interface StorageSpaces {
  read(): Promise<StorageSpace[]>;
}

/**
 * Starts polling at once, so that the CPU counters are primed by the time the first report is
 * due. A poll that fails keeps the previous facts; only while no poll has succeeded does read()
 * reject, with the error of the last one. Each poll reads the space of `storages` too, and the
 * figures of the node's history.
 */
export function createInventory(host: Host, storages: StorageSpaces, intervalMs = POLL_INTERVAL_MS): Inventory {
  let latest: Promise<InventoryFacts>;
  let succeeded = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const pollNow = () => {
    const next = poll(host, storages);
    if (!succeeded) latest = next;
    next.then(
      () => {
        succeeded = true;
        latest = next;
      },
      () => undefined,
    );
    // unref: a forgotten inventory must not keep the agent's process alive.
    next
      .catch(() => undefined)
      .finally(() => {
        if (!closed) timer = setTimeout(pollNow, intervalMs).unref();
      });
  };
  pollNow();

  return {
    read: () => latest,
    close() {
      closed = true;
      clearTimeout(timer);
    },
  };
}

async function poll(host: Host, storages: StorageSpaces): Promise<InventoryFacts> {
  const [cpu, memory, rootfs, os, spaces, figures] = await Promise.all([
    readCpuLoad(),
    readMemory(),
    readRootFilesystem(host),
    readOsName(host),
    storages.read(),
    // The history's figures are extras: a kernel that hides them does not hold back the rest.
    readHistoryFigures().catch(() => ({})),
  ]);
  return {
    cpu,
    maxcpu: cpuCount(),
    mem: memory.used,
    maxmem: memory.total,
    uptime: uptimeSeconds(),
    disk: rootfs.used,
    maxdisk: rootfs.total,
    os,
    kernel: release(),
    ...figures,
    ...(spaces.length > 0 ? { storages: spaces } : {}),
  };
}
