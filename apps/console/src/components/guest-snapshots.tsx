import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Form, Stack } from '@patternfly/react-core';
import { ApiFailure, call } from '../api/client';
import type { Resource } from '../api/resources';
import { Confirm } from './confirm';
import { TextField } from './form-field';
import { RowList } from './row-list';
import { TaskLog } from './task-log';

interface Snapshot {
  readonly name: string;
  readonly description?: string;
  readonly snaptime?: number;
  readonly parent?: string;
}

/** `current` is PVE's entry for the guest as it is now, not a snapshot. */
const CURRENT = 'current';

/** A guest's snapshots: taken, rolled back to (after asking) and deleted (after asking), each a task whose log is shown. */
export function GuestSnapshots({ guest, mayChange }: { readonly guest: Resource; readonly mayChange: boolean }) {
  const queryClient = useQueryClient();
  const path = `/nodes/${encodeURIComponent(guest.node ?? '')}/${guest.type}/${guest.vmid}/snapshot`;
  const snapshots = useQuery({ queryKey: ['snapshots', path], queryFn: () => call<Snapshot[]>('GET', path) });
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [asking, setAsking] = useState<{ readonly kind: 'rollback' | 'delete'; readonly snapshot: string } | null>(null);
  const [task, setTask] = useState<{ readonly upid: string; readonly title: string } | null>(null);
  const [failure, setFailure] = useState<ApiFailure | Error | null>(null);

  const run = async (title: string, request: () => Promise<string>) => {
    setAsking(null);
    setFailure(null);
    try {
      setTask({ upid: await request(), title });
    } catch (error) {
      setFailure(error instanceof Error ? error : new Error(String(error)));
    }
  };
  const ended = () => void queryClient.invalidateQueries({ queryKey: ['snapshots', path] });
  const paramError = (param: string) => (failure instanceof ApiFailure ? failure.forParam(param) : undefined);

  return (
    <Stack hasGutter>
      {mayChange && (
        <Form
          isHorizontal
          onSubmit={(event) => {
            event.preventDefault();
            void run(`Snapshot ${name}`, () => call<string>('POST', path, { snapname: name, description: description || undefined }));
          }}
        >
          <TextField id="snapname" label="Name" value={name} onChange={setName} error={paramError('snapname')} isRequired />
          <TextField id="description" label="Description" value={description} onChange={setDescription} error={paramError('description')} />
          <Button type="submit" variant="secondary" isDisabled={!name}>
            Take snapshot
          </Button>
        </Form>
      )}
      {failure && !(failure instanceof ApiFailure && failure.problems.some((p) => p.param)) && (
        <Alert isInline variant="danger" title="Refused">
          {failure.message}
        </Alert>
      )}
      {task && <TaskLog key={task.upid} node={guest.node ?? ''} upid={task.upid} title={task.title} onEnd={ended} />}
      <RowList
        label="Snapshots"
        testId="snapshots"
        rows={(snapshots.data ?? [])
          .filter((snapshot) => snapshot.name !== CURRENT)
          .sort((a, b) => (a.snaptime ?? 0) - (b.snaptime ?? 0))
          .map((snapshot) => ({
            key: snapshot.name,
            cells: [
              snapshot.name,
              snapshot.snaptime ? new Date(snapshot.snaptime * 1000).toLocaleString() : '',
              snapshot.description ?? '',
            ],
            actions: mayChange ? (
              <>
                <Button variant="secondary" size="sm" onClick={() => setAsking({ kind: 'rollback', snapshot: snapshot.name })}>
                  Roll back
                </Button>
                <Button variant="danger" size="sm" onClick={() => setAsking({ kind: 'delete', snapshot: snapshot.name })}>
                  Delete
                </Button>
              </>
            ) : undefined,
          }))}
      />
      {snapshots.data?.length === 1 && <p>No snapshots.</p>}
      {asking && (
        <Confirm
          title={asking.kind === 'rollback' ? `Roll back to ${asking.snapshot}?` : `Delete snapshot ${asking.snapshot}?`}
          action={asking.kind === 'rollback' ? 'Roll back' : 'Delete'}
          onCancel={() => setAsking(null)}
          onConfirm={() =>
            void run(`${asking.kind === 'rollback' ? 'Roll back to' : 'Delete'} ${asking.snapshot}`, () =>
              asking.kind === 'rollback'
                ? call<string>('POST', `${path}/${encodeURIComponent(asking.snapshot)}/rollback`)
                : call<string>('DELETE', `${path}/${encodeURIComponent(asking.snapshot)}`),
            )
          }
        >
          {asking.kind === 'rollback'
            ? 'The guest returns to the state of the snapshot: what changed since is lost.'
            : 'The snapshot is removed; the guest as it is now stays.'}
        </Confirm>
      )}
    </Stack>
  );
}
