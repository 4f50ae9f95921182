import { OLDER_AGENT_STATUS as OLDER_AGENT } from '../../test-support/node-status-fixture.js';
import { pveNodeStatus } from './node-status.js';

const VERSION = 'pve-manager/9.1.0/0123456789abcdef';

describe("PVE's node status", () => {
  it("shows everything the agent reports in PVE's names and types", () => {
    const status = pveNodeStatus(
      {
        ...OLDER_AGENT,
        wait: 0.01,
        swap: { total: 4096, used: 1024, free: 3072 },
        ksmShared: 8192,
        cpuinfo: { ...OLDER_AGENT.cpuinfo, mhz: '3400.000', flags: 'fpu vme svm lm', userHz: 100 },
        boot: { efi: true, secureboot: false },
      },
      VERSION,
    );
    expect(status).toEqual({
      cpu: 0.25,
      wait: 0.01,
      idle: 0,
      loadavg: ['0.50', '0.25', '0.13'],
      uptime: 3600,
      memory: OLDER_AGENT.memory,
      swap: { total: 4096, used: 1024, free: 3072 },
      ksm: { shared: 8192 },
      rootfs: OLDER_AGENT.rootfs,
      cpuinfo: { model: 'Test CPU', sockets: 1, cores: 4, cpus: 8, mhz: '3400.000', hvm: '1', flags: 'fpu vme svm lm', user_hz: 100 },
      'current-kernel': OLDER_AGENT.kernel,
      kversion: 'Linux 6.1.0-test #1 SMP',
      'boot-info': { mode: 'efi', secureboot: 0 },
      pveversion: VERSION,
      os: 'Debian GNU/Linux 12 (bookworm)',
    });
  });

  it("says '' for hvm without vmx or svm, 0 MHz where the kernel shows no clock, and legacy-bios without EFI", () => {
    const status = pveNodeStatus(
      { ...OLDER_AGENT, cpuinfo: { ...OLDER_AGENT.cpuinfo, flags: 'fp asimd vmxx', userHz: 100 }, boot: { efi: false } },
      VERSION,
    );
    expect(status.cpuinfo).toEqual(expect.objectContaining({ mhz: '0', hvm: '', flags: 'fp asimd vmxx' }));
    expect(status['boot-info']).toEqual({ mode: 'legacy-bios' });
    expect(pveNodeStatus({ ...OLDER_AGENT, boot: { efi: true } }, VERSION)['boot-info']).toEqual({ mode: 'efi' });
  });

  it('leaves out what an older agent does not report', () => {
    const status = pveNodeStatus(OLDER_AGENT, VERSION);
    expect(Object.keys(status).sort()).toEqual([
      'cpu',
      'cpuinfo',
      'current-kernel',
      'idle',
      'kversion',
      'loadavg',
      'memory',
      'os',
      'pveversion',
      'rootfs',
      'uptime',
    ]);
    expect(status.cpuinfo).toEqual(OLDER_AGENT.cpuinfo);
  });
});
