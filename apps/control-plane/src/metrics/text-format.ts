/* The Prometheus text format, for the families written as text rather than through prom-client. */

/** A family's `# HELP` and `# TYPE` lines. */
export function header(name: string, help: string, type: 'gauge' | 'counter' | 'histogram' = 'gauge'): string {
  return `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n`;
}

/** A label value as the text format writes it: backslash, double quote and line feed escaped. */
export function escape(value: string): string {
  return value.replace(/[\\"\n]/g, (found) => (found === '\n' ? '\\n' : `\\${found}`));
}
