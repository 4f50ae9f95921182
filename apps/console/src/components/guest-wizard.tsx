import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, PageSection, Title } from '@patternfly/react-core';
import { ApiFailure, call, type Params } from '../api/client';
import { RESOURCES_KEY } from '../api/resources';
import { href } from '../routing';
import { TaskLog } from './task-log';

/**
 * What both create wizards share: the choices and their setters, the next free id, and the create
 * call, whose refusals are kept to show on the step of the parameter they name (`stepOf`).
 */
export function useGuestWizard<C extends { readonly node: string; readonly vmid: string }>(
  type: 'qemu' | 'lxc',
  initial: C,
  stepOf: Readonly<Record<string, string>>,
) {
  const queryClient = useQueryClient();
  const [choices, setChoices] = useState<C>(initial);
  const set =
    <K extends keyof C>(key: K) =>
    (value: C[K]) =>
      setChoices((before) => ({ ...before, [key]: value }));
  // Read when the wizard opens: an id read before may be taken now.
  const nextid = useQuery({ queryKey: ['cluster', 'nextid'], queryFn: () => call<string>('GET', '/cluster/nextid'), staleTime: 0 });
  const [failure, setFailure] = useState<Error | null>(null);
  const [upid, setUpid] = useState<string | null>(null);

  useEffect(() => {
    if (nextid.data && !nextid.isFetching && !choices.vmid) setChoices((before) => ({ ...before, vmid: nextid.data }));
  }, [nextid.data, nextid.isFetching, choices.vmid]);

  const create = async (params: Params) => {
    setFailure(null);
    try {
      setUpid(await call<string>('POST', `/nodes/${encodeURIComponent(choices.node)}/${type}`, params));
      void queryClient.invalidateQueries({ queryKey: RESOURCES_KEY });
    } catch (caught) {
      setFailure(caught instanceof Error ? caught : new Error(String(caught)));
    }
  };
  return {
    choices,
    set,
    create,
    upid,
    failure,
    error: (param: string) => (failure instanceof ApiFailure ? failure.forParam(param) : undefined),
    stepStatus: (step: string): 'error' | 'default' =>
      failure instanceof ApiFailure && failure.problems.some((p) => p.param && stepOf[p.param] === step) ? 'error' : 'default',
  };
}

/** After the create call: its task's log, live, and a link to the new guest. */
export function Creating({
  kind,
  node,
  vmid,
  upid,
}: {
  readonly kind: string;
  readonly node: string;
  readonly vmid: string;
  readonly upid: string;
}) {
  return (
    <PageSection>
      <Title headingLevel="h1" className="corral-heading">
        Creating {kind} {vmid}
      </Title>
      <TaskLog node={node} upid={upid} title={`Create ${kind} ${vmid}`} />
      <Button variant="link" component="a" href={href({ view: 'guest', vmid: Number(vmid) })}>
        Open {kind} {vmid}
      </Button>
    </PageSection>
  );
}
