// The scale measurements of the cluster benchmark (docs/benchmarks.md "A thousand agents"), each on
// a replica set of replica-set.mjs with the simulated agents of agent-swarm.mjs: the replicas' CPU
// and memory as agents join, creates spread over nodes held by different replicas (and a replica
// killed with SIGKILL under them), an agent's move when its replica dies, and node-down detection.
import { joinSwarm } from './agent-swarm.mjs';
import { measureLoad, median, percentile, progress, until } from './bench-support.mjs';
import { pidsNamed, usageOver } from './process-usage.mjs';

const PATIENCE_MS = 300_000;
/** How long the agents run before their replicas' use is sampled, and how long it is sampled. */
const SETTLE_S = 10;
const SAMPLE_S = 20;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** How the measurements wait for what they measure: polled every 200 ms, for at most PATIENCE_MS. */
const POLL = { patienceMs: PATIENCE_MS, everyMs: 200 };

/** How many nodes `client` sees online. */
async function onlineCount(client) {
  return (await client.data('/nodes')).filter((node) => node.status === 'online').length;
}

/**
 * Joins and starts agents until `count` run (`swarm.agents` grows), waits until every one is
 * online, lets them settle and samples the replicas' CPU and memory and PostgreSQL's CPU, then the
 * latency of `GET /version` on the first replica with one connection for as long: one row.
 */
export async function usageAt(set, client, swarm, count) {
  progress(`${set.replicas.length} replica(s): ${count} agents`);
  const joined = await joinSwarm(client, {
    prefix: 'swarm',
    from: swarm.agents.length + 1,
    count: count - swarm.agents.length,
    urls: set.urls,
  });
  for (const agent of joined) agent.start();
  swarm.agents.push(...joined);
  await until(async () => (await onlineCount(client)) === count, `${count} nodes online`, POLL);
  await sleep(SETTLE_S * 1000);
  const groups = new Map(set.replicas.map((replica, index) => [`replica ${index + 1}`, [replica.pid]]));
  groups.set('postgres', await pidsNamed('postgres'));
  const usage = await usageOver(groups, SAMPLE_S);
  const replicas = set.replicas.map((_, index) => usage.get(`replica ${index + 1}`));
  const held = set.replicas.map((replica) => swarm.agents.filter((agent) => agent.online && agent.url === replica.url).length);
  const { latency } = await measureLoad({ url: `${set.replicas[0].api}/version` }, SAMPLE_S, 1);
  return {
    replicas: set.replicas.length,
    agents: count,
    held,
    usage: replicas,
    postgres: usage.get('postgres').cpu,
    version: { p99: latency.p99, max: latency.max },
  };
}

/**
 * Creates one VM on each of `count` nodes at once, spread over the swarm's agents (and so over the
 * replicas), each request sent to the replicas in turn; resolves with the creates/s and each
 * create's task (a request or a read that failed is recorded as such, never thrown), and when
 * `kill` (a replica) was killed: the requests go only to the others, and it is killed with SIGKILL
 * once every create was accepted.
 */
export async function parallelCreates(set, clients, swarm, { count, firstVmid, kill }) {
  const live = kill ? clients.filter((_, index) => set.replicas[index] !== kill) : clients;
  const startedAt = performance.now();
  const creates = await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const agent = swarm.agents[index % swarm.agents.length];
      const vmid = firstVmid + index;
      const client = live[index % live.length];
      const response = await client
        .send(`/nodes/${agent.node}/qemu`, 'POST', { vmid: String(vmid), memory: '512', scsi0: 'local:1' })
        .catch((error) => ({ status: 0, text: error.message }));
      return {
        node: agent.node,
        vmid,
        status: response.status,
        upid: response.status === 200 ? JSON.parse(response.text).data : null,
        text: response.text,
      };
    }),
  );
  const killedAt = Date.now();
  if (kill) await kill.kill();
  const ends = await Promise.all(
    creates.map((create) =>
      create.upid ? live[create.vmid % live.length].taskEnd(create.node, create.upid).catch((error) => `not read: ${error.message}`) : null,
    ),
  );
  const seconds = (performance.now() - startedAt) / 1000;
  return { seconds, killedAt, endedAt: Date.now(), creates: creates.map((create, index) => ({ ...create, exitstatus: ends[index] })) };
}

/**
 * Waits until each of `vmids` has one `vm-create` event (read page by page from seq 0 through
 * `client`), or for PATIENCE_MS; resolves with how many have exactly one, and when the last came.
 */
export async function createEvents(client, vmids) {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const counts = new Map();
    let since = 0;
    for (;;) {
      const page = await client.data(`/cluster/events?since=${since}&limit=1000&event-type=vm-create`);
      for (const event of page) counts.set(event.vmid, (counts.get(event.vmid) ?? 0) + 1);
      if (page.length < 1000) break;
      since = page[page.length - 1].seq;
    }
    const once = vmids.filter((vmid) => counts.get(vmid) === 1).length;
    if (once === vmids.length || Date.now() > deadline) return { once, at: Date.now() };
    await sleep(500);
  }
}

/** The times (ms) from `since` to each agent's next welcome, for the agents that were on `url`; waits until all are back. */
export async function movedBack(agents, since) {
  await until(async () => agents.every((agent) => agent.online && agent.welcomedAt > since), 'the agents of the killed replica back', POLL);
  return agents.map((agent) => agent.welcomedAt - since);
}

/** Kills `count` agents at once; the time (ms) until `client` shows all their nodes offline, and until the last `node-down` event. */
export async function nodeDown(client, agents) {
  const names = new Set(agents.map((agent) => agent.node));
  const before = (await client.data('/cluster/events?limit=1'))[0]?.seq ?? 0;
  const killedAt = Date.now();
  for (const agent of agents) agent.kill();
  await until(
    async () => (await client.data('/nodes')).filter((node) => names.has(node.node) && node.status === 'offline').length === names.size,
    `${names.size} nodes offline`,
    POLL,
  );
  const offline = Date.now() - killedAt;
  const events = await client.data(`/cluster/events?since=${before}&limit=1000&event-type=node-down`);
  const times = events.filter((event) => names.has(event.node)).map((event) => Date.parse(event.timestamp) - killedAt);
  return { offline, events: times.length, lastEvent: Math.max(...times), medianEvent: median(times) };
}

/** p50, p99 and the largest of `values`, rounded. */
export function spread(values) {
  return { p50: Math.round(percentile(values, 0.5)), p99: Math.round(percentile(values, 0.99)), max: Math.round(Math.max(...values)) };
}
