import { Module, type DynamicModule } from '@nestjs/common';
import { AccessModule } from './access/access.module.js';
import { ClusterModule } from './cluster/cluster.module.js';
import { ClusterEventsModule } from './cluster/events/cluster-events.module.js';
import { HaModule } from './cluster/ha/ha.module.js';
import { HaManagerModule } from './cluster/ha/manager/ha-manager.module.js';
import { CoreModule, type Runtime } from './core.module.js';
import { NodeFirewallModule } from './nodes/firewall/firewall.module.js';
import { GuestsModule } from './guests/guests.module.js';
import { HealthModule } from './health/health.module.js';
import { HistoryModule } from './history/history.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { MetricServersModule } from './metrics/servers/metric-servers.module.js';
import { VncModule } from './guests/vnc/vnc.module.js';
import { HostModule } from './host/host.module.js';
import { NodesModule } from './nodes/nodes.module.js';
import { OpenApiModule } from './openapi/openapi.module.js';
import { BackupsModule } from './backups/backups.module.js';
import { BackupJobsModule } from './backups/jobs/backup-jobs.module.js';
import { NotificationsModule } from './cluster/notifications/notifications.module.js';
import { WebhookDeliveryModule } from './cluster/notifications/delivery/webhook-delivery.module.js';
import { PoolsModule } from './pools/pools.module.js';
import { RoutingModule } from './routing/routing.module.js';
import { StorageModule } from './storage/storage.module.js';
import { TasksModule } from './tasks/tasks.module.js';
import { VersionModule } from './version/version.module.js';

/** Every API area: the app serves these, and the permission matrix test walks their endpoints. */
export const API_MODULES = [
  VersionModule,
  HealthModule,
  OpenApiModule,
  AccessModule,
  ClusterModule,
  NodesModule,
  TasksModule,
  HostModule,
  NodeFirewallModule,
  GuestsModule,
  VncModule,
  PoolsModule,
  StorageModule,
  BackupsModule,
  BackupJobsModule,
  NotificationsModule,
  WebhookDeliveryModule,
  ClusterEventsModule,
  HaModule,
  HaManagerModule,
  MetricsModule,
  MetricServersModule,
  HistoryModule,
];

/** The API areas and the routing between replicas. */
@Module({})
export class AppModule {
  static register(runtime: Runtime): DynamicModule {
    return { module: AppModule, imports: [CoreModule.register(runtime), RoutingModule, ...API_MODULES] };
  }
}
