import type { ParamsOf } from '@corral/protocol';
import { badParam } from '../errors/resource-errors.js';
import type { StorageRow } from '../inventory/storage/storage.entity.js';

/*
 * Files that uploads and downloads put into a directory storage, named as PVE names them: ISO
 * images in `template/iso/`, container templates in `template/cache/`, disk images and appliances
 * to import in `import/`, each with the extensions PVE accepts for its kind.
 */

export type FileContent = 'iso' | 'vztmpl' | 'import';

export const FILE_FOLDERS: Readonly<Record<FileContent, string>> = { iso: 'template/iso', vztmpl: 'template/cache', import: 'import' };

const EXTENSIONS: Readonly<Record<FileContent, RegExp>> = {
  iso: /\.(?:iso|img)$/i,
  vztmpl: /\.(?:tar(?:\.(?:gz|xz|zst|bz2))?|tgz)$/,
  import: /\.(?:ova|qcow2|raw|vmdk)$/,
};

/** PVE's normalisation of a file name: characters other than letters, digits, `_ . -` become `_`, and so does a leading dot. */
export function safeName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^\./, '_');
  if (safe === '' || safe === '_') throw badParam('filename', 'the file has no name');
  return safe;
}

/** The file's path below the storage's path; a 400 naming `filename` when its extension is not one of its kind's (PVE's words). */
export function contentFile(content: FileContent, name: string): string {
  if (!EXTENSIONS[content].test(name))
    throw badParam(
      'filename',
      content === 'import'
        ? `'${name}': invalid filename or wrong extension`
        : `'${name}' has the wrong file extension for content '${content}'`,
    );
  return `${FILE_FOLDERS[content]}/${name}`;
}

/** A digest a stored file must have, as the agent's commands take it. */
export type Checksum = NonNullable<ParamsOf<'storage.download'>['checksum']>;

/** PVE's `checksum` with its `checksum-algorithm` (each needs the other), as the agent takes it: the digest in lower case. */
export function requestedChecksum(checksum: string | undefined, algorithm: Checksum['algorithm'] | undefined): Checksum | undefined {
  if ((checksum === undefined) !== (algorithm === undefined))
    throw badParam(checksum === undefined ? 'checksum' : 'checksum-algorithm', 'checksum and checksum-algorithm go together');
  return checksum !== undefined && algorithm !== undefined ? { algorithm, digest: checksum.toLowerCase() } : undefined;
}

/** A storage that holds `content`, else a 400 naming `content`. */
export function requireContent(storage: StorageRow, content: FileContent): void {
  if (!storage.content.includes(content)) throw badParam('content', `storage '${storage.storage}' does not hold content '${content}'`);
}
