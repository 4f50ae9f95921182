import type { ApiResponse } from '@corral/testing';
import { Controller } from '@nestjs/common';
import { pino } from 'pino';
import { DataSource } from 'typeorm';
import { loggerOptions } from '../logging/loggers.js';
import { z } from 'zod';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { Endpoint, endpoint, type ParamsOf } from './endpoint.js';
import { booleanParam, integerParam, listParam, stringParam } from './params.js';
import { Params } from './request-params.js';

// A fixture endpoint with every kind of parameter, mounted on the real HTTP stack.
const fixtureParams = z.object({
  name: stringParam({ description: 'path segment' }),
  count: integerParam({ description: 'an integer', min: 1, max: 10 }),
  flag: booleanParam({ description: 'a boolean' }).optional(),
  tags: listParam(stringParam({ description: 'a tag' }), { description: 'tags' }).optional(),
});
const postFixture = endpoint({
  method: 'POST',
  path: '/fixture/{name}',
  summary: 'echo',
  parameters: fixtureParams,
  returns: z.record(z.string(), z.unknown()),
  permission: { kind: 'public' },
});
const getFixture = endpoint({ ...postFixture, method: 'GET', parameters: fixtureParams.partial({ count: true }) });
const failFixture = endpoint({
  method: 'GET',
  path: '/fixture-failure',
  summary: 'throws',
  parameters: z.object({}),
  returns: z.null(),
  permission: { kind: 'public' },
});
const privateFixture = endpoint({ ...failFixture, path: '/fixture-private', permission: { kind: 'authenticated' } });
const databaseFailureFixture = endpoint({ ...failFixture, path: '/fixture-database-failure' });

@Controller()
class FixtureController {
  constructor(private readonly dataSource: DataSource) {}

  @Endpoint(databaseFailureFixture)
  async databaseFailure(): Promise<null> {
    await this.dataSource.query('SELECT $1::text AS "userid", $2::int AS "hash"', ['mallory@pve', '$6$hunter2$hash']);
    return null;
  }

  @Endpoint(postFixture)
  post(@Params() params: ParamsOf<typeof postFixture>) {
    return params;
  }

  @Endpoint(getFixture)
  get(@Params() params: ParamsOf<typeof getFixture>) {
    return params;
  }

  @Endpoint(failFixture)
  fail(): null {
    throw new Error('database password is hunter2');
  }

