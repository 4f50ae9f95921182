import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** One file of the built web console, kept in memory with its gzipped form. */
interface ConsoleFile {
  readonly body: Buffer;
  /** Null where gzip gains nothing (fonts, already compressed). */
  readonly gzip: Buffer | null;
  readonly type: string;
  readonly etag: string;
  readonly cacheControl: string;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.png': 'image/png',
  '.json': 'application/json',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json']);
/** Files under `assets/` are named by their content's hash: a new build gives new names, so they never change and are cached for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The page itself is checked again at every load, so that a new build's names are found. */
const REVALIDATE = 'no-cache';

/**
 * The console runs in the browser and talks only to this origin: scripts, styles, fonts, pictures and
 * API calls (server-sent events and websockets included) come from here and nowhere else, and no
 * other site may frame it.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
};

/** The console's files by URL path (`/`, `/favicon.svg`, `/assets/...`), or null when it was not built. */
export async function loadConsoleFiles(dir: string): Promise<ReadonlyMap<string, ConsoleFile> | null> {
  if ((await stat(join(dir, 'index.html')).catch(() => null)) === null) return null;
  const files = new Map<string, ConsoleFile>();
  for (const relative of await readdir(dir, { recursive: true })) {
    const path = join(dir, relative);
    if (!(await stat(path)).isFile()) continue;
    const body = await readFile(path);
    const extension = extname(relative);
    const url = `/${relative}`;
    files.set(url, {
      body,
      gzip: COMPRESSIBLE.has(extension) ? gzipSync(body, { level: 9 }) : null,
      type: TYPES[extension] ?? 'application/octet-stream',
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
      cacheControl: url.startsWith('/assets/') ? IMMUTABLE : REVALIDATE,
    });
  }
  const page = files.get('/index.html');
  if (page) files.set('/', page);
  return files;
}

/**
 * Serves the web console at `/` on the API port, as PVE serves its interface on 8006: the page, its
 * icon and its hashed assets, gzipped for clients that accept it. Without a built console, `/`
 * says so (501) instead of a page.
 */
export function registerConsole(fastify: FastifyInstance, files: ReadonlyMap<string, ConsoleFile> | null): void {
  const serve = (request: FastifyRequest, reply: FastifyReply) => {
    if (!files) {
      return reply
        .status(501)
        .type('text/plain; charset=utf-8')
        .send(
          'The web console is not built: run `npm run build` (or `npx nx run console:build`) and restart Corral. The API is at /api2/json.\n',
        );
    }
    const file = files.get(request.url.split('?')[0] ?? '');
    if (!file) return reply.status(404).type('text/plain; charset=utf-8').send('no such file\n');
    reply.headers({
      ...SECURITY_HEADERS,
      'content-type': file.type,
      'cache-control': file.cacheControl,
      etag: file.etag,
      vary: 'accept-encoding',
    });
    if (request.headers['if-none-match'] === file.etag) return reply.status(304).send();
    const gzip = file.gzip !== null && /\bgzip\b/.test(request.headers['accept-encoding'] ?? '');
    if (gzip) reply.header('content-encoding', 'gzip');
    return reply.send(gzip ? file.gzip : file.body);
  };
  for (const url of ['/', '/index.html', '/favicon.svg', '/assets/:file']) fastify.get(url, serve);
}
