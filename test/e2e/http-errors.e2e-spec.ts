import { waitFor, type ApiResponse, type ControlPlaneProcess } from '@corral/testing';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startOnTestDatabase } from '../support/control-plane.js';

function expectSpecError(res: ApiResponse, status: number, message: string, param?: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/json;charset=UTF-8');
  expect(res.json()).toEqual({ data: null, errors: [{ code: status, message, ...(param ? { param } : {}) }] });
  // The message again as the reason phrase: proxmoxer, Telmate and bpg read it from there.
  expect(res.reason).toBe(message);
}

describe("errors of the running control plane, in Corral's error envelope", () => {
  let cp: ControlPlaneProcess;
  beforeAll(async () => {
    cp = await startOnTestDatabase();
  });
  afterAll(() => cp?.stop());

  it('answers an unknown path with 404', async () => {
    expectSpecError(await cp.api.get('/nodes/pve1/frobnicate'), 404, "no such path '/api2/json/nodes/pve1/frobnicate'");
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const res = await cp.api.send('/version', { method: 'DELETE' });
    expectSpecError(res, 405, "method 'DELETE' is not allowed on '/api2/json/version' (allowed: GET, HEAD)");
    expect(res.headers['allow']).toBe('GET, HEAD');
  });

  it('answers an unknown parameter with 400 naming it', async () => {
    expectSpecError(await cp.api.get('/version', 'verbose=1'), 400, "unknown parameter 'verbose'", 'verbose');
  });

  it('answers a GET with a body with 400', async () => {
    const res = await cp.api.send('/version', { body: '{}', headers: { 'content-type': 'application/json' } });
    expectSpecError(res, 400, "unexpected request body for method 'GET': send parameters in the query string");
  });

  it('serves the OpenAPI 3.1 document without credentials and without the envelope', async () => {
    const res = await cp.api.get('/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.json<{
      openapi: string;
      paths: Record<string, Record<string, { security?: unknown[]; 'x-corral-permission': unknown }>>;
    }>();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/openapi.json', '/version', '/access/ticket', '/access/users/{userid}/token/{tokenid}']),
    );
    expect(doc.paths['/version']?.['get']?.security).toEqual([]);
    expect(doc.paths['/access/users']?.['get']?.security).toBeUndefined();
  });

  it('writes one access-log line per request to <data dir>/access.log, without the query string', async () => {
    await cp.api.get('/access/users', `token=${encodeURIComponent('PVEAPIToken=root@pam!x=sekrit-value')}`);
    const logFile = join(cp.dataDir, 'access.log');
    let lines: Record<string, unknown>[] = [];
    // The access log is written in batches, at least every half second.
    await waitFor(
      async () => {
        lines = (await readFile(logFile, 'utf8').catch(() => ''))
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        return lines.some((l) => l['status'] === 401);
      },
      { timeoutMs: 5000, what: 'the access-log line' },
    );
    expect(lines).toContainEqual(
      expect.objectContaining({
        method: 'GET',
        path: '/api2/json/access/users',
        status: 401,
        user: null,
        client: expect.any(String),
        ms: expect.any(Number),
        bytes: expect.any(Number),
      }),
    );
    expect(JSON.stringify(lines)).not.toContain('sekrit');
    expect(cp.output.join('\n')).not.toContain('sekrit');
  });

  it('answers a body over the limit with 413 naming it, and logs the request', async () => {
    const res = await cp.api.send('/access/ticket', {
      method: 'POST',
      body: `username=root@pam&password=${'x'.repeat(1024 * 1024)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectSpecError(res, 413, 'request body too large: the limit is 524288 bytes');
    expect(res.headers['connection']).toBe('close');
    const logFile = join(cp.dataDir, 'access.log');
    await waitFor(async () => (await readFile(logFile, 'utf8').catch(() => '')).includes('"status":413'), {
      timeoutMs: 5000,
      what: 'the access-log line of the 413',
    });
  });
});
