import { ApiFailure, call, setCredentials } from './client';

function answer(status: number, statusText: string, body: unknown): void {
  global.fetch = jest.fn(async () => new Response(JSON.stringify(body), { status, statusText }));
}

describe('calls to the API', () => {
  afterEach(() => setCredentials(null, () => undefined));

  it('reads Corral’s errors, each with the parameter it names', async () => {
    answer(400, 'parameter memory: too small', {
      data: null,
      errors: [{ code: 400, param: 'memory', message: "parameter 'memory': too small" }],
    });
    const failure = await call('POST', '/nodes/pve1/qemu', { memory: 1 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiFailure);
    expect((failure as ApiFailure).status).toBe(400);
    expect((failure as ApiFailure).forParam('memory')).toBe("parameter 'memory': too small");
    expect((failure as ApiFailure).message).toBe("parameter 'memory': too small");
  });

  it('reads PVE’s errors, an object of messages by parameter, or only the reason phrase', async () => {
    answer(400, 'Parameter verification failed.', {
      data: null,
      errors: { vmid: 'invalid format\n' },
      message: 'Parameter verification failed.\n',
    });
    const byParam = (await call('POST', '/nodes/pve1/qemu').catch((error: unknown) => error)) as ApiFailure;
    expect(byParam.forParam('vmid')).toBe('invalid format');
    answer(500, 'storage is full', { data: null });
    const bare = (await call('GET', '/version').catch((error: unknown) => error)) as ApiFailure;
    expect(bare.message).toBe('storage is full');
    expect(bare.problems).toEqual([]);
  });

  it('sends the CSRF token on changes only, and says when the ticket is no longer good', async () => {
    const unauthorized = jest.fn();
    setCredentials('CSRF-TOKEN', unauthorized);
    answer(200, 'OK', { data: 'UPID:x' });
    await call('POST', '/nodes/pve1/qemu/100/status/start', { skiplock: false });
    const [url, init] = (global.fetch as jest.Mock).mock.calls[0] as [string, RequestInit];
    expect(url).toBe('/api2/json/nodes/pve1/qemu/100/status/start');
    expect(init.headers).toMatchObject({ CSRFPreventionToken: 'CSRF-TOKEN', 'content-type': 'application/json' });
    expect(JSON.parse(String(init.body))).toEqual({ skiplock: 0 });

    answer(200, 'OK', { data: [] });
    await call('GET', '/cluster/tasks', { limit: 5, vmid: undefined });
    const [getUrl, getInit] = (global.fetch as jest.Mock).mock.calls[0] as [string, RequestInit];
    expect(getUrl).toBe('/api2/json/cluster/tasks?limit=5');
    expect(getInit.headers).not.toHaveProperty('CSRFPreventionToken');

    answer(401, 'invalid ticket', { data: null });
    await expect(call('GET', '/cluster/resources')).rejects.toThrow('invalid ticket');
    expect(unauthorized).toHaveBeenCalledTimes(1);
  });
});
