import { ErrorCode, GavelError } from '../api/index.js';
import { asStoredFetchError, MalformedStoredData, uniqueIds, type StoredDataFetcher, type StoredKind } from './fetcher.js';

/** The part of a `pg` Pool (or Client) the fetcher uses, so tests and hosts can hand in either. */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
}

/**
 * SQL the fetcher runs. `requests`, `imps` and `responses` get `$1` = the ids as `text[]` and return rows with columns
 * `id` and `data`; `account` gets `$1` = one id and returns at most one row with a `data` column. `data` may be
 * `json`/`jsonb` (arrives parsed) or text holding JSON.
 */
export interface PostgresQueries {
  requests: string;
  imps: string;
  account: string;
  responses: string;
}

export const DEFAULT_STORED_TABLE = 'stored_requests';

/** Queries for the default layout: one table `(kind text, id text, data jsonb, ..., primary key (kind, id))`. */
function defaultPostgresQueries(table: string = DEFAULT_STORED_TABLE): PostgresQueries {
  const name = checkedTableName(table);
  return {
    requests: `SELECT id, data FROM ${name} WHERE kind = 'request' AND id = ANY($1::text[])`,
    imps: `SELECT id, data FROM ${name} WHERE kind = 'imp' AND id = ANY($1::text[])`,
    account: `SELECT data FROM ${name} WHERE kind = 'account' AND id = $1`,
    responses: `SELECT id, data FROM ${name} WHERE kind = 'response' AND id = ANY($1::text[])`,
  };
}

export interface PostgresFetcherOptions {
  /** Table of the default layout (ignored for the queries given in `queries`). */
  table?: string;
  /** Replaces any of the default queries, for hosts with their own schema. */
  queries?: Partial<PostgresQueries>;
}

/** Reads stored JSON from PostgreSQL through a `pg` Pool. The pool belongs to the caller, who also ends it. */
export class PostgresFetcher implements StoredDataFetcher {
  private readonly queries: PostgresQueries;

  constructor(
    private readonly pool: PgQueryable,
    options: PostgresFetcherOptions = {},
  ) {
    this.queries = { ...defaultPostgresQueries(options.table), ...options.queries };
  }

  fetchRequests(ids: string[]): Promise<Map<string, unknown>> {
    return this.fetchMany('request', this.queries.requests, ids);
  }

  fetchImps(ids: string[]): Promise<Map<string, unknown>> {
    return this.fetchMany('imp', this.queries.imps, ids);
  }

  fetchResponses(ids: string[]): Promise<Map<string, unknown>> {
    return this.fetchMany('response', this.queries.responses, ids);
  }

  async fetchAccount(id: string): Promise<unknown | undefined> {
    const rows = await this.run('account', this.queries.account, [id]);
    return rows.length === 0 ? undefined : readData(rows[0], 'account', id);
  }

  private async fetchMany(kind: StoredKind, sql: string, ids: string[]): Promise<Map<string, unknown>> {
    const found = new Map<string, unknown>();
    const unique = uniqueIds(ids);
    if (unique.length === 0) return found;
    for (const row of await this.run(kind, sql, [unique])) {
      const id = String(row.id);
      found.set(id, readData(row, kind, id));
    }
    return found;
  }

  private async run(kind: StoredKind, sql: string, values: unknown[]): Promise<Array<Record<string, unknown>>> {
    try {
      return (await this.pool.query(sql, values)).rows;
    } catch (err) {
      throw asStoredFetchError(err, `PostgreSQL query for stored ${kind} data failed`);
    }
  }
}

function readData(row: Record<string, unknown>, kind: StoredKind, id: string): unknown {
  const data = row.data;
  if (typeof data !== 'string') return data;
  try {
    return JSON.parse(data) as unknown;
  } catch (err) {
    throw new MalformedStoredData(kind, id, err);
  }
}

/**
 * Creates the default table's first layout if it is missing (tests). Hosts run `gavel db migrate`
 * (`migrateStoredData`), which also adds what invalidation needs.
 */
export async function createStoredDataTable(pool: PgQueryable, table: string = DEFAULT_STORED_TABLE): Promise<void> {
  const name = checkedTableName(table);
  await pool.query(`CREATE TABLE IF NOT EXISTS ${name} (kind text NOT NULL, id text NOT NULL, data jsonb NOT NULL, PRIMARY KEY (kind, id))`);
}

/** Inserts or replaces one document in the default table. */
export async function saveStoredData(
  pool: PgQueryable,
  kind: StoredKind,
  id: string,
  data: unknown,
  table: string = DEFAULT_STORED_TABLE,
): Promise<void> {
  const name = checkedTableName(table);
  await pool.query(
    `INSERT INTO ${name} (kind, id, data) VALUES ($1, $2, $3::jsonb) ON CONFLICT (kind, id) DO UPDATE SET data = EXCLUDED.data`,
    [kind, id, JSON.stringify(data)],
  );
}

/** Table names end up in SQL text, so only plain (optionally schema-qualified) identifiers are allowed. */
export function checkedTableName(table: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/.test(table)) {
    throw new GavelError(ErrorCode.ConfigInvalid, `invalid stored data table name: "${table}"`, { table });
  }
  return table;
}
