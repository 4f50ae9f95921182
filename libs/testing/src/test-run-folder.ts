import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The environment variable naming the folder of a test run: a tier's global setup makes it, its teardown removes it. */
const TEST_RUN_FOLDER = 'CORRAL_TEST_RUN_FOLDER';

/** Makes the run's folder and names it to the test files' processes (which inherit the environment). */
export async function openTestRun(): Promise<void> {
  process.env[TEST_RUN_FOLDER] = await readableFolder(tmpdir(), 'corral-test-run-');
}

/** Removes the run's folder with whatever a test left in it. */
export async function closeTestRun(): Promise<void> {
  const folder = process.env[TEST_RUN_FOLDER];
  if (folder) await rm(folder, { recursive: true, force: true });
}

/**
 * A new folder for a test's files, in the run's folder where there is one (so that a test that
 * fails before it cleans up leaves nothing once the run ends), else in the system's temporary folder.
 */
export function testFolder(prefix: string): Promise<string> {
  return readableFolder(process.env[TEST_RUN_FOLDER] ?? tmpdir(), prefix);
}

/** mkdtemp makes a folder 0700: the embedded PostgreSQL's own user must be able to traverse it. */
async function readableFolder(parent: string, prefix: string): Promise<string> {
  const folder = await mkdtemp(join(parent, prefix));
  await chmod(folder, 0o755);
  return folder;
}
