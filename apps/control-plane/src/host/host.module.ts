import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { NodesModule } from '../nodes/nodes.module.js';
import { AptController } from './apt.controller.js';
import { DisksController } from './disks.controller.js';
import { DnsController } from './dns.controller.js';
import { NetworkController } from './network.controller.js';
import { ScanController } from './scan.controller.js';

/** The node endpoints that read or change the host itself, each through the node's agent. */
@Module({
  imports: [AgentsModule, NodesModule, TasksModule],
  controllers: [DnsController, AptController, DisksController, NetworkController, ScanController],
})
export class HostModule {}
