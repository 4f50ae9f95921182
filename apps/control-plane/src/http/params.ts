import { z } from 'zod';

/**
 * Parameter schemas that decode what real clients send: form values arrive as strings,
 * booleans as 0/1 (JSON true/false too), integers as text, and a repeated key as a list.
 * Path, query and body parameters share one namespace, as in PVE.
 */

const INTEGER_TEXT = /^-?\d+$/;

function show(value: unknown): string {
  return Array.isArray(value) ? 'a list (the key was given more than once)' : `'${String(value)}'`;
}

export function stringParam(options: {
  description: string;
  minLength?: number;
  maxLength?: number;
  pattern?: RegExp;
  patternHint?: string;
}) {
  let schema = z.string({ error: (issue) => `expected a string, got ${show(issue.input)}` });
  if (options.minLength !== undefined) schema = schema.min(options.minLength, `must be at least ${options.minLength} characters`);
  if (options.maxLength !== undefined) schema = schema.max(options.maxLength, `must be at most ${options.maxLength} characters`);
  if (options.pattern) schema = schema.regex(options.pattern, options.patternHint ?? `must match ${options.pattern.source}`);
  return schema.meta({ description: options.description });
}

export function integerParam(options: { description: string; min?: number; max?: number }) {
  const notInteger = (issue: { input?: unknown }) => `expected an integer, got ${show(issue.input)}`;
  let schema = z.number({ error: notInteger }).int({ error: notInteger });
  if (options.min !== undefined) schema = schema.min(options.min, `must be at least ${options.min}`);
  if (options.max !== undefined) schema = schema.max(options.max, `must be at most ${options.max}`);
  return z
    .preprocess((value) => (typeof value === 'string' && INTEGER_TEXT.test(value) ? Number(value) : value), schema)
    .meta({ description: options.description, type: 'integer', ...bounds(options) });
}

export function booleanParam(options: { description: string }) {
  return z
    .preprocess(
      (value) => (value === 1 || value === '1' ? true : value === 0 || value === '0' ? false : value),
      z.boolean({ error: (issue) => `expected a boolean (0 or 1), got ${show(issue.input)}` }),
    )
    .meta({ description: options.description, type: ['boolean', 'integer'], enum: [true, false, 0, 1] });
}

/** A list: repeated keys in a form or query, a JSON array, or a single value. */
export function listParam<T extends z.ZodType>(item: T, options: { description: string }) {
  return z
    .preprocess((value) => (value === undefined || Array.isArray(value) ? value : [value]), z.array(item))
    .meta({ description: options.description });
}

function bounds(options: { min?: number; max?: number }): { minimum?: number; maximum?: number } {
  return {
    ...(options.min !== undefined ? { minimum: options.min } : {}),
    ...(options.max !== undefined ? { maximum: options.max } : {}),
  };
}

/** A list given as a comma (or space, semicolon) separated string, repeated keys, or a JSON array: PVE's `-list` formats. */
export function commaListParam<T extends z.ZodType>(item: T, description: string) {
  return z
    .preprocess(
      (value) => (Array.isArray(value) ? value.flatMap(split) : typeof value === 'string' ? split(value) : value),
      listParam(item, { description }),
    )
    .meta({ description });
}

function split(value: unknown): unknown[] {
  return typeof value === 'string' ? value.split(/[,;\s]+/).filter(Boolean) : [value];
}

/** One of `values`; anything else is refused naming the values. */
export function enumParam<const T extends readonly [string, ...string[]]>(values: T, description: string) {
  return z.enum(values, { error: (issue) => `value '${String(issue.input)}' is not one of ${values.join(', ')}` }).meta({ description });
}

/** PVE's `pve-configid`: the form of a configuration entry's name. */
export const configIdParam = (description: string) =>
  stringParam({
    description,
    maxLength: 64,
    pattern: /^[A-Za-z][A-Za-z0-9_-]+$/,
    patternHint: 'must be a letter followed by letters, digits, _ or - (at least 2 characters)',
  });
