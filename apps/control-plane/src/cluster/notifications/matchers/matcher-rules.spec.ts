import {
  matches,
  MatchRuleError,
  parseFieldRule,
  parseSeverityRule,
  severityOf,
  type EventFields,
  type MatcherRules,
} from './matcher-rules.js';

const VM_START: EventFields = { type: 'vm-start', node: 'pve1', vmid: '100', pool: 'prod', severity: 'info' };
const NODE_DOWN: EventFields = { type: 'node-down', node: 'pve2', severity: 'error' };

const rules = (fields: string[], options: { mode?: MatcherRules['mode']; invert?: boolean; severities?: string[] } = {}): MatcherRules => ({
  fields: fields.map(parseFieldRule),
  severities: (options.severities ?? []).map(parseSeverityRule),
  mode: options.mode ?? 'all',
  invert: options.invert ?? false,
});

describe("matchers' rules, as proxmox-notify evaluates them", () => {
  it('matches exact values of a field, any of them', () => {
    expect(matches(rules(['exact:type=vm-start,vm-stop']), VM_START)).toBe(true);
    expect(matches(rules(['exact:type=vm-stop']), VM_START)).toBe(false);
    expect(matches(rules(['exact:vmid=100', 'exact:pool=prod', 'exact:hostname=pve1']), VM_START)).toBe(true);
  });

  it('matches a regular expression anywhere in the value', () => {
    expect(matches(rules(['regex:node=^pve[0-9]$']), NODE_DOWN)).toBe(true);
    expect(matches(rules(['regex:type=^ct-']), VM_START)).toBe(false);
  });

  it('never matches a field the event does not have', () => {
    expect(matches(rules(['exact:vmid=100']), NODE_DOWN)).toBe(false);
    expect(matches(rules(['regex:pool=.*']), NODE_DOWN)).toBe(false);
  });

  it('combines rules with mode all or any, then inverts', () => {
    expect(matches(rules(['exact:type=vm-start', 'exact:node=pve9']), VM_START)).toBe(false);
    expect(matches(rules(['exact:type=vm-start', 'exact:node=pve9'], { mode: 'any' }), VM_START)).toBe(true);
    expect(matches(rules(['exact:type=vm-start'], { invert: true }), VM_START)).toBe(false);
    expect(matches(rules(['exact:type=vm-start'], { invert: true }), NODE_DOWN)).toBe(true);
  });

  it('matches everything without rules in mode all, nothing in mode any', () => {
    expect(matches(rules([]), NODE_DOWN)).toBe(true);
    expect(matches(rules([], { mode: 'any' }), NODE_DOWN)).toBe(false);
  });

  it('matches severities, and ranks node-down and failed backups as errors', () => {
    expect(matches(rules([], { severities: ['warning,error'] }), NODE_DOWN)).toBe(true);
    expect(matches(rules(['exact:type=vm-start'], { severities: ['error'] }), VM_START)).toBe(false);
    expect([
      severityOf('node-down', {}),
      severityOf('backup-end', { status: 'error' }),
      severityOf('backup-end', { status: 'ok' }),
      severityOf('vm-start', {}),
    ]).toEqual(['error', 'error', 'info', 'info']);
    expect([severityOf('ha-error', {}), severityOf('ha-fence', {}), severityOf('ha-recover', {}), severityOf('node-up', {})]).toEqual([
      'error',
      'warning',
      'warning',
      'info',
    ]);
  });

  it.each([
    ['exact:type=vm-start,bogus', "unknown event type 'bogus'"],
    ['exact:flavor=x', "unknown field 'flavor'"],
    ['regex:node=(', 'is no regular expression'],
    ['node=pve1', 'is not exact:<field>=<value>'],
    ['exact:vmid=99', "'99' is no vmid"],
    ['exact:node=', "'' is no node"],
  ])('refuses %s', (text, message) => {
    expect(() => parseFieldRule(text)).toThrow(MatchRuleError);
    expect(() => parseFieldRule(text)).toThrow(message);
  });
});
