import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { DatabaseProvider } from '@app/config';
import { providerOf, rowsPerStatement } from '@app/database';
import { CaseRecord } from '../entities';

/** Which case: a workflow, a key and its value (at most one OPEN case each: IX_Case_Open_Workflow_Key_Value). */
export interface CaseIdentity {
  CaseWorkflowId: number;
  CaseKey: string;
  CaseKeyValue: string;
}

/** What the case creation pipeline needs of an open case: which row, and the priority to beat. */
export type OpenCase = CaseIdentity & Pick<CaseRecord, 'Id' | 'Priority'>;

/** A case as a batch wants it: inserted when none is open, else its status raised when this one is better. */
export type CaseUpsert = CaseIdentity &
  Pick<CaseRecord, 'Guid' | 'CaseWorkflowStatusId' | 'Priority' | 'EntityAnalysisModelInstanceEntryGuid'> & {
    At: Date;
  };

/** A case the upsert wrote (inserted, or raised): its Guid tells which (a new case has the Guid we gave it). */
export type WrittenCase = CaseIdentity & Pick<CaseRecord, 'Guid'>;

/** One string per case identity, for maps. */
export function caseIdentityKey(c: CaseIdentity): string {
  return `${c.CaseWorkflowId}\u0000${c.CaseKey}\u0000${c.CaseKeyValue}`;
}

/** The upsert's columns in order: a fixed allow-list, never from input. */
const UPSERT_COLUMNS = [
  'Guid',
  'CaseWorkflowId',
  'CaseKey',
  'CaseKeyValue',
  'CaseWorkflowStatusId',
  'Priority',
  'EntityAnalysisModelInstanceEntryGuid',
  'CreatedDate',
] as const;
const PG_TYPES = ['varchar', 'integer', 'varchar', 'varchar', 'integer', 'integer', 'varchar', 'timestamptz'];
const Q = (c: string) => `"${c}"`;
const OPEN_COLUMNS = `"Id", "CaseWorkflowId", "CaseKey", "CaseKeyValue", "Priority"`;
const RETURNED = `"Guid", "CaseWorkflowId", "CaseKey", "CaseKeyValue"`;
/** The raise: only a strictly better (lower) priority replaces an open case's status (spec: stage 1). */
const RAISE = ['CaseWorkflowStatusId', 'Priority', 'EntityAnalysisModelInstanceEntryGuid'];
/** Case identities per look-up statement on SQLite and SQL Server (three parameters each). */
const KEYS_PER_LOOKUP = 500;

/**
 * The look-up on SQLite and SQL Server: the identities as a VALUES table joined to the open-case index (one
 * index seek per identity; an OR of the identities made SQLite scan the whole index, and the scan grew with
 * the table).
 */
function lookupSql(provider: DatabaseProvider, keys: number): string {
  let n = 0;
  const mark = () => (provider === 'mssql' ? `@${n++}` : '?');
  const values = Array.from({ length: keys }, () => `(${mark()}, ${mark()}, ${mark()})`).join(', ');
  const select = `SELECT c."Id", c."CaseWorkflowId", c."CaseKey", c."CaseKeyValue", c."Priority"`;
  const join = `JOIN "Case" c ON c."CaseWorkflowId" = k.w AND c."CaseKey" = k.k AND c."CaseKeyValue" = k.v
  AND c."ClosedDate" IS NULL`;
  return provider === 'mssql'
    ? `${select} FROM (VALUES ${values}) AS k (w, k, v) ${join}`
    : `WITH k (w, k, v) AS (VALUES ${values}) ${select} FROM k ${join}`;
}

/**
 * The look-up on PostgreSQL: the identities as three array parameters, each probing the open-case index on its
 * own (a LATERAL subquery with LIMIT 1: the index holds at most one open case an identity). The plan is the same
 * whatever the table's statistics say. The form it replaces, `(…) IN (SELECT * FROM unnest(…))`, was planned as
 * a hash join over every open case whenever the table had no statistics (before autovacuum's first ANALYZE, or
 * with autovacuum off: PostgreSQL then guesses that 0.5 % of the rows have no ClosedDate): a cost that grew with
 * the open cases, paid by every batch.
 * The identities must be distinct (an identity given twice answers its case twice).
 */
