import { Checkbox } from '@patternfly/react-core';
import { SelectField, TextField } from './form-field';
import type { FieldSpec, Values } from './form-values';

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
