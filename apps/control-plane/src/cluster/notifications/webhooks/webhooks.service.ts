import { Injectable } from '@nestjs/common';
import { literalHost } from '@corral/outbound-address';
import { ApiError } from '../../../errors/api-error.js';
import { alreadyExists, badParam, isForeignKeyViolation, isUniqueViolation, notFound } from '../../../errors/resource-errors.js';
import type { ParamsOf } from '../../../http/endpoint.js';
import { localAddressReason } from '../delivery/address-policy.js';
import { checkDigest, entryDigest, flag } from '../../../http/entry-changes.js';
import { HeaderTemplateError, referencedSecrets } from './header-templates.js';
import { headerString, parseNamedValue, secretString, type NamedValue } from './named-values.js';
import type { WebhookHeader, WebhookRow } from './webhook.entity.js';
import type { TargetEntry, WebhookEndpoints, WebhookEntry } from './webhooks.endpoints.js';
import { WebhooksRepository, type SecretsChange } from './webhooks.repository.js';

type CreateParams = ParamsOf<WebhookEndpoints['create']>;
type UpdateParams = ParamsOf<WebhookEndpoints['update']>;

const DEFAULT_TIMEOUT_S = 10;

/**
 * The webhook targets of `/cluster/notifications/endpoints/webhook`.
 * Secrets are write-only: reads show their names. A URL whose host is a loopback, link-local or
 * metadata address is refused unless `allow-local` is set; host names are checked when a
 * request is sent (delivery/webhook-request.ts).
 */
@Injectable()
export class WebhooksService {
  constructor(private readonly repository: WebhooksRepository) {}

  async list(): Promise<WebhookEntry[]> {
    const webhooks = await this.repository.all();
    const secrets = await this.repository.secretNames(webhooks.map((webhook) => webhook.name));
    return webhooks.map((webhook) => entryOf(webhook, secrets.get(webhook.name) ?? []));
  }

  async get(name: string): Promise<WebhookEntry & { digest: string }> {
    const webhook = await this.repository.find(name);
    if (!webhook) throw missing(name);
    const entry = entryOf(webhook, (await this.repository.secretNames([name])).get(name) ?? []);
    return { ...entry, digest: entryDigest(entry) };
  }

  async targets(): Promise<TargetEntry[]> {
    return (await this.repository.all()).map((webhook) => ({
      name: webhook.name,
      type: 'webhook' as const,
      ...(webhook.comment !== null ? { comment: webhook.comment } : {}),
      ...flag('disable', webhook.disable),
      origin: 'user-created' as const,
    }));
  }

  async create(params: CreateParams): Promise<void> {
    const secrets = namedValues(params.secret ?? [], 'secret');
    const unset = secrets.find((secret) => secret.base64 === undefined);
    if (unset !== undefined) throw badParam('secret', `secret '${unset.name}' has no value`);
    const webhook: WebhookRow = {
      name: params.name,
      url: params.url,
      headers: headersOf(
        namedValues(params.header ?? [], 'header'),
        secrets.map((secret) => secret.name),
      ),
      comment: params.comment || null,
      disable: params.disable ?? false,
      allowLocal: params['allow-local'] ?? false,
      timeout: params.timeout ?? DEFAULT_TIMEOUT_S,
    };
    checkAddress(webhook);
    try {
      await this.repository.insert(webhook, secrets);
    } catch (error) {
      if (isUniqueViolation(error)) throw alreadyExists(`webhook '${params.name}'`);
      throw error;
    }
  }

