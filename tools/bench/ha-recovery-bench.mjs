// HA recovery time: a built control plane with two
// agents on the `native` driver and a shared directory storage (host2's /mnt/ha links to host1's);
// an HA VM (real QEMU) runs on one node, whose agent and QEMU are then killed with SIGKILL (the
// host "dies"). Measured per run: from the kill to the VM's QEMU running on the other node, and to
// the API saying so. The dead agent is started again and the next run kills the other node.
// Sampled every 100 ms throughout: a moment with the VM on both nodes fails the run. GET /version
// against a bare Fastify route in the same run gives the machine's speed. Usage:
//   node tools/bench/ha-recovery-bench.mjs [--runs 5]   (or BENCH_RUNS)
// Needs root, QEMU and the built control plane and agent. Exits 1 when a run fails or the VM ran
// twice; never on a timing.
import { existsSync } from 'node:fs';
import { processesUnder } from '@corral/testing';
import { chmod, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  AGENT_MAIN,
  fail,
  machineSpeed,
  MAIN,
  median,
  positiveInt,
  progress,
  rootClient,
  startAgent,
  startBareFastify,
  startControlPlane,
  until,
} from './bench-support.mjs';

const NODES = ['host1', 'host2'];
const TESTING_MAIN = new URL('../../libs/testing/dist/index.js', import.meta.url).pathname;
const VMID = 100;
const RUN_PATIENCE_MS = 180_000;
/** Polls `check` every 100 ms (the sampling of the VM's place) until it is true, for at most RUN_PATIENCE_MS. */
const waitFor = (check, what) => until(check, what, { patienceMs: RUN_PATIENCE_MS, everyMs: 100 });

const { values: flags } = parseArgs({ options: { runs: { type: 'string' } } });
const runs = positiveInt('runs', flags.runs ?? process.env.BENCH_RUNS ?? '5');
for (const built of [MAIN, AGENT_MAIN, TESTING_MAIN])
  if (!existsSync(built)) fail(`${built} is missing: run NX_DAEMON=false npx nx run-many -t build -p control-plane agent testing first`);

const failures = [];
const dataDir = await mkdtemp(join(os.tmpdir(), 'corral-bench-'));
const agents = new Map();
let controlPlane = null;
let client = null;
let bare = null;
try {
  // mkdtemp makes the directory 0700; the embedded PostgreSQL runs as user postgres and must traverse it.
  await chmod(dataDir, 0o755);
  controlPlane = await startControlPlane(dataDir, { CORRAL_LOCAL_AGENT: '0' });
  const api = `https://127.0.0.1:${controlPlane.port}/api2/json`;
  client = rootClient(api, 8);
  for (const node of NODES) agents.set(node, await startAgent(client, { port: controlPlane.port, dir: dataDir, node, driver: 'native' }));
  await mkdir(join(dataDir, 'hosts', 'host1', 'mnt', 'ha'), { recursive: true });
  await mkdir(join(dataDir, 'hosts', 'host2', 'mnt'), { recursive: true });
  await symlink(join(dataDir, 'hosts', 'host1', 'mnt', 'ha'), join(dataDir, 'hosts', 'host2', 'mnt', 'ha'));
  await client.data('/storage', 'POST', { storage: 'ha', type: 'dir', path: '/mnt/ha', content: 'images', shared: '1' });
  const created = await client.taskEnd(
    'host1',
    await client.data('/nodes/host1/qemu', 'POST', { vmid: String(VMID), name: 'ha-bench', memory: '64', scsi0: 'ha:0.0625' }),
  );
  if (created !== 'OK') fail(`the VM was not created: ${created}`);
  await client.data('/cluster/ha/resources', 'POST', { sid: `vm:${VMID}` });
  await waitFor(async () => (await runsOn('host1')) && (await apiRunsOn('host1')), 'the VM started by HA on host1');
  bare = await startBareFastify(dataDir, (app) => app.get('/hello', async () => ({ hello: 'world' })));
  const speed = await machineSpeed(`${bare.origin}/hello`, `${api}/version`, failures);

  const results = [];
  for (let run = 1; run <= runs; run += 1) {
    const from = (await runsOn('host1')) ? 'host1' : 'host2';
    const to = from === 'host1' ? 'host2' : 'host1';
    progress(`run ${run}/${runs}: ${from} dies`);
    const killedAt = Date.now();
    await agents.get(from).kill();
    for (const pid of await processesUnder(join(dataDir, 'hosts', from, 'run'))) process.kill(pid, 'SIGKILL');
    let both = 0;
    let qemuAt = 0;
    await waitFor(async () => {
      const [onFrom, onTo] = await Promise.all([runsOn(from), runsOn(to)]);
      if (onFrom && onTo) both += 1;
      if (onTo && qemuAt === 0) qemuAt = Date.now();
      return onTo && (await apiRunsOn(to));
    }, `the VM running on ${to}`);
    const apiAt = Date.now();
    if (both > 0) failures.push(`run ${run}: the VM ran on both nodes in ${both} samples`);
    results.push({ run, from, to, qemuS: (qemuAt - killedAt) / 1000, apiS: (apiAt - killedAt) / 1000 });
    progress(
      `run ${run}: QEMU on ${to} after ${results.at(-1).qemuS.toFixed(1)} s, the API says running after ${results.at(-1).apiS.toFixed(1)} s`,
    );
    await agents.get(from).restart();
  }
  report(results, speed);
} catch (error) {
  failures.push(error instanceof Error ? error.message : String(error));
} finally {
  for (const agent of agents.values()) await agent.stop().catch(() => undefined);
  for (const pid of await processesUnder(dataDir)) process.kill(pid, 'SIGKILL');
  client?.close();
  await bare?.app.close();
  await controlPlane?.stop();
  await rm(dataDir, { recursive: true, force: true });
}
if (failures.length > 0) fail(failures.join('\n'));

/** Whether the VM's QEMU runs under the node's host root (its pid file is there). */
async function runsOn(node) {
  return (await processesUnder(join(dataDir, 'hosts', node, 'run', 'corral', 'qemu', `${VMID}.pid`))).length > 0;
}

async function apiRunsOn(node) {
  const response = await client.send(`/nodes/${node}/qemu/${VMID}/status/current`);
  return response.status === 200 && JSON.parse(response.text).data.status === 'running';
}

/** The runs as a markdown table, their median and worst, and the machine's speed, on stdout. */
function report(results, speed) {
  const qemu = results.map((result) => result.qemuS);
  const apiTimes = results.map((result) => result.apiS);
  const lines = [
    '| run | failed node | recovered on | QEMU running after (s) | API says running after (s) |',
    '|---|---|---|---|---|',
    ...results.map(
      (result) => `| ${result.run} | ${result.from} | ${result.to} | ${result.qemuS.toFixed(1)} | ${result.apiS.toFixed(1)} |`,
    ),
    '',
    `recovery (QEMU running): median ${median(qemu).toFixed(1)} s, worst ${Math.max(...qemu).toFixed(1)} s; API: median ${median(apiTimes).toFixed(1)} s, worst ${Math.max(...apiTimes).toFixed(1)} s`,
    `GET /version ÷ bare Fastify: ${(speed.versionRate / speed.bareRate).toFixed(2)} (${Math.round(speed.versionRate)} / ${Math.round(speed.bareRate)} requests/s)`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
}
