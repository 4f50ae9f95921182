import type { Params } from '../api/client';

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

/** A form's values before anything is typed: each field's initial value, a select's first option. */
export function initialValues(fields: readonly FieldSpec[]): Values {
  return Object.fromEntries(
    fields.map((field) => [
      field.param,
      field.kind === 'checkbox' ? field.initial : field.kind === 'select' ? (field.options[0]?.value ?? '') : (field.initial ?? ''),
    ]),
  );
}

/** The form's parameters; empty text is left out, so the API's default applies. */
export function toParams(fields: readonly FieldSpec[], values: Values): Params {
  return Object.fromEntries(
    fields.map((field) => {
      const value = field.kind === 'select' ? chosen(field.options, values[field.param]) : values[field.param];
      return [field.param, value === '' ? undefined : value];
    }),
  );
}

/**
 * A select shows its first option while its value is none of them (its options were read after
 * the form opened): that option is what it sends.
 */
function chosen(options: readonly { readonly value: string }[], value: string | boolean | undefined): string {
  return options.some((option) => option.value === value) ? String(value) : (options[0]?.value ?? '');
}
