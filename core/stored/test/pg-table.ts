import type { PgQueryable } from '../postgres-fetcher.js';

/**
 * The table a PostgreSQL suite works in: by default one of its own (`gavel_<purpose>_<pid>`), made by the suite's
 * migration and dropped after; with GAVEL_TEST_PG_TABLE set (the `gavel db migrate` test does), that table, already
 * migrated, whose rows the suite empties after it (never set it to a table whose rows matter).
 */
export function pgTestTable(purpose: string): { table: string; cleanUp(pool: PgQueryable): Promise<void> } {
  const given = process.env.GAVEL_TEST_PG_TABLE;
  if (given) {
    return {
      table: given,
      async cleanUp(pool) {
        await pool.query(`DELETE FROM ${given}`);
        await pool.query(`DELETE FROM ${given}_deletions`);
      },
    };
  }
  const table = `gavel_${purpose}_${process.pid}`;
  return { table, cleanUp: (pool) => dropStoredDataTable(pool, table) };
}

/** Drops a stored-data table a test migrated, and forgets its migrations. */
export async function dropStoredDataTable(pool: PgQueryable, table: string): Promise<void> {
  await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_deletions`);
  await pool.query(`DELETE FROM gavel_schema_migrations WHERE subject = $1`, [table]).catch(() => undefined);
}
