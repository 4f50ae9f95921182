/*
 * The running kernel's own file systems. Unlike the host root, they are never under a tree of files
 * the agent manages: guests run on this kernel. Tests of parsing hand in roots of their own.
 */

/** The running kernel's /proc. */
export const PROC_ROOT = '/proc';

/** The running kernel's /sys. */
export const SYS_ROOT = '/sys';
