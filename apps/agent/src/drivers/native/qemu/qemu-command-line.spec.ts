import type { GuestSpec } from '@corral/protocol';
import { WEB1 } from '../../../../test-support/guest-specs.js';
import type { Host } from '../../../host/host.js';
import { formatCommandLine, qemuCommandLine, type QemuHostFacts } from './qemu-command-line.js';
import { cpuArgument } from './qemu-cpu-model.js';
import { qemuRuntimeFiles } from './qemu-runtime-files.js';

const host: Host = { root: '/srv/host', live: false };

/** WEB1 with some changes. */
function web1(changes: Partial<GuestSpec> = {}): GuestSpec {
  return { ...WEB1, ...changes };
}

function facts(overrides: Partial<QemuHostFacts> = {}): QemuHostFacts {
  return { host, accelerator: 'kvm', files: qemuRuntimeFiles(host, 100), bridges: new Set(['vmbr0']), ...overrides };
}

/** The value after each occurrence of `option`. */
function values(args: readonly string[], option: string): string[] {
  return args.flatMap((arg, index) => (arg === option ? [args[index + 1] ?? ''] : []));
}

describe('qemuCommandLine', () => {
  it('builds the whole command line of a PVE VM: background, pid file, QMP, VNC, machine, disk and a tap on its bridge', () => {
    const line = qemuCommandLine(web1(), facts());
    const run = '/srv/host/run/corral/qemu';
    expect(line.args).toEqual([
      ...['-name', 'guest=web1', '-S', '-daemonize', '-pidfile', `${run}/100.pid`, '-D', `${run}/100.log`],
      ...['-chardev', `socket,id=qmp,path=${run}/100.qmp,server=on,wait=off`, '-mon', 'chardev=qmp,mode=control'],
      ...['-vnc', `unix:${run}/100.vnc`, '-nodefaults', '-no-user-config', '-machine', 'pc', '-accel', 'kvm'],
      ...['-m', '2048', '-smp', '2,sockets=1,cores=2', '-cpu', 'qemu64,+aes,+popcnt,+ssse3,+sse4.1,+sse4.2'],
      ...['-smbios', 'type=1,uuid=7d1c1f0e-2f3a-4b5c-8d9e-0a1b2c3d4e5f', '-vga', 'std', '-device', 'virtio-scsi-pci,id=scsihw0'],
      ...['-drive', 'file=/srv/host/var/lib/vz/images/100/vm-100-disk-0.qcow2,format=qcow2,if=none,id=drive-scsi0'],
      ...['-device', 'scsi-hd,bus=scsihw0.0,channel=0,scsi-id=0,lun=0,drive=drive-scsi0,id=scsi0,bootindex=100'],
      ...[
        '-netdev',
        'tap,id=net0,ifname=tap100i0,script=no,downscript=no',
        '-device',
        'virtio-net-pci,mac=BC:24:11:3A:5F:01,id=net0,bootindex=101,netdev=net0',
      ],
    ]);
    expect(line.taps).toEqual([{ nic: 'net0', ifname: 'tap100i0', bridge: 'vmbr0' }]);
    expect(line.notes).toEqual([]);
  });

  it("waits paused for a migration's state on the target, with the same machine", () => {
    const args = qemuCommandLine(web1(), facts({ incoming: true })).args;
    expect(args.slice(0, 6)).toEqual(['-name', 'guest=web1', '-S', '-incoming', 'defer', '-daemonize']);
    expect(args.filter((arg) => arg !== '-incoming' && arg !== 'defer')).toEqual(qemuCommandLine(web1(), facts()).args);
  });

  it('leaves a card on a bridge the host lacks without a backend and says so', () => {
    const guest = web1({ nics: [{ key: 'net1', mac: 'BC:24:11:3A:5F:02', bridge: 'vmbr9', model: 'e1000' }] });
    const line = qemuCommandLine(guest, facts());
    expect(values(line.args, '-netdev')).toEqual([]);
    expect(values(line.args, '-device')).toContain('e1000,mac=BC:24:11:3A:5F:02,id=net1');
    expect(line.taps).toEqual([]);
    expect(line.notes).toEqual(["net1: bridge 'vmbr9' does not exist on this host; the card is not connected"]);
  });

  it("gives a card without a bridge QEMU's user-mode network, as PVE does", () => {
    const line = qemuCommandLine(web1({ nics: [{ key: 'net0', mac: 'BC:24:11:3A:5F:01', model: 'rtl8139' }] }), facts());
    expect(values(line.args, '-netdev')).toEqual(['user,id=net0']);
    expect(values(line.args, '-device')).toContain('rtl8139,mac=BC:24:11:3A:5F:01,id=net0,bootindex=101,netdev=net0');
    expect(line.taps).toEqual([]);
  });

  it('names taps by VM and card number and maps every card model to its device', () => {
    const nics = (['virtio', 'e1000', 'e1000e', 'rtl8139', 'vmxnet3'] as const).map((model, index) => ({
      key: `net${index * 7}`,
      mac: `BC:24:11:3A:5F:0${index}`,
      bridge: 'vmbr0',
      model,
    }));
    const line = qemuCommandLine(web1({ vmid: 999999999, nics, config: {} }), facts({ files: qemuRuntimeFiles(host, 999999999) }));
    expect(line.taps.map((tap) => tap.ifname)).toEqual([
      'tap999999999i0',
      'tap999999999i7',
      'tap999999999i14',
      'tap999999999i21',
      'tap999999999i28',
    ]);
    expect(
      values(line.args, '-device')
        .filter((device) => device.includes('mac='))
        .map((device) => device.split(',')[0]),
    ).toEqual(['virtio-net-pci', 'e1000', 'e1000e', 'rtl8139', 'vmxnet3']);
  });

  it('places disks on their buses with one controller per kind, CD-ROMs read-only, and skips what is no disk', () => {
    const volume = (key: string, extra: object = {}) => ({
      key,
      volid: `local:100/${key}.raw`,
      path: `/images/${key}.raw`,
      format: 'raw' as const,
      size: 1024,
      ...extra,
    });
    const guest = web1({
      volumes: [
        volume('scsi0'),
        volume('scsi3'),
        volume('virtio1'),
        volume('ide2', { cdrom: true }),
        volume('ide1'),
        volume('sata4'),
        volume('scsi5', { cdrom: true }),
        volume('efidisk0'),
        volume('unused0'),
      ],
      nics: [],
      config: { boot: 'order=ide2;virtio1' },
    });
    const line = qemuCommandLine(guest, facts());
    expect(values(line.args, '-drive')).toEqual([
      'file=/srv/host/images/scsi0.raw,format=raw,if=none,id=drive-scsi0',
      'file=/srv/host/images/scsi3.raw,format=raw,if=none,id=drive-scsi3',
      'file=/srv/host/images/virtio1.raw,format=raw,if=none,id=drive-virtio1',
      'file=/srv/host/images/ide2.raw,format=raw,if=none,id=drive-ide2,media=cdrom,readonly=on',
      'file=/srv/host/images/ide1.raw,format=raw,if=none,id=drive-ide1',
      'file=/srv/host/images/sata4.raw,format=raw,if=none,id=drive-sata4',
      'file=/srv/host/images/scsi5.raw,format=raw,if=none,id=drive-scsi5,media=cdrom,readonly=on',
    ]);
    expect(values(line.args, '-device')).toEqual([
      'virtio-scsi-pci,id=scsihw0',
      'ahci,id=ahci0',
      'scsi-hd,bus=scsihw0.0,channel=0,scsi-id=0,lun=0,drive=drive-scsi0,id=scsi0',
      'scsi-hd,bus=scsihw0.0,channel=0,scsi-id=3,lun=0,drive=drive-scsi3,id=scsi3',
      'virtio-blk-pci,drive=drive-virtio1,id=virtio1,bootindex=101',
      'ide-cd,bus=ide.1,unit=0,drive=drive-ide2,id=ide2,bootindex=100',
      'ide-hd,bus=ide.0,unit=1,drive=drive-ide1,id=ide1',
      'ide-hd,bus=ahci0.4,drive=drive-sata4,id=sata4',
      'scsi-cd,bus=scsihw0.0,channel=0,scsi-id=5,lun=0,drive=drive-scsi5,id=scsi5',
    ]);
    // SeaBIOS has no use for an EFI vars disk: PVE leaves it out too.
    expect(line.notes).toEqual([]);
  });

  it('gives OVMF as PVE chooses it: 4m Secure Boot code with a secure flash on q35, the 4m code without SMM on pc, the 2m build otherwise', () => {
    const efidisk = (efivars: { type: '2m' | '4m'; msKeys: boolean }) => ({
      key: 'efidisk0',
      volid: 'local:100/vm-100-disk-1.qcow2',
      path: '/images/vm-100-disk-1.qcow2',
      format: 'qcow2' as const,
      size: 540672,
      efivars,
    });
    const q35 = qemuCommandLine(
      web1({ volumes: [efidisk({ type: '4m', msKeys: true })], config: { bios: 'ovmf', machine: 'q35' } }),
      facts(),
    );
    expect(values(q35.args, '-machine')).toEqual(['q35']);
    expect(values(q35.args, '-global')).toEqual(['driver=cfi.pflash01,property=secure,value=on']);
    expect(values(q35.args, '-drive')).toEqual([
      'if=pflash,unit=0,format=raw,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.secboot.fd',
      'if=pflash,unit=1,id=drive-efidisk0,format=qcow2,file=/srv/host/images/vm-100-disk-1.qcow2',
    ]);
    const pc = qemuCommandLine(web1({ volumes: [efidisk({ type: '4m', msKeys: false })], config: { bios: 'ovmf' } }), facts());
    expect(values(pc.args, '-machine')).toEqual(['pc']);
    expect(values(pc.args, '-global')).toEqual([]);
    expect(values(pc.args, '-drive')[0]).toBe('if=pflash,unit=0,format=raw,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd');
    expect(
      values(
        qemuCommandLine(web1({ volumes: [efidisk({ type: '2m', msKeys: false })], config: { bios: 'ovmf' } }), facts()).args,
        '-drive',
      )[0],
    ).toContain('file=/usr/share/OVMF/OVMF_CODE.fd');
    const temporary = qemuCommandLine(web1({ volumes: [], config: { bios: 'ovmf' } }), facts());
    expect(values(temporary.args, '-drive')[1]).toBe(
      `if=pflash,unit=1,id=drive-efidisk0,format=raw,file=${qemuRuntimeFiles(host, 100).efivars}`,
    );
  });

  it('places IDE disks on q35 one to a bus, as PVE maps them (ide0, ide2, ide1, ide3 on ide.0 to ide.3)', () => {
    const ide = (key: string) => ({ key, volid: `local:100/${key}.raw`, path: `/images/${key}.raw`, format: 'raw' as const, size: 1024 });
    const line = qemuCommandLine(
      web1({ volumes: ['ide0', 'ide1', 'ide2', 'ide3'].map(ide), nics: [], config: { machine: 'q35' } }),
      facts(),
    );
    expect(values(line.args, '-device').map((device) => /bus=(ide\.\d),unit=(\d)/.exec(device)?.slice(1).join(':'))).toEqual([
      'ide.0:0',
      'ide.2:0',
      'ide.1:0',
      'ide.3:0',
    ]);
  });

  it('connects a TPM to its swtpm socket with tpmstate0', () => {
    const tpm = {
      key: 'tpmstate0',
      volid: 'local:100/vm-100-disk-2.raw',
      path: '/images/vm-100-disk-2.raw',
      format: 'raw' as const,
      size: 4194304,
      tpm: 'v2.0' as const,
    };
    const line = qemuCommandLine(web1({ volumes: [tpm], nics: [] }), facts());
    expect(values(line.args, '-chardev')).toContain(`socket,id=tpmchar,path=${qemuRuntimeFiles(host, 100).tpmSocket}`);
    expect(values(line.args, '-tpmdev')).toEqual(['emulator,id=tpmdev,chardev=tpmchar']);
    expect(values(line.args, '-device')).toEqual(['tpm-tis,tpmdev=tpmdev']);
    expect(line.notes).toEqual([]);
  });

  it('adds no disk controller that no disk needs', () => {
    const line = qemuCommandLine(
      web1({ volumes: [{ key: 'virtio0', volid: 'local:100/a.qcow2', path: '/a.qcow2', format: 'qcow2', size: 1 }] }),
      facts(),
    );
    expect(values(line.args, '-device').filter((device) => /^(?:virtio-scsi-pci|ahci),/.test(device))).toEqual([]);
  });

  it('doubles the commas of paths inside option strings, where QEMU would read them as separators', () => {
    const commaHost: Host = { root: '/srv/a,b', live: false };
    const guest = web1({
      volumes: [{ key: 'scsi0', volid: 'local:100/x.qcow2', path: '/images/x,file=evil.qcow2', format: 'qcow2', size: 1 }],
    });
    const line = qemuCommandLine(guest, facts({ host: commaHost, files: qemuRuntimeFiles(commaHost, 100) }));
    expect(values(line.args, '-drive')).toEqual(['file=/srv/a,,b/images/x,,file=evil.qcow2,format=qcow2,if=none,id=drive-scsi0']);
    expect(values(line.args, '-chardev')).toEqual(['socket,id=qmp,path=/srv/a,,b/run/corral/qemu/100.qmp,server=on,wait=off']);
    expect(values(line.args, '-vnc')).toEqual(['unix:/srv/a,,b/run/corral/qemu/100.vnc']);
    // Plain arguments are not option strings: QEMU takes them as they are.
    expect(values(line.args, '-pidfile')).toEqual(['/srv/a,b/run/corral/qemu/100.pid']);
  });

  it("sets no boot index for PVE's older boot letters, and no SMBIOS without a valid uuid", () => {
    const line = qemuCommandLine(web1({ config: { boot: 'cdn', smbios1: 'uuid=not-a-uuid,manufacturer=eA==' } }), facts());
    expect(line.args.join(' ')).not.toContain('bootindex');
    expect(line.args).not.toContain('-smbios');
  });

  it('counts every core of every socket', () => {
    expect(values(qemuCommandLine(web1({ cores: 4, sockets: 2 }), facts()).args, '-smp')).toEqual(['8,sockets=2,cores=4']);
  });

  it('uses TCG when told to, with the CPU model TCG can run', () => {
    const line = qemuCommandLine(web1({ cpu: 'host' }), facts({ accelerator: 'tcg' }));
    expect(values(line.args, '-accel')).toEqual(['tcg']);
    expect(values(line.args, '-cpu')).toEqual(['max']);
  });
});

