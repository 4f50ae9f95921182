// `/cluster/resources` at a thousand nodes (docs/benchmarks.md "A thousand agents"): VMs created
// through the API on the swarm's nodes until the cluster holds each guest count asked for, then the
// list read with 1 and 10 connections, against a bare Fastify route sending a body of the same size
// with the same certificate, measured alternately in the same run.
import { fetchInsecure, measureLoad, median, progress, startBareFastify, until } from './bench-support.mjs';

const CREATES_IN_FLIGHT = 12;
/** How long a VM whose create was asked for twice may stay locked by the first one's task. */
const UNLOCK_PATIENCE_MS = 300_000;

/**
 * Creates VMs `from` … `to - 1` (their vmids), each on the swarm's agents in turn; resolves with
 * creates/s and how many create requests answered 503 (`refused`). A create refused with 503 is
 * asked again after a second, as the message says (a 409 then means the first one was made after
 * all, and it is waited for until unlocked). The first other failure stops every worker and is
 * thrown once all have stopped, so that no create runs on while the benchmark cleans up.
 */
export async function fillGuests(client, agents, { from, to }) {
  progress(`creating VMs ${from} to ${to - 1} on ${agents.length} nodes`);
  const startedAt = performance.now();
  let next = from;
  let failure = null;
  let refused = 0;
  const create = async (node, vmid) => {
    for (let retried = false; ; retried = true) {
      const response = await client.send(`/nodes/${node}/qemu`, 'POST', { vmid: String(vmid), memory: '512', scsi0: 'local:1' });
      if (response.status === 200) return client.taskEnd(node, JSON.parse(response.text).data);
      if (response.status === 409 && retried) return unlocked(node, vmid);
      if (response.status !== 503) throw new Error(`the create of VM ${vmid} on ${node} answered ${response.status}: ${response.text}`);
      refused += 1;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  };
  const unlocked = async (node, vmid) => {
    await until(
      async () => {
        const config = await client.send(`/nodes/${node}/qemu/${vmid}/config`);
        return config.status === 200 && JSON.parse(config.text).data.lock === undefined;
      },
      `VM ${vmid} unlocked after its create was asked for again`,
      { patienceMs: UNLOCK_PATIENCE_MS, everyMs: 1000 },
    );
    return 'OK';
  };
  const worker = async () => {
    while (next < to && failure === null) {
      const vmid = next++;
      const node = agents[vmid % agents.length].node;
      try {
        const status = await create(node, vmid);
        if (status !== 'OK') throw new Error(`the create of VM ${vmid} on ${node} ended ${status}`);
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: CREATES_IN_FLIGHT }, worker));
  if (failure !== null) throw failure;
  return { rate: (to - from) / ((performance.now() - startedAt) / 1000), refused };
}

/** A list of tens of thousands of guests with ten connections at once may take seconds to come: slow, but an answer. */
const ANSWER_TIMEOUT_S = 120;

/**
 * Reads `/cluster/resources` through `replica` (with `authorization`, root's) and the same bytes from a bare Fastify route,
 * `rounds` times each with 1 and with 10 connections; resolves with one row per connection count.
 */
export async function measureResources(replica, authorization, { duration, rounds }) {
  const url = `${replica.api}/cluster/resources`;
  const sample = await fetchInsecure(url, { headers: { authorization } });
  if (sample.status !== 200) throw new Error(`GET ${url} answered ${sample.status}`);
  const body = sample.text;
  const bare = await startBareFastify(replica.dataDir, (app) =>
    app.get('/resources', async (_request, reply) => reply.type('application/json').send(body)),
  );
  try {
    const rows = [];
    for (const connections of [1, 10]) {
      const runs = { corral: [], bare: [] };
      for (let round = 1; round <= rounds; round++)
        for (const [name, target] of [
          ['bare', `${bare.origin}/resources`],
          ['corral', url],
        ]) {
          progress(
            `/cluster/resources (${(body.length / 2 ** 20).toFixed(1)} MiB), ${name}, ${connections} connection(s), round ${round}/${rounds}`,
          );
          const result = await measureLoad({ url: target, headers: { authorization }, timeoutS: ANSWER_TIMEOUT_S }, duration, connections);
          if (result.errors > 0 || result.non2xx > 0)
            progress(`  ${result.errors} errors (${result.timeouts} timeouts), ${result.non2xx} not 2xx`);
          runs[name].push(result);
        }
      const failed = [...runs.corral, ...runs.bare].some((result) => result.requests.total === 0 || result.non2xx > 0 || result.errors > 0);
      const rate = (results) => median(results.map((result) => result.requests.average));
      rows.push({
        connections,
        bytes: body.length,
        corral: {
          rate: rate(runs.corral),
          p50: median(runs.corral.map((r) => r.latency.p50)),
          p99: median(runs.corral.map((r) => r.latency.p99)),
        },
        bare: { rate: rate(runs.bare), p50: median(runs.bare.map((r) => r.latency.p50)), p99: median(runs.bare.map((r) => r.latency.p99)) },
        ratio: median(runs.corral.map((result, index) => result.requests.average / runs.bare[index].requests.average)),
        failed,
      });
    }
    return rows;
  } finally {
    await bare.app.close();
  }
}
