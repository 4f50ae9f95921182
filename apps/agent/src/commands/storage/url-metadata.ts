import type { ParamsOf, ResultOf } from '@corral/protocol';
import type { CommandContext } from '../../drivers/command-context.js';
import { openUrl } from './url-request.js';

/**
 * `node.url.metadata`, PVE's `query-url-metadata`: a HEAD request, and what its answer says of the
 * file: the name from Content-Disposition, else the URL's last path segment; the MIME type without
 * its parameters; the size from Content-Length.
 */
export async function urlMetadata(params: ParamsOf<'node.url.metadata'>, context: CommandContext): Promise<ResultOf<'node.url.metadata'>> {
  const response = await openUrl(params, 'HEAD', context.signal, context.log);
  response.resume();
  if (response.statusCode !== 200)
    throw new Error(`invalid server response: '${response.statusCode ?? 0} ${response.statusMessage ?? ''}'`);
  const disposition = response.headers['content-disposition'];
  const filename =
    (disposition && (/filename="([^"]*)"/.exec(disposition)?.[1] ?? /filename=([^;]*)/.exec(disposition)?.[1])) ||
    /^[^?]+\/([^?/]*)(?:\?.*)?$/.exec(params.url)?.[1];
  const mimetype = response.headers['content-type']?.split(';')[0]?.trim();
  const size = Number(response.headers['content-length']);
  return {
    ...(filename ? { filename } : {}),
    ...(mimetype ? { mimetype } : {}),
    ...(Number.isSafeInteger(size) && size > 0 ? { size } : {}),
  };
}
