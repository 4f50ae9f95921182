import { CommandFailure } from '../../../host/command-failure.js';
import { lastWords, runChecked, runProgram, type ProgramOutput, type RunOptions } from '../../../host/run-program.js';

/** A container's state as `lxc-info -s` and `lxc-ls` name it: STOPPED, STARTING, RUNNING, FROZEN, ... */
export type LxcState = string;

/** One row of `lxc-ls --fancy -F NAME,STATE,PID`. */
export interface LxcEntry {
  readonly name: string;
  readonly state: LxcState;
  /** The container's init, while it runs. */
  readonly pid?: number;
}

/** The lxc-* tools on one lxcpath (`-P`), where each container is the folder `<lxcpath>/<name>`. */
export class LxcTools {
  constructor(readonly lxcpath: string) {}

  /** The argument vector `program -n <vmid> -P <lxcpath> ...args`. */
  argv(program: string, vmid: number, args: readonly string[]): [string, ...string[]] {
    return [program, '-n', String(vmid), '-P', this.lxcpath, ...args];
  }

  /** Runs `program -n <vmid> -P <lxcpath> ...args`, whatever its exit code. */
  run(program: string, vmid: number, args: readonly string[], options: RunOptions): Promise<ProgramOutput> {
    return runProgram(program, this.argv(program, vmid, args).slice(1), options);
  }

  /** As `run`, but a non-zero exit is a failure with the tool's words. */
  check(program: string, vmid: number, args: readonly string[], options: RunOptions): Promise<ProgramOutput> {
    return runChecked(program, this.argv(program, vmid, args).slice(1), options);
  }

  /** The container's state; STOPPED for one the lxcpath does not hold (never created, or destroyed). */
  async state(vmid: number, signal: AbortSignal): Promise<LxcState> {
    const output = await this.run('lxc-info', vmid, ['-s', '-H'], { signal });
    if (output.code === 0) return output.stdout.trim();
    if (output.stderr.includes("doesn't exist")) return 'STOPPED';
    throw new CommandFailure('failed', `lxc-info failed (exit code ${output.code}): ${lastWords(output)}`);
  }

  async list(signal: AbortSignal): Promise<LxcEntry[]> {
    return parseLxcLs(
      (await runChecked('lxc-ls', ['-P', this.lxcpath, '--fancy', '-F', 'NAME,STATE,PID'], { signal, timeoutMs: 30_000 })).stdout,
    );
  }
}

/** The rows of `lxc-ls --fancy -F NAME,STATE,PID` (a header line, then columns; `-` for no pid). */
export function parseLxcLs(text: string): LxcEntry[] {
  return text
    .split('\n')
    .slice(1)
    .flatMap((line) => {
      const [name, state, pid] = line.trim().split(/\s+/);
      if (name === undefined || name === '' || state === undefined) return [];
      return [{ name, state, ...(pid !== undefined && /^\d+$/.test(pid) ? { pid: Number(pid) } : {}) }];
    });
}

/** An LXC log line: `lxc-start 200 20261121085910.632 ERROR network - ../src/lxc/network.c:fn:711 - What failed`. */
const LOG_ERROR = /^\S+ \S+ \d+\.\d+ ERROR\s+\S+ - \S+ - (.*)$/;

/**
 * Why a start failed, for the task's end text: the first ERROR messages of the start's log (the
 * cause comes first; LXC's later errors only repeat that the start failed), else its last lines.
 */
export function startErrors(log: string, count = 3): string {
  const lines = log.split('\n').filter((line) => line.trim() !== '');
  const errors = lines.flatMap((line) => LOG_ERROR.exec(line)?.slice(1, 2) ?? []);
  return (errors.length > 0 ? errors.slice(0, count) : lines.slice(-count)).join('; ') || 'the log is empty';
}
