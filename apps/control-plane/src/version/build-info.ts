import { readFile } from 'node:fs/promises';

/** What the build recorded about itself (tools/build-info.mjs writes it next to main.js). */
export interface BuildInfo {
  readonly version: string;
  /** The git commit it was built from, or `null` outside a git checkout. */
  readonly commit: string | null;
}

export const BUILD_INFO = Symbol('BUILD_INFO');

export async function readBuildInfo(file: string): Promise<BuildInfo> {
  const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<BuildInfo>;
  if (typeof parsed.version !== 'string') throw new Error(`${file} has no version: rebuild with npm run build`);
  return Object.freeze({ version: parsed.version, commit: typeof parsed.commit === 'string' ? parsed.commit : null });
}
