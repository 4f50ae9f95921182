import { stat } from 'node:fs/promises';

/**
 * Of `names`, the bridges that exist on the running kernel (a name that is another kind of link
 * does not count: neither QEMU's taps nor LXC's veths can join it). Read from its /sys, not under
 * the agent's host root: guests attach to this kernel's bridges, whatever tree of files the agent manages.
 */
export async function existingBridges(names: readonly string[]): Promise<Set<string>> {
  const found = await Promise.all(
    names.map(async (name) => ((await stat(`/sys/class/net/${name}/bridge`).catch(() => undefined))?.isDirectory() === true ? [name] : [])),
  );
  return new Set(found.flat());
}
