import { Checkbox } from '@patternfly/react-core';
import type { Params } from '../api/client';
import { SelectField, TextField } from './form-field';

/** A field of a form, named as the API parameter it fills. */
export type FieldSpec =
  | {
      readonly param: string;
      readonly label: string;
      readonly kind: 'text' | 'password';
      readonly isRequired?: boolean;
      readonly hint?: string;
      readonly initial?: string;
    }
  | {
      readonly param: string;
      readonly label: string;
      readonly kind: 'select';
      readonly options: readonly { value: string; label: string }[];
    }
  | { readonly param: string; readonly label: string; readonly kind: 'checkbox'; readonly initial: boolean };

export type Values = Record<string, string | boolean>;

/** A form's fields from their specs, each with the API's message about its parameter. */
export function SpecFields({
  fields,
  values,
  setValues,
  error,
}: {
  readonly fields: readonly FieldSpec[];
  readonly values: Values;
  readonly setValues: (change: (before: Values) => Values) => void;
  readonly error: (param: string) => string | undefined;
}) {
  return fields.map((field) => {
    const set = (value: string | boolean) => setValues((before) => ({ ...before, [field.param]: value }));
    const value = values[field.param];
    if (field.kind === 'checkbox')
      return (
        <Checkbox
          key={field.param}
          id={field.param}
          label={field.label}
          isChecked={value === true}
          onChange={(_e, checked) => set(checked)}
        />
      );
    if (field.kind === 'select')
      return (
        <SelectField
          key={field.param}
          id={field.param}
          label={field.label}
          value={String(value)}
          onChange={set}
          options={field.options}
          error={error(field.param)}
        />
      );
    return (
      <TextField
        key={field.param}
        id={field.param}
        label={field.label}
        type={field.kind}
        value={String(value)}
        onChange={set}
        error={error(field.param)}
        isRequired={field.isRequired ?? false}
        hint={field.hint}
      />
    );
  });
}

export function initialValues(fields: readonly FieldSpec[]): Values {
  return Object.fromEntries(
    fields.map((field) => [
      field.param,
      field.kind === 'checkbox' ? field.initial : field.kind === 'select' ? (field.options[0]?.value ?? '') : (field.initial ?? ''),
    ]),
  );
}

/** Empty text is left out: the API's default applies. */
export function toParams(values: Values): Params {
  return Object.fromEntries(Object.entries(values).map(([param, value]) => [param, value === '' ? undefined : value]));
}
