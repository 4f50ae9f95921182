import type { GoStruct } from './go-json.js';

/**
 * What Telmate/proxmox-api-go reads from the answers, with the unchecked type assertion it makes on
 * each (`v.(float64)`, `v.(string)`): any other JSON type panics the provider.
 */

/** A guest in GET /cluster/resources?type=vm (`config__guest__resource.go`, `GetVmInfo`, `GetVmRefById`). */
export const TELMATE_RESOURCE: GoStruct = {
  fields: {
    maxcpu: 'float64',
    cpu: 'float64',
    diskread: 'float64',
    maxdisk: 'float64',
    disk: 'float64',
    diskwrite: 'float64',
    hastate: 'string',
    vmid: 'float64',
    maxmem: 'float64',
    mem: 'float64',
    name: 'string',
    netin: 'float64',
    netout: 'float64',
    node: 'string',
    pool: 'string',
    status: 'string',
    tags: 'string',
    template: 'float64',
    type: 'string',
    uptime: 'float64',
  },
};

/** GET /nodes/{node}/lxc/{vmid}/config as `NewConfigLxcFromApi` reads it (`config__lxc.go`); `cpulimit` is asserted to a string. */
export const TELMATE_LXC_CONFIG: GoStruct = {
  fields: {
    arch: 'string',
    cmode: 'string',
    console: 'float64',
    cores: 'float64',
    cpulimit: 'string',
    cpuunits: 'float64',
    description: 'string',
    features: 'string',
    hookscript: 'string',
    hostname: 'string',
    lock: 'string',
    memory: 'float64',
    rootfs: 'string',
    nameserver: 'string',
    onboot: 'float64',
    ostype: 'string',
    protection: 'float64',
    searchdomain: 'string',
    startup: 'string',
    swap: 'float64',
    template: 'float64',
    tty: 'float64',
    unprivileged: 'float64',
    tags: 'string',
  },
  patterns: [[/^(mp|net|unused)\d+$/, 'string']],
};

/** GET /nodes/{node}/qemu/{vmid}/config as `rawConfigQemu` reads the keys the delete checks (`protection`) and the name. */
export const TELMATE_QEMU_CONFIG: GoStruct = {
  fields: { protection: 'float64', name: 'string', description: 'string', tags: 'string', onboot: 'float64', tablet: 'float64' },
};

/** One entry of GET .../pending, which Telmate reads every VM through: `key` asserted a string, the values taken as they come. */
export const TELMATE_PENDING: GoStruct = { fields: { key: 'string', value: 'any', pending: 'any', delete: 'any' } };

/** GET .../status/current as `GetRawGuestStatus` reads it. */
export const TELMATE_STATUS: GoStruct = { fields: { status: 'string', uptime: 'float64', name: 'string', lock: 'string' } };

/** GET /version (`Client.Version`), read before a stop to choose `overrule-shutdown`. */
export const TELMATE_VERSION: GoStruct = { fields: { version: 'string', release: 'string', repoid: 'string' } };
