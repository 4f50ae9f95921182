import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { LocalFailure } from '../command-line/local-failure.js';

/**
 * A file written whole or not at all: a temporary file beside it, created with the final mode (so a
 * secret is never readable by others, not even for a moment), then renamed over it. Created first
 * and committed later, so a directory that cannot be written is found before anything is spent.
 */
export class AtomicFile {
  private constructor(
    readonly path: string,
    private readonly temporary: string,
    private readonly handle: FileHandle,
  ) {}

  /** Creates the directory (with `directoryMode`) if it is missing, and the temporary file. */
  static async create(path: string, mode: number, directoryMode?: number): Promise<AtomicFile> {
    const directory = dirname(path);
    const temporary = join(directory, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await mkdir(directory, { recursive: true, ...(directoryMode === undefined ? {} : { mode: directoryMode }) });
      return new AtomicFile(path, temporary, await open(temporary, 'wx', mode));
    } catch (error) {
      throw new LocalFailure(`cannot write ${path}: ${(error as Error).message}`);
    }
  }

  async commit(content: string): Promise<void> {
    try {
      await this.handle.writeFile(content);
      await this.handle.sync();
      await this.handle.close();
      await rename(this.temporary, this.path);
    } catch (error) {
      await this.discard();
      throw new LocalFailure(`cannot write ${this.path}: ${(error as Error).message}`);
    }
  }

  async discard(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await rm(this.temporary, { force: true });
  }
}