export function pgOpenCaseLookup(keys: readonly CaseIdentity[]): { sql: string; params: unknown[] } {
  return {
    sql: `SELECT c.*
FROM unnest($1::integer[], $2::varchar[], $3::varchar[]) AS k (w, k, v)
CROSS JOIN LATERAL (SELECT ${OPEN_COLUMNS} FROM "Case" o WHERE o."CaseWorkflowId" = k.w AND o."CaseKey" = k.k
  AND o."CaseKeyValue" = k.v AND o."ClosedDate" IS NULL LIMIT 1) c`,
    params: [keys.map((k) => k.CaseWorkflowId), keys.map((k) => k.CaseKey), keys.map((k) => k.CaseKeyValue)],
  };
}

/** ON CONFLICT … DO UPDATE (PostgreSQL, SQLite): the conflict target is the partial open-case index. */
function onConflictSql(excluded: string): string {
  const set = [
    ...RAISE.map((c) => `${Q(c)} = ${excluded}.${Q(c)}`),
    `"UpdatedDate" = ${excluded}."CreatedDate"`,
  ];
  return ` ON CONFLICT ("CaseWorkflowId", "CaseKey", "CaseKeyValue") WHERE "ClosedDate" IS NULL
  DO UPDATE SET ${set.join(', ')} WHERE "Case"."Priority" > ${excluded}."Priority" RETURNING ${RETURNED}`;
}

/** SQL Server: MERGE, its key range locked (UPDLOCK, HOLDLOCK) so two nodes cannot both insert one case. */
function mergeSql(rows: number): string {
  let n = 0;
  const tuples = Array.from(
    { length: rows },
    () => `(${UPSERT_COLUMNS.map(() => `@${n++}`).join(', ')})`,
  ).join(', ');
  const set = [...RAISE.map((c) => `t.${Q(c)} = s.${Q(c)}`), `t."UpdatedDate" = s."CreatedDate"`];
  return `MERGE "Case" WITH (UPDLOCK, HOLDLOCK) AS t
USING (VALUES ${tuples}) AS s (${UPSERT_COLUMNS.map(Q).join(', ')})
ON t."CaseWorkflowId" = s."CaseWorkflowId" AND t."CaseKey" = s."CaseKey" AND t."CaseKeyValue" = s."CaseKeyValue"
  AND t."ClosedDate" IS NULL
WHEN MATCHED AND t."Priority" > s."Priority" THEN UPDATE SET ${set.join(', ')}
WHEN NOT MATCHED THEN INSERT (${UPSERT_COLUMNS.map(Q).join(', ')})
  VALUES (${UPSERT_COLUMNS.map((c) => `s.${Q(c)}`).join(', ')})
OUTPUT ${['Guid', 'CaseWorkflowId', 'CaseKey', 'CaseKeyValue'].map((c) => `inserted.${Q(c)}`).join(', ')};`;
}

/**
 * Every query on the Case table. Case creation works set-based: one look-up of the open cases of a
 * whole batch, then one multi-row upsert, instead of a look-up, a status read and an ORM save per activation.
 */
