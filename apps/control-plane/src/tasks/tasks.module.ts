import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module.js';
import { NodesModule } from '../nodes/nodes.module.js';
import { ReplicasModule } from '../replicas/replicas.module.js';
import { ReplicaLiveness } from './replica-liveness.js';
import { TaskEnds } from './task-ends.js';
import { TaskRunner } from './task-runner.js';
import { TasksController } from './tasks.controller.js';
import { TasksRepository } from './tasks.repository.js';
import { TasksService } from './tasks.service.js';

/** Tasks: the runner every action uses, `/nodes/{node}/tasks` and `/cluster/tasks`, and the sweep of vanished replicas' tasks. */
@Module({
  imports: [AgentsModule, NodesModule, ReplicasModule],
  controllers: [TasksController],
  providers: [TasksService, TasksRepository, TaskRunner, TaskEnds, ReplicaLiveness],
  exports: [TaskRunner, TasksRepository],
})
export class TasksModule {}
