import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Form, Stack, TextInput } from '@patternfly/react-core';
import { ApiFailure, call } from '../api/client';
import type { Resource } from '../api/resources';
import { Confirm } from './confirm';
import { ParamHelp, TextField } from './form-field';
import { RowList } from './row-list';

type Config = Readonly<Record<string, string | number>>;

/**
 * A guest's hardware and options as its config has them (PVE's keys and property strings), each
 * changed in place, removed, or added by key. Every change is one `PUT .../config` with the
 * config's digest, so a change made meanwhile by someone else is refused rather than overwritten;
 * the API's message about a key shows under it.
 */
export function GuestConfig({ guest, mayChange }: { readonly guest: Resource; readonly mayChange: boolean }) {
  const queryClient = useQueryClient();
  const path = `/nodes/${encodeURIComponent(guest.node ?? '')}/${guest.type}/${guest.vmid}/config`;
  const config = useQuery({ queryKey: ['config', path], queryFn: () => call<Config>('GET', path) });
  const [editing, setEditing] = useState<{ readonly key: string; readonly value: string } | null>(null);
  const [adding, setAdding] = useState({ key: '', value: '' });
  const [removing, setRemoving] = useState<string | null>(null);
  const [failure, setFailure] = useState<Error | null>(null);
  const digest = config.data?.['digest'];
  const keyError = (key: string) => (failure instanceof ApiFailure ? failure.forParam(key) : undefined);

  const change = async (params: Record<string, string>, done: () => void) => {
    setFailure(null);
    try {
      await call('PUT', path, { ...params, digest: typeof digest === 'string' ? digest : undefined });
      done();
    } catch (error) {
      setFailure(error instanceof Error ? error : new Error(String(error)));
    } finally {
      void queryClient.invalidateQueries({ queryKey: ['config', path] });
    }
  };
  const keys = Object.keys(config.data ?? {})
    .filter((key) => key !== 'digest')
    .sort();
  const unplaced =
    failure instanceof ApiFailure
      ? failure.problems.filter((p) => !p.param || !(p.param in (config.data ?? {}) || p.param === adding.key))
      : [];

  return (
    <Stack hasGutter>
      {failure && (!(failure instanceof ApiFailure) || unplaced.length > 0) && (
        <Alert isInline variant="danger" title="Refused" data-testid="config-error">
          {failure instanceof ApiFailure ? unplaced.map((p) => p.message).join('; ') : failure.message}
        </Alert>
      )}
      {config.isError && <Alert isInline variant="danger" title={config.error.message} />}
      <RowList
        label="Configuration"
        testId="config"
        rows={keys.map((key) => {
          const value = String(config.data?.[key] ?? '');
          const isEditing = editing?.key === key;
          return {
            key,
            cells: [
              key,
              isEditing ? (
                <>
                  <TextInput
                    aria-label={`Value of ${key}`}
                    value={editing.value}
                    onChange={(_event, text) => setEditing({ key, value: text })}
                    validated={keyError(key) ? 'error' : 'default'}
                  />
                  <ParamHelp message={keyError(key)} />
                </>
              ) : (
                <span className="corral-config-value">{value}</span>
              ),
            ],
            actions: !mayChange ? undefined : isEditing ? (
              <>
                <Button size="sm" onClick={() => void change({ [key]: editing.value }, () => setEditing(null))}>
                  Save
                </Button>
                <Button size="sm" variant="link" onClick={() => setEditing(null)}>
                  Cancel
                </Button>
              </>
            ) : (
              <>
                <Button size="sm" variant="secondary" onClick={() => setEditing({ key, value })} aria-label={`Edit ${key}`}>
                  Edit
                </Button>
                <Button size="sm" variant="link" isDanger onClick={() => setRemoving(key)} aria-label={`Remove ${key}`}>
                  Remove
                </Button>
              </>
            ),
          };
        })}
      />
      {mayChange && (
        <Form
          isHorizontal
          onSubmit={(event) => {
            event.preventDefault();
            void change({ [adding.key]: adding.value }, () => setAdding({ key: '', value: '' }));
          }}
        >
          <TextField
            id="config-key"
            label="Add a setting"
            value={adding.key}
            onChange={(key) => setAdding((a) => ({ ...a, key }))}
            error={undefined}
            hint="A key of PVE's guest config: net1, scsi1, onboot, description ..."
          />
          <TextField
            id="config-value"
            label="Value"
            value={adding.value}
            onChange={(value) => setAdding((a) => ({ ...a, value }))}
            error={adding.key ? keyError(adding.key) : undefined}
          />
          <Button type="submit" variant="secondary" isDisabled={!adding.key}>
            Add
          </Button>
        </Form>
      )}
      {removing && (
        <Confirm
          title={`Remove ${removing}?`}
          action="Remove"
          onCancel={() => setRemoving(null)}
          onConfirm={() => {
            const key = removing;
            setRemoving(null);
            void change({ delete: key }, () => undefined);
          }}
        >
          {`The setting ${removing} goes back to its default; a disk removed this way is kept as an unused disk, as in PVE.`}
        </Confirm>
      )}
    </Stack>
  );
}
