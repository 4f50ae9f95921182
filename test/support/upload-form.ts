import { randomBytes } from 'node:crypto';

/** A multipart form as proxmoxer (python-requests) sends an upload: the fields, then the file as the part `filename`. */
export function uploadForm(fields: Record<string, string>, name: string, bytes: Buffer): { body: Buffer; type: string } {
  const boundary = `corral-${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = Object.entries(fields).map(([field, value]) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"\r\n\r\n${value}\r\n`),
  );
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="filename"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}
