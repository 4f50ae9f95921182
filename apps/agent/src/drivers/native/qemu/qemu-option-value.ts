/** A value inside a QEMU option string (`file=...,format=...`): a comma is written twice, QEMU's escape, as a path may hold one. */
export function escapeOption(value: string): string {
  return value.replaceAll(',', ',,');
}
