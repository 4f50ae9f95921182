import { AgentRequestRow } from './agents/agent-request.entity.js';
import { NodeRuntimeRow } from './agents/node-runtime.entity.js';
import { AclEntryRow } from './access/entities/acl-entry.entity.js';
import { ApiTokenRow } from './access/entities/api-token.entity.js';
import { BackupJobRunRow } from './backups/jobs/backup-job-run.entity.js';
import { BackupJobRow } from './backups/jobs/backup-job.entity.js';
import { GroupMemberRow } from './access/entities/group-member.entity.js';
import { GroupRow } from './access/entities/group.entity.js';
import { RealmRow } from './access/entities/realm.entity.js';
import { RoleRow } from './access/entities/role.entity.js';
import { TicketKeyRow } from './access/entities/ticket-key.entity.js';
import { UserRow } from './access/entities/user.entity.js';
import { HaGroupRow } from './inventory/ha/ha-group.entity.js';
import { HaManagerRow } from './cluster/ha/ha-manager.entity.js';
import { HaResourceRow } from './inventory/ha/ha-resource.entity.js';
import { JoinTokenRow } from './cluster/join-tokens/join-token.entity.js';
import { GuestRow } from './inventory/guests/guest.entity.js';
import { GuestSnapshotRow } from './guests/snapshots/guest-snapshot.entity.js';
import { GuestCloudinitRow } from './guests/cloudinit/guest-cloudinit.entity.js';
import { VmidReservationRow } from './inventory/guests/vmid-reservation.entity.js';
import { StorageRow } from './inventory/storage/storage.entity.js';
import { PoolGuestRow } from './inventory/pools/pool-guest.entity.js';
import { PoolStorageRow } from './inventory/pools/pool-storage.entity.js';
import { PoolRow } from './inventory/pools/pool.entity.js';
import { EventRow } from './events/event.entity.js';
import { HistoryPointRow } from './history/history-point.entity.js';
import { MetricServerRow } from './metrics/servers/metric-server.entity.js';
import { EventRetentionRow } from './events/event-retention.entity.js';
import { NodeFirewallRow } from './nodes/node-firewall.entity.js';
import { DeliveryRow } from './cluster/notifications/delivery/delivery.entity.js';
import { DispatchCursorRow } from './cluster/notifications/delivery/dispatch-cursor.entity.js';
import { MatcherTargetRow } from './cluster/notifications/matchers/matcher-target.entity.js';
import { MatcherRow } from './cluster/notifications/matchers/matcher.entity.js';
import { WebhookSecretRow } from './cluster/notifications/webhooks/webhook-secret.entity.js';
import { WebhookRow } from './cluster/notifications/webhooks/webhook.entity.js';
import { NodeRow } from './inventory/nodes/node.entity.js';
import { ReplicaRow } from './replicas/replica.entity.js';
import { TaskLogRow } from './tasks/task-log.entity.js';
import { TaskRow } from './tasks/task.entity.js';

/** Every entity, listed explicitly (no globs: they break once the app is bundled). */
export const ENTITIES: readonly (new () => object)[] = [
  RealmRow,
  UserRow,
  GroupRow,
  GroupMemberRow,
  RoleRow,
  AclEntryRow,
  ApiTokenRow,
  TicketKeyRow,
  NodeRow,
  NodeFirewallRow,
  JoinTokenRow,
  EventRow,
  HistoryPointRow,
  MetricServerRow,
  EventRetentionRow,
  TaskRow,
  TaskLogRow,
  ReplicaRow,
  AgentRequestRow,
  NodeRuntimeRow,
  StorageRow,
  GuestRow,
  VmidReservationRow,
  PoolRow,
  PoolGuestRow,
  PoolStorageRow,
  BackupJobRow,
  BackupJobRunRow,
  WebhookRow,
  WebhookSecretRow,
  MatcherRow,
  MatcherTargetRow,
  DeliveryRow,
  DispatchCursorRow,
  HaGroupRow,
  HaResourceRow,
  HaManagerRow,
  GuestSnapshotRow,
  GuestCloudinitRow,
];
