import { Module } from '@nestjs/common';
import { InventoryModule } from '../inventory/inventory.module.js';
import { ReplicaDirectory } from './replica-directory.js';
import { ReplicaIdentity } from './replica-identity.js';
import { ReplicaPeers } from './replica-peers.js';
import { ReplicasRepository } from './replicas.repository.js';

/** The control-plane replicas: this one's identity, where the others are and which holds each node's agent, and signed connections to them. */
@Module({
  imports: [InventoryModule],
  providers: [ReplicaIdentity, ReplicasRepository, ReplicaDirectory, ReplicaPeers],
  exports: [ReplicaIdentity, ReplicasRepository, ReplicaDirectory, ReplicaPeers],
})
export class ReplicasModule {}
