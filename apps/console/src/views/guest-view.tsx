import { lazy, Suspense, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Button,
  Card,
  CardBody,
  PageSection,
  Spinner,
  Stack,
  Tab,
  TabTitleText,
  Tabs,
  Toolbar,
  ToolbarContent,
  ToolbarItem,
} from '@patternfly/react-core';
import { ApiFailure, call } from '../api/client';
import { useHaState } from '../api/ha';
import { usePrivileges } from '../api/privileges';
import { RESOURCES_KEY, type Resource } from '../api/resources';
import { Confirm } from '../components/confirm';
import { GuestActions } from '../components/guest-actions';
import { GuestBackups } from '../components/guest-backups';
import { GuestConfig } from '../components/guest-config';
import { GuestSnapshots } from '../components/guest-snapshots';
import { Graphs } from '../components/lazy-graphs';
import { labelOf } from '../components/resource-tree';
import { Facts, ResourceHeading } from '../components/summary-parts';
import { TaskLog } from '../components/task-log';
import { ResourceUsage } from '../components/resource-usage';
import { duration } from '../format';
import { href } from '../routing';

type Action = 'start' | 'shutdown' | 'reboot' | 'stop' | 'delete';

/** An action on the guest, the state it needs, and what it asks first where it destroys something. */
interface PowerAction {
  readonly action: Action;
  readonly label: string;
  readonly when: 'stopped' | 'running';
  readonly confirm?: string;
}

/** The power actions; a stop is pulling the plug. */
const ACTIONS: readonly PowerAction[] = [
  { action: 'start', label: 'Start', when: 'stopped' },
  { action: 'shutdown', label: 'Shut down', when: 'running', confirm: 'The guest is asked to shut down; it may refuse or take a while.' },
  { action: 'reboot', label: 'Reboot', when: 'running', confirm: 'The guest is asked to reboot.' },
  {
    action: 'stop',
    label: 'Stop',
    when: 'running',
    confirm: 'The guest is stopped at once, as if its power were cut: unsaved data in it is lost.',
  },
];

/** Deleting asks first, as the destructive power actions do; it needs the guest stopped. */
const DELETE: PowerAction = {
  action: 'delete',
  label: 'Delete',
  when: 'stopped',
  confirm: 'The guest and its disks are destroyed; its backups stay. This cannot be undone.',
};

/** noVNC is loaded when a console is first opened, not with the page. */
const VncConsole = lazy(() => import('../components/vnc-console').then((module) => ({ default: module.VncConsole })));

/** The console of a running VM; a container's terminal is not built yet. */
function GuestConsole({ guest }: { readonly guest: Resource }) {
  if (guest.type === 'lxc') {
    return <Alert isInline variant="info" title="A container's terminal is not in the console yet: use lxc-attach on its node." />;
  }
  if (guest.status !== 'running') return <Alert isInline variant="info" title="The VM is not running: start it to see its display." />;
  return (
    <Suspense fallback={<Spinner aria-label="Loading the console" />}>
      <VncConsole node={guest.node ?? ''} vmid={guest.vmid ?? 0} />
    </Suspense>
  );
}

