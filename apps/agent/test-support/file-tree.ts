import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runChecked } from '../src/host/run-program.js';

/** A tree as `find` lists it (path, type, mode, owner, group, link target), each file with the SHA-256 of its content: what a copy must keep. */
export async function fileTree(root: string, signal: AbortSignal): Promise<string[]> {
  const listing = await runChecked('find', [root, '-printf', '%P\t%y\t%m\t%U\t%G\t%l\n'], { signal });
  const rows = listing.stdout.trim().split('\n').sort();
  return Promise.all(
    rows.map(async (row) =>
      row.split('\t')[1] === 'f'
        ? `${row}\t${createHash('sha256')
            .update(await readFile(join(root, row.split('\t')[0] ?? '')))
            .digest('hex')}`
        : row,
    ),
  );
}
