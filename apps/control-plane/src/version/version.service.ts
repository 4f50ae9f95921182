import { Inject, Injectable } from '@nestjs/common';
import { BUILD_INFO, type BuildInfo } from './build-info.js';
import type { VersionInfo } from './version.endpoints.js';

/**
 * The PVE version reported to clients. Ansible picks feature sets by the major, Telmate splits
 * major.minor.patch, bpg parses a semver; 9.x is the API generation Corral follows.
 */
export const PVE_COMPATIBLE_VERSION = '9.1.0';

/** The commit Corral was built from as PVE's `repoid`: 16 hex digits, zeros when built outside git. */
export function repoidOf(build: BuildInfo): string {
  return (build.commit ?? '').slice(0, 16).padEnd(16, '0');
}

/** PVE's `pveversion` of a node's status: `pve-manager/<version>/<repoid>`. */
export function pveManagerVersion(build: BuildInfo): string {
  return `pve-manager/${PVE_COMPATIBLE_VERSION}/${repoidOf(build)}`;
}

@Injectable()
export class VersionService {
  private readonly current: VersionInfo;

  constructor(@Inject(BUILD_INFO) build: BuildInfo) {
    this.current = Object.freeze({
      version: PVE_COMPATIBLE_VERSION,
      release: PVE_COMPATIBLE_VERSION.split('.').slice(0, 2).join('.'),
      repoid: repoidOf(build),
      'corral-version': build.version,
    });
  }

  info(): VersionInfo {
    return this.current;
  }
}
