import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, ToolbarItem } from '@patternfly/react-core';
import { call } from '../api/client';
import { HA_RESOURCES_KEY, haSid, useHaState } from '../api/ha';
import { usePrivileges } from '../api/privileges';
import { RESOURCES_KEY, type Resource } from '../api/resources';
import { ActionModal } from './action-modal';

type Asking = 'clone' | 'migrate' | 'template' | 'ha' | null;

/**
 * Clone, migrate, convert to a template, and put under HA or take out of it: the guest actions
 * beyond power, each asking first, each offered where the caller holds its privilege (the API
 * checks it again). Tasks are handed to `onTask` to be followed.
 */
export function GuestActions({
  guest,
  nodes,
  privileges,
  onTask,
}: {
  readonly guest: Resource;
  /** The names of the online nodes. */
  readonly nodes: readonly string[];
  readonly privileges: { readonly has: (privilege: string) => boolean };
  readonly onTask: (upid: string, title: string) => void;
}) {
  const [asking, setAsking] = useState<Asking>(null);
  const root = usePrivileges('/');
  // Read again each time a clone is asked for: an id read before may be taken now.
  const nextid = useQuery({
    queryKey: ['cluster', 'nextid'],
    queryFn: () => call<string>('GET', '/cluster/nextid'),
    enabled: asking === 'clone',
    staleTime: 0,
  });
  const node = guest.node ?? '';
  const path = `/nodes/${encodeURIComponent(node)}/${guest.type}/${guest.vmid}`;
  const sid = haSid(guest);
  const haState = useHaState(guest);
  const underHa = Boolean(haState);
  const queryClient = useQueryClient();
  const done = (title: string) => (upid: string | null) => {
    setAsking(null);
    void queryClient.invalidateQueries({ queryKey: RESOURCES_KEY });
    void queryClient.invalidateQueries({ queryKey: HA_RESOURCES_KEY });
    if (upid) onTask(upid, title);
  };
  const others = nodes.filter((n) => n !== node);

  return (
    <>
      <ToolbarItem>
        <Button variant="secondary" isDisabled={!privileges.has('VM.Clone')} onClick={() => setAsking('clone')}>
          Clone
        </Button>
      </ToolbarItem>
      <ToolbarItem>
        <Button variant="secondary" isDisabled={!privileges.has('VM.Migrate') || others.length === 0} onClick={() => setAsking('migrate')}>
          Migrate
        </Button>
      </ToolbarItem>
      <ToolbarItem>
        <Button
          variant="secondary"
          isDisabled={!privileges.has('VM.Allocate') || Boolean(guest.template) || guest.status !== 'stopped'}
          onClick={() => setAsking('template')}
        >
          Convert to template
        </Button>
      </ToolbarItem>
      <ToolbarItem>
        <Button variant="secondary" isDisabled={!root.has('Sys.Console') || haState === undefined} onClick={() => setAsking('ha')}>
          {underHa ? 'Remove from HA' : 'Manage with HA'}
        </Button>
      </ToolbarItem>
      {asking === 'clone' && nextid.data && !nextid.isFetching && (
        <ActionModal
          title={`Clone ${guest.vmid}`}
          action="Clone"
          fields={[
            { param: 'newid', label: 'New id', kind: 'text', isRequired: true, initial: nextid.data },
            { param: guest.type === 'qemu' ? 'name' : 'hostname', label: 'Name', kind: 'text' },
            { param: 'target', label: 'Node', kind: 'select', options: [node, ...others].map((n) => ({ value: n, label: n })) },
            { param: 'full', label: 'Full copy of the disks (not linked to a template)', kind: 'checkbox', initial: !guest.template },
          ]}
          submit={(params) => call<string>('POST', `${path}/clone`, params)}
          onDone={done(`Clone ${guest.vmid}`)}
          onCancel={() => setAsking(null)}
        />
      )}
      {asking === 'migrate' && (
        <ActionModal
          title={`Migrate ${guest.vmid}`}
          action="Migrate"
          fields={[
            { param: 'target', label: 'Node', kind: 'select', options: others.map((n) => ({ value: n, label: n })) },
            guest.type === 'qemu'
              ? { param: 'online', label: 'Live, while it runs', kind: 'checkbox', initial: guest.status === 'running' }
              : { param: 'restart', label: 'Stop it, move it and start it again', kind: 'checkbox', initial: guest.status === 'running' },
          ]}
          submit={(params) => call<string>('POST', `${path}/migrate`, params)}
          onDone={done(`Migrate ${guest.vmid}`)}
          onCancel={() => setAsking(null)}
        />
      )}
      {asking === 'template' && (
        <ActionModal
          title={`Convert ${guest.vmid} to a template?`}
          action="Convert"
          fields={[]}
          submit={() => call<string>('POST', `${path}/template`)}
          onDone={done(`Template ${guest.vmid}`)}
          onCancel={() => setAsking(null)}
        >
          A template cannot run; it is cloned. Its disks become the base of linked clones. This cannot be undone.
        </ActionModal>
      )}
      {asking === 'ha' && (
        <ActionModal
          title={underHa ? `Take ${sid} out of HA?` : `Manage ${sid} with HA`}
          action={underHa ? 'Remove' : 'Add'}
          fields={
            underHa
              ? []
              : [
                  {
                    param: 'state',
                    label: 'Requested state',
                    kind: 'select',
                    options: ['started', 'stopped', 'ignored', 'disabled'].map((s) => ({ value: s, label: s })),
                  },
                ]
          }
          submit={async (params) => {
            await (underHa ? call('DELETE', `/cluster/ha/resources/${sid}`) : call('POST', '/cluster/ha/resources', { sid, ...params }));
            return null;
          }}
          onDone={done('HA')}
          onCancel={() => setAsking(null)}
        >
          {underHa
            ? 'The HA manager stops watching it; the guest stays as it is.'
            : 'The HA manager keeps it in the requested state, and recovers it on another node if its node is lost.'}
        </ActionModal>
      )}
    </>
  );
}
