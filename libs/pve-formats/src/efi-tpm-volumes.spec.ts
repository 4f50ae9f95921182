import { EFIDISK, TPMSTATE } from './devices.js';
import { EFI_VARS_SIZE, inAllocationOrder, newVolumeLayout, TPM_STATE_SIZE } from './efi-tpm-volumes.js';
import { ValueError } from './value-rules.js';

const refusal = (parse: () => unknown) => {
  try {
    parse();
  } catch (error) {
    if (error instanceof ValueError) return error.message;
    throw error;
  }
  return 'accepted';
};

describe('efidisk0 and tpmstate0 values', () => {
  it.each([
    ['local:1,efitype=4m,pre-enrolled-keys=1', 'local:1,efitype=4m,pre-enrolled-keys=1'],
    ['file=local:100/vm-100-disk-1.qcow2,efitype=4m,size=528K', 'local:100/vm-100-disk-1.qcow2,efitype=4m,size=528K'],
    ['local:2,efitype=2m,format=raw,ms-cert=2023', 'local:2,efitype=2m,format=raw,ms-cert=2023'],
  ])('accepts the EFI disk %s', (given, stored) => {
    expect(EFIDISK.parse(given)).toBe(stored);
  });

  it.each([
    ['local:1,efitype=1m', 'efitype: must be one of 2m, 4m'],
    ['local:1,pre-enrolled-keys=1', 'pre-enrolled-keys: needs efitype=4m (the 2m vars template has no keys)'],
    ['local:1,efitype=4m,media=cdrom', "has an unknown item 'media' (known: size, format, efitype, pre-enrolled-keys, ms-cert)"],
    ['none', 'must be <storage>:<size> or a volume id'],
    ['local:0', "size '0' must be more than 0"],
  ])('refuses the EFI disk %s', (given, message) => {
    expect(refusal(() => EFIDISK.parse(given))).toBe(message);
  });

  it('accepts TPM versions 1.2 and 2.0 only', () => {
    expect(TPMSTATE.parse('local:1,version=v2.0')).toBe('local:1,version=v2.0');
    expect(refusal(() => TPMSTATE.parse('local:1,version=2.0'))).toBe('version: must be one of v1.2, v2.0');
  });
});

describe('new EFI vars and TPM state volumes', () => {
  it('sizes an EFI disk as its vars template, whatever size is given, keeps its format and writes its items sorted as PVE', () => {
    const layout = newVolumeLayout(
      'efidisk0',
      1024 ** 3,
      new Map([
        ['pre-enrolled-keys', '1'],
        ['format', 'raw'],
        ['efitype', '4m'],
      ]),
    );
    expect(layout.format).toBe('raw');
    expect([...layout.options]).toEqual([
      ['efitype', '4m'],
      ['pre-enrolled-keys', '1'],
      ['size', '528K'],
    ]);
    expect(newVolumeLayout('efidisk0', 1024 ** 3, new Map()).options.get('size')).toBe('128K');
    expect(EFI_VARS_SIZE).toEqual({ '2m': 131072, '4m': 540672 });
  });

  it('makes TPM state a 4 MiB raw image whatever format is given', () => {
    const layout = newVolumeLayout(
      'tpmstate0',
      1024 ** 3,
      new Map([
        ['version', 'v2.0'],
        ['format', 'qcow2'],
      ]),
    );
    expect(layout).toEqual({
      format: 'raw',
      options: new Map([
        ['size', '4M'],
        ['version', 'v2.0'],
      ]),
    });
    expect(TPM_STATE_SIZE).toBe(4 * 1024 * 1024);
  });

  it('leaves a disk its given size and format', () => {
    expect(
      newVolumeLayout(
        'scsi0',
        2 * 1024 ** 3,
        new Map([
          ['format', 'raw'],
          ['ssd', '1'],
        ]),
      ),
    ).toEqual({
      format: 'raw',
      options: new Map([
        ['ssd', '1'],
        ['size', '2G'],
      ]),
    });
  });

  it('allocates the EFI vars and TPM state after the disks', () => {
    expect(
      inAllocationOrder([
        ['tpmstate0', 1],
        ['efidisk0', 2],
        ['scsi0', 3],
        ['name', 4],
      ]).map(([key]) => key),
    ).toEqual(['scsi0', 'name', 'tpmstate0', 'efidisk0']);
  });
});
