import { useQuery } from '@tanstack/react-query';
import { call } from './client';

interface TaskStatus {
  readonly status: 'running' | 'stopped';
  readonly exitstatus?: string;
  readonly type: string;
}

interface LogLine {
  readonly n: number;
  readonly t: string;
}

const POLL_MS = 1000;

/** A task's status and log, read every second until it has stopped (PVE's task viewer does the same). */
export function useTask(node: string, upid: string) {
  const path = `/nodes/${encodeURIComponent(node)}/tasks/${encodeURIComponent(upid)}`;
  const status = useQuery({
    queryKey: ['task', upid, 'status'],
    queryFn: () => call<TaskStatus>('GET', `${path}/status`),
    refetchInterval: (query) => (query.state.data?.status === 'stopped' ? false : POLL_MS),
  });
  const running = status.data?.status !== 'stopped';
  const log = useQuery({
    queryKey: ['task', upid, 'log', running],
    queryFn: () => call<LogLine[]>('GET', `${path}/log`, { start: 0, limit: 1000 }),
    refetchInterval: running ? POLL_MS : false,
  });
  return { status: status.data, log: log.data ?? [], error: status.error ?? log.error };
}
