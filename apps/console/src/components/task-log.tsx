import { useEffect } from 'react';
import { Alert, CodeBlock, CodeBlockCode, Spinner } from '@patternfly/react-core';
import { useTask } from '../api/tasks';

/** A task as it runs: its log, live, and how it ended. */
export function TaskLog({
  node,
  upid,
  title,
  onEnd,
}: {
  readonly node: string;
  readonly upid: string;
  readonly title: string;
  /** Called once the task has stopped, whatever its end. */
  readonly onEnd?: (ok: boolean) => void;
}) {
  const { status, log, error } = useTask(node, upid);
  const ended = status?.status === 'stopped';
  useEffect(() => {
    if (ended) onEnd?.(status.exitstatus === 'OK');
    // Once per task: the callback may change between renders.
  }, [ended]);
  const ok = ended && status.exitstatus === 'OK';
  return (
    <Alert
      isInline
      variant={!ended ? 'info' : ok ? 'success' : 'danger'}
      title={!ended ? `${title}: running` : `${title}: ${status.exitstatus ?? 'ended'}`}
      customIcon={!ended ? <Spinner size="md" aria-label="running" /> : undefined}
      data-testid="task"
      data-status={ended ? (ok ? 'ok' : 'failed') : 'running'}
    >
      {error ? <p>{error.message}</p> : null}
      <CodeBlock>
        <CodeBlockCode>{log.map((line) => line.t).join('\n') || ' '}</CodeBlockCode>
      </CodeBlock>
    </Alert>
  );
}
