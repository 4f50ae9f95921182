import { Module } from '@nestjs/common';
import { InventoryModule } from '../inventory/inventory.module.js';
import { AgentHub } from './agent-hub.js';
import { AgentLeases } from './agent-leases.js';
import { GuestReports } from './guest-reports.js';

/** The agent hub, which keeps the inventory's node and guest views current: every area that talks to nodes uses it. */
@Module({ imports: [InventoryModule], providers: [AgentHub, AgentLeases, GuestReports], exports: [AgentHub, AgentLeases] })
export class AgentsModule {}