  @Endpoint(privateFixture)
  secret(): null {
    return null;
  }
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const JSON_TYPE = { 'content-type': 'application/json' };

function expectError(res: ApiResponse, status: number, message: string | RegExp, param?: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/json;charset=UTF-8');
  const body = res.json<{ data: null; errors: { code: number; message: string; param?: string }[] }>();
  expect(body.data).toBeNull();
  expect(body.errors[0]).toEqual(
    expect.objectContaining({
      code: status,
      message: typeof message === 'string' ? expect.stringContaining(message) : expect.stringMatching(message),
    }),
  );
  if (param !== undefined) expect(body.errors[0]?.param).toBe(param);
  // The reason phrase is the message, possibly followed by detail (`authentication failed - ...`).
  expect(res.reason.startsWith(body.errors[0]?.message ?? '\0')).toBe(true);
}

describe('request decoding and the error envelope over HTTPS', () => {
  let t: TestApp;
  const logged: Record<string, unknown>[] = [];
  beforeAll(async () => {
    const logger = pino(loggerOptions('info'), { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) });
    t = await startTestApp({ controllers: [FixtureController], logger });
  });
  afterAll(() => t.close());

  const post = (path: string, body: string, headers: Record<string, string> = FORM, query?: string) =>
    t.api.send(path, { method: 'POST', body, headers, ...(query ? { query } : {}) });

  it('decodes a form body: integers as text, 0/1 booleans, repeated keys as a list', async () => {
    const res = await post('/fixture/a', 'count=3&flag=1&tags=x&tags=y');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json;charset=UTF-8');
    expect(res.json()).toEqual({ data: { name: 'a', count: 3, flag: true, tags: ['x', 'y'] } });
  });

  it('decodes a JSON body with JSON booleans and a single value for a list', async () => {
    const res = await post('/fixture/a', JSON.stringify({ count: 2, flag: false, tags: 'solo' }), JSON_TYPE);
    expect(res.json()).toEqual({ data: { name: 'a', count: 2, flag: false, tags: ['solo'] } });
  });

  it('lets the query string override the body, as PVE does', async () => {
    const res = await post('/fixture/a', 'count=3', FORM, 'count=4');
    expect(res.json()).toEqual({ data: { name: 'a', count: 4 } });
  });

  it('takes path segments holding : @ ! raw or percent-encoded', async () => {
    const raw = await t.api.get('/fixture/UPID:n1:0000:root@pam!tok', 'count=1');
    const encoded = await t.api.get('/fixture/UPID%3An1%3A0000%3Aroot%40pam%21tok', 'count=1');
    expect(raw.json()).toEqual({ data: { name: 'UPID:n1:0000:root@pam!tok', count: 1 } });
    expect(encoded.json()).toEqual(raw.json());
  });

  it('ignores the ExtJS cache buster _dc', async () => {
    expect((await t.api.get('/fixture/a', '_dc=123')).status).toBe(200);
  });

  it('answers 400 naming each bad parameter, with the first message as the reason phrase', async () => {
    const res = await post('/fixture/a', 'count=abc&flag=yes&color=red');
    expectError(res, 400, "parameter 'count': expected an integer, got 'abc'", 'count');
    expect(res.json<{ errors: unknown[] }>().errors).toEqual([
      { code: 400, param: 'count', message: "parameter 'count': expected an integer, got 'abc'" },
      { code: 400, param: 'flag', message: "parameter 'flag': expected a boolean (0 or 1), got 'yes'" },
      { code: 400, param: 'color', message: "unknown parameter 'color'" },
    ]);
  });

  it('answers 400 naming the parameter for a NUL or another control character, in the path, the query, a form or JSON', async () => {
    const refused = 'must not contain control characters other than tab and line breaks';
    expectError(await t.api.get('/fixture/a%00b'), 400, `parameter 'name': ${refused}`, 'name');
    expectError(await t.api.get('/fixture/a', 'tags=x%00y'), 400, `parameter 'tags': ${refused}`, 'tags');
    expectError(await post('/fixture/a', 'count=1&tags=ok&tags=%1b%5b0m'), 400, `parameter 'tags': ${refused}`, 'tags');
    expectError(
      await post('/fixture/a', JSON.stringify({ count: 1, tags: 'a\u0000' }), JSON_TYPE),
      400,
      `parameter 'tags': ${refused}`,
      'tags',
    );
  });

  it('rejects form booleans other than 0 and 1, as PVE does', async () => {
    expectError(await post('/fixture/a', 'count=1&flag=true'), 400, "got 'true'", 'flag');
  });

  it('names a missing required parameter and a value out of range', async () => {
    expectError(await post('/fixture/a', 'flag=1'), 400, "parameter 'count' is missing", 'count');
    expectError(await post('/fixture/a', 'count=11'), 400, "parameter 'count': must be at most 10", 'count');
  });

  it('rejects a repeated key where one value is expected', async () => {
    expectError(await post('/fixture/a', 'count=1&count=2'), 400, /count.*given more than once/, 'count');
  });

  it('rejects a body value that contradicts the path', async () => {
    expectError(await post('/fixture/a', 'count=1&name=b'), 400, "parameter 'name' conflicts with the value given in the path", 'name');
    expect((await post('/fixture/a', 'count=1&name=a')).status).toBe(200);
  });

  it('answers malformed JSON with 400', async () => {
    expectError(await post('/fixture/a', '{"count": 1', JSON_TYPE), 400, /^malformed JSON body/);
  });

  it('answers a JSON body that is not an object with 400', async () => {
    expectError(await post('/fixture/a', '[1,2]', JSON_TYPE), 400, 'the request body must be a JSON object or a form');
  });

  it('answers a body over 512 KiB with 413', async () => {
    expectError(
      await post('/fixture/a', `count=1&tags=${'x'.repeat(512 * 1024)}`),
      413,
      'request body too large: the limit is 524288 bytes',
    );
  });

  it('answers an unsupported content type with 415', async () => {
    expectError(await post('/fixture/a', 'count=1', { 'content-type': 'text/plain' }), 415, "unsupported content type 'text/plain'");
  });

  it('answers a GET with a body with 400', async () => {
    const res = await t.api.send('/fixture/a', { method: 'GET', body: 'count=1', headers: FORM });
    expectError(res, 400, "unexpected request body for method 'GET'");
  });

  it('answers an unknown path with 404 and a known path with the wrong method with 405 and Allow', async () => {
    expectError(await t.api.get('/nope'), 404, "no such path '/api2/json/nope'");
    const res = await t.api.send('/fixture/a', { method: 'DELETE' });
    expectError(res, 405, "method 'DELETE' is not allowed on '/api2/json/fixture/a' (allowed: POST, GET, HEAD)");
    expect(res.headers['allow']).toBe('POST, GET, HEAD');
  });

  it('answers an unexpected exception with 500 and a request id, and logs the error under that id', async () => {
    const res = await t.api.get('/fixture-failure');
    expectError(res, 500, /^internal error \(request id [0-9a-f]{8}-[0-9a-z]+\)$/);
    expect(res.text).not.toContain('hunter2');
    const reqId = /request id ([^)]+)\)/.exec(res.reason)?.[1];
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: 50,
        msg: 'unexpected error',
        reqId,
        method: 'GET',
        path: '/api2/json/fixture-failure',
        err: expect.objectContaining({ stack: expect.stringContaining('hunter2') }),
      }),
    );
  });

  it('logs a database error with its statement and SQLSTATE but none of the values it carried', async () => {
    const res = await t.api.get('/fixture-database-failure');
    expectError(res, 500, /^internal error/);
    const reqId = /request id ([^)]+)\)/.exec(res.reason)?.[1];
    const record = logged.find((line) => line['reqId'] === reqId && line['msg'] === 'unexpected error');
    expect(record?.['err']).toEqual(
      expect.objectContaining({ type: 'QueryFailedError', code: '22P02', query: expect.stringContaining('$2::int') }),
    );
    expect(JSON.stringify(logged)).not.toMatch(/hunter2\$hash|mallory/);
  });

  it('refuses an endpoint that needs credentials when none are given', async () => {
    expectError(await t.api.get('/fixture-private'), 401, 'authentication failed');
  });
});
