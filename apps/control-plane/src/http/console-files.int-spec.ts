import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HttpsClient, testFolder } from '@corral/testing';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';

const PAGE = '<!doctype html><html><head><script type="module" src="/assets/app-1a2b3c.js"></script></head><body></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});`;

describe('the web console, served at / on the API port', () => {
  let t: TestApp;
  let site: HttpsClient;

  beforeAll(async () => {
    const dir = await testFolder('corral-console-');
    await mkdir(join(dir, 'assets'));
    await writeFile(join(dir, 'index.html'), PAGE);
    await writeFile(join(dir, 'assets/app-1a2b3c.js'), SCRIPT);
    await writeFile(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    t = await startTestApp({ env: { CORRAL_CONSOLE_DIR: dir } });
    site = new HttpsClient(t.api.baseUrl.replace('/api2/json', ''), t.cert);
  });
  afterAll(async () => {
    site?.close();
    await t?.close();
  });

  it('answers / with the page, checked again at every load, and only from this origin', async () => {
    const res = await site.get('/');
    expect(res.status).toBe(200);
    expect(res.text).toBe(PAGE);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    const again = await site.send('/', { headers: { 'if-none-match': String(res.headers['etag']) } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  it('serves hashed assets for a year, gzipped when the client accepts it', async () => {
    const plain = await site.get('/assets/app-1a2b3c.js');
    expect(plain.status).toBe(200);
    expect(plain.text).toBe(SCRIPT);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    const gzipped = await site.send('/assets/app-1a2b3c.js', { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(Number(gzipped.headers['content-length'])).toBeLessThan(SCRIPT.length / 10);
    expect((await site.get('/favicon.svg')).headers['content-type']).toBe('image/svg+xml');
  });

  it('answers 404 for a file it does not have, and leaves the API its own 404s', async () => {
    expect((await site.get('/assets/gone-000000.js')).status).toBe(404);
    const api = await t.api.get('/no-such-thing');
    expect(api.status).toBe(404);
    expect(api.json()).toEqual({ data: null, errors: [{ code: 404, message: "no such path '/api2/json/no-such-thing'" }] });
  });
});

describe('a control plane whose console was not built', () => {
  it('says so at /, in words, and how to build it', async () => {
    const t = await startTestApp({ env: { CORRAL_CONSOLE_DIR: '/nonexistent/console' } });
    const site = new HttpsClient(t.api.baseUrl.replace('/api2/json', ''), t.cert);
    try {
      const res = await site.get('/');
      expect(res.status).toBe(501);
      expect(res.text).toContain('The web console is not built');
      expect(res.text).toContain('npm run build');
    } finally {
      site.close();
      await t.close();
    }
  });
});
