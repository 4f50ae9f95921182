import { Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { TasksRepository } from '../tasks/tasks.repository.js';
import { MetricsRegistry } from './metrics-registry.js';

/**
 * The tasks this replica wrote as started, by PVE's task type, and as ended, by type and PVE's
 * class of the end status (`ok`, `warning`, `error`); the ends include those it wrote for a
 * replica that was gone. Summed over the replicas, the cluster's.
 */
@Injectable()
export class TaskMetrics {
  constructor(tasks: TasksRepository, registry: MetricsRegistry) {
    const started = new Counter({
      name: 'corral_tasks_started_total',
      help: 'Tasks this replica started, by type.',
      labelNames: ['type'],
      registers: [registry],
    });
    const ended = new Counter({
      name: 'corral_tasks_ended_total',
      help: 'Tasks this replica wrote as ended, by type and status (ok, warning, error).',
      labelNames: ['type', 'status'],
      registers: [registry],
    });
    tasks.watch({ started: (type) => started.inc({ type }), ended: (type, status) => ended.inc({ type, status }) });
  }
}
