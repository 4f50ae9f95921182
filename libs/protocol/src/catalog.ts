import type { z } from 'zod';
import type { CommandDefinition } from './command-definition.js';
import {
  guestClone,
  guestCreate,
  guestDestroy,
  guestMonitor,
  guestReboot,
  guestReset,
  guestResume,
  guestShutdown,
  guestStart,
  guestStop,
  guestSuspend,
  guestTemplate,
  guestVncOpen,
} from './commands/guest.js';
import { guestCloudinitWrite } from './commands/guest-cloudinit.js';
import { guestAgentCommand } from './commands/guest-agent.js';
import { guestInterfaces } from './commands/guest-interfaces.js';
import { guestBackup, guestBackupConfig, guestRestore } from './commands/guest-backup.js';
import { guestVolumeAllocate, guestVolumeFree, guestVolumeMove, guestVolumeResize } from './commands/guest-volume.js';
import { guestMigrateAbort, guestMigrateFinish, guestMigrateReceive, guestMigrateSend } from './commands/guest-migrate.js';
import { guestSnapshotCreate, guestSnapshotDelete, guestSnapshotRollback } from './commands/guest-snapshot.js';
import { nodeAptChangelog, nodeAptUpdate, nodeAptUpgradable } from './commands/node-apt.js';
import { nodeDisksInitGpt, nodeDisksList } from './commands/node-disks.js';
import { nodeDnsGet, nodeDnsSet } from './commands/node-dns.js';
import { nodeFirewallApply } from './commands/node-firewall.js';
import { nodeNetworkApply, nodeNetworkCreate, nodeNetworkDelete, nodeNetworkList } from './commands/node-network.js';
import { nodeStatus } from './commands/node-status.js';
import { nodeStorageScan } from './commands/node-storage-scan.js';
import { storageActivate, storageContent, storageStatus, storageUpload, storageVolumeDelete, storageWatch } from './commands/storage.js';
import { nodeUrlMetadata, storageDownload } from './commands/storage-download.js';

/**
 * Every command the control plane may send in a `request` frame, by name (dotted `noun.verb`).
 * Adding a command keeps the protocol version: an agent that does not know it answers
 * `unknown-command`. Changing a command's params or result in a way an older side cannot read
 * is a new command name (or a new protocol version).
 */
export const COMMANDS = {
  'node.status': nodeStatus,
  'node.dns.get': nodeDnsGet,
  'node.dns.set': nodeDnsSet,
  'node.apt.update': nodeAptUpdate,
  'node.apt.upgradable': nodeAptUpgradable,
  'node.apt.changelog': nodeAptChangelog,
  'node.disks.list': nodeDisksList,
  'node.disks.init-gpt': nodeDisksInitGpt,
  'node.network.list': nodeNetworkList,
  'node.network.create': nodeNetworkCreate,
  'node.network.delete': nodeNetworkDelete,
  'node.network.apply': nodeNetworkApply,
  'node.storage.scan': nodeStorageScan,
  'node.firewall.apply': nodeFirewallApply,
  'node.url.metadata': nodeUrlMetadata,
  'storage.activate': storageActivate,
  'storage.status': storageStatus,
  'storage.watch': storageWatch,
  'storage.content': storageContent,
  'storage.volume.delete': storageVolumeDelete,
  'storage.upload': storageUpload,
  'storage.download': storageDownload,
  'guest.create': guestCreate,
  'guest.start': guestStart,
  'guest.stop': guestStop,
  'guest.shutdown': guestShutdown,
  'guest.reboot': guestReboot,
  'guest.reset': guestReset,
  'guest.suspend': guestSuspend,
  'guest.resume': guestResume,
  'guest.destroy': guestDestroy,
  'guest.clone': guestClone,
  'guest.template': guestTemplate,
  'guest.monitor': guestMonitor,
  'guest.agent': guestAgentCommand,
  'guest.interfaces': guestInterfaces,
  'guest.migrate.receive': guestMigrateReceive,
  'guest.migrate.send': guestMigrateSend,
  'guest.migrate.finish': guestMigrateFinish,
  'guest.migrate.abort': guestMigrateAbort,
  'guest.snapshot.create': guestSnapshotCreate,
  'guest.snapshot.rollback': guestSnapshotRollback,
  'guest.snapshot.delete': guestSnapshotDelete,
  'guest.vnc.open': guestVncOpen,
  'guest.volume.allocate': guestVolumeAllocate,
  'guest.volume.free': guestVolumeFree,
  'guest.volume.resize': guestVolumeResize,
  'guest.volume.move': guestVolumeMove,
  'guest.backup': guestBackup,
  'guest.backup.config': guestBackupConfig,
  'guest.restore': guestRestore,
  'guest.cloudinit.write': guestCloudinitWrite,
} as const satisfies Record<string, CommandDefinition>;

export type CommandName = keyof typeof COMMANDS;
export type ParamsOf<K extends CommandName> = z.output<(typeof COMMANDS)[K]['params']>;
export type ResultOf<K extends CommandName> = z.output<(typeof COMMANDS)[K]['result']>;

/** A command with parameters that passed its schema, as `parseCommandRequest` returns it. */
export type CommandRequest<K extends CommandName = CommandName> = { [P in K]: { readonly command: P; readonly params: ParamsOf<P> } }[K];

/**
 * The agent's handlers: one per command, so a command without a handler does not compile.
 * `Context` is whatever the agent passes along (a log sink, an abort signal for the timeout).
 */
export type CommandHandlers<Context = undefined> = {
  readonly [K in CommandName]: (params: ParamsOf<K>, context: Context) => Promise<ResultOf<K>>;
};

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}
