import { readFileSync } from 'node:fs';
import { CommandFailure } from './command-failure.js';
import { runChecked, runProgram } from './run-program.js';

const signal = new AbortController().signal;

/** Alive and not a zombie: where PID 1 is no init, a killed orphan is never reaped. */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('runProgram', () => {
  it('passes each argument literally, spaces, quotes and shell syntax included', async () => {
    const args = ['a b', "'single'", '"double"', '$HOME', '; echo injected', '`id`', '*'];
    const output = await runProgram('printf', ['%s\\n', ...args], { signal });
    expect(output).toEqual({ code: 0, stdout: args.map((arg) => `${arg}\n`).join(''), stderr: '' });
  });

  it('answers unavailable, naming the program, when it is not installed', async () => {
    const run = runProgram('corral-no-such-program', [], { signal });
    await expect(run).rejects.toBeInstanceOf(CommandFailure);
    await expect(run).rejects.toMatchObject({ code: 'unavailable', message: 'corral-no-such-program is not installed on this host' });
  });

  it('resolves with a non-zero exit code, and runChecked fails with what the program said', async () => {
    const script = 'echo partial; echo "it broke" >&2; exit 3';
    await expect(runProgram('sh', ['-c', script], { signal })).resolves.toEqual({ code: 3, stdout: 'partial\n', stderr: 'it broke\n' });
    await expect(runChecked('sh', ['-c', script], { signal })).rejects.toMatchObject({
      code: 'failed',
      message: 'sh failed (exit code 3): it broke',
    });
  });

  it('feeds the input to stdin and sets the environment on top of the agent one', async () => {
    const output = await runProgram('sh', ['-c', 'cat; printf "%s|%s" "$CORRAL_TEST" "$LC_ALL"'], {
      signal,
      input: 'from stdin\n',
      env: { CORRAL_TEST: 'set' },
    });
    expect(output.stdout).toBe('from stdin\nset|C.UTF-8');
  });

  it('hands every line of both streams to onLine, empty lines, a last line without newline and progress redraws included', async () => {
    const lines: string[] = [];
    await runProgram('sh', ['-c', 'echo one; echo; echo two >&2; printf "10%%\\r50%%\\r\\n"; printf three'], {
      signal,
      onLine: (line) => lines.push(line),
    });
    expect([...lines].sort()).toEqual(['', '10%', '50%', 'one', 'three', 'two']);
    expect(lines.indexOf('10%')).toBeLessThan(lines.indexOf('50%'));
  });

  it('kills the program and what it started when the time runs out, even when it ignores SIGTERM', async () => {
    const pids: number[] = [];
    const run = runProgram('sh', ['-c', 'trap "" TERM; sleep 300 & echo $!; wait'], {
      signal,
      timeoutMs: 300,
      onLine: (line) => pids.push(Number(line)),
    });
    await expect(run).rejects.toMatchObject({ code: 'timeout', message: 'sh did not finish within 0.3 s and was killed' });
    const [sleeper] = pids;
    expect(sleeper).toBeGreaterThan(1);
    await waitFor(() => !isRunning(sleeper as number), 'the grandchild sleep to be killed');
  }, 60_000);

  it('kills what a stopped program left behind, when the program itself went on SIGTERM', async () => {
    const pids: number[] = [];
    const run = runProgram('sh', ['-c', '(trap "" TERM; exec sleep 300) & echo $!; sleep 300'], {
      signal,
      timeoutMs: 300,
      onLine: (line) => pids.push(Number(line)),
    });
    await expect(run).rejects.toMatchObject({ code: 'timeout' });
    const [leftover] = pids;
    expect(leftover).toBeGreaterThan(1);
    await waitFor(() => !isRunning(leftover as number), 'the leftover sleep to be killed');
  }, 60_000);

  it('kills the program when the signal aborts, with the reason in the failure', async () => {
    const controller = new AbortController();
    const run = runProgram('sleep', ['300'], { signal: controller.signal, onLine: () => undefined });
    controller.abort(new Error('the request timed out after 2 s'));
    await expect(run).rejects.toMatchObject({ code: 'timeout', message: 'sleep was killed: the request timed out after 2 s' });
    await expect(runProgram('true', [], { signal: controller.signal })).rejects.toMatchObject({ code: 'timeout' });
  });

  it('fails and kills a program that writes more than maxOutput', async () => {
    await expect(runProgram('yes', [], { signal, maxOutput: 100_000 })).rejects.toMatchObject({
      code: 'failed',
      message: 'yes wrote more than 100000 characters',
    });
  });
});
