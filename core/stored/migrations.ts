import type { PoolClient } from 'pg';
import { checkedTableName, DEFAULT_STORED_TABLE, type PgQueryable } from './postgres-fetcher.js';

/**
 * The PostgreSQL schema of stored data, as numbered migrations (`gavel db migrate`, `gavel db check`).
 *
 * One table holds every kind of stored document (`request`, `imp`, `account`, `response`) under `(kind, id)`. A trigger
 * stamps `updated_at` on each write and, on every insert, update and delete, notifies channel `gavel_stored_data`
 * (`{"table", "kind", "id"}`) so every Gavel instance drops what changed within milliseconds; deletes also leave a
 * row in `<table>_deletions`, so an instance that polls `updated_at` (its notification connection down) sees them
 * too. Applied versions are kept in `gavel_schema_migrations`, one row per table and version.
 */

/** The channel the trigger notifies and the instances listen on. */
export const CHANGES_CHANNEL = 'gavel_stored_data';

/** The table recording which migrations ran. */
const MIGRATIONS_TABLE = 'gavel_schema_migrations';

interface Migration {
  version: number;
  name: string;
  sql(names: TableNames): string;
}

/** The names a stored-data table brings with it: the deletions table, index and trigger names. */
export interface TableNames {
  /** As configured, possibly schema-qualified: `stored_requests`, `gavel.stored_requests`. */
  table: string;
  /** Without the schema: prefix of the index and trigger names. */
  base: string;
  deletions: string;
}

export function tableNames(table: string = DEFAULT_STORED_TABLE): TableNames {
  const checked = checkedTableName(table);
  const base = checked.slice(checked.lastIndexOf('.') + 1);
  return { table: checked, base, deletions: `${checked}_deletions` };
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'stored data table',
    sql: ({ table }) => `CREATE TABLE IF NOT EXISTS ${table} (kind text NOT NULL, id text NOT NULL, data jsonb NOT NULL, PRIMARY KEY (kind, id));`,
  },
  {
    version: 2,
    name: 'updated_at, deletions and the change trigger',
    sql: ({ table, base, deletions }) => `
ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS updated_at timestamptz NOT NULL DEFAULT clock_timestamp();
CREATE INDEX IF NOT EXISTS ${base}_updated_at ON ${table} (updated_at);
CREATE TABLE IF NOT EXISTS ${deletions} (kind text NOT NULL, id text NOT NULL, deleted_at timestamptz NOT NULL DEFAULT clock_timestamp(), PRIMARY KEY (kind, id));
CREATE INDEX IF NOT EXISTS ${base}_deletions_deleted_at ON ${deletions} (deleted_at);

CREATE OR REPLACE FUNCTION gavel_stored_data_touch() RETURNS trigger LANGUAGE plpgsql AS $gavel$
BEGIN
  NEW.updated_at := clock_timestamp();
  RETURN NEW;
END
$gavel$;

-- Deletions are recorded for pollers (a key an update renamed away counts as deleted; TRUNCATE as everything, '*'),
-- and every change is announced on ${CHANGES_CHANNEL}. Tombstones older than a day are swept as new ones come.
CREATE OR REPLACE FUNCTION gavel_stored_data_changed() RETURNS trigger LANGUAGE plpgsql AS $gavel$
DECLARE
  deletions text := quote_ident(TG_TABLE_SCHEMA) || '.' || quote_ident(TG_TABLE_NAME || '_deletions');
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    EXECUTE format('INSERT INTO %s (kind, id, deleted_at) VALUES (''*'', ''*'', clock_timestamp()) ON CONFLICT (kind, id) DO UPDATE SET deleted_at = EXCLUDED.deleted_at', deletions);
    PERFORM pg_notify('${CHANGES_CHANNEL}', json_build_object('table', TG_TABLE_NAME, 'all', true)::text);
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND (OLD.kind, OLD.id) IS DISTINCT FROM (NEW.kind, NEW.id)) THEN
    EXECUTE format('INSERT INTO %s (kind, id, deleted_at) VALUES ($1, $2, clock_timestamp()) ON CONFLICT (kind, id) DO UPDATE SET deleted_at = EXCLUDED.deleted_at', deletions) USING OLD.kind, OLD.id;
    EXECUTE format('DELETE FROM %s WHERE deleted_at < clock_timestamp() - interval ''1 day''', deletions);
    PERFORM pg_notify('${CHANGES_CHANNEL}', json_build_object('table', TG_TABLE_NAME, 'kind', OLD.kind, 'id', OLD.id)::text);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM pg_notify('${CHANGES_CHANNEL}', json_build_object('table', TG_TABLE_NAME, 'kind', NEW.kind, 'id', NEW.id)::text);
  END IF;
  RETURN NULL;
END
$gavel$;

DROP TRIGGER IF EXISTS ${base}_touch ON ${table};
CREATE TRIGGER ${base}_touch BEFORE INSERT OR UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION gavel_stored_data_touch();
DROP TRIGGER IF EXISTS ${base}_changed ON ${table};
CREATE TRIGGER ${base}_changed AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION gavel_stored_data_changed();
DROP TRIGGER IF EXISTS ${base}_truncated ON ${table};
CREATE TRIGGER ${base}_truncated AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION gavel_stored_data_changed();
`,
  },
];

