import { z } from 'zod';
import { PackageName, PackageVersion } from '../fields.js';
import type { CommandDefinition } from '../command-definition.js';

/** A package with a newer version available (PVE's `Package`, `Version`, `OldVersion`, ... in lower camel case). */
export const UpgradablePackage = z.object({
  package: z.string(),
  /** The short description. */
  title: z.string(),
  /** The version an upgrade would install. */
  version: z.string(),
  /** The installed version. */
  oldVersion: z.string(),
  arch: z.string(),
  origin: z.string().optional(),
  priority: z.string().optional(),
  section: z.string().optional(),
  description: z.string().optional(),
});
export type UpgradablePackage = z.infer<typeof UpgradablePackage>;

export const nodeAptUpdate = {
  description: "Refresh the host's package index (apt-get update), streaming its output as log lines.",
  params: z.strictObject({}),
  result: z.null(),
} satisfies CommandDefinition;

export const nodeAptUpgradable = {
  description: 'The installed packages that have a newer version in the package index.',
  params: z.strictObject({}),
  result: z.array(UpgradablePackage),
} satisfies CommandDefinition;

export const nodeAptChangelog = {
  description: "A package's changelog, of the candidate version unless `version` names another.",
  params: z.strictObject({ name: PackageName, version: PackageVersion.optional() }),
  result: z.string(),
} satisfies CommandDefinition;
