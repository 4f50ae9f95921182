// The cluster benchmark (docs/benchmarks.md "Requests through another replica" and "A thousand
// agents"), in two phases:
// - forwarding: a request answered through the replica that holds the node and through another one
//   (cluster-forwarding.mjs);
// - scale: three replicas, then one, with simulated agents at the protocol level (agent-swarm.mjs):
//   each replica's CPU and memory at each agent count, parallel creates over nodes held by different
//   replicas and again with one replica killed with SIGKILL once all were accepted (every task must
//   end OK, with one `vm-create` event each), the time the killed replica's agents take to be back
//   on another, node-down detection for agents killed at once; on one replica, `/cluster/resources`
//   and a `/metrics` scrape at each guest count (cluster-scale.mjs, cluster-resources.mjs,
//   metrics-scrape.mjs).
// Usage: DATABASE_URL=postgres://... node tools/bench/cluster-bench.mjs [--phases forwarding,scale]
//   [--replicas 3,1] [--agents 100,300,1000] [--guests 10000,50000] [--creates 200] [--down 100]
//   [--duration <s>] [--connections <n>] [--rounds <n>]
// DATABASE_URL names a server where the user may create databases: each replica set gets one of its
// own, dropped at the end. Exits 1 when a request failed or a task did not end OK; never on a timing.
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { AGENT_MAIN, fail, loadOptions, machineName, MAIN, positiveInt, progress, rootClient, rootToken } from './bench-support.mjs';
import { measureForwarding } from './cluster-forwarding.mjs';
import { fillGuests, measureResources } from './cluster-resources.mjs';
import { measureScrape } from './metrics-scrape.mjs';
import { createEvents, movedBack, nodeDown, parallelCreates, spread, usageAt } from './cluster-scale.mjs';
import { startReplicaSet } from './replica-set.mjs';

/** How long a create takes on a simulated agent while a replica is killed: long enough that the kill finds them all running. */
const SLOW_CREATE_MS = 3000;
const MIB = 2 ** 20;

const options = loadOptions({ duration: 10, connections: 10, rounds: 3 }, ['phases', 'replicas', 'agents', 'guests', 'creates', 'down']);
const { duration, rounds, flags } = options;
const list = (name, text) => text.split(',').map((item) => positiveInt(name, item));
const phases = (flags.phases ?? 'forwarding,scale').split(',');
const agentCounts = list('agents', flags.agents ?? '100,300,1000').sort((a, b) => a - b);
const guestCounts = flags.guests === '0' ? [] : list('guests', flags.guests ?? '10000,50000').sort((a, b) => a - b);
const replicaSets = list('replicas', flags.replicas ?? '3,1');
const createCount = positiveInt('creates', flags.creates ?? '200');
const downCount = positiveInt('down', flags.down ?? '100');
const serverUrl = process.env.DATABASE_URL;

if (!existsSync(MAIN) || !existsSync(AGENT_MAIN)) fail('the control plane or the agent is not built: run npx nx run-many -t build first');
if (!serverUrl) fail('DATABASE_URL must name a PostgreSQL server where the user may create databases: replicas share one');
for (const phase of phases) if (!['forwarding', 'scale'].includes(phase)) fail(`--phases: unknown phase ${phase} (forwarding, scale)`);
for (const count of replicaSets) if (![1, 3].includes(count)) fail(`--replicas: ${count} is not a replica set the benchmark runs (3, 1)`);
if (downCount > Math.max(...agentCounts)) fail('--down must not be more than the largest agent count');

