import { useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ActionGroup, Alert, Button, ExpandableSection, Form, Stack } from '@patternfly/react-core';
import { ApiFailure, type Params } from '../api/client';
import { Confirm } from './confirm';
import { initialValues, toParams, type FieldSpec } from './form-values';
import { SpecFields } from './spec-fields';
import { RowList } from './row-list';

/** One kind of thing the API lists, with how it is shown, made and removed. */
export interface CollectionSpec<T> {
  readonly title: string;
  readonly queryKey: readonly unknown[];
  readonly list: () => Promise<T[]>;
  readonly key: (row: T) => string;
  readonly columns: readonly (readonly [string, (row: T) => ReactNode])[];
  /** What makes one, and what to show of the answer (an API token's secret). */
  readonly create?: {
    readonly fields: readonly FieldSpec[];
    readonly submit: (values: Params) => Promise<unknown>;
    readonly shown?: (answer: unknown) => ReactNode;
  };
  readonly remove?: (row: T) => Promise<unknown>;
  /** False hides the create form and the removals: the caller lacks the privilege. */
  readonly mayChange: boolean;
}

/**
 * A list read from the API, with a form that makes one and a removal (after a question) per row.
 * The API's refusals are shown beside the field of the parameter they name, or above the form.
 */
export function Collection<T>({ spec }: { readonly spec: CollectionSpec<T> }) {
  const queryClient = useQueryClient();
  const rows = useQuery({ queryKey: spec.queryKey, queryFn: spec.list });
  const [values, setValues] = useState<Record<string, string | boolean>>(() => initialValues(spec.create?.fields ?? []));
  const [failure, setFailure] = useState<Error | null>(null);
  const [shown, setShown] = useState<ReactNode>(null);
  const [removing, setRemoving] = useState<T | null>(null);
  const [formOpen, setFormOpen] = useState(false);
  const paramError = (param: string) => (failure instanceof ApiFailure ? failure.forParam(param) : undefined);

  const act = async (work: () => Promise<unknown>, after: (answer: unknown) => void) => {
    setFailure(null);
    setShown(null);
    try {
      after(await work());
    } catch (error) {
      setFailure(error instanceof Error ? error : new Error(String(error)));
    } finally {
      void queryClient.invalidateQueries({ queryKey: spec.queryKey });
    }
  };
  const create = spec.create;

  return (
    <Stack hasGutter>
      {failure && !(failure instanceof ApiFailure && failure.problems.some((p) => p.param && p.param in values)) && (
        <Alert isInline variant="danger" title="Refused" data-testid="collection-error">
          {failure.message}
        </Alert>
      )}
      {shown}
      {create && spec.mayChange && (
        <ExpandableSection
          toggleText={`Add to ${spec.title.toLowerCase()}`}
          isExpanded={formOpen}
          onToggle={(_event, open) => setFormOpen(open)}
        >
          <Form
            onSubmit={(event) => {
              event.preventDefault();
              void act(
                () => create.submit(toParams(create.fields, values)),
                (answer) => {
                  setValues(initialValues(create.fields));
                  setFormOpen(false);
                  setShown(create.shown?.(answer) ?? null);
                },
              );
            }}
          >
            <SpecFields fields={create.fields} values={values} setValues={setValues} error={paramError} />
            <ActionGroup>
              <Button type="submit" variant="primary">
                Add
              </Button>
            </ActionGroup>
          </Form>
        </ExpandableSection>
      )}
      {rows.isError && <Alert isInline variant="danger" title={rows.error.message} data-testid="list-error" />}
      <RowList
        label={spec.title}
        testId={`list-${spec.title.toLowerCase().replace(/\W+/g, '-')}`}
        state={rows.status}
        headers={spec.columns.map(([header]) => header)}
        rows={(rows.data ?? []).map((row) => ({
          key: spec.key(row),
          cells: spec.columns.map(([, cell]) => cell(row)),
          actions:
            spec.remove && spec.mayChange ? (
              <Button variant="link" isDanger size="sm" onClick={() => setRemoving(row)} aria-label={`Remove ${spec.key(row)}`}>
                Remove
              </Button>
            ) : undefined,
        }))}
      />
      {removing !== null && spec.remove && (
        <Confirm
          title={`Remove ${spec.key(removing)}?`}
          action="Remove"
          onCancel={() => setRemoving(null)}
          onConfirm={() => {
            const row = removing;
            setRemoving(null);
            void act(
              () => spec.remove?.(row) ?? Promise.resolve(),
              () => undefined,
            );
          }}
        >
          {`${spec.key(removing)} is removed from ${spec.title.toLowerCase()}.`}
        </Confirm>
      )}
    </Stack>
  );
}
