// The events bench's observer (docs/benchmarks.md), on a worker thread of its own so that the
// producer on the main thread never delays an arrival: a webhook receiver on 127.0.0.1 that checks
// each request's signature, and two stream clients of GET /cluster/events, a websocket and
// server-sent events. Each notes when every event arrived (Date.now(), the clock the event's
// `timestamp` was read from: the same machine). The main thread asks by messages:
// { type: 'answer', status } sets the receiver's answer (503: down), { type: 'count', after }
// counts what arrived after a seq, { type: 'arrivals' } hands over every note, { type: 'replay' }
// opens two more streams that resume from a seq (replay()), { type: 'close' }.
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import https from 'node:https';
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';

const { secret } = workerData;
/** Events the receiver answered 2xx to, in arrival order; attempts it refused; what went wrong. */
const webhook = [];
const refused = [];
const websocket = [];
const sse = [];
const problems = [];
let status = 200;
let streams = [];

const receiver = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const arrived = Date.now();
    const body = Buffer.concat(chunks).toString('utf8');
    const signature = `sha256=${createHmac('sha256', secret).update(`${request.headers['x-corral-timestamp']}.${body}`).digest('hex')}`;
    if (request.headers['x-corral-signature'] !== signature) problems.push(`webhook: a request with a wrong signature: ${body}`);
    const note = {
      ...JSON.parse(body),
      seq: Number(request.headers['x-corral-event-seq']),
      id: request.headers['x-corral-event-id'],
      arrived,
    };
    (status < 300 ? webhook : refused).push(note);
    response.writeHead(status).end();
  });
});
receiver.listen(0, '127.0.0.1', () => parentPort.postMessage({ type: 'listening', port: receiver.address().port }));

parentPort.on('message', async (message) => {
  switch (message.type) {
    case 'follow':
      streams = await Promise.all([
        followWebsocket(message.url, message.authorization, websocket),
        followServerSentEvents(message.url, message.authorization, sse),
      ]);
      return parentPort.postMessage({ type: 'following' });
    case 'replay':
      return parentPort.postMessage({ type: 'replayed', ...(await replay(message)) });
    case 'answer':
      status = message.status;
      return parentPort.postMessage({ type: 'answering' });
    case 'count': {
      // Distinct events: at least once allows a webhook request to come twice.
      const after = (notes) => new Set(notes.filter((note) => note.seq > message.after).map((note) => note.id)).size;
      return parentPort.postMessage({
        type: 'count',
        webhook: after(webhook),
        websocket: after(websocket),
        sse: after(sse),
        refused: after(refused),
      });
    }
    case 'arrivals':
      return parentPort.postMessage({ type: 'arrivals', webhook, refused, websocket, sse, problems });
    case 'close':
      for (const stop of streams) stop();
      receiver.closeAllConnections();
      receiver.close(() => parentPort.postMessage({ type: 'closed' }));
  }
});

/**
 * Two more streams, a websocket and server-sent events, that resume after `since`: the notes of
 * the first `count` events each gets, and when they were opened.
 */
async function replay({ url, authorization, since, count }) {
  const notes = { websocket: [], sse: [] };
  const opened = Date.now();
  const stops = await Promise.all([
    followWebsocket(`${url}?since=${since}`, authorization, notes.websocket),
    followServerSentEvents(`${url}?since=${since}`, authorization, notes.sse),
  ]);
  const deadline = Date.now() + 60_000;
  while ((notes.websocket.length < count || notes.sse.length < count) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 10));
  for (const stop of stops) stop();
  return { opened, websocket: notes.websocket.slice(0, count), sse: notes.sse.slice(0, count) };
}

/** A websocket on the stream: one event a text message, noted in `notes`. Resolves once it is open, with a function that closes it. */
function followWebsocket(url, authorization, notes) {
  const socket = new WebSocket(url.replace(/^https:/, 'wss:'), { headers: { authorization }, rejectUnauthorized: false });
  let closing = false;
  socket.on('message', (data) => notes.push({ ...JSON.parse(data.toString('utf8')), arrived: Date.now() }));
  socket.on('close', (code, reason) => closing || problems.push(`websocket: closed by the control plane (${code} ${reason})`));
  socket.on('error', (error) => problems.push(`websocket: ${error.message}`));
  return new Promise((resolve, reject) => {
    socket.once('open', () =>
      resolve(() => {
        closing = true;
        socket.close();
      }),
    );
    socket.once('unexpected-response', (_, response) => reject(new Error(`the websocket upgrade answered ${response.statusCode}`)));
  });
}

/** Server-sent events on the stream, noted in `notes`. Resolves once the first message (the cursor) came, with a function that ends it. */
function followServerSentEvents(url, authorization, notes) {
  return new Promise((resolve, reject) => {
    let closing = false;
    const request = https.get(url, { headers: { accept: 'text/event-stream', authorization }, rejectUnauthorized: false }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`the server-sent events answered ${response.statusCode}`));
      let pending = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        const arrived = Date.now();
        pending += chunk;
        const messages = pending.split('\n\n');
        pending = messages.pop();
        for (const text of messages) {
          const lines = text.split('\n');
          const data = lines.find((line) => line.startsWith('data: '))?.slice('data: '.length);
          if (lines.includes('event: end')) problems.push(`server-sent events: ended by the control plane: ${data}`);
          else if (data !== undefined) notes.push({ ...JSON.parse(data), arrived });
          else if (lines.some((line) => line.startsWith('id: '))) resolve(() => ((closing = true), request.destroy()));
        }
      });
      response.on('end', () => closing || problems.push('server-sent events: the stream ended'));
    });
    request.on('error', (error) => (closing ? undefined : (problems.push(`server-sent events: ${error.message}`), reject(error))));
  });
}
