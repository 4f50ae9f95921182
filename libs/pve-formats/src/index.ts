export { CalendarEventError, parseCalendarEvent, type CalendarEvent } from './calendar-event.js';
export { configDigest } from './config-digest.js';
export {
  DISK,
  formatLxcNic,
  formatQemuNic,
  formatVolume,
  parseDisk,
  parseLxcNic,
  parseMount,
  parseQemuNic,
  type VolumeValue,
} from './devices.js';
export { inAllocationOrder, newVolumeLayout } from './efi-tpm-volumes.js';
export { isMountKey, LXC_KEYS, UNSUPPORTED_LXC_KEYS } from './lxc-keys.js';
export { nextRun } from './next-run.js';
export { parseProperties, PropertyStringError } from './property-string.js';
export { markBackupsForPrune, type PrunableBackup, type PruneMark } from './prune.js';
export {
  formatPruneOptions,
  KEEP_RULES,
  parsePruneOptions,
  PruneOptionsError,
  validatePruneOptions,
  type KeepRule,
  type PruneOptions,
} from './prune-options.js';
export { isDiskKey, isNicKey, isQemuVolumeKey, QEMU_KEYS, ROOT_ONLY_KEYS, UNSUPPORTED_QEMU_KEYS } from './qemu-keys.js';
export { sha512Crypt } from './sha512-crypt.js';
export { formatSize, parseSize } from './size.js';
export { freeUnusedKey, isUnusedKey } from './unused-keys.js';
export { DNS_NAME, flag, parseItems, ValueError, type ValueRule, type WireType } from './value-rules.js';
