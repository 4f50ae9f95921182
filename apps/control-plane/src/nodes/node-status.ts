import type { NodeStatus } from '@corral/protocol';
import type { z } from 'zod';
import type { NodeStatusResult } from './nodes.endpoints.js';

/**
 * PVE's `GET /nodes/{node}/status` from the agent's `node.status`: load averages as strings,
 * `idle` always 0 (PVE never fills it in), the clock as the kernel's text and `hvm` as PVE's `'1'`
 * or `''`, booleans as 0/1. What an older agent does not report is left out.
 */
export function pveNodeStatus(status: NodeStatus, pveversion: string): z.infer<typeof NodeStatusResult> {
  const { sysname, release, version } = status.kernel;
  const { model, sockets, cores, cpus, mhz, flags, userHz } = status.cpuinfo;
  return {
    cpu: status.cpu,
    ...(status.wait !== undefined ? { wait: status.wait } : {}),
    idle: 0,
    loadavg: status.loadavg.map((load) => load.toFixed(2)),
    uptime: status.uptime,
    memory: status.memory,
    ...(status.swap ? { swap: status.swap } : {}),
    ...(status.ksmShared !== undefined ? { ksm: { shared: status.ksmShared } } : {}),
    rootfs: status.rootfs,
    cpuinfo: {
      model,
      sockets,
      cores,
      cpus,
      ...(flags !== undefined
        ? { mhz: mhz ?? '0', hvm: / (?:vmx|svm)(?: |$)/.test(` ${flags}`) ? ('1' as const) : ('' as const), flags }
        : {}),
      ...(userHz !== undefined ? { user_hz: userHz } : {}),
    },
    'current-kernel': status.kernel,
    kversion: `${sysname} ${release} ${version}`,
    ...(status.boot ? { 'boot-info': bootInfo(status.boot) } : {}),
    pveversion,
    os: status.os,
  };
}

function bootInfo(boot: NonNullable<NodeStatus['boot']>): NonNullable<z.infer<typeof NodeStatusResult>['boot-info']> {
  if (!boot.efi) return { mode: 'legacy-bios' };
  return boot.secureboot === undefined ? { mode: 'efi' } : { mode: 'efi', secureboot: boot.secureboot ? 1 : 0 };
}
