import { useState, type ReactNode } from 'react';
import { Alert, Button, Form } from '@patternfly/react-core';
import { ApiFailure, type Params } from '../api/client';
import { Dialog } from './confirm';
import { initialValues, toParams, type FieldSpec, type Values } from './form-values';
import { SpecFields } from './spec-fields';

/**
 * An action that asks for a few parameters first (clone, migrate): a dialog of fields, whose
 * refusals show under the field of the parameter they name, or above the fields.
 */
export function ActionModal({
  title,
  action,
  fields,
  children,
  submit,
  onDone,
  onCancel,
}: {
  readonly title: string;
  readonly action: string;
  readonly fields: readonly FieldSpec[];
  readonly children?: ReactNode;
  readonly submit: (params: Params) => Promise<string | null>;
  /** With the task's UPID where the action is a task. */
  readonly onDone: (upid: string | null) => void;
  readonly onCancel: () => void;
}) {
  const [values, setValues] = useState<Values>(() => initialValues(fields));
  const [failure, setFailure] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const error = (param: string) => (failure instanceof ApiFailure ? failure.forParam(param) : undefined);
  const placed = failure instanceof ApiFailure && failure.problems.every((p) => p.param && fields.some((f) => f.param === p.param));

  const run = async () => {
    setBusy(true);
    setFailure(null);
    try {
      onDone(await submit(toParams(fields, values)));
    } catch (caught) {
      setFailure(caught instanceof Error ? caught : new Error(String(caught)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      title={title}
      onCancel={onCancel}
      actionButton={
        <Button type="submit" form="action-form" variant="primary" isLoading={busy} isDisabled={busy}>
          {action}
        </Button>
      }
    >
      {children}
      {failure && !placed && (
        <Alert isInline variant="danger" title="Refused" data-testid="action-refused">
          {failure.message}
        </Alert>
      )}
      <Form
        id="action-form"
        onSubmit={(event) => {
          event.preventDefault();
          void run();
        }}
      >
        <SpecFields fields={fields} values={values} setValues={setValues} error={error} />
      </Form>
    </Dialog>
  );
}
