import type { NodeStatus } from '@corral/protocol';

/** A `node.status` result as an agent older than the boot, swap and processor fields sends it. */
export const OLDER_AGENT_STATUS: NodeStatus = {
  cpu: 0.25,
  loadavg: [0.5, 0.25, 0.125],
  uptime: 3600,
  memory: { total: 8e9, used: 2e9, free: 6e9, available: 5e9 },
  rootfs: { total: 1e11, used: 4e10, free: 6e10, avail: 5.5e10 },
  cpuinfo: { model: 'Test CPU', sockets: 1, cores: 4, cpus: 8 },
  kernel: { sysname: 'Linux', release: '6.1.0-test', version: '#1 SMP', machine: 'x86_64' },
  os: 'Debian GNU/Linux 12 (bookworm)',
};
