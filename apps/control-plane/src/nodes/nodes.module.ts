import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module.js';
import { InventoryModule } from '../inventory/inventory.module.js';
import { NodesController } from './nodes.controller.js';
import { NodesService } from './nodes.service.js';

/** `/nodes` and `/nodes/{node}/...`: each node's host, answered by its agent. */
@Module({ imports: [InventoryModule, AgentsModule], controllers: [NodesController], providers: [NodesService], exports: [NodesService] })
export class NodesModule {}
