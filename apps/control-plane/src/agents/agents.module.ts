import { Module } from '@nestjs/common';
import { InventoryModule } from '../inventory/inventory.module.js';
import { ReplicasModule } from '../replicas/replicas.module.js';
import { AgentAnswers } from './agent-answers.js';
import { AgentHub } from './agent-hub.js';
import { AgentLeases } from './agent-leases.js';
import { AgentReports } from './agent-reports.js';
import { AgentRequestsRepository } from './agent-requests.repository.js';
import { AgentStreams } from './agent-streams.js';
import { AgentUpgrades } from './agent-upgrades.js';
import { GuestReports } from './guest-reports.js';
import { NodeLiveness } from './node-liveness.js';
import { RemoteAgents } from './remote-agents.js';
import { SharedRuntime } from './shared-runtime.js';

/** The agent hub, which keeps the inventory's node and guest views current: every area that talks to nodes uses it. */
@Module({
  imports: [InventoryModule, ReplicasModule],
  providers: [
    AgentAnswers,
    AgentHub,
    AgentLeases,
    AgentReports,
    AgentRequestsRepository,
    AgentStreams,
    AgentUpgrades,
    GuestReports,
    NodeLiveness,
    RemoteAgents,
    SharedRuntime,
  ],
  exports: [AgentHub, AgentLeases, AgentRequestsRepository],
})
export class AgentsModule {}
