import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearStalePostmaster } from './postmaster.js';

describe('clearStalePostmaster', () => {
  let dir: string;
  const lines: string[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-postmaster-'));
    lines.length = 0;
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('does nothing without a postmaster.pid', async () => {
    await clearStalePostmaster(dir, (line) => lines.push(line));
    expect(lines).toEqual([]);
  });

  it('removes a pid file whose process is gone', async () => {
    const child = spawn('true');
    const pid = child.pid ?? 0;
    await new Promise((done) => child.once('exit', done));
    await writeFile(join(dir, 'postmaster.pid'), `${pid}\n${dir}\n`);
    await clearStalePostmaster(dir, (line) => lines.push(line));
    expect(await readdir(dir)).toEqual([]);
    expect(lines).toEqual([`removed the stale ${join(dir, 'postmaster.pid')} (process ${pid} is gone)`]);
  });

  it('removes a pid file whose pid now belongs to another program, and leaves that program alone', async () => {
    await writeFile(join(dir, 'postmaster.pid'), `${process.pid}\n`);
    await clearStalePostmaster(dir, () => undefined);
    expect(await readdir(dir)).toEqual([]);
  });
});
