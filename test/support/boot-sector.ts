/**
 * A BIOS boot sector whose program keeps a VM busy writing its disk: after a short spin, it writes
 * its own sector to the next LBA through the BIOS's extended disk services (int 13h, AH=43h), from
 * LBA 1 up to 120,000 and round again, forever. A guest without an operating system that still
 * keeps a vCPU busy and writes to its disk, for the figures of its history.
 */
export function diskWritingBootSector(): Buffer {
  // 16-bit real mode, loaded at 0000:7C00; the offsets are from 7C00.
  const program = [
    [0xfa], // 00 cli
    [0x31, 0xc0], // 01 xor ax, ax
    [0x8e, 0xd8], // 03 mov ds, ax
    [0x8e, 0xc0], // 05 mov es, ax
    [0x8e, 0xd0], // 07 mov ss, ax
    [0xbc, 0x00, 0x7c], // 09 mov sp, 0x7c00
    [0xfb], // 0C sti
    [0x88, 0x16, 0x3e, 0x7c], // 0D mov [drive], dl: the BIOS names the boot drive in dl
    [0xb9, 0xff, 0xff], // 11 again: mov cx, 0xffff
    [0xe2, 0xfe], // 14 spin: loop spin
    [0xbe, 0x3f, 0x7c], // 16 mov si, packet
    [0xb4, 0x43], // 19 mov ah, 0x43 (extended write)
    [0xb0, 0x00], // 1B mov al, 0 (no verify)
    [0x8a, 0x16, 0x3e, 0x7c], // 1D mov dl, [drive]
    [0xcd, 0x13], // 21 int 0x13
    [0x66, 0xff, 0x06, 0x47, 0x7c], // 23 inc dword [packet + 8]: the next LBA
    [0x66, 0x81, 0x3e, 0x47, 0x7c, 0xc0, 0xd4, 0x01, 0x00], // 28 cmp dword [packet + 8], 120000
    [0x72, 0xde], // 31 jb again
    [0x66, 0xc7, 0x06, 0x47, 0x7c, 0x01, 0x00, 0x00, 0x00], // 33 mov dword [packet + 8], 1
    [0xeb, 0xd3], // 3C jmp again
    [0x00], // 3E drive
    // 3F packet: its size (16), one sector, from 0000:7C00, to LBA (8 bytes at 47) 1.
    [0x10, 0x00, 0x01, 0x00, 0x00, 0x7c, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00],
  ].flat();
  const sector = Buffer.alloc(512);
  Buffer.from(program).copy(sector);
  // The boot signature.
  sector[510] = 0x55;
  sector[511] = 0xaa;
  return sector;
}
