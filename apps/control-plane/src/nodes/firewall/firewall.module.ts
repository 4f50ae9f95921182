import { Module } from '@nestjs/common';
import { AgentsModule } from '../../agents/agents.module.js';
import { NodesModule } from '../nodes.module.js';
import { NodeFirewallController } from './firewall.controller.js';
import { NodeFirewallRepository } from './firewall.repository.js';
import { NodeFirewallService } from './firewall.service.js';

/** `/nodes/{node}/firewall/...`: each node's host firewall, stored here and applied by its agent. */
@Module({
  imports: [AgentsModule, NodesModule],
  controllers: [NodeFirewallController],
  providers: [NodeFirewallService, NodeFirewallRepository],
})
export class NodeFirewallModule {}
