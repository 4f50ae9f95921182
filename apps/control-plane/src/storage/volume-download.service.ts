import { Inject, Injectable } from '@nestjs/common';
import { downloadRefusal, literalHost } from '@corral/outbound-address';
import type { ResultOf as CommandResult } from '@corral/protocol';
import type { Principal } from '../http/principal.js';
import { AgentHub } from '../agents/agent-hub.js';
import { CONFIG, type Config } from '../config/config.js';
import { badParam } from '../errors/resource-errors.js';
import type { ParamsOf } from '../http/endpoint.js';
import { commandParams, sameName } from '../agents/command-params.js';
import { NodesService } from '../nodes/nodes.service.js';
import { TaskRunner } from '../tasks/task-runner.js';
import { MAX_DOWNLOAD_BYTES, type DOWNLOAD_ENDPOINTS } from './downloads.endpoints.js';
import { StoragesService } from './storages.service.js';
import { contentFile, requestedChecksum, requireContent, safeName, type Checksum, type FileContent } from './template-files.js';

type Endpoints = typeof DOWNLOAD_ENDPOINTS;

/** How long a download may take on the agent: the size limit at about 1 MB/s. */
const DOWNLOAD_MS = 24 * 60 * 60_000;
/** How long the node may take to answer a HEAD request, redirects included. */
const METADATA_MS = 30_000;
/** PVE's compressions of `download-url`; Corral's agent unpacks only gzip so far. */
const KNOWN_COMPRESSIONS = ['gz', 'lzo', 'zst', 'bz2'];

/** A download to start: into `name` of the storage's folder for `content`. */
export interface DownloadRequest {
  readonly node: string;
  readonly storage: string;
  readonly content: FileContent;
  readonly name: string;
  readonly url: string;
  readonly verifyCertificates: boolean;
  readonly checksum?: Checksum;
  readonly decompress?: 'gz';
}

/**
 * PVE's downloads from a URL into a node's storage (`download` tasks) and its `query-url-metadata`:
 * checked here, before anything reaches the node (400 naming the parameter), done by the node's
 * agent, which resolves the URL and applies the address rules itself.
 */
@Injectable()
export class VolumeDownloadService {
  constructor(
    private readonly storages: StoragesService,
    private readonly nodes: NodesService,
    private readonly hub: AgentHub,
    private readonly runner: TaskRunner,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async downloadUrl(params: ParamsOf<Endpoints['downloadUrl']>, caller: Principal): Promise<string> {
    const { node, storage, content, filename, url, compression } = params;
    if (/[/\\]/.test(filename) || filename.includes('..'))
      throw badParam('filename', `'${filename}' must be a file name, without '/' or '..'`);
    return this.start(
      {
        node,
        storage,
        content,
        name: safeName(filename),
        url: this.checkedUrl(url),
        verifyCertificates: params['verify-certificates'] ?? true,
        checksum: requestedChecksum(params.checksum, params['checksum-algorithm']),
        decompress: decompression(compression, content),
      },
      caller,
    );
  }

  /** Starts a `download` task on the node's agent, named after the file as PVE names it. */
  async start(request: DownloadRequest, caller: Principal): Promise<string> {
    const { node, content, name, url, verifyCertificates, checksum, decompress } = request;
    const storage = this.storages.usable(this.storages.onNode(await this.storages.existing(request.storage), node));
    requireContent(storage, content);
    const params = commandParams(
      'storage.download',
      {
        path: storage.path,
        mountpoint: storage.isMountpoint,
        file: contentFile(content, name),
        url,
        verifyCertificates,
        allowNetworks: this.config.downloadAllowNetworks,
        checksum,
        decompress,
        maxBytes: MAX_DOWNLOAD_BYTES,
      },
      sameName({ file: 'filename', verifyCertificates: 'verify-certificates', decompress: 'compression' }),
    );
    return this.runner.onAgent({ node, type: 'download', id: name, caller }, 'storage.download', params, DOWNLOAD_MS);
  }

  async metadata({
    node,
    url,
    'verify-certificates': verify,
  }: ParamsOf<Endpoints['queryUrlMetadata']>): Promise<CommandResult<'node.url.metadata'>> {
    this.nodes.existing(node);
    const params = commandParams(
      'node.url.metadata',
      { url: this.checkedUrl(url), verifyCertificates: verify ?? true, allowNetworks: this.config.downloadAllowNetworks },
      sameName({ verifyCertificates: 'verify-certificates' }),
    );
    return this.hub.request(node, 'node.url.metadata', params, { timeoutMs: METADATA_MS });
  }

  /** The URL, refused at once (400) when its host is an address literal the node would refuse; names are resolved and checked on the node. */
  private checkedUrl(url: string): string {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw badParam('url', `'${url}' is not a URL`);
    }
    const host = literalHost(parsed);
    const reason = host === null ? null : downloadRefusal(this.config.downloadAllowNetworks)(host);
    if (host !== null && reason !== null) throw badParam('url', `${host} is ${reason}`);
    return url;
  }
}

/** PVE's `compression`: only for ISO images; Corral unpacks `gz`. */
function decompression(compression: string | undefined, content: FileContent): 'gz' | undefined {
  if (compression === undefined) return undefined;
  if (!KNOWN_COMPRESSIONS.includes(compression))
    throw badParam('compression', `unknown compression '${compression}': PVE's are ${KNOWN_COMPRESSIONS.join(', ')}`);
  if (content !== 'iso') throw badParam('compression', `decompression not supported for ${content}`);
  if (compression !== 'gz') throw badParam('compression', `compression '${compression}' is not supported by Corral yet: only 'gz'`);
  return compression;
}
