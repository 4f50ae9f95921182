import { loadavg, machine, release, type, version } from 'node:os';
import { readCpuInfo, readCpuLoad, readMemory, readOsName, readRootFilesystem, uptimeSeconds } from '../../host/host-facts.js';
import type { Host } from '../../host/host.js';
import type { AreaHandlers } from '../command-context.js';

/** PVE's `GET /nodes/{node}/status`, from the same host facts as the inventory report. */
export function statusCommands(host: Host): AreaHandlers<'node.status'> {
  return {
    'node.status': async () => {
      const [cpu, memory, rootfs, os, cpuinfo] = await Promise.all([readCpuLoad(), readMemory(), readRootFilesystem(host), readOsName(host), readCpuInfo()]);
      const [one = 0, five = 0, fifteen = 0] = loadavg();
      return {
        cpu,
        loadavg: [one, five, fifteen],
        uptime: uptimeSeconds(),
        memory,
        rootfs,
        cpuinfo,
        kernel: { sysname: type(), release: release(), version: version(), machine: machine() },
        os,
      };
    },
  };
}
