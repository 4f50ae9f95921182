export { CalendarEventError, parseCalendarEvent, type CalendarEvent } from './calendar-event.js';
export { nextRun } from './next-run.js';
export { markBackupsForPrune, type PrunableBackup, type PruneMark } from './prune.js';
export { formatPruneOptions, KEEP_RULES, parsePruneOptions, PruneOptionsError, validatePruneOptions, type KeepRule, type PruneOptions } from './prune-options.js';
