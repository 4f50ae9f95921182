import { Injectable } from '@nestjs/common';
import { UploadStreamReady, type LogLine, type ParamsOf, type UploadStreamEnd } from '@corral/protocol';
import { randomUUID } from 'node:crypto';
import { finished } from 'node:stream/promises';
import type { RawData, WebSocket } from 'ws';
import type { Principal } from '../http/principal.js';
import { AgentHub } from '../agents/agent-hub.js';
import type { ParamsOf as EndpointParams } from '../http/endpoint.js';
import { tooLarge, type UploadedFile } from '../http/multipart-upload.js';
import { commandParams, sameName } from '../agents/command-params.js';
import { TaskRunner } from '../tasks/task-runner.js';
import { MAX_UPLOAD_BYTES, type NODE_STORAGE_ENDPOINTS } from './node-storage.endpoints.js';
import { StoragesService } from './storages.service.js';
import { contentFile, requestedChecksum, requireContent, safeName } from './template-files.js';

type UploadParams = EndpointParams<typeof NODE_STORAGE_ENDPOINTS.upload>;

/** How long the node's agent may take to open the upload's stream. */
const OPEN_MS = 30_000;
/** How long a whole upload may take on the agent: the size limit at about 1 MB/s. */
const UPLOAD_MS = 5 * 60 * 60_000;
/** More than this queued for the agent and the client's body is not read until half of it went. */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;

/** The node closed the stream before the upload was through: its own answer says why. */
class StreamClosed extends Error {}

/**
 * PVE's upload of an ISO image or container template (`imgcopy`), streamed: the form's file goes,
 * as it arrives, through a byte stream that the node's agent opens to this replica
 * (`storage.upload`), and is stored by the agent only once complete and verified. The UPID is
 * answered once the whole body is received, as PVE does.
 */
@Injectable()
export class VolumeUploadService {
  constructor(
    private readonly storages: StoragesService,
    private readonly hub: AgentHub,
    private readonly runner: TaskRunner,
  ) {}

  async upload(
    { node, storage: id, content, filename, checksum, 'checksum-algorithm': algorithm }: UploadParams,
    file: UploadedFile,
    caller: Principal,
  ): Promise<string> {
    const storage = this.storages.usable(this.storages.onNode(await this.storages.existing(id), node));
    requireContent(storage, content);
    // PVE keeps the last path segment of an uploaded file's name.
    const target = contentFile(content, safeName(filename.split(/[/\\]/).pop() ?? ''));
    const digest = requestedChecksum(checksum, algorithm);
    const params = commandParams(
      'storage.upload',
      {
        stream: randomUUID(),
        path: storage.path,
        mountpoint: storage.isMountpoint,
        file: target,
        checksum: digest,
      },
      sameName({ file: 'filename' }),
    );
    this.hub.reachable(node);
    const upid = await this.runner.start({ node, type: 'imgcopy', id: '', caller }, (upid, log, signal) =>
      this.transfer(node, params, file, { upid, log, signal }),
    );
    // The body is read to its end either way (an upload that failed early is drained): the answer comes after it, as PVE's.
    await finished(file.stream).catch(() => undefined);
    return upid;
  }

  private async transfer(
    node: string,
    params: ParamsOf<'storage.upload'>,
    file: UploadedFile,
    task: { upid: string; log: (lines: readonly LogLine[]) => void; signal: AbortSignal },
  ): Promise<void> {
    let stopWaiting: () => void = () => undefined;
    const opened = new Promise<WebSocket>((resolve) => (stopWaiting = this.hub.expectStream(node, params.stream, resolve)));
    const answer = this.hub.request(node, 'storage.upload', params, {
      timeoutMs: UPLOAD_MS,
      upid: task.upid,
      onLog: task.log,
      signal: task.signal,
    });
    // Its failure is awaited below, or superseded by the failure that caused it.
    answer.catch(() => undefined);
    let socket: WebSocket | undefined;
    try {
      socket = await Promise.race([
        opened,
        answer.then(() => Promise.reject(new Error('the agent answered without opening the upload stream'))),
        timeout(OPEN_MS, `node '${node}' did not open the upload stream within ${OPEN_MS / 1000} s`),
      ]);
      await send(file, socket);
      await answer;
    } catch (error) {
      file.stream.resume();
      socket?.close(1011, 'the upload failed');
      // The agent closed the stream: its answer says why.
      if (error instanceof StreamClosed) await answer;
      throw error;
    } finally {
      stopWaiting();
    }
  }
}

/**
 * Once the agent says it listens, the file's bytes as binary messages, then `UploadStreamEnd`; the
 * client's body is read no faster than the agent takes it. Rejects with StreamClosed when the
 * agent closes the stream first, with a 413 when the file is larger than the limit.
 */
function send(file: UploadedFile, socket: WebSocket): Promise<void> {
  const { stream } = file;
  let sent = 0;
  return new Promise((resolve, reject) => {
    const closed = () => reject(new StreamClosed('the node closed the upload stream'));
    const data = (chunk: Buffer) => {
      sent += chunk.length;
      socket.send(chunk, { binary: true }, () => {
        if (stream.isPaused() && socket.bufferedAmount <= HIGH_WATER_BYTES / 2) stream.resume();
      });
      if (socket.bufferedAmount > HIGH_WATER_BYTES) stream.pause();
    };
    const end = () => {
      socket.off('close', closed);
      if (file.truncated()) return reject(tooLarge(MAX_UPLOAD_BYTES));
      const last: UploadStreamEnd = { size: sent };
      socket.send(JSON.stringify(last), (error) => (error ? reject(error) : resolve()));
    };
    socket.once('close', closed);
    socket.once('message', (message: RawData, isBinary: boolean) => {
      if (isBinary || !UploadStreamReady.safeParse(parseJson(message.toString())).success)
        return reject(new Error('the agent did not start the upload stream as the protocol says'));
      stream.on('data', data);
      // Also for a body that ended or broke off before the agent was ready.
      finished(stream).then(end, (error: Error) => {
        stream.off('data', data);
        reject(new Error(`the upload was cut short: ${error.message}`));
      });
    });
  });
}

function timeout(ms: number, message: string): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(message)), ms).unref());
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
