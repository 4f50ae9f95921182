import type { RuntimeReports } from '../src/reports/runtime-reports.js';

/** Runtime reports nobody reads: the guest commands' refresh and making, doing nothing but the operation. */
export const UNREAD_RUNTIME: Pick<RuntimeReports, 'refresh' | 'making'> = {
  refresh: async () => undefined,
  making: (_vmid, operation) => operation(),
};
