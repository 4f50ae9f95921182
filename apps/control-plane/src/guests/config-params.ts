import { z } from 'zod';
import { ValueError, type ValueRule } from '@corral/pve-formats';

/**
 * The parameter schemas of config keys: what a client sends (a form's text, JSON's numbers and
 * booleans) is turned into text and checked by the key's rule, and the parameter's value is the
 * rule's normal form. The 400 names the key: `parameter 'net0': has an unknown item 'colour'`.
 */
export function configParam(rule: ValueRule) {
  return z
    .preprocess(
      (value) => (typeof value === 'number' ? String(value) : typeof value === 'boolean' ? (value ? '1' : '0') : value),
      z.string({ error: 'expected a string' }).transform((value, context) => {
        try {
          return rule.parse(value);
        } catch (error) {
          if (!(error instanceof ValueError)) throw error;
          context.addIssue({ code: 'custom', message: error.message });
          return z.NEVER;
        }
      }),
    )
    .meta({ description: rule.description, type: 'string' });
}

/** Every key of a rule table as an optional parameter. */
export function configParams(rules: Readonly<Record<string, ValueRule>>) {
  return Object.fromEntries(Object.entries(rules).map(([key, rule]) => [key, configParam(rule).optional()]));
}
