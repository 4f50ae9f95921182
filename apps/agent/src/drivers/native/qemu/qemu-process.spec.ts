import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { waitFor } from '@corral/testing';
import { exiting, isQemuOf } from './qemu-process.js';

describe('isQemuOf', () => {
  it('takes no program but a qemu-system started with the pid file for its QEMU', async () => {
    expect(await isQemuOf(process.pid, '/run/corral/qemu/100.pid')).toBe(false);
    expect(await isQemuOf(2 ** 22 + 1, '/run/corral/qemu/100.pid')).toBe(false);
  });
});

describe('exiting', () => {
  it('is neither a running process, nor a zombie, nor no process', async () => {
    expect(await exiting(process.pid)).toBe(false);
    expect(await exiting(2 ** 22 + 1)).toBe(false);
    // A child of a program that never reaps it stays a zombie.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const [line] = (await once(parent.stdout, 'data')) as [Buffer];
      const zombie = Number(line.toString().trim());
      const state = async () => (await readFile(`/proc/${zombie}/stat`, 'utf8')).replace(/^.*\) /s, '')[0];
      await waitFor(async () => (await state()) === 'Z', { timeoutMs: 10_000, what: 'the zombie' });
      expect(await exiting(zombie)).toBe(false);
    } finally {
      parent.kill('SIGKILL');
    }
  }, 20_000);
});
