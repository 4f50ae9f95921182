export { COMMANDS, type CommandHandlers, type CommandName, type CommandRequest, type ParamsOf, type ResultOf } from './catalog.js';
export { CLOSE_CODES } from './close-codes.js';
export {
  parseCommandRequest,
  parseCommandResult,
  runCommand,
  type CommandRequestParse,
  type CommandResultParse,
} from './command-requests.js';
export { ConfigKey, GuestNic, GuestSpec, GuestType, GuestVolume, HostFilePath, MacAddress } from './commands/guest.js';
export { QGA_COMMANDS, QgaCommand, QgaExecArguments, QgaExecStatusArguments } from './commands/guest-agent.js';
export { BackupCompression, BackupFile, BackupMode } from './commands/guest-backup.js';
export { CloudinitFile } from './commands/guest-cloudinit.js';
export { ContainerInterface } from './commands/guest-interfaces.js';
export { SnapshotName } from './commands/guest-snapshot.js';
export { Disk } from './commands/node-disks.js';
export { DnsSettings } from './commands/node-dns.js';
export { UpgradablePackage } from './commands/node-apt.js';
export { FirewallAlias, FirewallRule, FirewallRuleset } from './commands/node-firewall.js';
export { NetworkInterface, NewNetworkInterface } from './commands/node-network.js';
export { NodeStatus } from './commands/node-status.js';
export { StorageScan } from './commands/node-storage-scan.js';
export { DownloadFile, HttpUrl } from './commands/storage-download.js';
export {
  ChecksumAlgorithm,
  ContentKind,
  StorageId,
  StorageStatus,
  StorageVolume,
  UploadFile,
  UploadStreamEnd,
  UploadStreamReady,
  VolumeFile,
  WatchedStorage,
} from './commands/storage.js';
export {
  AgentFrame,
  ControlPlaneFrame,
  encodeFrame,
  Frame,
  parseAgentFrame,
  parseControlPlaneFrame,
  parseFrame,
  type FrameParse,
} from './frame.js';
export { AckFrame } from './frames/ack.js';
export { FailureCode, FailureFrame, ResultFrame } from './frames/answers.js';
export { CancelFrame } from './frames/cancel.js';
export { AgentEventKind, EventFrame } from './frames/event.js';
export { LeaseFrame } from './frames/lease.js';
export { LogFrame, LogLine } from './frames/log.js';
export { GuestRuntime, InventoryReport, Pressure, ReportFrame, ReportPayload, RuntimeReport, StorageSpace } from './frames/report.js';
export { RequestFrame } from './frames/request.js';
export { HeartbeatFrame, HelloFrame, RUNTIME_CHANGES, WelcomeFrame } from './frames/session.js';
export { NODE_NAME_HINT, NODE_NAME_PATTERN } from './fields.js';
export { AGENT_STREAMS_PATH, AGENT_WEBSOCKET_PATH, PROTOCOL_VERSION } from './version.js';
