import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Stack } from '@patternfly/react-core';
import { call } from '../api/client';
import { useNodeStorages } from '../api/node-lists';
import type { Resource } from '../api/resources';
import { bytes } from '../format';
import { ActionModal } from './action-modal';
import { RowList } from './row-list';

interface Backup {
  readonly volid: string;
  readonly ctime?: number;
  readonly size?: number;
  readonly notes?: string;
}

type Asking = { readonly kind: 'backup' } | { readonly kind: 'restore' | 'remove'; readonly volid: string } | null;

/**
 * A guest's backups on its node's backup storages: made now (`vzdump`), restored over the guest
 * (after a question), or removed. Each task is handed to `onTask` to be followed.
 */
export function GuestBackups({
  guest,
  mayBackUp,
  onTask,
}: {
  readonly guest: Resource;
  readonly mayBackUp: boolean;
  readonly onTask: (upid: string, title: string) => void;
}) {
  const queryClient = useQueryClient();
  const node = guest.node ?? '';
  const nodePath = `/nodes/${encodeURIComponent(node)}`;
  const storages = useNodeStorages(node, 'backup');
  const key = ['backups', node, guest.vmid, storages.data?.map((s) => s.storage)];
  const backups = useQuery({
    queryKey: key,
    queryFn: async () => {
      const lists = await Promise.all(
        (storages.data ?? []).map((s) =>
          call<Backup[]>('GET', `${nodePath}/storage/${encodeURIComponent(s.storage)}/content`, { content: 'backup', vmid: guest.vmid }),
        ),
      );
      return lists.flat().sort((a, b) => (b.ctime ?? 0) - (a.ctime ?? 0));
    },
    enabled: storages.isSuccess,
  });
  const [asking, setAsking] = useState<Asking>(null);
  const done = (title: string) => (upid: string | null) => {
    setAsking(null);
    void queryClient.invalidateQueries({ queryKey: ['backups', node, guest.vmid] });
    if (upid) onTask(upid, title);
  };
  const storageOf = (volid: string) => volid.slice(0, volid.indexOf(':'));

  return (
    <Stack hasGutter>
      {mayBackUp && (
        <div>
          <Button variant="secondary" onClick={() => setAsking({ kind: 'backup' })} isDisabled={!storages.data?.length}>
            Back up now
          </Button>
        </div>
      )}
      <RowList
        label="Backups"
        testId="backups"
        state={backups.status}
        rows={(backups.data ?? []).map((backup) => ({
          key: backup.volid,
          cells: [backup.volid, backup.ctime ? new Date(backup.ctime * 1000).toLocaleString() : '', bytes(backup.size), backup.notes ?? ''],
          actions: mayBackUp ? (
            <>
              <Button variant="secondary" size="sm" onClick={() => setAsking({ kind: 'restore', volid: backup.volid })}>
                Restore
              </Button>
              <Button variant="link" isDanger size="sm" onClick={() => setAsking({ kind: 'remove', volid: backup.volid })}>
                Remove
              </Button>
            </>
          ) : undefined,
        }))}
      />
      {backups.data?.length === 0 && <p>No backups.</p>}
      {asking?.kind === 'backup' && (
        <ActionModal
          title={`Back up ${guest.vmid}`}
          action="Back up"
          fields={[
            {
              param: 'storage',
              label: 'Storage',
              kind: 'select',
              options: (storages.data ?? []).map((s) => ({ value: s.storage, label: s.storage })),
            },
            {
              param: 'mode',
              label: 'Mode',
              kind: 'select',
              options: [
                { value: 'snapshot', label: 'snapshot: while it runs' },
                { value: 'suspend', label: 'suspend: paused while it is read' },
                { value: 'stop', label: 'stop: stopped while it is read, then started again' },
              ],
            },
            {
              param: 'compress',
              label: 'Compression',
              kind: 'select',
              options: [
                { value: 'zstd', label: 'zstd' },
                { value: 'gzip', label: 'gzip' },
                { value: '0', label: 'none' },
              ],
            },
          ]}
          submit={(params) => call<string>('POST', `${nodePath}/vzdump`, { ...params, vmid: guest.vmid })}
          onDone={done(`Backup of ${guest.vmid}`)}
          onCancel={() => setAsking(null)}
        />
      )}
      {asking?.kind === 'restore' && (
        <ActionModal
          title={`Restore ${guest.vmid} from this backup?`}
          action="Restore"
          fields={[]}
          submit={() =>
            call<string>(
              'POST',
              `${nodePath}/${guest.type}`,
              guest.type === 'qemu'
                ? { vmid: guest.vmid, archive: asking.volid, force: 1 }
                : { vmid: guest.vmid, ostemplate: asking.volid, restore: 1, force: 1 },
            )
          }
          onDone={done(`Restore of ${guest.vmid}`)}
          onCancel={() => setAsking(null)}
        >
          {`The guest is replaced by ${asking.volid}: its disks and config as they are now are lost. It must be stopped.`}
        </ActionModal>
      )}
      {asking?.kind === 'remove' && (
        <ActionModal
          title={`Remove ${asking.volid}?`}
          action="Remove"
          fields={[]}
          submit={async () => {
            const answer = await call<string | null>(
              'DELETE',
              `${nodePath}/storage/${encodeURIComponent(storageOf(asking.volid))}/content/${encodeURIComponent(asking.volid)}`,
            );
            return typeof answer === 'string' && answer.startsWith('UPID:') ? answer : null;
          }}
          onDone={done(`Removal of ${asking.volid}`)}
          onCancel={() => setAsking(null)}
        >
          The backup is deleted from its storage.
        </ActionModal>
      )}
    </Stack>
  );
}
