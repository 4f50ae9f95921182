import type { ReactNode } from 'react';
import { FormGroup, FormHelperText, HelperText, HelperTextItem, TextInput } from '@patternfly/react-core';

/** The API's message about one parameter, under its field. */
export function ParamHelp({ message, hint }: { readonly message: string | undefined; readonly hint?: ReactNode }) {
  if (!message && !hint) return null;
  return (
    <FormHelperText>
      <HelperText>
        <HelperTextItem variant={message ? 'error' : 'default'}>{message ?? hint}</HelperTextItem>
      </HelperText>
    </FormHelperText>
  );
}

/** A text field with its label, and the API's message about its parameter beneath (or a hint). */
export function TextField({
  id,
  label,
  value,
  onChange,
  error,
  type = 'text',
  autoComplete,
  isRequired = false,
  hint,
}: {
  readonly id: string;
  readonly label: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly error: string | undefined;
  readonly type?: 'text' | 'password' | 'number';
  readonly autoComplete?: string;
  readonly isRequired?: boolean;
  readonly hint?: ReactNode;
}) {
  return (
    <FormGroup label={label} isRequired={isRequired} fieldId={id}>
      <TextInput
        id={id}
        name={id}
        type={type}
        autoComplete={autoComplete}
        isRequired={isRequired}
        value={value}
        onChange={(_event, text) => onChange(text)}
        validated={error ? 'error' : 'default'}
      />
      <ParamHelp message={error} hint={hint} />
    </FormGroup>
  );
}
