import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module.js';
import { JoinController } from './join/join.controller.js';
import { JoinService } from './join/join.service.js';
import { JoinTokensController } from './join-tokens/join-tokens.controller.js';
import { JoinTokensRepository } from './join-tokens/join-tokens.repository.js';
import { JoinTokensService } from './join-tokens/join-tokens.service.js';
import { ClusterStatusController } from './status/cluster-status.controller.js';

/** `/cluster/...`: the cluster's status, and joining nodes (join tokens and the join itself). */
@Module({
  imports: [AgentsModule],
  controllers: [ClusterStatusController, JoinTokensController, JoinController],
  providers: [JoinTokensService, JoinTokensRepository, JoinService],
})
export class ClusterModule {}
