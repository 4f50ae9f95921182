import { Alert, CodeBlock, CodeBlockCode, Spinner } from '@patternfly/react-core';
import { useTask } from '../api/tasks';

/** A task as it runs: its log, live, and how it ended. */
export function TaskLog({ node, upid, title }: { readonly node: string; readonly upid: string; readonly title: string }) {
  const { status, log, error } = useTask(node, upid);
  const ended = status?.status === 'stopped';
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
