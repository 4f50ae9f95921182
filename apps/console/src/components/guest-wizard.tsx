import { useEffect, useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, PageSection, Title, Wizard } from '@patternfly/react-core';
import { ApiFailure, call, type Params } from '../api/client';
import { useBridges } from '../api/node-lists';
import { RESOURCES_KEY } from '../api/resources';
import { href } from '../routing';
import { SelectField, TextField } from './form-field';
import { Facts } from './summary-parts';
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
    if (nextid.data && !nextid.isFetching && !choices.vmid)
      setChoices((before) => (before.vmid ? before : { ...before, vmid: nextid.data }));
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

/** The wizard on its page: its title, its steps, and the create call at the last step's button. */
export function WizardFrame({
  title,
  onCreate,
  children,
}: {
  readonly title: string;
  readonly onCreate: () => void;
  readonly children: ReactNode;
}) {
  return (
    <PageSection>
      <Title headingLevel="h1" className="corral-heading">
        {title}
      </Title>
      <Wizard onClose={() => window.history.back()} onSave={onCreate} height={560} navAriaLabel="Steps">
        {children}
      </Wizard>
    </PageSection>
  );
}

/** The first step's node (one of the online ones) and id (the next free one, editable). */
export function NodeAndId({
  wizard,
  nodes,
  idLabel,
}: {
  readonly wizard: Pick<GuestWizard, 'error'> & {
    readonly choices: { readonly node: string; readonly vmid: string };
    readonly set: (key: 'node' | 'vmid') => (value: string) => void;
  };
  readonly nodes: readonly string[];
  readonly idLabel: string;
}) {
  return (
    <>
      <SelectField
        id="node"
        label="Node"
        isRequired
        value={wizard.choices.node}
        onChange={wizard.set('node')}
        options={nodes.map((node) => ({ value: node, label: node }))}
        error={wizard.error('node')}
      />
      <TextField
        id="vmid"
        label={idLabel}
        isRequired
        type="number"
        value={wizard.choices.vmid}
        onChange={wizard.set('vmid')}
        error={wizard.error('vmid')}
      />
    </>
  );
}

/** The last step: what will be made, and why the API refused it if it did. */
export function Review({
  failure,
  what,
  facts,
}: {
  readonly failure: Error | null;
  readonly what: string;
  readonly facts: readonly (readonly [string, ReactNode])[];
}) {
  return (
    <>
      {failure && (
        <Alert isInline variant="danger" title={`The ${what} was not created`} data-testid="create-error">
          {failure.message}
        </Alert>
      )}
      <Facts facts={facts} />
    </>
  );
}

/** Picks the first of a list read from the API while nothing is chosen yet. */
export function useFirstChoice(current: string, first: string | undefined, choose: (value: string) => void): void {
  useEffect(() => {
    if (!current && first) choose(first);
  }, [current, first]);
}

type GuestWizard = ReturnType<typeof useGuestWizard>;

/** The bridge a new guest's first network card joins, or none; `hint` says what the card is. */
export function BridgeField({
  node,
  value,
  onChange,
  error,
  hint,
}: {
  readonly node: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly error: string | undefined;
  readonly hint: string;
}) {
  const bridges = useBridges(node);
  return (
    <SelectField
      id="bridge"
      label="Bridge"
      value={value}
      onChange={onChange}
      options={[{ value: '', label: 'no network card' }, ...(bridges.data ?? []).map((b) => ({ value: b.iface, label: b.iface }))]}
      error={error}
      hint={hint}
    />
  );
}
