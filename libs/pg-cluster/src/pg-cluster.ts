import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chown, mkdir, open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { postgresBinaries } from './postgres-binaries.js';
import { clearStalePostmaster, stopPostmaster } from './postmaster.js';
import { assertReachable, serverUser, type ServerUser } from './run-as.js';

const run = promisify(execFile);

export interface PgClusterOptions {
  /** The cluster's data directory; initialised on first start. */
  readonly dir: string;
  /** Where the server's own log goes. */
  readonly logFile: string;
  /** Progress lines (initialisation, recovery); never the server log. */
  readonly log?: (line: string) => void;
  readonly startTimeoutMs?: number;
}

/** How to reach the cluster: a unix socket in its data dir, no TCP port, the superuser `corral`. */
export interface PgConnection {
  readonly host: string;
  readonly port: number;
  readonly user: string;
}

const SUPERUSER = 'corral';
const PORT = 5432;
// Linux limits a unix socket path to 107 bytes.
const MAX_SOCKET_PATH = 107;

/**
 * A private PostgreSQL server in one directory: initialised on first use, listening only on a
 * unix socket in that directory (mode 0700, so only its owner and root can connect), started and
 * stopped with its owner, and recovered after its owner was killed.
 */
export class PgCluster {
  private constructor(
    readonly connection: PgConnection,
    private readonly server: ChildProcess,
    private readonly exited: Promise<void>,
  ) {}

  static async start(options: PgClusterOptions): Promise<PgCluster> {
    const log = options.log ?? (() => undefined);
    const { dir } = options;
    const socket = join(dir, `.s.PGSQL.${PORT}`);
    if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) {
      throw new Error(`the PostgreSQL data dir path is too long for its socket (${socket}): choose a shorter data dir`);
    }
    const [binaries, user] = await Promise.all([postgresBinaries(), serverUser()]);
    if (user) {
      await assertReachable(binaries.postgres, user);
      await assertReachable(dir, user);
    }
    if (!(await isInitialised(dir))) await initialise(dir, binaries.initdb, user, log);
    await clearStalePostmaster(dir, log);

    const logHandle = await open(options.logFile, 'a', 0o600);
    const server = spawn(
      binaries.postgres,
      [
        '-D',
        dir,
        '-c',
        'listen_addresses=',
        '-c',
        `unix_socket_directories=${dir}`,
        '-c',
        'unix_socket_permissions=0700',
        '-p',
        String(PORT),
      ],
      // Its own process group: a terminal's Ctrl-C reaches the control plane, which stops the server after draining.
      { detached: true, stdio: ['ignore', logHandle.fd, logHandle.fd], ...(user ? { uid: user.uid, gid: user.gid } : {}) },
    );
    await logHandle.close();
    const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
    const connection = { host: dir, port: PORT, user: SUPERUSER };
    try {
      await waitUntilReady(connection, exited, options.startTimeoutMs ?? 60_000, options.logFile);
    } catch (error) {
      // Never leave a half-started server behind.
      if (server.pid !== undefined && server.exitCode === null) await stopPostmaster(server.pid);
      throw error;
    }
    return new PgCluster(connection, server, exited);
  }

  /** Creates the database unless it exists. */
  async ensureDatabase(name: string): Promise<void> {
    await withClient(this.connection, async (client) => {
      const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (found.rowCount === 0) await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    });
  }

  async stop(): Promise<void> {
    if (this.server.pid !== undefined && this.server.exitCode === null) await stopPostmaster(this.server.pid);
    await this.exited;
  }
}

async function isInitialised(dir: string): Promise<boolean> {
  return stat(join(dir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
}

async function initialise(dir: string, initdb: string, user: ServerUser | null, log: (line: string) => void): Promise<void> {
  log(`initialising a PostgreSQL cluster in ${dir}`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (user) await chown(dir, user.uid, user.gid);
  await run(initdb, ['-D', dir, `--username=${SUPERUSER}`, '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-instructions'], {
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
    timeout: 120_000,
  });
}

async function waitUntilReady(connection: PgConnection, exited: Promise<void>, timeoutMs: number, logFile: string): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (gone) throw new Error(`PostgreSQL exited during start: ${await tail(logFile)}`);
    try {
      await withClient(connection, (client) => client.query('SELECT 1'));
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`PostgreSQL did not accept connections within ${timeoutMs} ms: ${String(error)}`);
      await delay(30);
    }
  }
}

async function withClient<T>(connection: PgConnection, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ ...connection, database: 'postgres' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function tail(file: string): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trim().split('\n').slice(-5).join(' | ');
}
