import { z } from 'zod';
import type { CommandDefinition } from '../command-definition.js';
import { Bytes, Ipv4Cidr, Ipv6Cidr } from '../fields.js';
import { Checksum, FILE_NAME, LOCATION } from './storage.js';

/*
 * Downloads from a URL, done by the node's agent from the node's network (PVE's `download-url`,
 * `query-url-metadata` and appliance downloads). The agent resolves the URL's host itself, refuses
 * local and private addresses unless the operator allowed their network, and connects to exactly
 * the address it checked; each redirect is checked again.
 */

/** An http or https URL. */
export const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2048);

/** Where a download may go: an ISO image, a container template, or a disk image to import (PVE's `import` content). */
export const DownloadFile = z
  .string()
  .regex(
    new RegExp(`^(?:template/iso|template/cache|import)/${FILE_NAME}$`),
    'must be template/iso/<file>, template/cache/<file> or import/<file>',
  );

/** What the request may reach and how it trusts the server. */
const OUTBOUND = {
  url: HttpUrl,
  /** PVE's `verify-certificates`: false accepts any certificate of an https server. */
  verifyCertificates: z.boolean(),
  /** Networks reached although they are local or private: the operator's mirrors (the control plane's CORRAL_DOWNLOAD_ALLOW_NETWORKS). */
  allowNetworks: z.array(z.union([Ipv4Cidr, Ipv6Cidr])).max(64),
};

export const storageDownload = {
  description:
    'Download `url` into a directory storage as `file`: following up to 10 redirects, each address checked; into a hidden temporary file in the target folder, at most `maxBytes` bytes (more, announced or received, fails), with `decompress` unpacked as it arrives; `checksum` is of the bytes downloaded. Only a complete, verified file is renamed to `file`; anything else leaves no file behind. An existing `file` is kept when it has the checksum, else the command fails (PVE does not overwrite).',
  params: z.strictObject({
    ...LOCATION,
    file: DownloadFile,
    ...OUTBOUND,
    checksum: Checksum.optional(),
    decompress: z.enum(['gz']).optional(),
    maxBytes: Bytes,
  }),
  result: z.object({ size: Bytes }),
} satisfies CommandDefinition;

export const nodeUrlMetadata = {
  description:
    "A HEAD request to `url` from this node, following redirects with the download's address rules: the file name (from Content-Disposition, else the URL's last path segment), the MIME type without its parameters and the size, each when known. Any answer but 200 fails.",
  params: z.strictObject(OUTBOUND),
  result: z.object({ filename: z.string().optional(), mimetype: z.string().optional(), size: Bytes.optional() }),
} satisfies CommandDefinition;
