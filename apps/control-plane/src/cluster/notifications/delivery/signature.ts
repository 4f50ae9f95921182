import { createHmac } from 'node:crypto';

/**
 * `X-Corral-Signature` (docs/webhooks.md "Verifying a request"): HMAC-SHA256, keyed with the
 * webhook's secret `signing`, over `<X-Corral-Timestamp>.<body>`, so that a receiver can tell the
 * request came from Corral and refuse one replayed long after it was signed.
 */
export function signatureOf(key: Buffer, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', key).update(`${timestamp}.${body}`).digest('hex')}`;
}
