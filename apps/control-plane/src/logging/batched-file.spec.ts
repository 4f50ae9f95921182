import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchedFile } from './batched-file.js';

describe('BatchedFile', () => {
  let dir: string;
  let path: string;
  let fd: number;
  const errors: Error[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corral-batched-'));
    path = join(dir, 'lines.log');
    fd = openSync(path, 'a');
    errors.length = 0;
  });
  afterEach(async () => {
    closeSync(fd);
    await rm(dir, { recursive: true, force: true });
  });

  const contents = () => readFileSync(path, 'utf8');

  it('keeps lines in memory until the batch is full, then writes them in order', async () => {
    const file = new BatchedFile(fd, 20, (error) => errors.push(error));
    file.write('one\n');
    file.write('two\n');
    await new Promise((done) => setImmediate(done));
    expect(contents()).toBe('');

    file.write('a longer third line\n');
    file.write('four\n');
    await file.flush();
    expect(contents()).toBe('one\ntwo\na longer third line\nfour\n');
    expect(errors).toEqual([]);
  });

  it('writes what came during a write after it, and a flush waits for both', async () => {
    const file = new BatchedFile(fd, 1, (error) => errors.push(error));
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i} ${'é'.repeat(i)}\n`);
    for (const line of lines) file.write(line);
    await file.flush();
    expect(contents()).toBe(lines.join(''));
  });

  it('reports a failed write and is not stuck on it', async () => {
    const readOnly = openSync(path, 'r');
    const file = new BatchedFile(readOnly, 1024, (error) => errors.push(error));
    file.write('lost\n');
    await file.flush();
    expect(errors.map((error) => (error as NodeJS.ErrnoException).code)).toEqual(['EBADF']);

    file.write('lost too\n');
    await file.flush();
    closeSync(readOnly);
    expect(errors).toHaveLength(2);
    expect(contents()).toBe('');
  });
});
