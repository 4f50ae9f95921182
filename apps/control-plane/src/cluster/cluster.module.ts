import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module.js';
import { InventoryModule } from '../inventory/inventory.module.js';
import { ReplicasModule } from '../replicas/replicas.module.js';
import { JoinController } from './join/join.controller.js';
import { JoinService } from './join/join.service.js';
import { JoinTokensController } from './join-tokens/join-tokens.controller.js';
import { JoinTokensRepository } from './join-tokens/join-tokens.repository.js';
import { JoinTokensService } from './join-tokens/join-tokens.service.js';
import { ResourcesController } from './resources/resources.controller.js';
import { ResourcesService } from './resources/resources.service.js';
import { ClusterStatusController } from './status/cluster-status.controller.js';

/** `/cluster/...`: the cluster's status and resources, nextid, and joining nodes (join tokens and the join itself). */
@Module({
  imports: [InventoryModule, AgentsModule, ReplicasModule],
  controllers: [ClusterStatusController, JoinTokensController, JoinController, ResourcesController],
  providers: [JoinTokensService, JoinTokensRepository, JoinService, ResourcesService],
  exports: [ResourcesService],
})
export class ClusterModule {}
