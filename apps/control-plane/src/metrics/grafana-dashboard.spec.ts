import type { HttpAdapterHost } from '@nestjs/core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import type { AgentHub } from '../agents/agent-hub.js';
import type { GuestView } from '../inventory/guests/guest-view.js';
import type { NodeView } from '../inventory/nodes/node-view.js';
import type { TasksRepository } from '../tasks/tasks.repository.js';
import { ClusterMetrics } from './cluster-metrics.js';
import { EventMetrics } from './event-metrics.js';
import { HttpMetrics } from './http-metrics.js';
import { MetricsRegistry } from './metrics-registry.js';
import { ReplicaMetrics } from './replica-metrics.js';
import { TaskMetrics } from './task-metrics.js';

const DASHBOARD = join(__dirname, '../../../../docs/grafana/corral-dashboard.json');

/** Every family `GET /metrics` serves, by the names its `# TYPE` lines give. */
async function servedFamilies(): Promise<Set<string>> {
  const registry = new MetricsRegistry();
  const dataSource = {
    driver: { master: { totalCount: 0, idleCount: 0, waitingCount: 0 } },
    query: () => Promise.resolve([{ count: '0', pending: '0', failed: '0' }]),
  } as unknown as DataSource;
  const http = new HttpMetrics({} as HttpAdapterHost);
  new TaskMetrics({ watch: () => undefined } as unknown as TasksRepository, registry);
  new ReplicaMetrics({ heartbeatAges: () => new Map() } as unknown as AgentHub, dataSource, registry);
  new EventMetrics(dataSource, registry);
  const cluster = new ClusterMetrics({ list: () => [] } as unknown as NodeView, { list: () => [] } as unknown as GuestView);
  const text = (await registry.metrics()) + http.text() + cluster.text();
  return new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1] ?? ''));
}

describe('the Grafana dashboard in docs/grafana', () => {
  it('queries only metrics that GET /metrics serves', async () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: { targets: { expr: string }[] }[] };
    const used = new Set(
      dashboard.panels.flatMap((panel) =>
        panel.targets.flatMap((target) => [...target.expr.matchAll(/\bcorral_[a-z_]+/g)].map((match) => match[0].replace(/_bucket$/, ''))),
      ),
    );
    expect(used.size).toBeGreaterThan(10);
    const served = await servedFamilies();
    expect([...used].filter((name) => !served.has(name))).toEqual([]);
  });
});
