import { WebhookReceiver } from './webhook-receiver.js';

// `node webhook-receiver-main.js <port>`: a WebhookReceiver as a process of its own, so that a test
// can stop it and start it again on the same port (WebhookReceiverProcess). It prints
// `{"listening":<port>}`, then each request as a JSON line before it answers 200: every request
// answered is on its stdout. It runs until it is killed.
const receiver = await WebhookReceiver.start(Number(process.argv[2] ?? '0'));
receiver.answer = (request) => {
  process.stdout.write(`${JSON.stringify(request)}\n`);
  return 200;
};
process.stdout.write(`${JSON.stringify({ listening: Number(new URL(receiver.url()).port) })}\n`);
