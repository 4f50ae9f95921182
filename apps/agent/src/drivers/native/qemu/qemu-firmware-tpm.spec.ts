import { access, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processesUnder } from '@corral/testing';
import type { GuestSpec, GuestVolume } from '@corral/protocol';
import type { CommandContext } from '../../command-context.js';
import { removeHostRoot } from '../../../../test-support/host-roots.js';
import { openHost, type Host } from '../../../host/host.js';
import { runChecked } from '../../../host/run-program.js';
import { NativeQemu } from './native-qemu.js';
import { qemuRuntimeFiles } from './qemu-runtime-files.js';
import { QemuVm } from './qemu-vm.js';

/*
 * Real QEMU (TCG) with Debian's OVMF and swtpm in a temporary host root: a VM with an EFI vars
 * disk boots its firmware from pflash, one with a TPM runs swtpm beside it, and nothing of either
 * is left once the VM stops.
 */

const KiB = 1024;

function volume(vmid: number, key: string, n: number, format: 'qcow2' | 'raw', size: number, extra: Partial<GuestVolume>): GuestVolume {
  const volname = `${vmid}/vm-${vmid}-disk-${n}.${format}`;
  return { key, volid: `local:${volname}`, path: `/var/lib/vz/images/${volname}`, format, size, ...extra };
}

function vm(vmid: number, volumes: GuestVolume[], config: Record<string, string>): GuestSpec {
  return { type: 'qemu', vmid, name: `fw${vmid}`, memoryMiB: 128, cores: 1, sockets: 1, template: false, nics: [], volumes, config };
}

describe('NativeQemu: EFI disks and TPM state with real QEMU (TCG)', () => {
  let dir: string;
  let host: Host;
  let qemu: NativeQemu;
  let log: string[];
  const controller = new AbortController();
  const context: CommandContext = { signal: controller.signal, log: (line) => log.push(line) };
  const info = async (file: string) =>
    JSON.parse((await runChecked('qemu-img', ['info', '--output=json', file], { signal: controller.signal })).stdout) as Record<
      string,
      unknown
    >;
  const qmp = (vmid: number, command: string) =>
    new QemuVm(host, vmid).qmp(command, controller.signal, (client) => client.execute(command));
  const swtpms = async () => (await processesUnder(dir)).length;

  const secure = vm(200, [volume(200, 'efidisk0', 0, 'qcow2', 528 * KiB, { efivars: { type: '4m', msKeys: true } })], {
    bios: 'ovmf',
    machine: 'q35',
  });
  const tpm = vm(201, [volume(201, 'tpmstate0', 0, 'raw', 4096 * KiB, { tpm: 'v2.0' })], {});

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-efitpm-'));
    host = await openHost(dir);
    qemu = new NativeQemu(host, undefined, { accelerator: 'tcg' });
  });
  beforeEach(() => {
    log = [];
  });
  afterAll(() => removeHostRoot(dir));

  it('makes the EFI vars disk a qcow2 copy of the vars template with the keys enrolled (528 KiB)', async () => {
    await qemu.create({ guest: secure, allocate: ['efidisk0'] }, context);
    const image = join(dir, secure.volumes[0]?.path ?? '');
    expect(await info(image)).toMatchObject({ format: 'qcow2', 'virtual-size': 528 * KiB });
    await runChecked('qemu-img', ['compare', '-f', 'qcow2', '-F', 'raw', image, '/usr/share/OVMF/OVMF_VARS_4M.ms.fd'], {
      signal: controller.signal,
    });
  });

  it('starts a q35 VM with Secure Boot firmware: the code read-only and the EFI disk on pflash', async () => {
    await qemu.start(secure, context);
    const line = log.find((entry) => entry.startsWith('qemu-system-x86_64 ')) ?? '';
    expect(line).toContain('-machine q35');
    expect(line).toContain('-global driver=cfi.pflash01,property=secure,value=on');
    expect(line).toContain('if=pflash,unit=0,format=raw,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.secboot.fd');
    expect(line).toContain(`if=pflash,unit=1,id=drive-efidisk0,format=qcow2,file=${join(dir, secure.volumes[0]?.path ?? '')}`);
    expect(await qmp(200, 'query-status')).toMatchObject({ running: true, status: 'running' });
    const drives = (await qmp(200, 'query-block')) as { device: string; inserted?: { file: string; ro: boolean } }[];
    const flash = drives
      .filter((drive) => drive.inserted !== undefined)
      .map((drive) => ({ file: drive.inserted?.file, ro: drive.inserted?.ro }));
    expect(flash).toEqual(
      expect.arrayContaining([
        { file: '/usr/share/OVMF/OVMF_CODE_4M.secboot.fd', ro: true },
        { file: join(dir, secure.volumes[0]?.path ?? ''), ro: false },
      ]),
    );
    await qemu.stop(200, context);
  });

  it('runs a VM with OVMF and no EFI disk on a temporary copy of the vars, says so, and removes the copy when it stops', async () => {
    const plain = vm(202, [], { bios: 'ovmf' });
    await qemu.start(plain, context);
    expect(log).toContain('WARN: no efidisk configured! Using temporary efivars disk.');
    const files = qemuRuntimeFiles(host, 202);
    await access(files.efivars);
    expect(await qmp(202, 'query-status')).toMatchObject({ running: true });
    await qemu.stop(202, context);
    await expect(access(files.efivars)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('runs swtpm on the TPM state before QEMU, QEMU sees the TPM, and no swtpm is left once the VM stops', async () => {
    await qemu.create({ guest: tpm, allocate: ['tpmstate0'] }, context);
    await qemu.start(tpm, context);
    const files = qemuRuntimeFiles(host, 201);
    await access(files.tpmSocket);
    expect(await swtpms()).toBe(2); // QEMU and its swtpm
    expect(await qmp(201, 'query-tpm')).toEqual([
      expect.objectContaining({ id: 'tpmdev', model: 'tpm-tis', options: expect.objectContaining({ type: 'emulator' }) }),
    ]);
    await qemu.stop(201, context);
    expect(await swtpms()).toBe(0);
    await expect(access(files.tpmSocket)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('starts again on the TPM state it made (swtpm_setup leaves it as it is), and a failed start leaves no swtpm', async () => {
    await qemu.start(tpm, context);
    expect(log.some((line) => line.includes('Not overwriting existing state file'))).toBe(true);
    await qemu.stop(201, context);
    const broken = { ...tpm, config: { args: '-device no-such-device' } };
    await expect(qemu.start(broken, context)).rejects.toThrow(/VM 201: could not start/);
    expect(await swtpms()).toBe(0);
  });
});
