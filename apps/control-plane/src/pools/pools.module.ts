import { Module } from '@nestjs/common';
import { ClusterModule } from '../cluster/cluster.module.js';
import { PoolMembershipController, PvePoolsController, SpecPoolsController } from './pools.controller.js';
import { PoolsService } from './pools.service.js';

/**
 * Resource pools (Corral's `/pool`, PVE's `/pools`; docs/pools.md). The guests module provides
 * `PoolMembers` itself: importing this module there would make a cycle through the cluster module.
 */
@Module({
  imports: [ClusterModule],
  controllers: [SpecPoolsController, PvePoolsController, PoolMembershipController],
  providers: [PoolsService],
})
export class PoolsModule {}
