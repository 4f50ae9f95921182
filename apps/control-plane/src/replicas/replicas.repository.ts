import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** The replicas table: each replica's heartbeat and address. */
@Injectable()
export class ReplicasRepository {
  constructor(private readonly dataSource: DataSource) {}

  async heartbeat(id: string, address: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO "replicas" ("id", "seen", "address") VALUES ($1, now(), $2) ON CONFLICT ("id") DO UPDATE SET "seen" = now()`,
      [id, address],
    );
  }

  async forget(id: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM "replicas" WHERE "id" = $1`, [id]);
  }

  /** Where the replicas seen within `seenS` seconds are reached, sorted. */
  async addresses(seenS: number): Promise<string[]> {
    const rows = (await this.dataSource.query(
      `SELECT "address" FROM "replicas" WHERE "address" IS NOT NULL AND "seen" > now() - make_interval(secs => $1) ORDER BY "address"`,
      [seenS],
    )) as { address: string }[];
    return rows.map((row) => row.address);
  }

  /** Where the replica is reached, if it is up and said. */
  async address(id: string): Promise<string | null> {
    const rows = (await this.dataSource.query(`SELECT "address" FROM "replicas" WHERE "id" = $1`, [id])) as { address: string | null }[];
    return rows[0]?.address ?? null;
  }
}