describe('cpuArgument', () => {
  it.each([
    ['x86-64-v2-AES', 'kvm', 'qemu64,+aes,+popcnt,+ssse3,+sse4.1,+sse4.2'],
    ['x86-64-v2-AES', 'tcg', 'qemu64,+aes,+popcnt,+ssse3,+sse4.1,+sse4.2'],
    ['x86-64-v2', 'tcg', 'qemu64,+popcnt,+ssse3,+sse4.1,+sse4.2'],
    ['x86-64-v3', 'kvm', 'qemu64,+aes,+popcnt,+ssse3,+sse4.1,+sse4.2,+avx,+avx2,+bmi1,+bmi2,+f16c,+fma,+abm,+movbe,+xsave'],
    ['host', 'kvm', 'host'],
    ['host', 'tcg', 'max'],
    ['Skylake-Server', 'tcg', 'Skylake-Server'],
    ['kvm64', 'kvm', 'kvm64'],
    [undefined, 'tcg', 'kvm64'],
  ] as const)('maps %s with %s to %s', (model, accelerator, expected) => {
    expect(cpuArgument(model, accelerator)).toBe(expected);
  });
});

describe('formatCommandLine', () => {
  it('writes plain arguments as they are and quotes what a shell would split or expand', () => {
    expect(formatCommandLine('qemu-system-x86_64', ['-name', 'guest=web1', '-drive', 'file=/a b/x.qcow2', "it's", '$HOME'])).toBe(
      `qemu-system-x86_64 -name guest=web1 -drive 'file=/a b/x.qcow2' 'it'\\''s' '$HOME'`,
    );
  });
});
