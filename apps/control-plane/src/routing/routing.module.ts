import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module.js';
import { InventoryModule } from '../inventory/inventory.module.js';
import { ReplicasModule } from '../replicas/replicas.module.js';
import { AgentRelay } from './agent-relay.js';
import { ForwardTargets } from './forward-targets.js';
import { HttpForwarding } from './http-forwarding.js';
import { UpgradeForwarding } from './upgrade-forwarding.js';

/** The routing between replicas: a request or websocket for a node whose agent another replica holds is served there, and agent commands relayed to it. */
@Module({
  imports: [AgentsModule, InventoryModule, ReplicasModule],
  providers: [AgentRelay, ForwardTargets, HttpForwarding, UpgradeForwarding],
})
export class RoutingModule {}
