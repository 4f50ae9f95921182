import { loadavg, machine, release, type, version } from 'node:os';
import { readCpuInfo, readCpuLoad, readMemory, readOsName, readRootFilesystem, uptimeSeconds } from '../../host/host-facts.js';
import type { Host } from '../../host/host.js';
import { readBoot, readIowait, readKsmShared, readProcessorLines, readSwap } from '../../host/kernel-figures.js';
import { TICKS_PER_SECOND } from '../../host/process-figures.js';
import type { AreaHandlers } from '../area-handlers.js';

/** PVE's `GET /nodes/{node}/status`, from the same host facts as the inventory report and the running kernel's figures. */
export function statusCommands(host: Host): AreaHandlers<'node.status'> {
  return {
    'node.status': async () => {
      const [cpu, wait, memory, swap, ksmShared, rootfs, os, cpuinfo, processor, boot] = await Promise.all([
        readCpuLoad(),
        readIowait(),
        readMemory(),
        readSwap(),
        readKsmShared(),
        readRootFilesystem(host),
        readOsName(host),
        readCpuInfo(),
        readProcessorLines(),
        readBoot(),
      ]);
      const [one = 0, five = 0, fifteen = 0] = loadavg();
      return {
        cpu,
        wait,
        loadavg: [one, five, fifteen],
        uptime: uptimeSeconds(),
        memory,
        swap,
        ksmShared,
        rootfs,
        cpuinfo: { ...cpuinfo, ...processor, userHz: TICKS_PER_SECOND },
        kernel: { sysname: type(), release: release(), version: version(), machine: machine() },
        boot,
        os,
      };
    },
  };
}
