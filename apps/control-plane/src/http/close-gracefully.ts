import type { NestFastifyApplication } from '@nestjs/platform-fastify';

const IDLE_SWEEP_MS = 50;

/**
 * Stops accepting, lets requests in flight finish, then closes the app. A keep-alive connection
 * whose request finishes during the drain only becomes idle then: it is closed at once instead of
 * holding the shutdown for its keep-alive timeout. After `drainMs` the rest are cut.
 */
export async function closeGracefully(app: NestFastifyApplication, drainMs: number): Promise<void> {
  const server = app.getHttpServer();
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  const cut = setTimeout(() => server.closeAllConnections(), drainMs);
  try {
    await app.close();
  } finally {
    clearInterval(sweep);
    clearTimeout(cut);
  }
}
