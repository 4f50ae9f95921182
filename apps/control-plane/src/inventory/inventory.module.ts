import { Module } from '@nestjs/common';
import { GuestView } from './guests/guest-view.js';
import { HaResourcesRepository } from './ha/ha-resources.repository.js';
import { HaView } from './ha/ha-view.js';
import { GuestsRepository } from './guests/guests.repository.js';
import { NodeView } from './nodes/node-view.js';
import { NodesRepository } from './nodes/nodes.repository.js';
import { PoolMembers } from './pools/pool-members.js';
import { StoragesRepository } from './storage/storages.repository.js';
import { StorageView } from './storage/storage-view.js';

/**
 * What many areas read and write of the cluster's inventory: the guests, nodes and storages tables
 * with their in-memory views, the guests' pool memberships, and the HA resources with theirs.
 */
const INVENTORY = [
  GuestView,
  GuestsRepository,
  NodeView,
  NodesRepository,
  StoragesRepository,
  PoolMembers,
  HaResourcesRepository,
  HaView,
  StorageView,
];

@Module({ providers: INVENTORY, exports: INVENTORY })
export class InventoryModule {}