  /** Sets what is given and resets what `delete` names; a `header` or `secret` list replaces the stored one. */
  async update(params: UpdateParams): Promise<void> {
    const { name, delete: deleted = [], digest } = params;
    const both = deleted.find((key) => params[key] !== undefined);
    if (both !== undefined) throw badParam('delete', `cannot set and delete '${both}' at once`);
    await this.repository.update(name, (current, storedSecrets) => {
      if (!current) throw missing(name);
      checkDigest(entryDigest(entryOf(current, storedSecrets)), digest);
      const secrets: SecretsChange = deleted.includes('secret') ? [] : params.secret && namedValues(params.secret, 'secret');
      const unset = secrets?.find((secret) => secret.base64 === undefined && !storedSecrets.includes(secret.name));
      if (unset !== undefined) throw badParam('secret', `secret '${unset.name}' has no value, and the webhook has no such secret to keep`);
      const secretNames = secrets?.map((secret) => secret.name) ?? storedSecrets;
      const headers = deleted.includes('header')
        ? []
        : params.header !== undefined
          ? headersOf(namedValues(params.header, 'header'), secretNames)
          : current.headers;
      // Headers kept as they were must not refer to a secret this change removes.
      if (params.header === undefined) checkReferences(headers, secretNames);
      const row: WebhookRow = {
        ...current,
        url: params.url ?? current.url,
        headers,
        comment: deleted.includes('comment') ? null : params.comment !== undefined ? params.comment || null : current.comment,
        disable: deleted.includes('disable') ? false : (params.disable ?? current.disable),
        allowLocal: deleted.includes('allow-local') ? false : (params['allow-local'] ?? current.allowLocal),
        timeout: deleted.includes('timeout') ? DEFAULT_TIMEOUT_S : (params.timeout ?? current.timeout),
      };
      checkAddress(row);
      return { row, secrets };
    });
  }

  /** Refused (409) while a matcher names it, as PVE refuses to delete a target in use. */
  async remove(name: string): Promise<void> {
    try {
      if (!(await this.repository.remove(name))) throw missing(name);
    } catch (error) {
      if (!isForeignKeyViolation(error)) throw error;
      const matchers = await this.repository.matchersOf(name);
      throw new ApiError(
        'IN_USE',
        `webhook '${name}' is a target of matcher${matchers.length === 1 ? '' : 's'} ${matchers.map((m) => `'${m}'`).join(', ')}: remove it from them first`,
      );
    }
  }
}

/** The webhook as PVE shows it: headers with their values, secrets by name. */
function entryOf(webhook: WebhookRow, secretNames: readonly string[]): WebhookEntry {
  return {
    name: webhook.name,
    url: webhook.url,
    method: 'post',
    ...(webhook.headers.length > 0 ? { header: webhook.headers.map((header) => headerString(header.name, header.value)) } : {}),
    ...(secretNames.length > 0 ? { secret: secretNames.map(secretString) } : {}),
    ...(webhook.comment !== null ? { comment: webhook.comment } : {}),
    ...flag('disable', webhook.disable),
    ...flag('allow-local', webhook.allowLocal),
    timeout: webhook.timeout,
    origin: 'user-created',
  };
}

function namedValues(items: readonly string[], kind: 'header' | 'secret'): NamedValue[] {
  return items.map((text) => parseNamedValue(text, kind));
}

/** The headers' values decoded, each checked for what it may hold and the secrets it refers to. */
function headersOf(given: readonly NamedValue[], secretNames: readonly string[]): WebhookHeader[] {
  const headers = given.map((header) => ({ name: header.name, value: Buffer.from(header.base64 ?? '', 'base64').toString('utf8') }));
  checkReferences(headers, secretNames);
  return headers;
}

function checkReferences(headers: readonly WebhookHeader[], secretNames: readonly string[]): void {
  for (const header of headers) {
    let references: string[];
    try {
      references = referencedSecrets(header.value);
    } catch (error) {
      if (error instanceof HeaderTemplateError) throw badParam('header', `header '${header.name}' ${error.message}`);
      throw error;
    }
    const absent = references.find((secret) => !secretNames.includes(secret));
    if (absent !== undefined)
      throw badParam('header', `header '${header.name}' refers to secret '${absent}', which the webhook does not have`);
  }
}

/** A URL that names a refused address outright is a 400 now rather than a failed delivery later. */
function checkAddress(webhook: WebhookRow): void {
  const host = literalHost(new URL(webhook.url));
  const reason = host !== null && !webhook.allowLocal ? localAddressReason(host) : null;
  if (reason !== null) throw badParam('url', `${host} is ${reason}`);
}

function missing(name: string): ApiError {
  return notFound(`webhook '${name}'`);
}
