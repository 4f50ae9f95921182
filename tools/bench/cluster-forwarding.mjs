// Requests through another replica (docs/benchmarks.md "Requests through another replica"): two
// replicas on one PostgreSQL, a sim agent held by the first, and the same requests for its node sent
// to the replica holding it (direct) and to the other one (which forwards a change there and answers
// a guest read from its own view), against a bare Fastify HTTPS route with the same certificate,
// measured alternately in the same run.
import {
  AS_ROOT,
  fail,
  machineName,
  measureLoad,
  median,
  progress,
  rootClient,
  startAgent,
  startBareFastify,
  roundsTable,
  WARMUP_S,
} from './bench-support.mjs';
import { startReplicaSet } from './replica-set.mjs';

const NODE = 'bench1';
const VMID = 100;

/** Runs the measurement; resolves with the report's lines and whether any request failed. */
export async function measureForwarding({ dir, serverUrl, duration, connections, rounds }) {
  const set = await startReplicaSet(2, { dir, name: 'forwarding', serverUrl });
  let agent = null;
  let bare = null;
  let client = null;
  try {
    const [holder, other] = set.replicas;
    client = rootClient(holder.api, 4);
    agent = await startAgent(client, { port: holder.port, dir, node: NODE });
    const created = await client.data(`/nodes/${NODE}/qemu`, 'POST', { vmid: String(VMID), name: 'bench', memory: '512' });
    if ((await client.taskEnd(NODE, created)) !== 'OK') fail('could not create the benchmark VM');
    bare = await startBareFastify(holder.dataDir, (app) => app.get('/hello', async () => ({ hello: 'world' })));

    const endpoints = [
      { name: `GET config of VM ${VMID}`, path: `/nodes/${NODE}/qemu/${VMID}/config` },
      { name: `GET status/current of VM ${VMID}`, path: `/nodes/${NODE}/qemu/${VMID}/status/current` },
      {
        name: `POST config of VM ${VMID} (a task)`,
        path: `/nodes/${NODE}/qemu/${VMID}/config`,
        method: 'POST',
        body: 'description=bench',
      },
    ];
    const targets = [
      { name: 'bare Fastify GET /hello', url: `${bare.origin}/hello` },
      ...endpoints.flatMap((endpoint) =>
        [
          ['direct', holder],
          ['other replica', other],
        ].map(([how, replica]) => ({
          name: `${endpoint.name}, ${how}`,
          endpoint: endpoint.name,
          how,
          url: `${replica.api}${endpoint.path}`,
          method: endpoint.method ?? 'GET',
          body: endpoint.body,
          headers: { authorization: AS_ROOT, ...(endpoint.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        })),
      ),
    ];
    const runs = [];
    for (let round = 1; round <= rounds; round++) {
      for (const target of targets) {
        progress(`round ${round}/${rounds}, ${target.name}: warming up ${WARMUP_S} s, then ${duration} s with ${connections} connections`);
        runs.push({ round, target, result: await measureLoad(target, duration, connections) });
      }
    }
    const failed = runs.some(({ result }) => result.requests.total === 0 || result.non2xx > 0 || result.errors > 0);
    return { lines: report(endpoints, runs, { duration, connections, rounds }), failed };
  } finally {
    client?.close();
    if (agent) await agent.stop();
    if (bare) await bare.app.close();
    await set.stop();
  }
}

function report(endpoints, runs, { duration, connections, rounds }) {
  const rates = (name) => runs.filter((run) => run.target.name === name).map((run) => run.result.requests.average);
  const latency = (name, key) => median(runs.filter((run) => run.target.name === name).map((run) => run.result.latency[key]));
  const bareRates = rates('bare Fastify GET /hello');
  const lines = roundsTable(runs.map(({ round, target, result }) => ({ round, name: target.name, result })));
  const machine = machineName();
  const date = new Date().toISOString().slice(0, 10);
  const summary = [`bare Fastify GET /hello: ${median(bareRates).toFixed(0)} req/s (median of ${rounds})`];
  for (const endpoint of endpoints) {
    const direct = rates(`${endpoint.name}, direct`);
    const other = rates(`${endpoint.name}, other replica`);
    const ratio = median(other.map((rate, i) => rate / direct[i]));
    const toBare = (values) => median(values.map((rate, i) => rate / bareRates[i])).toFixed(3);
    summary.push(
      `${endpoint.name}: direct ${median(direct).toFixed(0)} req/s (p50 ${latency(`${endpoint.name}, direct`, 'p50')} ms), other replica ${median(other).toFixed(0)} req/s (p50 ${latency(`${endpoint.name}, other replica`, 'p50')} ms); other ÷ direct ${ratio.toFixed(2)}`,
      `  markdown row: | ${date} | ${machine} | ${endpoint.name} | ${rounds} × ${duration} s, ${connections} connections | ${median(bareRates).toFixed(0)} | ${median(direct).toFixed(0)} (${toBare(direct)}) | ${median(other).toFixed(0)} (${toBare(other)}) | ${ratio.toFixed(2)} |`,
    );
  }
  return ['', ...lines, '', ...summary];
}
