import type { CommandHandlers } from '@corral/protocol';
import type { CommandContext } from '../drivers/command-context.js';
import type { GuestDriver } from '../drivers/guest-driver.js';
import type { Host } from '../host/host.js';
import type { Logger } from '../logging/logger.js';
import type { RuntimeReports } from '../reports/runtime-reports.js';
import { aptCommands } from './apt/apt-commands.js';
import { diskCommands } from './disks/disk-commands.js';
import { dnsCommands } from './dns/dns-commands.js';
import { firewallCommands } from './firewall/firewall-commands.js';
import { guestCommands, type RunGuard } from './guests/guest-commands.js';
import { vncCommands, type StreamOpener } from './guests/vnc-stream.js';
import { networkCommands } from './network/network-commands.js';
import { statusCommands } from './status/status-commands.js';
import { dirStorageCommands } from './storage/dir-storage-commands.js';
import { storageCommands } from './storage/storage-commands.js';
import type { WatchedStorages } from './storage/watched-storages.js';

/**
 * Every command of the protocol's catalog, by area; the type makes a command without a handler a
 * compile error. A handler throws CommandFailure to answer a failure frame with that code; any
 * other Error means code 'failed' with error.message. The guest commands run on `driver` and have
 * `runtime` read the guests' run state before they answer; a VNC console's bytes go through a
 * stream that `openStream` opens to the control plane, and so does an upload's file. `watched`
 * keeps the storages whose space goes with the inventory. `fence` guards the commands that can make
 * a guest run (the HA self-fence).
 */
export function createCommandHandlers(
  host: Host,
  driver: GuestDriver,
  runtime: Pick<RuntimeReports, 'refresh' | 'making'>,
  openStream: StreamOpener,
  watched: WatchedStorages,
  logger: Logger,
  fence?: RunGuard,
): CommandHandlers<CommandContext> {
  const handlers: CommandHandlers<CommandContext> = {
    ...statusCommands(host),
    ...dnsCommands(host),
    ...aptCommands(),
    ...diskCommands(),
    ...networkCommands(host),
    ...storageCommands(),
    ...dirStorageCommands(host, openStream, watched),
    ...firewallCommands(host),
    ...guestCommands(driver, runtime, fence),
    ...vncCommands(driver, openStream, logger),
  };
  // Optional result fields are often written `field: undefined`; the result frame carries JSON, which has no undefined.
  const asJson = Object.entries(handlers).map(([name, handler]) => [
    name,
    async (params: never, context: CommandContext) => withoutUndefined(await handler(params, context)),
  ]);
  return Object.fromEntries(asJson) as CommandHandlers<CommandContext>;
}

/** The value as JSON.stringify would write it: object fields that are undefined left out, at every depth. */
export function withoutUndefined<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutUndefined) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).flatMap(([key, field]) => (field === undefined ? [] : [[key, withoutUndefined(field)]])),
  ) as T;
}
