import type { GoStruct } from './go-json.js';

/**
 * The answers bpg/terraform-provider-proxmox decodes, field by field with the Go type it gives
 * each (`proxmox/nodes/vms/vms_types.go`, `proxmox/nodes/containers/containers_types.go`,
 * `proxmox/cluster/cluster_types.go`, `proxmox/pools/pool_types.go`).
 */

/** Drives, NICs and the other numbered devices bpg parses from their property strings. */
const DEVICES: GoStruct['patterns'] = [[/^(ide|sata|scsi|virtio|net|hostpci|usb|ipconfig|unused|numa|serial|virtiofs|mp|dev)\d+$/, 'text']];

/** `vms.GetResponseData`: GET /nodes/{node}/qemu/{vmid}/config. */
export const BPG_VM_CONFIG: GoStruct = {
  fields: {
    acpi: 'CustomBool',
    agent: 'text',
    'amd-sev': 'text',
    reboot: 'CustomBool',
    audio0: 'text',
    autostart: 'CustomBool',
    archive: 'string',
    bwlimit: 'int',
    bios: 'string',
    boot: 'text',
    cdrom: 'string',
    searchdomain: 'string',
    nameserver: 'string',
    cicustom: 'text',
    cipassword: 'string',
    sshkeys: 'text',
    citype: 'string',
    ciuser: 'string',
    ciupgrade: 'CustomBool',
    arch: 'string',
    cores: 'int',
    cpu: 'text',
    cpulimit: 'numeric',
    sockets: 'int',
    cpuunits: 'int',
    affinity: 'string',
    memory: 'numeric',
    protection: 'CustomBool',
    description: 'string',
    efidisk0: 'text',
    balloon: 'numeric',
    shares: 'int',
    freeze: 'CustomBool',
    hookscript: 'string',
    hotplug: 'text',
    hugepages: 'string',
    keephugepages: 'CustomBool',
    keyboard: 'string',
    args: 'string',
    kvm: 'CustomBool',
    localtime: 'CustomBool',
    lock: 'string',
    machine: 'string',
    migrate_downtime: 'float64',
    migrate_speed: 'int',
    name: 'string',
    numa: 'CustomBool',
    ostype: 'string',
    force: 'CustomBool',
    pool: 'string',
    revert: 'string',
    rng0: 'text',
    scsihw: 'string',
    ivshmem: 'text',
    skiplock: 'CustomBool',
    smbios1: 'text',
    spice_enhancements: 'text',
    startdate: 'string',
    onboot: 'CustomBool',
    startup: 'text',
    tablet: 'CustomBool',
    tags: 'string',
    template: 'CustomBool',
    tdf: 'CustomBool',
    tpmstate0: 'text',
    vga: 'text',
    vcpus: 'int',
    vmgenid: 'string',
    vmstatestorage: 'string',
    watchdog: 'text',
  },
  patterns: DEVICES,
};

/** `vms.GetStatusResponseData`: GET /nodes/{node}/qemu/{vmid}/status/current. */
export const BPG_VM_STATUS: GoStruct = {
  fields: {
    agent: 'CustomBool',
    cpus: 'int',
    lock: 'string',
    maxmem: 'int',
    name: 'string',
    pid: 'int',
    qmpstatus: 'string',
    maxdisk: 'int',
    spice: 'CustomBool',
    status: 'string',
    tags: 'string',
    uptime: 'int',
    vmid: 'int',
  },
};

/** `containers.GetResponseData`: GET /nodes/{node}/lxc/{vmid}/config. */
export const BPG_CT_CONFIG: GoStruct = {
  fields: {
    console: 'CustomBool',
    cmode: 'string',
    arch: 'string',
    cores: 'int',
    cpulimit: 'numeric',
    cpuunits: 'int',
    memory: 'int',
    description: 'string',
    digest: 'string',
    searchdomain: 'string',
    nameserver: 'string',
    env: 'text',
    entrypoint: 'string',
    features: 'text',
    hookscript: 'string',
    hostname: 'string',
    lock: 'CustomBool',
    ostype: 'string',
    protection: 'CustomBool',
    rootfs: 'text',
    onboot: 'CustomBool',
    startup: 'text',
    swap: 'int',
    tags: 'string',
    template: 'CustomBool',
    tty: 'int',
    unprivileged: 'CustomBool',
  },
  patterns: DEVICES,
};

/** `containers.GetStatusResponseData`: GET /nodes/{node}/lxc/{vmid}/status/current. */
export const BPG_CT_STATUS: GoStruct = {
  fields: {
    cpus: 'float64',
    lock: 'string',
    maxmem: 'int',
    name: 'string',
    maxdisk: 'any',
    status: 'string',
    maxswap: 'int',
    tags: 'string',
    uptime: 'int',
    vmid: 'numeric',
  },
};

/** `cluster.ResourcesListResponseData`: GET /cluster/resources?type=vm, which finds a guest's node. */
export const BPG_RESOURCE: GoStruct = {
  fields: {
    type: 'string',
    id: 'string',
    'cgroup-mode': 'int',
    content: 'int',
    cpu: 'float64',
    disk: 'int',
    hastate: 'string',
    level: 'string',
    maxcpu: 'float64',
    maxdisk: 'int',
    maxmem: 'int',
    mem: 'int',
    name: 'string',
    node: 'string',
    plugintype: 'string',
    pool: 'string',
    status: 'string',
    storage: 'string',
    uptime: 'int',
    vmid: 'int',
  },
};

/** `pools.PoolListResponseData` (GET /pools) and `PoolGetResponseData` (GET /pools?poolid=): finds a guest's pool. */
export const BPG_POOL: GoStruct = { fields: { poolid: 'string', comment: 'string', members: 'any' } };
export const BPG_POOL_MEMBER: GoStruct = { fields: { id: 'string', node: 'string', storage: 'string', type: 'string', vmid: 'int' } };
