import type { ValueTransformer } from 'typeorm';

/** `bigint` columns whose values stay below 2^53 (epoch seconds, sequence numbers): pg returns them as text. */
export const BIGINT_NUMBER: ValueTransformer = {
  to: (value: number) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
