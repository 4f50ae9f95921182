import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable } from 'node:stream';
import { CommandFailure } from './command-failure.js';
import { programMissing } from './find-program.js';

/*
 * The one place the agent starts host programs: an argument vector,
 * never a shell, always bounded in time and in output.
 */

export interface RunOptions {
  /** The request's signal: aborting it kills the program. */
  readonly signal: AbortSignal;
  /** Written to the program's standard input, which is closed after it (absent: no input at all). */
  readonly input?: string;
  /** Added to the agent's environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Each complete line of stdout and stderr as it arrives, for a command's log lines. */
  readonly onLine?: (line: string) => void;
  /** Killed after this long even when the signal never fires (default 5 minutes). */
  readonly timeoutMs?: number;
  /** Killed, and failed, when a stream exceeds this many characters (default 32 Mi). */
  readonly maxOutput?: number;
}

export interface ProgramOutput {
  /** The exit code; 128 + the signal number when a signal it was not sent by us ended it. */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const DEFAULT_MAX_OUTPUT = 32 * 1024 * 1024;
/** Time between SIGTERM and SIGKILL: apt and dpkg clean up their locks on SIGTERM. */
const KILL_GRACE_MS = 5000;
/** A daemon the program left behind may keep its pipes open; its output is not the program's. */
const DRAIN_AFTER_EXIT_MS = 2000;

/**
 * Runs `file` with `args` and resolves with its exit code and output whatever the code is; the
 * caller decides what a code means (`diff` exits 1 for "different"). Rejects with a
 * `CommandFailure`: `unavailable` when the program is not installed, `timeout` when it was killed
 * for time or by the signal, `failed` when it wrote more than `maxOutput`.
 */
export function runProgram(file: string, args: readonly string[], options: RunOptions): Promise<ProgramOutput> {
  const { signal, input, onLine } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxOutput = options.maxOutput ?? DEFAULT_MAX_OUTPUT;
  if (signal.aborted) return Promise.reject(stoppedFailure(file, signal));

  return new Promise((resolve, reject) => {
    // Its own process group, so that a kill reaches what the program started (apt's methods, dpkg).
    const child = spawn(file, args, {
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      env: { ...process.env, LC_ALL: 'C.UTF-8', ...options.env },
      detached: true,
    });
    let stopped: CommandFailure | undefined;
    let killTimer: NodeJS.Timeout | undefined;

    const stop = (failure: CommandFailure) => {
      if (stopped !== undefined) return;
      stopped = failure;
      killGroup('SIGTERM');
      killTimer = setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
    };
    const killGroup = (name: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, name);
      } catch {
        // the group is gone already
      }
    };

    const stdout = collect(pipe(child.stdout), maxOutput, onLine, () =>
      stop(new CommandFailure('failed', `${file} wrote more than ${maxOutput} characters`)),
    );
    const stderr = collect(pipe(child.stderr), maxOutput, onLine, () =>
      stop(new CommandFailure('failed', `${file} wrote more than ${maxOutput} characters of errors`)),
    );
    const timer = setTimeout(
      () => stop(new CommandFailure('timeout', `${file} did not finish within ${timeoutMs / 1000} s and was killed`)),
      timeoutMs,
    );
    const onAbort = () => stop(stoppedFailure(file, signal));
    signal.addEventListener('abort', onAbort, { once: true });

    if (child.stdin !== null) {
      child.stdin.on('error', () => undefined); // a program that exits without reading its input is not an error of ours
      child.stdin.end(input);
    }
    child.once('exit', () => {
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, DRAIN_AFTER_EXIT_MS).unref();
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      finish();
      reject(
        error.code === 'ENOENT' ? programMissing(file) : new CommandFailure('failed', `${file} could not be started: ${error.message}`),
      );
    });
    child.once('close', (code, signalName) => {
      finish();
      stdout.flush();
      stderr.flush();
      if (stopped !== undefined) {
        killGroup('SIGKILL'); // what the program started and left behind when it went
        return reject(stopped);
      }
      resolve({
        code: code ?? 128 + (signalName === null ? 0 : constants.signals[signalName]),
        stdout: stdout.text(),
        stderr: stderr.text(),
      });
    });

    function finish() {
      clearTimeout(timer);
      clearTimeout(killTimer);
      signal.removeEventListener('abort', onAbort);
    }
  });
}

/** Like `runProgram`, but a non-zero exit is a `failed` CommandFailure with the program's own words. */
export async function runChecked(file: string, args: readonly string[], options: RunOptions): Promise<ProgramOutput> {
  const output = await runProgram(file, args, options);
  if (output.code !== 0) throw new CommandFailure('failed', `${file} failed (exit code ${output.code}): ${lastWords(output)}`);
  return output;
}

/** The end of what a failed program said, stderr first: enough for a task's end text, not a whole log. */
export function lastWords(output: ProgramOutput, lines = 5): string {
  const said = (output.stderr.trim() || output.stdout.trim()).split('\n').slice(-lines);
  return said.join('; ') || 'no output';
}

function stoppedFailure(file: string, signal: AbortSignal): CommandFailure {
  if (signal.reason instanceof CommandFailure) return signal.reason;
  const why = signal.reason instanceof Error ? signal.reason.message : 'the request was cancelled';
  return new CommandFailure('timeout', `${file} was killed: ${why}`);
}

function pipe(stream: Readable | null): Readable {
  if (stream === null) throw new Error('a program started without its output pipes');
  return stream;
}

interface Collected {
  text(): string;
  /** Hands a last line without a newline to onLine. */
  flush(): void;
}

function collect(stream: Readable, max: number, onLine: ((line: string) => void) | undefined, onOverflow: () => void): Collected {
  const chunks: string[] = [];
  let size = 0;
  let partial = '';
  // A lone carriage return redraws a progress line: each drawing is a line of its own (log lines hold no \r).
  const emit = (line: string) =>
    line
      .replace(/\r$/, '')
      .split('\r')
      .forEach((part) => onLine?.(part));
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    if (size > max) return;
    size += chunk.length;
    if (size > max) return onOverflow();
    chunks.push(chunk);
    if (onLine === undefined) return;
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    lines.forEach(emit);
  });
  return {
    text: () => chunks.join(''),
    flush() {
      if (partial !== '') emit(partial);
      partial = '';
    },
  };
}
