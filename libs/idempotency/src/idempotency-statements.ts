import type { DatabaseProvider } from '@app/config';

/** Rows one claim or answer statement carries at most: 96 parameters, well inside every database's limits. */
export const ROWS_PER_STATEMENT = 32;

/** One record's row as the multi-row statements bind it, in this order. */
export const ROW_COLUMNS = '"Id", "Record", "ExpiresAt"';

/**
 * The database store's statements, one text per row count (at most ROWS_PER_STATEMENT of each), every value a
 * bound parameter in the driver's own placeholder form (`mark`): the driver's statement cache (better-sqlite3)
 * and the databases' plan caches see a handful of texts, never one per value.
 */
export interface IdempotencyStatements {
  /** Inserts each row whose id is free; answers the ids it inserted (the rest: someone holds them). */
  claim(rows: number): string;
  /** Writes each row's answer: its record replaced, or inserted again if it went meanwhile. */
  complete(rows: number): string;
  /** The records of `ids` ids (Id, Record, ExpiresAt). */
  read(ids: number): string;
  /** Deletes a record (@0) only if it is still past its expiry (before @1). */
  readonly dropExpired: string;
  /** Deletes a record (@0). */
  readonly release: string;
}

type Mark = (index: number) => string;

/** `rows` row constructors of three parameters each, numbered from 0. */
function values(rows: number, mark: Mark): string {
  let n = 0;
  return Array.from({ length: rows }, () => `(${mark(n++)}, ${mark(n++)}, ${mark(n++)})`).join(', ');
}

/** One text per count, made at its first use. */
function perCount(make: (count: number) => string): (count: number) => string {
  const made: string[] = [];
  return (count) => (made[count] ??= make(count));
}

/**
 * PostgreSQL and SQLite (3.35 and later) accept one text: INSERT … ON CONFLICT. A row the primary key already
 * holds is left alone (DO NOTHING) and missing from RETURNING; on PostgreSQL a row another transaction is
 * inserting waits for that transaction and is then left alone too.
 */
function onConflict(mark: Mark) {
  return {
    claim: perCount(
      (rows) =>
        `INSERT INTO "IdempotencyRecord" (${ROW_COLUMNS}) VALUES ${values(rows, mark)} ON CONFLICT ("Id") DO NOTHING RETURNING "Id"`,
    ),
    complete: perCount(
      (rows) =>
        `INSERT INTO "IdempotencyRecord" (${ROW_COLUMNS}) VALUES ${values(rows, mark)} ON CONFLICT ("Id") DO UPDATE SET "Record" = excluded."Record", "ExpiresAt" = excluded."ExpiresAt"`,
    ),
  };
}

/**
 * SQL Server: MERGE with the key range locked (UPDLOCK, HOLDLOCK), so that two nodes cannot both insert one id
 * (without HOLDLOCK both could find it missing); OUTPUT names the rows the claim inserted.
 */
function merge(mark: Mark) {
  const using = (rows: number) =>
    `MERGE "IdempotencyRecord" WITH (UPDLOCK, HOLDLOCK) AS t USING (VALUES ${values(rows, mark)}) AS s (${ROW_COLUMNS}) ON t."Id" = s."Id"`;
  const insert = `WHEN NOT MATCHED THEN INSERT (${ROW_COLUMNS}) VALUES (s."Id", s."Record", s."ExpiresAt")`;
  return {
    claim: perCount((rows) => `${using(rows)} ${insert} OUTPUT inserted."Id";`),
    complete: perCount(
      (rows) =>
        `${using(rows)} WHEN MATCHED THEN UPDATE SET t."Record" = s."Record", t."ExpiresAt" = s."ExpiresAt" ${insert};`,
    ),
  };
}

/** The statements of `provider`, with `mark` the driver's placeholder for the index-th parameter. */
export function idempotencyStatements(provider: DatabaseProvider, mark: Mark): IdempotencyStatements {
  const writes = provider === 'mssql' ? merge(mark) : onConflict(mark);
  return {
    ...writes,
    read: perCount(
      (ids) =>
        `SELECT ${ROW_COLUMNS} FROM "IdempotencyRecord" WHERE "Id" IN (${Array.from({ length: ids }, (_, k) => mark(k)).join(', ')})`,
    ),
    dropExpired: `DELETE FROM "IdempotencyRecord" WHERE "Id" = ${mark(0)} AND "ExpiresAt" < ${mark(1)}`,
    release: `DELETE FROM "IdempotencyRecord" WHERE "Id" = ${mark(0)}`,
  };
}
