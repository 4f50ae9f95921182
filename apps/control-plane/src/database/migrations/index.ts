import type { MigrationInterface } from 'typeorm';
import { AccessControl1763709000000 } from './1763709000000-access-control.js';
import { Nodes1763800000000 } from './1763800000000-nodes.js';
import { TaskReplicas1763900000000 } from './1763900000000-task-replicas.js';
import { Guests1763950000000 } from './1763950000000-guests.js';
import { Pools1764000000000 } from './1764000000000-pools.js';
import { Storage1764100000000 } from './1764100000000-storage.js';
import { BackupJobs1764200000000 } from './1764200000000-backup-jobs.js';
import { EventIds1764300000000 } from './1764300000000-event-ids.js';
import { EventRetention1764300000100 } from './1764300000100-event-retention.js';
import { Webhooks1764310000000 } from './1764310000000-webhooks.js';
import { HighAvailability1764400000000 } from './1764400000000-high-availability.js';
import { DefaultRealm1764450000000 } from './1764450000000-default-realm.js';
import { GuestSnapshots1764500000000 } from './1764500000000-guest-snapshots.js';
import { GuestCloudinit1764600000000 } from './1764600000000-guest-cloudinit.js';
import { GuestLockTask1764700000000 } from './1764700000000-guest-lock-task.js';
import { AgentEventIdentity1764800000000 } from './1764800000000-agent-event-identity.js';
import { ReplicaRouting1764900000000 } from './1764900000000-replica-routing.js';
import { AgentRequests1765000000000 } from './1765000000000-agent-requests.js';
import { NodeRuntime1765100000000 } from './1765100000000-node-runtime.js';
import { HaResourceChanges1765200000000 } from './1765200000000-ha-resource-changes.js';
import { StorageChanges1765300000000 } from './1765300000000-storage-changes.js';
import { HistoryPoints1765400000000 } from './1765400000000-history-points.js';
import { MetricServers1765500000000 } from './1765500000000-metric-servers.js';

/**
 * Every migration, in order: one per schema change, committed with the entity change and never
 * edited after it lands. `<timestamp>-<kebab-description>.ts`, class `<Pascal><timestamp>`.
 */
export const MIGRATIONS: readonly (new () => MigrationInterface)[] = [AccessControl1763709000000, Nodes1763800000000, TaskReplicas1763900000000, Guests1763950000000, Pools1764000000000, Storage1764100000000, BackupJobs1764200000000, EventIds1764300000000, EventRetention1764300000100, Webhooks1764310000000, HighAvailability1764400000000, DefaultRealm1764450000000, GuestSnapshots1764500000000, GuestCloudinit1764600000000, GuestLockTask1764700000000, AgentEventIdentity1764800000000, ReplicaRouting1764900000000, AgentRequests1765000000000, NodeRuntime1765100000000, HaResourceChanges1765200000000, StorageChanges1765300000000, HistoryPoints1765400000000, MetricServers1765500000000];