/** A VM or container: its state, live, and graphs; its power and other actions with their tasks' logs; its config, snapshots, backups and console, each a tab. */
export function GuestView({ guest, nodes }: { readonly guest: Resource; readonly nodes: readonly string[] }) {
  const queryClient = useQueryClient();
  const privileges = usePrivileges(`/vms/${guest.vmid}`);
  const [asking, setAsking] = useState<PowerAction | null>(null);
  const [task, setTask] = useState<{ upid: string; title: string } | null>(null);
  const [failure, setFailure] = useState<ApiFailure | Error | null>(null);
  const [tab, setTab] = useState('summary');
  const haState = useHaState(guest);
  const node = guest.node ?? '';
  const kind = guest.type === 'qemu' ? 'VM' : 'Container';

  const run = async (action: PowerAction) => {
    setAsking(null);
    setFailure(null);
    try {
      const path = `/nodes/${encodeURIComponent(node)}/${guest.type}/${guest.vmid}`;
      // As PVE's own dialog: the guest leaves its backup jobs, HA and replication, and its unreferenced disks go too.
      const upid =
        action.action === 'delete'
          ? await call<string>('DELETE', path, { purge: 1, 'destroy-unreferenced-disks': 1 })
          : await call<string>('POST', `${path}/status/${action.action}`);
      // The guest leaves the view as it goes: its deletion is followed in the task list.
      if (action.action === 'delete') window.location.hash = href({ view: 'tasks', upid });
      else setTask({ upid, title: `${action.label} ${kind} ${guest.vmid}` });
    } catch (error) {
      setFailure(error instanceof Error ? error : new Error(String(error)));
    } finally {
      void queryClient.invalidateQueries({ queryKey: RESOURCES_KEY });
    }
  };

  return (
    <PageSection>
      <ResourceHeading resource={guest} title={`${kind} ${labelOf(guest)}`} testId="guest-status" />
      <Toolbar aria-label="Power">
        <ToolbarContent>
          {ACTIONS.map((action) => (
            <ToolbarItem key={action.action}>
              <Button
                variant={action.action === 'stop' ? 'danger' : 'secondary'}
                isDisabled={!privileges.has('VM.PowerMgmt') || guest.status !== action.when || Boolean(guest.template)}
                onClick={() => (action.confirm ? setAsking(action) : void run(action))}
              >
                {action.label}
              </Button>
            </ToolbarItem>
          ))}
          <ToolbarItem>
            <Button
              variant="danger"
              isDisabled={!privileges.has('VM.Allocate') || guest.status !== 'stopped'}
              onClick={() => setAsking(DELETE)}
            >
              Delete
            </Button>
          </ToolbarItem>
          <GuestActions guest={guest} nodes={nodes} privileges={privileges} onTask={(upid, title) => setTask({ upid, title })} />
        </ToolbarContent>
      </Toolbar>
      {privileges.loaded && !privileges.has('VM.PowerMgmt') && (
        <Alert isInline isPlain variant="info" title="You may look at this guest, not start or stop it (VM.PowerMgmt on its path)." />
      )}
      <Stack hasGutter>
        {failure && (
          <Alert isInline variant="danger" title="Refused" data-testid="action-error">
            {failure.message}
          </Alert>
        )}
        {/* What a task changed (a backup made, a config restored) is read again once it ends. */}
        {task && (
          <TaskLog key={task.upid} node={node} upid={task.upid} title={task.title} onEnd={() => void queryClient.invalidateQueries()} />
        )}
        <Tabs activeKey={tab} onSelect={(_event, key) => setTab(String(key))} aria-label="Guest" mountOnEnter unmountOnExit>
          <Tab eventKey="summary" title={<TabTitleText>Summary</TabTitleText>}>
            <Card className="corral-tab-body">
              <CardBody>
                <Facts
                  facts={[
                    ['Node', <a href={href({ view: 'node', node })}>{node}</a>],
                    ['Uptime', duration(guest.uptime)],
                    ['HA', haState === undefined ? '-' : (haState ?? 'not managed')],
                    ['Pool', guest.pool ? <a href={href({ view: 'pool', pool: guest.pool })}>{guest.pool}</a> : null],
                  ]}
                />
                <ResourceUsage resource={guest} disk="Boot disk" />
              </CardBody>
            </Card>
            <div className="corral-tab-body">
              <Graphs path={`/nodes/${encodeURIComponent(node)}/${guest.type}/${guest.vmid}`} kind="guest" />
            </div>
          </Tab>
          <Tab eventKey="config" title={<TabTitleText>Hardware and options</TabTitleText>}>
            <div className="corral-tab-body">
              <GuestConfig guest={guest} mayChange={privileges.has('VM.Config.Options') || privileges.has('VM.Config.HWType')} />
            </div>
          </Tab>
          <Tab eventKey="snapshots" title={<TabTitleText>Snapshots</TabTitleText>}>
            <div className="corral-tab-body">
              <GuestSnapshots guest={guest} mayChange={privileges.has('VM.Snapshot')} />
            </div>
          </Tab>
          <Tab eventKey="backups" title={<TabTitleText>Backups</TabTitleText>}>
            <div className="corral-tab-body">
              <GuestBackups guest={guest} mayBackUp={privileges.has('VM.Backup')} onTask={(upid, title) => setTask({ upid, title })} />
            </div>
          </Tab>
          <Tab eventKey="console" title={<TabTitleText>Console</TabTitleText>} isAriaDisabled={!privileges.has('VM.Console')}>
            <div className="corral-tab-body">
              <GuestConsole guest={guest} />
            </div>
          </Tab>
        </Tabs>
      </Stack>
      {asking && (
        <Confirm
          title={`${asking.label} ${kind} ${guest.vmid}?`}
          action={asking.label}
          onConfirm={() => void run(asking)}
          onCancel={() => setAsking(null)}
        >
          {asking.confirm}
        </Confirm>
      )}
    </PageSection>
  );
}
