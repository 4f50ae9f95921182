import type { ReactNode } from 'react';
import { FormGroup, FormHelperText, FormSelect, FormSelectOption, HelperText, HelperTextItem, TextInput } from '@patternfly/react-core';

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

/** What every field has: its parameter's id, its label and value, and the API's message about it or a hint. */
interface FieldProps {
  readonly id: string;
  readonly label: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly error?: string | undefined;
  readonly isRequired?: boolean;
  readonly hint?: ReactNode;
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
}: FieldProps & { readonly type?: 'text' | 'password' | 'number'; readonly autoComplete?: string }) {
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

/** A choice among options, with its label, and the API's message about its parameter beneath (or a hint). */
export function SelectField({
  id,
  label,
  value,
  onChange,
  options,
  error,
  isRequired = false,
  hint,
}: FieldProps & { readonly options: readonly { readonly value: string; readonly label: string }[] }) {
  return (
    <FormGroup label={label} isRequired={isRequired} fieldId={id}>
      <FormSelect id={id} value={value} onChange={(_event, chosen) => onChange(chosen)} validated={error ? 'error' : 'default'}>
        {options.map((option) => (
          <FormSelectOption key={option.value} value={option.value} label={option.label} />
        ))}
      </FormSelect>
      <ParamHelp message={error} hint={hint} />
    </FormGroup>
  );
}
