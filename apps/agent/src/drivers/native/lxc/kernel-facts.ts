import { readFile } from 'node:fs/promises';
import type { CgroupLayout } from './lxc-config.js';

/*
 * How the running kernel limits containers. Read from its /sys, not under the agent's host root:
 * LXC sets limits on this kernel, whatever tree of files the agent manages.
 */

/** `unified` when cgroup v2 holds the memory controller; else the v1 controllers do (legacy or hybrid hosts). */
export async function cgroupLayout(): Promise<CgroupLayout> {
  const controllers = await readFile('/sys/fs/cgroup/cgroup.controllers', 'utf8').catch(() => '');
  return controllers.split(/\s+/).includes('memory') ? 'unified' : 'legacy';
}
