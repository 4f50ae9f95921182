import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CONFIG, type Config } from '../config/config.js';

/** This control-plane process among the replicas: a random id per process, and where the others reach it. */
@Injectable()
export class ReplicaIdentity {
  readonly id = randomUUID();
  readonly address: string;
  /** Whether it runs among other replicas: set up for that with CORRAL_CLUSTER_SECRET (docs/scale-out.md). */
  readonly clustered: boolean;

  constructor(@Inject(CONFIG) config: Config) {
    this.address = config.replicaUrl;
    this.clustered = config.clusterSecret !== null;
  }
}
