import { DataSource, type QueryRunner } from 'typeorm';

/** The advisory lock key of the HA manager ("corral-ha" in ASCII). */
const HA_MANAGER_LOCK = 0x636f7272616c6861n;

/**
 * The HA manager's election: a session-level
 * PostgreSQL advisory lock held on a connection of its own. The replica holding it is the manager;
 * when its process or its connection dies, PostgreSQL releases the lock and another replica takes
 * it at its next try. Every manager decision re-checks its facts under row locks as well, so a
 * manager that lost the lock without noticing yet cannot undo what its successor decided.
 */
export class ManagerLock {
  private runner: QueryRunner | null = null;

  constructor(private readonly dataSource: DataSource) {}

  /** Whether this replica holds the lock now: tries to take it when not, and checks the connection when it does. */
  async hold(): Promise<boolean> {
    try {
      if (this.runner !== null) {
        await this.runner.query('SELECT 1');
        return true;
      }
      const runner = this.dataSource.createQueryRunner();
      await runner.connect();
      const [row] = (await runner.query('SELECT pg_try_advisory_lock($1) AS "held"', [HA_MANAGER_LOCK.toString()])) as [{ held: boolean }];
      if (row.held) this.runner = runner;
      else await runner.release();
      return row.held;
    } catch {
      await this.release();
      return false;
    }
  }

  /** Gives the lock up (its connection closed with it). */
  async release(): Promise<void> {
    const runner = this.runner;
    this.runner = null;
    if (runner === null || runner.isReleased) return;
    await runner.query('SELECT pg_advisory_unlock($1)', [HA_MANAGER_LOCK.toString()]).catch(() => undefined);
    await runner.release().catch(() => undefined);
  }
}
