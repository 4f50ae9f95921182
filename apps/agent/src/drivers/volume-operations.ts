import type { ParamsOf } from '@corral/protocol';
import type { CommandContext } from './command-context.js';

/**
 * The volumes of a guest that exists (the guest.volume.* commands): made, removed, grown and
 * moved on this host, while the control plane changes the guest's config around them.
 */
export interface VolumeOperations {
  allocate(params: ParamsOf<'guest.volume.allocate'>, context: CommandContext): Promise<void>;
  free(params: ParamsOf<'guest.volume.free'>, context: CommandContext): Promise<void>;
  resize(params: ParamsOf<'guest.volume.resize'>, context: CommandContext): Promise<void>;
  move(params: ParamsOf<'guest.volume.move'>, context: CommandContext): Promise<void>;
}
