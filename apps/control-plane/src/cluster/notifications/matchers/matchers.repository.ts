import { Injectable } from '@nestjs/common';
import { DataSource, In, type EntityManager } from 'typeorm';
import { WebhookRow } from '../webhooks/webhook.entity.js';
import { MatcherTargetRow } from './matcher-target.entity.js';
import { MatcherRow } from './matcher.entity.js';

/** A matcher with the targets it names, sorted. */
export interface Matcher {
  readonly row: MatcherRow;
  readonly targets: readonly string[];
}

/** Targets a change names that do not exist. */
export class UnknownTargets extends Error {
  constructor(readonly names: readonly string[]) {
    super(`unknown targets ${names.join(', ')}`);
    this.name = 'UnknownTargets';
  }
}

/** The notification_matchers table and the targets each names. */
@Injectable()
export class MatchersRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Every matcher, read in one transaction so that rows and targets agree; `db` reads in the caller's. */
  async all(db: EntityManager = this.dataSource.manager): Promise<Matcher[]> {
    const rows = await db.find(MatcherRow, { order: { name: 'ASC' } });
    const targets = await db.find(MatcherTargetRow, { order: { target: 'ASC' } });
    return rows.map((row) => ({ row, targets: targets.filter((target) => target.matcher === row.name).map((target) => target.target) }));
  }

  async find(name: string): Promise<Matcher | null> {
    const row = await this.dataSource.manager.findOneBy(MatcherRow, { name });
    return row && { row, targets: await this.targetsOf(this.dataSource.manager, name) };
  }

  /** A new matcher; one of that name is a unique violation, a target that does not exist an UnknownTargets. */
  insert(row: MatcherRow, targets: readonly string[]): Promise<void> {
    return this.dataSource.transaction(async (db) => {
      await db.insert(MatcherRow, row);
      await this.writeTargets(db, row.name, targets);
    });
  }

  /**
   * Changes a matcher in one transaction, its row locked meanwhile: `change` gets the current one
   * (null: there is none) and returns the row to save and its targets (undefined: unchanged).
   */
  update(name: string, change: (current: Matcher | null) => { row: MatcherRow; targets: readonly string[] | undefined }): Promise<void> {
    return this.dataSource.transaction(async (db) => {
      const row = await db.findOne(MatcherRow, { where: { name }, lock: { mode: 'pessimistic_write' } });
      const next = change(row && { row, targets: await this.targetsOf(db, name) });
      await db.save(MatcherRow, next.row);
      if (next.targets === undefined) return;
      await db.delete(MatcherTargetRow, { matcher: name });
      await this.writeTargets(db, name, next.targets);
    });
  }

  async remove(name: string): Promise<boolean> {
    const result = await this.dataSource.manager.delete(MatcherRow, { name });
    return (result.affected ?? 0) > 0;
  }

  private async targetsOf(db: EntityManager, matcher: string): Promise<string[]> {
    return (await db.find(MatcherTargetRow, { where: { matcher }, order: { target: 'ASC' } })).map((row) => row.target);
  }

  /**
   * The targets, each locked against deletion until commit (FOR KEY SHARE, which the foreign key
   * would take too), so that the 400 can name every one missing.
   */
  private async writeTargets(db: EntityManager, matcher: string, targets: readonly string[]): Promise<void> {
    const names = [...new Set(targets)];
    if (names.length === 0) return;
    const found = await db.find(WebhookRow, { select: { name: true }, where: { name: In(names) }, lock: { mode: 'for_key_share' } });
    const missing = names.filter((name) => !found.some((webhook) => webhook.name === name));
    if (missing.length > 0) throw new UnknownTargets(missing);
    await db.insert(
      MatcherTargetRow,
      names.map((target) => ({ matcher, target })),
    );
  }
}