@Injectable()
export class CaseRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get provider(): DatabaseProvider {
    return providerOf(this.dataSource.options.type);
  }

  /**
   * The open cases of these identities (spec: ExistingCasePriorityLookup, for a batch), through the partial
   * unique index IX_Case_Open_Workflow_Key_Value. PostgreSQL: one statement whatever the batch (pgOpenCaseLookup);
   * SQLite and SQL Server join a VALUES table (lookupSql), KEYS_PER_LOOKUP a statement.
   */
  async findOpen(keys: readonly CaseIdentity[]): Promise<OpenCase[]> {
    if (!keys.length) return [];
    const rows: Record<string, unknown>[] = [];
    if (this.provider === 'postgres') {
      const { sql, params } = pgOpenCaseLookup(keys);
      rows.push(...(await this.dataSource.query<Record<string, unknown>[]>(sql, params)));
    } else {
      for (let i = 0; i < keys.length; i += KEYS_PER_LOOKUP) {
        const slice = keys.slice(i, i + KEYS_PER_LOOKUP);
        const params = slice.flatMap((k) => [k.CaseWorkflowId, k.CaseKey, k.CaseKeyValue]);
        rows.push(
          ...(await this.dataSource.query<Record<string, unknown>[]>(
            lookupSql(this.provider, slice.length),
            params,
          )),
        );
      }
    }
    return rows.map((r) => ({
      Id: Number(r.Id),
      CaseWorkflowId: Number(r.CaseWorkflowId),
      CaseKey: String(r.CaseKey),
      CaseKeyValue: String(r.CaseKeyValue),
      Priority: Number(r.Priority),
    }));
  }

  /**
   * Inserts each case that is not open, and raises each open one whose priority the row beats, in ONE
   * statement per chunk (spec: WorkflowStatusLookupAndPersist, for a batch): at most one row per identity,
   * written in identity order, so two nodes' batches lock their rows in the same order. Answers the cases
   * it wrote; an identity missing from the answer had an open case at least as good (written meanwhile by
   * another node). Race-free on its own: the open-case index and the conditional raise decide in the database.
   */
  async upsert(rows: readonly CaseUpsert[]): Promise<WrittenCase[]> {
    if (!rows.length) return [];
    const sorted = [...rows].sort((a, b) => compareIdentity(a, b));
    const driver = this.dataSource.driver;
    const metadata = this.dataSource.getMetadata(CaseRecord);
    const columns = UPSERT_COLUMNS.map((name) => metadata.findColumnWithPropertyName(name)!);
    const value = (r: CaseUpsert, k: number): unknown =>
      driver.preparePersistentValue(
        UPSERT_COLUMNS[k] === 'CreatedDate' ? r.At : r[UPSERT_COLUMNS[k]],
        columns[k],
      );
    const names = UPSERT_COLUMNS.map(Q).join(', ');
    const written: Record<string, unknown>[] = [];
    if (this.provider === 'postgres') {
      const arrays = columns.map((_, k) => sorted.map((r) => value(r, k)));
      const unnest = PG_TYPES.map((t, k) => `$${k + 1}::${t}[]`).join(', ');
      written.push(
        ...(await this.dataSource.query<Record<string, unknown>[]>(
          `INSERT INTO "Case" (${names}) SELECT * FROM unnest(${unnest})${onConflictSql('EXCLUDED')}`,
          arrays,
        )),
      );
    } else {
      const chunk = rowsPerStatement(this.provider, UPSERT_COLUMNS.length);
      for (let i = 0; i < sorted.length; i += chunk) {
        const slice = sorted.slice(i, i + chunk);
        const params = slice.flatMap((r) => columns.map((_, k) => value(r, k)));
        const sql =
          this.provider === 'mssql'
            ? mergeSql(slice.length)
            : `INSERT INTO "Case" (${names}) VALUES ${slice
                .map(() => `(${UPSERT_COLUMNS.map(() => '?').join(', ')})`)
                .join(', ')}${onConflictSql('excluded')}`;
        written.push(...(await this.dataSource.query<Record<string, unknown>[]>(sql, params)));
      }
    }
    return written.map((r) => ({
      Guid: String(r.Guid),
      CaseWorkflowId: Number(r.CaseWorkflowId),
      CaseKey: String(r.CaseKey),
      CaseKeyValue: String(r.CaseKeyValue),
    }));
  }
}

function compareIdentity(a: CaseIdentity, b: CaseIdentity): number {
  if (a.CaseWorkflowId !== b.CaseWorkflowId) return a.CaseWorkflowId - b.CaseWorkflowId;
  if (a.CaseKey !== b.CaseKey) return a.CaseKey < b.CaseKey ? -1 : 1;
  return a.CaseKeyValue < b.CaseKeyValue ? -1 : a.CaseKeyValue > b.CaseKeyValue ? 1 : 0;
}
