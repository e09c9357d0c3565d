import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { Clock } from '@app/runtime';
import { providerOf } from '@app/database';
import { Claim, claimOf, IdempotencyStore, RecordText, StoredAnswer } from './idempotency-store';
import { IdempotencyRecord } from './idempotency-record.entity';
import { GroupCommit } from './group-commit';
import {
  idempotencyStatements,
  type IdempotencyStatements,
  ROWS_PER_STATEMENT,
} from './idempotency-statements';

/** A claim as it waits for its batch: the record it would write. */
interface ClaimRow {
  id: string;
  fingerprint: string;
  leaseMs: number;
}

/** An answer as it waits for its batch: the record's text and its expiry, made by its own request. */
interface AnswerRow {
  id: string;
  record: string;
  expiresAt: number;
}

/** A record as the read gives it (PostgreSQL and SQL Server give a bigint as text). */
interface HeldRow {
  Id: string;
  Record: string;
  ExpiresAt: string | number;
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const claimed = (): Claim => ({ kind: 'claimed' });

/**
 * Records in the database (when RedisConnectionString is unset), shared by every node of that database. The
 * claim is an INSERT the primary key refuses for an id already held (ON CONFLICT DO NOTHING; SQL Server a MERGE
 * under HOLDLOCK); a record past its expiry is deleted (only if still expired) and the INSERT tried again, so of
 * two requests that find it expired only one takes it. The purge (purgeExpired) bounds the table.
 *
 * Group commit: the claims of one turn of the event loop are ONE statement (one transaction), and so are the
 * answers; a request still awaits its own batch's commit, so an answer is stored before it is sent. Rows are
 * written in id order, so two nodes' batches lock the same rows in the same order (no deadlock on PostgreSQL
 * or SQL Server). Each statement is a plain text per row count (idempotency-statements.ts), its values bound.
 */
@Injectable()
export class DatabaseIdempotencyStore implements IdempotencyStore {
  private readonly claims = new GroupCommit<ClaimRow, Claim>(
    (rows) => this.claimBatch(rows),
    ROWS_PER_STATEMENT,
  );
  // one row per id a turn (the last answer): two rows of an id in two statements could commit in either order
  private readonly answers = new GroupCommit<AnswerRow, void>(
    (rows) => this.answerBatch(rows),
    ROWS_PER_STATEMENT,
    (row) => row.id,
  );
  private statementsOf?: IdempotencyStatements;

  constructor(
    @InjectRepository(IdempotencyRecord) private readonly records: Repository<IdempotencyRecord>,
    private readonly clock: Clock,
  ) {}

  private get sql(): IdempotencyStatements {
    if (!this.statementsOf) {
      const { driver, options } = this.records.manager.connection;
      this.statementsOf = idempotencyStatements(providerOf(options.type), (k) =>
        driver.createParameter('p', k),
      );
    }
    return this.statementsOf;
  }

  private run<T>(sql: string, values: unknown[]): Promise<T> {
    return this.records.query<T>(sql, values);
  }

  claim(id: string, fingerprint: string, leaseMs: number): Promise<Claim> {
    return this.claims.add({ id, fingerprint, leaseMs });
  }

  complete(id: string, fingerprint: string, answer: StoredAnswer, retentionMs: number): Promise<void> {
    const record: RecordText = { f: fingerprint, a: answer };
    return this.answers.add({
      id,
      record: JSON.stringify(record),
      expiresAt: this.clock.now() + retentionMs,
    });
  }

  async release(id: string): Promise<void> {
    await this.run(this.sql.release, [id]);
  }

  /** Deletes up to `limit` expired records; returns how many went. */
  async purgeExpired(limit: number): Promise<number> {
    const expired = await this.records.find({
      where: { ExpiresAt: LessThan(this.clock.now()) },
      select: { Id: true },
      take: limit,
    });
    if (expired.length === 0) return 0;
    await this.records.delete(expired.map((r) => r.Id));
    return expired.length;
  }

  /**
   * One batch of claims: the first request of each id is a row of one INSERT; an id it did not insert is read
   * (one SELECT … IN) and answered from its live record, or taken over alone when that record has expired or
   * gone meanwhile. A later request with an id already in the batch finds the first's record: running (its
   * fingerprint), or what the first found.
   */
  private async claimBatch(requests: readonly ClaimRow[]): Promise<Claim[]> {
    const first = new Map<string, ClaimRow>();
    for (const r of requests) if (!first.has(r.id)) first.set(r.id, r);
    const rows = [...first.values()].sort(byId);
    const now = this.clock.now();
    const inserted = await this.insertClaims(rows, now);
    const outcome = new Map<string, Claim>();
    const held = rows.filter((r) => !inserted.has(r.id));
    if (held.length > 0) {
      const found = await this.read(held.map((r) => r.id));
      for (const r of held) {
        const record = found.get(r.id);
        outcome.set(
          r.id,
          record && Number(record.ExpiresAt) >= now ? claimOf(record.Record) : await this.takeOver(r),
        );
      }
    }
    return requests.map((r) => {
      const theirs = outcome.get(r.id) ?? claimed();
      if (first.get(r.id) === r) return theirs;
      return theirs.kind === 'claimed'
        ? { kind: 'running', fingerprint: first.get(r.id)!.fingerprint }
        : theirs;
    });
  }

  /** The ids of `rows` the claim statement inserted (the others are held). */
  private async insertClaims(rows: readonly ClaimRow[], now: number): Promise<Set<string>> {
    const values: unknown[] = [];
    for (const r of rows)
      values.push(r.id, JSON.stringify({ f: r.fingerprint } satisfies RecordText), now + r.leaseMs);
    const returned = await this.run<{ Id: string }[]>(this.sql.claim(rows.length), values);
    return new Set(returned.map((row) => row.Id));
  }

  private async read(ids: readonly string[]): Promise<Map<string, HeldRow>> {
    const rows = await this.run<HeldRow[]>(this.sql.read(ids.length), [...ids]);
    return new Map(rows.map((row) => [row.Id, row]));
  }

  /**
   * A key whose record is past its expiry (or was released or purged between the INSERT and the read): the
   * expired record deleted unless another request took it meanwhile, then the INSERT again, alone.
   */
  private async takeOver(row: ClaimRow): Promise<Claim> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = this.clock.now();
      await this.run(this.sql.dropExpired, [row.id, now]);
      if ((await this.insertClaims([row], now)).size === 1) return claimed();
      const held = (await this.read([row.id])).get(row.id);
      if (held && Number(held.ExpiresAt) >= now) return claimOf(held.Record);
    }
    return { kind: 'running', fingerprint: row.fingerprint };
  }

  /** One batch of answers (one per id: GroupCommit keeps an id's last): one upsert. */
  private async answerBatch(answers: readonly AnswerRow[]): Promise<void[]> {
    const rows = [...answers].sort(byId);
    const values: unknown[] = [];
    for (const r of rows) values.push(r.id, r.record, r.expiresAt);
    await this.run(this.sql.complete(rows.length), values);
    return answers.map(() => undefined);
  }
}
