import { Module } from '@nestjs/common';
import { NodeView } from '../nodes/node-view.js';
import { NodesRepository } from '../nodes/nodes.repository.js';
import { AgentHub } from './agent-hub.js';
import { AgentLeases } from './agent-leases.js';
import { AgentReports } from './agent-reports.js';
import { AgentStreams } from './agent-streams.js';
import { AgentUpgrades } from './agent-upgrades.js';
import { NodeLiveness } from './node-liveness.js';

/** The agent hub and the in-memory node view it keeps current: every area that talks to nodes uses them. */
@Module({ providers: [AgentHub, AgentLeases, AgentReports, AgentStreams, AgentUpgrades, NodeLiveness, NodeView, NodesRepository], exports: [AgentHub, AgentLeases, NodeView, NodesRepository] })
export class AgentsModule {}
