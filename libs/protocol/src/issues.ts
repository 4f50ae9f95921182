import type { z } from 'zod';

/**
 * One line naming every field that failed and why (`capabilities[2]: Invalid input: expected
 * string, received number`), for logs and for the close reason or failure message the peer sees.
 */
export function describeIssues(error: z.ZodError, prefix?: string): string {
  return error.issues
    .map((issue) => {
      const path = [prefix, ...issue.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`))]
        .join('')
        .replace(/^\./, '');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}
