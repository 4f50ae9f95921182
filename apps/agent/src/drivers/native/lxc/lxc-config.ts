import type { GuestNic, GuestSpec } from '@corral/protocol';

/*
 * The LXC configuration of a container (lxc.container.conf(5)), made from the control plane's
 * GuestSpec and rewritten before every start: the file on the host is a copy, never the truth.
 */

/** Which cgroup keys limit the container: `legacy` (v1 controllers, hybrid hosts) or `unified` (v2 only). */
export type CgroupLayout = 'legacy' | 'unified';

/** What the host adds to the spec. */
export interface LxcHostSetup {
  /** The root file system's directory as the kernel sees it (under the agent's host root). */
  readonly rootfs: string;
  readonly cgroup: CgroupLayout;
  /** The bridges of the spec's cards that exist on the host; a card on another bridge gets no link. */
  readonly bridges: ReadonlySet<string>;
}

/**
 * LXC's own defaults for a container (capabilities dropped, a device allow-list, a seccomp filter),
 * as PVE's configurations include them through `<ostype>.common.conf`.
 */
const LXC_COMMON = '/usr/share/lxc/config/common.conf';
/** The CFS period; `cores` periods' worth of quota caps the container at that many CPUs. */
const CPU_PERIOD_US = 100_000;

/**
 * The config file's text. Deliberately absent: `lxc.signal.halt`, so that LXC sends its default
 * SIGPWR (sysvinit, busybox and OpenRC's init halt on it; measured with busybox 1.35) or
 * SIGRTMIN+3 to an init that blocks it (systemd); and the `mpN` volumes, whose mount points the
 * spec does not carry.
 */
export function lxcConfig(guest: GuestSpec, setup: LxcHostSetup): string {
  const lines = [
    `# CT ${guest.vmid}, written by the Corral agent from the control plane's configuration at every start.`,
    `lxc.include = ${LXC_COMMON}`,
    `lxc.uts.name = ${guest.name}`,
    `lxc.rootfs.path = dir:${setup.rootfs}`,
    // Privileged containers without AppArmor: hosts without AppArmor cannot load LXC's generated profile.
    'lxc.apparmor.profile = unconfined',
    'lxc.autodev = 1',
    'lxc.mount.auto = cgroup:mixed proc:mixed sys:mixed',
    ...limits(guest, setup.cgroup),
    ...guest.nics.flatMap((nic) => nicLines(nic, setup.bridges)),
  ];
  const unsafe = lines.find((line) => line.includes('\n') || line.includes('\0'));
  if (unsafe !== undefined) throw new Error(`CT ${guest.vmid}: a configuration value spans lines: ${JSON.stringify(unsafe)}`);
  return `${lines.join('\n')}\n`;
}

function limits(guest: GuestSpec, cgroup: CgroupLayout): string[] {
  const memory = guest.memoryMiB * 1024 * 1024;
  const quota = guest.cores * CPU_PERIOD_US;
  if (cgroup === 'unified') return [`lxc.cgroup2.memory.max = ${memory}`, `lxc.cgroup2.cpu.max = ${quota} ${CPU_PERIOD_US}`];
  return [
    `lxc.cgroup.memory.limit_in_bytes = ${memory}`,
    `lxc.cgroup.cpu.cfs_period_us = ${CPU_PERIOD_US}`,
    `lxc.cgroup.cpu.cfs_quota_us = ${quota}`,
  ];
}

/** `net1` is `lxc.net.1`, so the container's cards keep the numbers of its config. */
function nicLines(nic: GuestNic, bridges: ReadonlySet<string>): string[] {
  const index = /^net(\d+)$/.exec(nic.key)?.[1];
  if (index === undefined) throw new Error(`'${nic.key}' is not a network card key (net0, net1, ...)`);
  const key = `lxc.net.${index}`;
  if (nic.bridge !== undefined && !bridges.has(nic.bridge)) return [`${key}.type = empty`];
  // dhcp and manual are the container's own business (its init configures the card).
  const address = nic.ip === 'dhcp' || nic.ip === 'manual' ? undefined : nic.ip;
  return [
    `${key}.type = veth`,
    ...(nic.bridge === undefined ? [] : [`${key}.link = ${nic.bridge}`]),
    `${key}.hwaddr = ${nic.mac}`,
    `${key}.name = ${nic.name ?? `eth${index}`}`,
    `${key}.flags = up`,
    ...(address === undefined ? [] : [`${key}.ipv4.address = ${address}`]),
    ...(address === undefined || nic.gw === undefined ? [] : [`${key}.ipv4.gateway = ${nic.gw}`]),
  ];
}
