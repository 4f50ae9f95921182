import type { Host } from '../../host/host.js';
import type { AreaHandlers } from '../area-handlers.js';
import type { StreamOpener } from '../guests/vnc-stream.js';
import { listContent } from './storage-content.js';
import { activate, status } from './storage-folders.js';
import { urlMetadata } from './url-metadata.js';
import { deleteVolume } from './volume-delete.js';
import { download } from './volume-download.js';
import { upload } from './volume-upload.js';
import type { WatchedStorages } from './watched-storages.js';

/**
 * Directory storages (docs/storage.md): their folders and space (asked, or reported with the
 * inventory for the `watched` ones), their volumes, uploads into them through a byte stream that
 * `openStream` opens, and downloads into them.
 */
export function dirStorageCommands(
  host: Host,
  openStream: StreamOpener,
  watched: WatchedStorages,
): AreaHandlers<
  | 'storage.activate'
  | 'storage.status'
  | 'storage.watch'
  | 'storage.content'
  | 'storage.volume.delete'
  | 'storage.upload'
  | 'storage.download'
  | 'node.url.metadata'
> {
  return {
    'storage.activate': (params) => activate(host, params),
    'storage.status': (params) => status(host, params),
    'storage.watch': async ({ storages }) => {
      watched.watch(storages);
      return null;
    },
    'storage.content': (params) => listContent(host, params),
    'storage.volume.delete': (params) => deleteVolume(host, params),
    'storage.upload': (params, context) => upload(host, openStream, params, context),
    'storage.download': (params, context) => download(host, params, context),
    'node.url.metadata': (params, context) => urlMetadata(params, context),
  };
}
