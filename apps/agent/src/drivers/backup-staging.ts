import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { makeBackupStaging, type BackupFile } from './backup-archive.js';

/**
 * Runs `work` with a staging folder (backup-archive.ts) holding `files` (member name → text: the
 * config an archive carries, which is nowhere on disk under its member name), removed afterwards
 * whatever the outcome.
 */
export async function withStagedFiles<T>(
  storagePath: string,
  file: BackupFile,
  files: Readonly<Record<string, string>>,
  work: (folder: string) => Promise<T>,
): Promise<T> {
  const folder = await makeBackupStaging(storagePath, file);
  try {
    for (const [name, text] of Object.entries(files)) {
      const path = join(folder, name);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text);
    }
    return await work(folder);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
