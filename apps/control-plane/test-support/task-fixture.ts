import { call, dataOf } from './access-fixture.js';
import type { TestApp } from './test-app.js';

/** Waits for a task to end (the API's own long poll, `?wait=`) and returns its exit status. */
export async function finished(t: TestApp, node: string, upid: string): Promise<string> {
  for (let polls = 0; polls < 10; polls += 1) {
    const status = dataOf<{ status: string; exitstatus?: string }>(
      await call(t, 'GET', `/nodes/${node}/tasks/${encodeURIComponent(upid)}/status?wait=30`),
    );
    if (status.status === 'stopped') return status.exitstatus ?? '';
  }
  throw new Error(`task ${upid} did not end`);
}
