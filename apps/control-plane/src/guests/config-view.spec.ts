import { LXC, QEMU } from './guest-kinds.js';
import { configSchema, wireConfig } from './config-view.js';
import { z } from 'zod';

describe('wireConfig', () => {
  it("answers a VM's integers as numbers, booleans as 0/1 and property strings as strings, as PVE does", () => {
    const wire = wireConfig(QEMU, {
      cores: '2',
      sockets: '1',
      balloon: '256',
      cpuunits: '100',
      cpulimit: '1.5',
      onboot: '1',
      numa: '0',
      memory: '2048',
      net0: 'virtio=BC:24:11:00:00:01,bridge=vmbr0',
      agent: '1',
      name: 'web',
      template: '1',
    });
    expect(wire).toEqual({
      cores: 2,
      sockets: 1,
      balloon: 256,
      cpuunits: 100,
      cpulimit: '1.5',
      onboot: 1,
      numa: 0,
      memory: '2048',
      net0: 'virtio=BC:24:11:00:00:01,bridge=vmbr0',
      agent: '1',
      name: 'web',
      template: 1,
    });
  });

  it("answers a container's sizes, limits and flags typed", () => {
    expect(
      wireConfig(LXC, { cores: '1', memory: '512', swap: '0', cpulimit: '0.5', unprivileged: '1', protection: '0', hostname: 'ct' }),
    ).toEqual({ cores: 1, memory: 512, swap: 0, cpulimit: '0.5', unprivileged: 1, protection: 0, hostname: 'ct' });
  });

  it('leaves a key it has no rule for as its text', () => {
    expect(wireConfig(QEMU, { unused0: 'local:100/vm-100-disk-1.qcow2' })).toEqual({ unused0: 'local:100/vm-100-disk-1.qcow2' });
  });
});

describe('configSchema', () => {
  const schema = configSchema(QEMU, { digest: z.string() });

  it('accepts what wireConfig answers', () => {
    expect(schema.safeParse({ ...wireConfig(QEMU, { cores: '2', onboot: '1', memory: '512' }), digest: 'x' }).success).toBe(true);
  });

  it("takes any other key, such as PVE's unused<n>, as text", () => {
    expect(schema.safeParse({ unused0: 'local:100/vm-100-disk-1.qcow2', parent: 'before', digest: 'x' }).success).toBe(true);
    expect(schema.safeParse({ unused0: 1, digest: 'x' }).success).toBe(false);
  });

  it('refuses text where PVE sends a number', () => {
    expect(schema.safeParse({ cores: '2', digest: 'x' }).success).toBe(false);
    expect(schema.safeParse({ onboot: true, digest: 'x' }).success).toBe(false);
  });

  it("takes a number key (cpulimit) only as PVE's text", () => {
    expect(schema.safeParse({ cpulimit: '1.5', digest: 'x' }).success).toBe(true);
    expect(schema.safeParse({ cpulimit: 1.5, digest: 'x' }).success).toBe(false);
  });
});
