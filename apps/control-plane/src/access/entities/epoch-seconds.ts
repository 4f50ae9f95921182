import type { ValueTransformer } from 'typeorm';

/** `bigint` columns holding epoch seconds (PVE's `expire`): pg returns them as text. */
export const EPOCH_SECONDS: ValueTransformer = { to: (value: number) => value, from: (value: string) => Number(value) };
