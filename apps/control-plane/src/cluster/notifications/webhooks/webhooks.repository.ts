import { Injectable } from '@nestjs/common';
import { DataSource, In, type EntityManager } from 'typeorm';
import { MatcherTargetRow } from '../matchers/matcher-target.entity.js';
import type { NamedValue } from './named-values.js';
import { WebhookSecretRow } from './webhook-secret.entity.js';
import { WebhookRow } from './webhook.entity.js';

/** What a change does to a webhook's secrets: keep them all (undefined), or make them exactly this list, where an item without a value keeps the stored one. */
export type SecretsChange = readonly NamedValue[] | undefined;

/**
 * The notification_webhooks table and the names of their secrets. Secret values are written here
 * but never read: only the sender reads them (DeliveriesRepository.secretsOf).
 */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly dataSource: DataSource) {}

  all(): Promise<WebhookRow[]> {
    return this.dataSource.manager.find(WebhookRow, { order: { name: 'ASC' } });
  }

  find(name: string): Promise<WebhookRow | null> {
    return this.dataSource.manager.findOneBy(WebhookRow, { name });
  }

  /** Each webhook's secret names, sorted. */
  async secretNames(webhooks: readonly string[]): Promise<Map<string, string[]>> {
    const rows = await this.dataSource.manager.find(WebhookSecretRow, {
      select: { webhook: true, name: true },
      where: { webhook: In([...webhooks]) },
      order: { name: 'ASC' },
    });
    const names = new Map<string, string[]>();
    for (const row of rows) names.set(row.webhook, [...(names.get(row.webhook) ?? []), row.name]);
    return names;
  }

  /** A new webhook and its secrets (each with a value); one of that name is a unique violation. */
  insert(webhook: WebhookRow, secrets: readonly NamedValue[]): Promise<void> {
    return this.dataSource.transaction(async (db) => {
      await db.insert(WebhookRow, webhook);
      await this.writeSecrets(db, webhook.name, secrets);
    });
  }

  /**
   * Changes a webhook in one transaction, its row locked meanwhile: `change` gets the current row
   * (null: there is none) and its secret names, and returns the row to save and what to do to its
   * secrets.
   */
  update(
    name: string,
    change: (current: WebhookRow | null, secretNames: readonly string[]) => { row: WebhookRow; secrets: SecretsChange },
  ): Promise<void> {
    return this.dataSource.transaction(async (db) => {
      const current = await db.findOne(WebhookRow, { where: { name }, lock: { mode: 'pessimistic_write' } });
      const names = (await db.find(WebhookSecretRow, { select: { name: true }, where: { webhook: name } })).map((row) => row.name);
      const next = change(current, names);
      await db.save(WebhookRow, next.row);
      if (next.secrets === undefined) return;
      const kept = next.secrets.map((secret) => secret.name);
      await db
        .createQueryBuilder()
        .delete()
        .from(WebhookSecretRow)
        .where('webhook = :name', { name })
        .andWhere(kept.length > 0 ? 'name NOT IN (:...kept)' : 'TRUE', { kept })
        .execute();
      await this.writeSecrets(db, name, next.secrets);
    });
  }

  /** Deletes a webhook (its secrets and deliveries go with it); false when there was none. A matcher that names it makes this a foreign-key violation. */
  async remove(name: string): Promise<boolean> {
    const result = await this.dataSource.manager.delete(WebhookRow, { name });
    return (result.affected ?? 0) > 0;
  }

  /** The matchers that name the target. */
  async matchersOf(target: string): Promise<string[]> {
    return (await this.dataSource.manager.find(MatcherTargetRow, { where: { target }, order: { matcher: 'ASC' } })).map(
      (row) => row.matcher,
    );
  }

  /** Sets the secrets that carry a value; those without one are left as stored. */
  private async writeSecrets(db: EntityManager, webhook: string, secrets: readonly NamedValue[]): Promise<void> {
    const values = secrets.flatMap((secret) => (secret.base64 === undefined ? [] : [{ webhook, name: secret.name, value: secret.base64 }]));
    if (values.length > 0) await db.upsert(WebhookSecretRow, values, ['webhook', 'name']);
  }
}