const dir = await mkdtemp(join(os.tmpdir(), 'corral-cluster-bench-'));
const date = new Date().toISOString().slice(0, 10);
/** The report, printed a table at a time as each measurement ends, so that a later failure keeps what was measured. */
const output = { push: (...lines) => process.stdout.write(`${lines.join('\n')}\n`) };
output.push(`${date}, ${machineName()}`);
let failed = false;
try {
  // The embedded PostgreSQL is not used, but the data directories must be traversable as for any replica.
  await chmod(dir, 0o755);
  if (phases.includes('forwarding')) {
    const result = await measureForwarding({ dir, serverUrl, ...options });
    output.push('', '## Requests through another replica', ...result.lines);
    failed ||= result.failed;
  }
  if (phases.includes('scale')) {
    if (replicaSets.includes(3))
      await withSwarm(3, async (set, swarm) => {
        const usage = [];
        for (const count of [0, ...agentCounts]) usage.push(await usageAt(set, swarm.clients[0], swarm, count));
        usageTable(usage);
        await creates(set, swarm);
        const killed = swarm.agents.filter((agent) => agent.online).slice(0, downCount);
        progress(`killing ${killed.length} agents at once`);
        const down = await nodeDown(swarm.clients[0], killed);
        output.push(
          '',
          '## Node-down detection',
          '| agents killed at once | all shown offline after | `node-down` events | median / last event after |',
          '|---|---|---|---|',
          `| ${killed.length} | ${(down.offline / 1000).toFixed(1)} s | ${down.events} | ${(down.medianEvent / 1000).toFixed(1)} s / ${(down.lastEvent / 1000).toFixed(1)} s |`,
        );
      });
    if (replicaSets.includes(1))
      await withSwarm(1, async (set, swarm) => {
        const usage = [];
        for (const count of [0, ...agentCounts]) usage.push(await usageAt(set, swarm.clients[0], swarm, count));
        usageTable(usage);
        let guests = 0;
        for (const count of guestCounts) {
          const busyBefore = swarm.clients[0].busy.count;
          const { rate, refused } = await fillGuests(swarm.clients[0], swarm.agents, { from: 100 + guests, to: 100 + count });
          const busy = swarm.clients[0].busy.count - busyBefore;
          guests = count;
          const rows = (await measureResources(set.replicas[0], swarm.token, { duration, rounds })).map((row) => ({
            ...row,
            guests,
            createRate: rate,
            busy: busy + refused,
          }));
          resourcesTable(rows, swarm.agents.length);
          failed ||= rows.some((row) => row.failed);
          scrapeTable(guests, swarm.agents.length, await measureScrape(set.replicas[0], swarm.token));
        }
      });
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
if (failed) progress('FAILED: some requests errored, were not 2xx, or some tasks did not end OK; the figures above are not a result');
process.exit(failed ? 1 : 0);

/** Runs `work` with a new replica set of `count` and a swarm (its agents and a root client per replica); ends them all after. */
async function withSwarm(count, work) {
  const set = await startReplicaSet(count, { dir, name: `set${count}`, serverUrl });
  const swarm = { agents: [], clients: [] };
  try {
    const first = rootClient(set.replicas[0].api, 1);
    const token = await rootToken(first).finally(() => first.close());
    swarm.clients = set.replicas.map((replica) => rootClient(replica.api, 64, token));
    swarm.token = token;
    await work(set, swarm);
  } finally {
    for (const agent of swarm.agents) agent.kill();
    for (const client of swarm.clients) client.close();
    await set.stop();
  }
}

/** A run of parallelCreates with its creates that ended OK (`ok`) and the check of their `vm-create` events through `client`, made as soon as they ended. */
async function withEvents(client, run) {
  const ok = run.creates.filter((create) => create.exitstatus === 'OK');
  return {
    ...run,
    ok,
    events: await createEvents(
      client,
      ok.map((create) => create.vmid),
    ),
  };
}

/** The parallel creates on three replicas: plain, then with the third replica killed once all were accepted; and the killed replica's agents' move. */
async function creates(set, swarm) {
  progress(`${createCount} parallel creates through ${set.replicas.length} replicas`);
  const plain = await withEvents(
    swarm.clients[0],
    await parallelCreates(set, swarm.clients, swarm, { count: createCount, firstVmid: 1000 }),
  );
  for (const agent of swarm.agents) agent.createMs = SLOW_CREATE_MS;
  const victim = set.replicas[set.replicas.length - 1];
  const moving = swarm.agents.filter((agent) => agent.online && agent.url === victim.url);
  progress(`${createCount} parallel creates, replica ${set.replicas.length} killed with SIGKILL once all were accepted`);
  const killed = await withEvents(
    swarm.clients[0],
    await parallelCreates(set, swarm.clients, swarm, { count: createCount, firstVmid: 2000, kill: victim }),
  );
  const back = spread(await movedBack(moving, killed.killedAt));
  for (const agent of swarm.agents) agent.createMs = 0;
  const rows = [];
  for (const [name, run] of [
    ['none', plain],
    ['replica 3 with SIGKILL, once all were accepted', killed],
  ]) {
    const refused = run.creates.filter((create) => create.upid === null);
    const other = run.creates.filter((create) => create.upid !== null && create.exitstatus !== 'OK');
    for (const create of [...refused, ...other].slice(0, 5))
      progress(`create of VM ${create.vmid}: ${create.status} ${create.exitstatus ?? create.text}`);
    failed ||= refused.length + other.length + run.ok.length - run.events.once > 0;
    rows.push(
      `| ${name} | ${createCount} | ${run.seconds.toFixed(1)} s | ${run.ok.length} | ${other.length} | ${refused.length} | ${run.events.once} of ${run.ok.length}, all ${((run.events.at - run.endedAt) / 1000).toFixed(1)} s after the last end |`,
    );
  }
  output.push(
    '',
    `## ${createCount} parallel creates over ${swarm.agents.length} nodes, sent to the replicas in turn`,
    '| replica killed | creates | all ended after | ended OK | ended otherwise | refused | with one `vm-create` event |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `## The killed replica's ${moving.length} agents back on another replica (from the kill to their welcome)`,
    '| p50 | p99 | last |',
    '|---|---|---|',
    `| ${(back.p50 / 1000).toFixed(2)} s | ${(back.p99 / 1000).toFixed(2)} s | ${(back.max / 1000).toFixed(2)} s |`,
  );
}

function usageTable(usage) {
  output.push(
    '',
    `## ${usage[0].replicas} replica(s): each one's CPU (share of one core) and resident memory as agents join, and GET /version on the first`,
    '| replicas | agents | agents held by each | CPU of each | memory of each | PostgreSQL CPU | /version p99 / worst ms |',
    '|---|---|---|---|---|---|---|',
    ...usage.map(
      (row) =>
        `| ${row.replicas} | ${row.agents} | ${row.held.join(' / ')} | ${row.usage.map((each) => each.cpu.toFixed(2)).join(' / ')} | ${row.usage.map((each) => `${(each.rss / MIB).toFixed(0)} MiB`).join(' / ')} | ${row.postgres.toFixed(2)} | ${row.version.p99} / ${row.version.max} |`,
    ),
  );
}

function resourcesTable(rows, nodes) {
  output.push(
    '',
    `## GET /cluster/resources at ${nodes} nodes and ${rows[0].guests} guests (${rounds} × ${duration} s, medians)`,
    '| guests | body | connections | Corral req/s (p50 / p99 ms) | bare Fastify, same body | Corral ÷ bare | creates/s while filling (requests answered 503, asked again) |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.guests} | ${(row.bytes / MIB).toFixed(1)} MiB | ${row.connections} | ${row.corral.rate.toFixed(1)} (${row.corral.p50} / ${row.corral.p99}) | ${row.bare.rate.toFixed(1)} (${row.bare.p50} / ${row.bare.p99}) | ${row.ratio.toFixed(3)} | ${row.createRate.toFixed(0)} (${row.busy}) |`,
    ),
  );
}

function scrapeTable(guests, nodes, scrape) {
  output.push(
    '',
    `## GET /metrics at ${nodes} nodes and ${guests} guests`,
    '| guests | body | scrape, median / slowest of 50 |',
    '|---|---|---|',
    `| ${guests} | ${(scrape.bytes / MIB).toFixed(1)} MiB | ${scrape.median.toFixed(1)} / ${scrape.max.toFixed(1)} ms |`,
  );
}