/** The newest schema version this Gavel knows. */
export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** A pool that can lend a client for a transaction (a `pg` Pool). */
export interface PgPool extends PgQueryable {
  connect(): Promise<PoolClient>;
}

export interface MigrationResult {
  table: string;
  /** Version before the run. */
  from: number;
  /** Version after it. */
  to: number;
  applied: Array<{ version: number; name: string }>;
  /** What was found missing in a schema whose version was current, and made again (a trigger dropped by hand). */
  repaired: string[];
}

/**
 * Brings the stored-data schema of `table` to the latest version: creates it on an empty database, upgrades an older
 * one (a table made by hand with the first layout included), and does nothing when it is current, unless something
 * the migrations made is missing (a trigger dropped by hand): every migration is written to be run again, so they
 * are, and what was missing is reported as repaired. One transaction, under an advisory lock, so instances migrating
 * at the same moment take turns and a failure leaves nothing half-done.
 */
export async function migrateStoredData(pool: PgPool, table: string = DEFAULT_STORED_TABLE): Promise<MigrationResult> {
  const names = tableNames(table);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('gavel migrate ' || $1))`, [names.table]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (subject text NOT NULL, version integer NOT NULL, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (subject, version))`,
    );
    const from = await appliedVersion(client, names.table);
    const applied: MigrationResult['applied'] = [];
    for (const migration of MIGRATIONS) {
      if (migration.version <= from) continue;
      await client.query(migration.sql(names));
      await client.query(`INSERT INTO ${MIGRATIONS_TABLE} (subject, version, name) VALUES ($1, $2, $3)`, [names.table, migration.version, migration.name]);
      applied.push({ version: migration.version, name: migration.name });
    }
    let repaired: string[] = [];
    if (applied.length === 0) {
      repaired = await missingObjects(client, names);
      if (repaired.length > 0) for (const migration of MIGRATIONS) await client.query(migration.sql(names));
    }
    await client.query('COMMIT');
    return { table: names.table, from, to: Math.max(from, LATEST_SCHEMA_VERSION), applied, repaired };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

export interface SchemaCheck {
  table: string;
  version: number;
  latest: number;
  /** Migrations still to run. */
  pending: Array<{ version: number; name: string }>;
  /** What is missing or wrong even though the versions say otherwise (a trigger dropped by hand). */
  problems: string[];
  /** True when the schema is current and whole. */
  ok: boolean;
}

/** Reads the schema's version and checks what the latest version should have created is there. Changes nothing. */
export async function checkStoredDataSchema(pool: PgQueryable, table: string = DEFAULT_STORED_TABLE): Promise<SchemaCheck> {
  const names = tableNames(table);
  const tracked = (await pool.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [MIGRATIONS_TABLE])).rows[0]?.present === true;
  const version = tracked ? await appliedVersion(pool, names.table) : 0;
  const pending = MIGRATIONS.filter((migration) => migration.version > version).map(({ version: v, name }) => ({ version: v, name }));
  const problems = version >= LATEST_SCHEMA_VERSION ? await missingObjects(pool, names) : [];
  return { table: names.table, version, latest: LATEST_SCHEMA_VERSION, pending, problems, ok: pending.length === 0 && problems.length === 0 };
}

/** What the latest schema should have and this database lacks. */
async function missingObjects(db: PgQueryable, names: TableNames): Promise<string[]> {
  const present = async (sql: string, values: unknown[]) => (await db.query(sql, values)).rows[0]?.present === true;
  const missing: string[] = [];
  if (!(await present(`SELECT to_regclass($1) IS NOT NULL AS present`, [names.deletions]))) missing.push(`table ${names.deletions} is missing`);
  if (!(await present(`SELECT to_regclass($1) IS NOT NULL AS present`, [names.table]))) {
    missing.push(`table ${names.table} is missing`);
    return missing;
  }
  const column = `SELECT count(*) = 1 AS present FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'updated_at' AND NOT attisdropped`;
  if (!(await present(column, [names.table]))) missing.push(`column ${names.table}.updated_at is missing`);
  for (const trigger of [`${names.base}_touch`, `${names.base}_changed`, `${names.base}_truncated`]) {
    if (!(await present(`SELECT count(*) = 1 AS present FROM pg_trigger WHERE tgrelid = $1::regclass AND tgname = $2`, [names.table, trigger]))) {
      missing.push(`trigger ${trigger} on ${names.table} is missing`);
    }
  }
  return missing;
}

async function appliedVersion(db: PgQueryable, subject: string): Promise<number> {
  const { rows } = await db.query(`SELECT coalesce(max(version), 0) AS version FROM ${MIGRATIONS_TABLE} WHERE subject = $1`, [subject]);
  return Number(rows[0]?.version ?? 0);
}
