import { acceleratorOf } from './qemu-accelerator.js';

describe("a VM's accelerator", () => {
  it('is TCG when the config says kvm: 0, as PVE runs it, whatever the host has', async () => {
    expect(await acceleratorOf({ kvm: '0' }, 'kvm')).toBe('tcg');
    expect(await acceleratorOf({ kvm: '0' })).toBe('tcg');
  });

  it('is the usual one otherwise', async () => {
    expect(await acceleratorOf({ kvm: '1' }, 'kvm')).toBe('kvm');
    expect(await acceleratorOf({}, 'tcg')).toBe('tcg');
    expect(['kvm', 'tcg']).toContain(await acceleratorOf({}));
  });
});
