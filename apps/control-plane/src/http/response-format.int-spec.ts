import { Controller } from '@nestjs/common';
import { pino } from 'pino';
import { z } from 'zod';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import { ApiError } from '../errors/api-error.js';
import { Endpoint, endpoint, type ParamsOf } from './endpoint.js';
import { JsonText } from './json-text.js';
import { integerParam } from './params.js';
import { Params } from './request-params.js';

// Fixture endpoints for the two settings that shape responses: the response check of the test
// tiers, and PVE's error format.
const typed = endpoint({
  method: 'GET',
  path: '/fixture-typed',
  summary: 'answers cores as declared, or as text with wrong=1',
  parameters: z.object({ wrong: integerParam({ description: '1: answer text', min: 0, max: 1 }).optional() }),
  returns: z.object({ cores: z.number().int() }),
  permission: { kind: 'public' },
});
const missing = endpoint({
  method: 'GET',
  path: '/fixture-missing',
  summary: 'a 404',
  parameters: z.object({}),
  returns: z.null(),
  permission: { kind: 'public' },
});
// A list kept as JSON, large enough (about 400 KiB) to be sent as a stream of slices.
const LIST_LENGTH = 4000;
const list = endpoint({
  method: 'GET',
  path: '/fixture-list',
  summary: 'a large list kept as JSON, with a text where a number belongs with wrong=1',
  parameters: z.object({ wrong: integerParam({ description: '1: a text vmid in the last entry', min: 0, max: 1 }).optional() }),
  returns: z.array(z.object({ vmid: z.number().int(), name: z.string() })),
  permission: { kind: 'public' },
});
const listEntry = (vmid: number) => ({ vmid, name: `guest-${vmid}-${'x'.repeat(80)}` });

@Controller()
class FixtureController {
  @Endpoint(list)
  list(@Params() p: ParamsOf<typeof list>): JsonText<{ vmid: number; name: string }[]> {
    const entries: unknown[] = Array.from({ length: LIST_LENGTH }, (_, i) => listEntry(i));
    if (p.wrong === 1) entries.push({ ...listEntry(LIST_LENGTH), vmid: String(LIST_LENGTH) });
    return JsonText.array(entries.map((entry) => Buffer.from(JSON.stringify(entry))));
  }

  @Endpoint(typed)
  typed(@Params() p: ParamsOf<typeof typed>): { cores: number } {
    return p.wrong === 1 ? ({ cores: '2' } as unknown as { cores: number }) : { cores: 2 };
  }

  @Endpoint(missing)
  missing(): null {
    throw new ApiError('NOT_FOUND', 'VM 100 does not exist');
  }
}

describe('the response check (CORRAL_CHECK_RESPONSES)', () => {
  let t: TestApp;
  const logged: Record<string, unknown>[] = [];
  beforeAll(async () => {
    const logger = pino({ level: 'error' }, { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) });
    t = await startTestApp({ controllers: [FixtureController], logger });
  });
  afterAll(() => t.close());

  it('passes a response that matches its declaration', async () => {
    const res = await t.api.get('/fixture-typed');
    expect([res.status, res.json()]).toEqual([200, { data: { cores: 2 } }]);
  });

  it('fails a response that does not, naming the field, so the test that made the call fails', async () => {
    const res = await t.api.get('/fixture-typed', 'wrong=1');
    expect(res.status).toBe(500);
    expect(JSON.stringify(logged)).toContain('the response of GET /fixture-typed does not match its declaration: data.cores: ');
  });

  it('checks a large list sent as a stream, and sends it whole with its length', async () => {
    const res = await t.api.get('/fixture-list');
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
    expect(res.json()).toEqual({ data: Array.from({ length: LIST_LENGTH }, (_, i) => listEntry(i)) });

    const wrong = await t.api.get('/fixture-list', 'wrong=1');
    expect(wrong.status).toBe(500);
    expect(JSON.stringify(logged)).toContain(
      `the response of GET /fixture-list does not match its declaration: data.${LIST_LENGTH}.vmid: `,
    );
  });
});

describe('without the response check (production)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ controllers: [FixtureController], env: { CORRAL_CHECK_RESPONSES: '0' } });
  });
  afterAll(() => t.close());

  it('sends what the handler returned', async () => {
    expect((await t.api.get('/fixture-typed', 'wrong=1')).json()).toEqual({ data: { cores: '2' } });
  });

  it('streams a large list as it was kept, with its length', async () => {
    const res = await t.api.get('/fixture-list');
    expect([res.status, res.headers['content-type'], res.headers['transfer-encoding']]).toEqual([
      200,
      'application/json;charset=UTF-8',
      undefined,
    ]);
    expect(Number(res.headers['content-length'])).toBeGreaterThan(256 * 1024);
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
    expect(res.json()).toEqual({ data: Array.from({ length: LIST_LENGTH }, (_, i) => listEntry(i)) });
  });
});

describe("PVE's error format (CORRAL_ERROR_FORMAT=pve)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ controllers: [FixtureController], env: { CORRAL_ERROR_FORMAT: 'pve' } });
  });
  afterAll(() => t.close());

  it("answers a bad parameter with PVE's errors object and reason phrase", async () => {
    const res = await t.api.get('/fixture-typed', 'wrong=7&colour=red');
    expect([res.status, res.reason]).toEqual([400, 'Parameter verification failed.']);
    expect(res.json()).toEqual({
      data: null,
      errors: { wrong: "parameter 'wrong': must be at most 1", colour: "unknown parameter 'colour'" },
      message: 'Parameter verification failed.\n',
    });
  });

  it('answers any other error without an errors member, its message in the reason phrase', async () => {
    const res = await t.api.get('/fixture-missing');
    expect([res.status, res.reason]).toEqual([404, 'VM 100 does not exist']);
    expect(res.json()).toEqual({ data: null, message: 'VM 100 does not exist\n' });
  });
});
