import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  Alert,
  Button,
  DataList,
  DataListCell,
  DataListContent,
  DataListItem,
  DataListItemCells,
  DataListItemRow,
  DataListToggle,
  Label,
  PageSection,
  Title,
} from '@patternfly/react-core';
import { call } from '../api/client';
import { TaskLog } from '../components/task-log';

interface Task {
  readonly upid: string;
  readonly node: string;
  readonly type: string;
  readonly id: string;
  readonly user: string;
  readonly starttime: number;
  readonly endtime?: number;
  readonly status?: string;
}

/** Tasks have no event: the list is read every 5 s, as PVE's task panel reads it. */
const REFRESH_MS = 5_000;

/** The cluster's running and most recent tasks (`GET /cluster/tasks`); `opened`'s log is shown from the start. */
export function TasksView({ opened }: { readonly opened?: string | undefined }) {
  return (
    <PageSection>
      <Title headingLevel="h1" className="corral-heading">
        Tasks
      </Title>
      <TaskList path="/cluster/tasks" opened={opened} />
    </PageSection>
  );
}

/** Tasks as `path` lists them (the cluster's, or a node's `/nodes/{node}/tasks`), newest first, each with its log on demand. */
export function TaskList({ path, opened }: { readonly path: string; readonly opened?: string | undefined }) {
  const tasks = useQuery({ queryKey: ['tasks', path], queryFn: () => call<Task[]>('GET', path), refetchInterval: REFRESH_MS });
  const [open, setOpen] = useState<string | null>(opened ?? null);
  return (
    <>
      {tasks.isError && <Alert isInline variant="danger" title={tasks.error.message} />}
      <DataList aria-label="Tasks" isCompact data-testid="tasks">
        {(tasks.data ?? []).map((task) => {
          const expanded = open === task.upid;
          return (
            <DataListItem key={task.upid} isExpanded={expanded}>
              <DataListItemRow>
                <DataListToggle
                  id={`toggle-${task.upid}`}
                  isExpanded={expanded}
                  onClick={() => setOpen(expanded ? null : task.upid)}
                  aria-label={`Log of ${task.type} ${task.id}`}
                />
                <DataListItemCells
                  dataListCells={[
                    <DataListCell key="start">{new Date(task.starttime * 1000).toLocaleString()}</DataListCell>,
                    <DataListCell key="what">
                      {task.type} {task.id} on {task.node}
                    </DataListCell>,
                    <DataListCell key="user">{task.user}</DataListCell>,
                    <DataListCell key="status">
                      <TaskStatus status={task.endtime === undefined ? undefined : task.status} />
                    </DataListCell>,
                  ]}
                />
              </DataListItemRow>
              <DataListContent aria-label={`Log of ${task.upid}`} isHidden={!expanded}>
                {expanded && <TaskLog node={task.node} upid={task.upid} title={`${task.type} ${task.id}`} />}
              </DataListContent>
            </DataListItem>
          );
        })}
      </DataList>
      {tasks.data?.length === 0 && <p>No tasks yet.</p>}
      <Button variant="link" onClick={() => void tasks.refetch()}>
        Read again
      </Button>
    </>
  );
}

function TaskStatus({ status }: { readonly status: string | undefined }) {
  if (status === undefined) return <Label color="blue">running</Label>;
  return <Label color={status === 'OK' ? 'green' : status.startsWith('WARNINGS') ? 'orange' : 'red'}>{status}</Label>;
}
