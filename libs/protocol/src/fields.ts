import { z } from 'zod';

/*
 * Field schemas shared by frames and commands. Parameters the agent acts on (writes to a host file,
 * passes to a program) use the strict ones here, so a value that could smuggle a second argument, a
 * second line or a path outside /dev never reaches the host.
 */

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';

/** A node name: one DNS label, as PVE's `pve-node` format. */
export const NODE_NAME_PATTERN = new RegExp(`^${LABEL}$`);
export const NODE_NAME_HINT = 'must be a host name label (letters, digits and inner hyphens, at most 63)';
export const NodeName = z.string().regex(NODE_NAME_PATTERN, NODE_NAME_HINT);

/** A DNS domain name of one or more labels, without a trailing dot. */
export const DomainName = z
  .string()
  .max(253, 'must be at most 253 characters')
  .regex(new RegExp(`^${LABEL}(?:\\.${LABEL})*$`), 'must be a domain name (dot-separated labels of letters, digits and inner hyphens)');

/** An identifier chosen by one side and only compared by the other (request ids, agent sessions). */
export const OpaqueId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/, 'must be 1 to 64 letters, digits, dots, colons, underscores or hyphens');

/** A frame's sequence number (see `AckFrame` for how they count). */
export const Sequence = z.int().min(1);

/** A task id in PVE's form `UPID:node:pid:pstart:starttime:type:id:user@realm:`. */
export const Upid = z
  .string()
  .max(512)
  .regex(
    new RegExp(`^UPID:${LABEL}:[0-9A-Fa-f]{8}:[0-9A-Fa-f]{8,9}:[0-9A-Fa-f]{8}:[^:\\s]+:[^:\\s]*:[^:\\s]+:$`),
    'must be a UPID (UPID:node:pid:pstart:starttime:type:id:user@realm:)',
  );

/** An ISO 8601 date-time with `Z` or an offset, as an event's `timestamp`. */
export const Timestamp = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with a time zone' });

/** A guest id, in PVE's range. */
export const Vmid = z.int().min(100).max(999_999_999);

/** A size in bytes (PVE's unit for mem, disk and their maxima). */
export const Bytes = z.int().min(0);
/** A duration in whole seconds (PVE's unit for uptime). */
export const Seconds = z.int().min(0);
/** A share of a whole, 0 to 1 (PVE's `cpu`: 0.25 is a quarter of all CPUs busy). */
export const Fraction = z.number().min(0).max(1);

/** An IPv4 or IPv6 address, without a prefix length. */
export const IpAddress = z.union([z.ipv4(), z.ipv6()], { error: 'must be an IPv4 or IPv6 address' });
/** An interface address with its prefix length (PVE's `cidr` and `cidr6`). */
export const Ipv4Cidr = z.cidrv4({ error: 'must be an IPv4 address with a prefix length, e.g. 192.0.2.10/24' });
export const Ipv6Cidr = z.cidrv6({ error: 'must be an IPv6 address with a prefix length, e.g. 2001:db8::10/64' });

/**
 * A Linux network interface name: at most 15 characters (IFNAMSIZ), starting with a letter, with an
 * optional `.<vlan>` suffix as in `eno1.100`. No `/`, spaces or `:` that would break the interfaces file.
 */
export const InterfaceName = z
  .string()
  .min(2, 'must be at least 2 characters')
  .max(15, 'must be at most 15 characters (the kernel limit)')
  .regex(
    /^[A-Za-z][A-Za-z0-9_-]*(?:\.[0-9]{1,4})?$/,
    'must be an interface name (a letter, then letters, digits, _ or -, optionally .<vlan>)',
  );

/** A block device path under /dev, such as /dev/sdb or /dev/disk/by-id/wwn-0x5000c500a1b2c3d4; no `.` or `..` segments. */
export const DevicePath = z
  .string()
  .max(255)
  .regex(/^\/dev(?:\/[A-Za-z0-9_+:-][A-Za-z0-9._+:-]*)+$/, 'must be a device path under /dev');

/**
 * A Debian package name (Debian Policy 5.6.1): lower-case letters, digits, `+ - .`, starting with a
 * letter or digit, so it can never be read as an option by apt.
 */
export const PackageName = z
  .string()
  .max(128)
  .regex(/^[a-z0-9][a-z0-9+.-]+$/, 'must be a Debian package name');

/** A Debian package version, `[epoch:]upstream[-revision]`. */
export const PackageVersion = z
  .string()
  .max(128)
  .regex(/^(?:[0-9]+:)?[0-9][A-Za-z0-9.+~-]*$/, 'must be a Debian package version');

/** What `JSON.parse` can return. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Any value JSON can carry (no `undefined`, `NaN` or infinities); zod's own `z.json()` cannot name itself in an error. */
export const JsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JsonValue), z.record(z.string(), JsonValue)], {
    error: 'must be a JSON value',
  }),
);
