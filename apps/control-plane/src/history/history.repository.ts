import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type Level, LEVELS } from './history-levels.js';
import type { Point } from './minute-points.js';

/** A stored point's slot and the fields of one consolidation. */
export interface StoredPoint {
  readonly slot: number;
  readonly fields: Readonly<Record<string, number>>;
}

/** The history table: points written in batches, consolidated into coarser levels and cut to each level's bound. */
@Injectable()
export class HistoryRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Points of one level in one statement; a point already there (written by another replica for the same minute) is replaced. */
  async write(level: Level, points: readonly Point[]): Promise<void> {
    if (points.length === 0) return;
    await this.dataSource.query(
      `INSERT INTO "history_points" ("series", "step", "slot", "avg", "max")
       SELECT p."series", $1, p."slot", p."avg", p."max" FROM unnest($2::text[], $3::bigint[], $4::jsonb[], $5::jsonb[]) AS p("series", "slot", "avg", "max")
       ON CONFLICT ("series", "step", "slot") DO UPDATE SET "avg" = excluded."avg", "max" = excluded."max"`,
      [
        level.step,
        points.map((point) => point.series),
        points.map((point) => point.slot),
        points.map((point) => JSON.stringify(point.avg)),
        points.map((point) => JSON.stringify(point.max)),
      ],
    );
  }

  /**
   * The points of `level` whose slots start in [from, to), made from the points of `finer` in them
   * (every series at once): each field's average of the averages and maximum of the maxima.
   */
  async consolidate(finer: Level, level: Level, from: number, to: number): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO "history_points" ("series", "step", "slot", "avg", "max")
       SELECT "series", $2, "slot", jsonb_object_agg("field", "avg"), jsonb_object_agg("field", "max")
       FROM (
         SELECT p."series", p."slot" / $2 * $2 AS "slot", f."key" AS "field", avg(f."value"::float8) AS "avg", max((p."max" ->> f."key")::float8) AS "max"
         FROM "history_points" p CROSS JOIN LATERAL jsonb_each_text(p."avg") f
         WHERE p."step" = $1 AND p."slot" >= $3 AND p."slot" < $4
         GROUP BY 1, 2, 3
       ) fields
       GROUP BY "series", "slot"
       ON CONFLICT ("series", "step", "slot") DO UPDATE SET "avg" = excluded."avg", "max" = excluded."max"`,
      [finer.step, level.step, from, to],
    );
  }

  /** Removes every level's points older than its bound, as of `now` (epoch seconds): each keeps its `keep` newest slots. */
  async prune(now: number): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM "history_points" p USING unnest($1::int[], $2::bigint[]) AS l("step", "before") WHERE p."step" = l."step" AND p."slot" < l."before"`,
      [LEVELS.map((level) => level.step), LEVELS.map((level) => oldestKept(level, now))],
    );
  }

  /** The points of `series` at `level` from slot `from` on, in order: their averages or their maxima. */
  async read(series: string, level: Level, from: number, consolidation: 'avg' | 'max'): Promise<StoredPoint[]> {
    const rows = (await this.dataSource.query(
      `SELECT "slot", "${consolidation}" AS "fields" FROM "history_points" WHERE "series" = $1 AND "step" = $2 AND "slot" >= $3 ORDER BY "slot"`,
      [series, level.step, from],
    )) as { slot: string; fields: Record<string, number> }[];
    return rows.map((row) => ({ slot: Number(row.slot), fields: row.fields }));
  }
}

/** The start of the oldest slot `level` keeps at `now`: the current slot is the newest of its `keep`. */
export function oldestKept(level: Level, now: number): number {
  return (Math.floor(now / level.step) - level.keep + 1) * level.step;
}
