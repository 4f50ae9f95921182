import { ALL_EVENT_KINDS, type EventKind } from '@corral/pve-formats/cluster-event-kinds';

/*
 * PVE's matcher rules (proxmox-notify's matcher) on Corral's events
 * (docs/webhooks.md "Matchers"): `exact:<field>=<v1>,<v2>` and `regex:<field>=<re>` on the fields
 * `type` (the event kind), `node` (PVE's `hostname` too), `vmid` and `pool`, and severities.
 */

export const MATCH_FIELDS = ['type', 'node', 'vmid', 'pool'] as const;
type MatchField = (typeof MATCH_FIELDS)[number];

export const SEVERITIES = ['info', 'notice', 'warning', 'error', 'unknown'] as const;
export type Severity = (typeof SEVERITIES)[number];

export class MatchRuleError extends Error {
  override name = 'MatchRuleError';
}

export type FieldRule =
  | { readonly kind: 'exact'; readonly field: MatchField; readonly values: readonly string[] }
  | { readonly kind: 'regex'; readonly field: MatchField; readonly pattern: RegExp };

/** What a matcher sees of an event; `vmid` and `pool` are absent for node events and guests outside pools. */
export interface EventFields {
  readonly type: EventKind;
  readonly node: string;
  readonly vmid?: string;
  readonly pool?: string;
  readonly severity: Severity;
}

/** A matcher's rules, parsed. */
export interface MatcherRules {
  readonly fields: readonly FieldRule[];
  /** One list of severities per `match-severity` item. */
  readonly severities: readonly (readonly Severity[])[];
  readonly mode: 'all' | 'any';
  readonly invert: boolean;
}

/** One `match-field` item; throws a MatchRuleError saying what is wrong with it. */
export function parseFieldRule(text: string): FieldRule {
  const parsed = /^(exact|regex):([A-Za-z0-9_-]+)=(.*)$/s.exec(text);
  if (!parsed) throw new MatchRuleError(`'${text}' is not exact:<field>=<value>[,<value>...] or regex:<field>=<regex>`);
  const [, kind, name = '', value = ''] = parsed;
  // PVE's events name the node `hostname`.
  const field = name === 'hostname' ? 'node' : name;
  if (!isMatchField(field)) throw new MatchRuleError(`unknown field '${name}': Corral's events have ${MATCH_FIELDS.join(', ')}`);
  if (kind === 'regex') {
    try {
      return { kind, field, pattern: new RegExp(value, 'u') };
    } catch (error) {
      throw new MatchRuleError(`'${value}' is no regular expression: ${(error as Error).message}`);
    }
  }
  const values = value.split(',').map((item) => item.trim());
  const bad = values.find((item) => !validExact(field, item));
  if (bad !== undefined)
    throw new MatchRuleError(
      field === 'type' ? `unknown event type '${bad}': the types are ${ALL_EVENT_KINDS.join(', ')}` : `'${bad}' is no ${field}`,
    );
  return { kind: 'exact', field, values };
}

/** One `match-severity` item: severities separated by commas. */
export function parseSeverityRule(text: string): Severity[] {
  const items = text.split(',').map((item) => item.trim());
  const bad = items.find((item) => !(SEVERITIES as readonly string[]).includes(item));
  if (bad !== undefined) throw new MatchRuleError(`unknown severity '${bad}': the severities are ${SEVERITIES.join(', ')}`);
  return items as Severity[];
}

/**
 * Whether the matcher selects the event, as proxmox-notify decides: each group of rules (severity,
 * field) combined by `mode`, starting from true for `all` and false for `any`; then `invert`.
 * So a matcher without rules matches everything in mode `all` and nothing in mode `any`.
 */
export function matches(rules: MatcherRules, event: EventFields): boolean {
  const combine = (results: readonly boolean[]) => (rules.mode === 'all' ? results.every(Boolean) : results.some(Boolean));
  const groups: boolean[] = [];
  if (rules.severities.length > 0) groups.push(combine(rules.severities.map((severities) => severities.includes(event.severity))));
  if (rules.fields.length > 0) groups.push(combine(rules.fields.map((rule) => fieldMatches(rule, event))));
  return combine(groups) !== rules.invert;
}

/** The severity of an event kind, as a notification system would rank it: a node lost, a guest HA gave up on or a backup that failed is an error; a fence or a recovery is a warning. */
export function severityOf(kind: EventKind, details: Readonly<Record<string, unknown>>): Severity {
  if (kind === 'node-down' || kind === 'ha-error') return 'error';
  if (kind === 'ha-fence' || kind === 'ha-recover') return 'warning';
  if (kind === 'backup-end' && details['status'] === 'error') return 'error';
  return 'info';
}

function fieldMatches(rule: FieldRule, event: EventFields): boolean {
  const value = event[rule.field];
  if (value === undefined) return false;
  return rule.kind === 'exact' ? rule.values.includes(value) : rule.pattern.test(value);
}

function isMatchField(name: string): name is MatchField {
  return (MATCH_FIELDS as readonly string[]).includes(name);
}

function validExact(field: MatchField, value: string): boolean {
  if (field === 'type') return (ALL_EVENT_KINDS as readonly string[]).includes(value);
  if (field === 'vmid') return /^[1-9][0-9]{2,8}$/.test(value);
  return value !== '';
}

/** A stored matcher's rules, parsed (they were checked when written). */
export function rulesOf(matcher: {
  readonly matchField: readonly string[];
  readonly matchSeverity: readonly string[];
  readonly mode: 'all' | 'any';
  readonly invertMatch: boolean;
}): MatcherRules {
  return {
    fields: matcher.matchField.map(parseFieldRule),
    severities: matcher.matchSeverity.map(parseSeverityRule),
    mode: matcher.mode,
    invert: matcher.invertMatch,
  };
}
