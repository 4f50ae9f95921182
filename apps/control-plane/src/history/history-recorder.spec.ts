import type { Logger } from 'pino';
import type { AgentHub } from '../agents/agent-hub.js';
import type { GuestView } from '../inventory/guests/guest-view.js';
import type { NodeView } from '../inventory/nodes/node-view.js';
import { HistoryRecorder } from './history-recorder.js';
import type { HistoryRepository } from './history.repository.js';

describe('the history recorder', () => {
  it('logs a reading that fails and goes on: its timer must never throw', async () => {
    const warn = jest.fn();
    const broken = {
      list: () => {
        throw new Error('a view that fails');
      },
    };
    const recorder = new HistoryRecorder(
      broken as unknown as NodeView,
      {} as GuestView,
      {} as AgentHub,
      {} as HistoryRepository,
      { warn } as unknown as Logger,
    );
    await expect(recorder.tick(1_800_000_000)).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith({ err: new Error('a view that fails') }, 'cannot read the figures of the history');
  });
});
