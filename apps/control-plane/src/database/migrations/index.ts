import type { MigrationInterface } from 'typeorm';

/**
 * Every migration, in order: one per schema change, committed with the entity change and never
 * edited after it lands. `<timestamp>-<kebab-description>.ts`, class `<Pascal><timestamp>`.
 */
export const MIGRATIONS: readonly (new () => MigrationInterface)[] = [];
