export type Accelerator = 'kvm' | 'tcg';

/**
 * PVE's own CPU models (qemu-server's CPUConfig.pm), which QEMU does not know: qemu64 with the
 * flags of each x86-64 micro-architecture level.
 */
const PVE_MODELS: Readonly<Record<string, string>> = {
  'x86-64-v2': 'qemu64,+popcnt,+ssse3,+sse4.1,+sse4.2',
  'x86-64-v2-AES': 'qemu64,+aes,+popcnt,+ssse3,+sse4.1,+sse4.2',
  'x86-64-v3': 'qemu64,+aes,+popcnt,+ssse3,+sse4.1,+sse4.2,+avx,+avx2,+bmi1,+bmi2,+f16c,+fma,+abm,+movbe,+xsave',
  'x86-64-v4':
    'qemu64,+aes,+popcnt,+ssse3,+sse4.1,+sse4.2,+avx,+avx2,+bmi1,+bmi2,+f16c,+fma,+abm,+movbe,+xsave,+avx512f,+avx512bw,+avx512cd,+avx512dq,+avx512vl',
};

/** PVE's model when a VM's config names none. */
const DEFAULT_MODEL = 'kvm64';

/**
 * The `-cpu` value for a PVE CPU model. PVE's x86-64-v* models become their QEMU definition with
 * either accelerator. `host` passes the host's CPU through, which only KVM can: with TCG it
 * becomes `max`, everything TCG emulates. Every other name is QEMU's own and passes as it is: TCG
 * emulates a named model (QEMU warns in the VM's log about features TCG lacks, such as AVX-512),
 * and a name QEMU does not know fails the start with QEMU's words, with either accelerator alike.
 */
export function cpuArgument(model: string | undefined, accelerator: Accelerator): string {
  const name = model ?? DEFAULT_MODEL;
  if (name === 'host') return accelerator === 'kvm' ? 'host' : 'max';
  return PVE_MODELS[name] ?? name;
}
