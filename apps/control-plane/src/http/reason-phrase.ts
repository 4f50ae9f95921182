const MAX_LENGTH = 400;

/**
 * The error message as an HTTP reason phrase (proxmoxer, Telmate and bpg build their
 * error text from it). Only its first line; characters a status line cannot carry become '?'.
 */
export function reasonPhrase(message: string): string {
  const firstLine = message.split(/\r?\n|\r/, 1)[0] ?? '';
  const printable = firstLine.replace(/[^\x20-\x7e]/g, '?').trim();
  return (printable.length > MAX_LENGTH ? `${printable.slice(0, MAX_LENGTH - 3)}...` : printable) || 'error';
}
