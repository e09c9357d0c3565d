import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnModuleDestroy,
  OnModuleInit,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Counter } from '@opentelemetry/api';
import type Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { type Actor, type AdminWriteContext } from '@app/access';
import { Clock } from '@app/runtime';
import { inertText } from '@app/input-rules';
import type { Transaction } from '@app/database';
import { REDIS } from '@app/redis';
import { SERVICE_NAME, ServiceMeterProvider } from '@app/telemetry';
import { AdminEvent } from '../entities/admin-event.entity';
import {
  ADMIN_EVENT_LIMITS,
  AdminEventOutcome,
  type AdminTarget,
  type FieldChange,
  recordChange,
} from './admin-event-types';
import { AdminEventRepository } from './admin-event.repository';
import { AnsweredWrites } from './admin-request.middleware';
import {
  type Refusal,
  RefusalAggregates,
  type RefusalSummary,
  REFUSAL_FLUSH_MS,
  REFUSAL_ROWS_PER_ACTOR,
  REFUSAL_WINDOW_MS,
  UNWRITTEN_REASONS,
  type UnwrittenReason,
} from './refusal-aggregates';
import { SharedRowBudget } from './shared-row-budget';

/** What an accepted administrative write did: its target as it was, and the fields it changed. */
export interface AdminWrite {
  target: AdminTarget;
  changes?: FieldChange[];
}

/** Redis key prefix of the refusal rows each actor opened per minute, shared by every node. */
export const REFUSAL_ROWS_KEY_PREFIX = 'decisioning:admin-refusal-rows:';
/** The counter of refused administrative writes not written as a row of their own, by `reason`. */
export const UNWRITTEN_REFUSALS = 'service.audit.admin.refusals.unwritten';
/** Tenants' names kept for the refusal rows, each for a minute. */
const TENANT_NAMES_KEPT = 1_000;

/** A write's result that says it changed nothing (the conditional statement matched no row). */
function changedNothing(result: unknown): boolean {
  return result === undefined || result === null || result === false;
}

/**
 * THE writer of AdminEvent rows. An accepted administrative write is recorded by `applied`, in the same
 * transaction as its statement, always. A refused one (any 4xx answer but 401) is counted when its answer is
 * finished (RefusalAggregates): one row per actor, action and status a minute on each node, carrying the count
 * and the first and last target; an actor opens at most REFUSAL_ROWS_PER_ACTOR such rows a minute across the
 * nodes (SharedRowBudget). Refusals not written as a row of their own are counted (UNWRITTEN_REFUSALS) and
 * summed up in one warning line a minute. Only writes made through a route marked @AdminAction, by an
 * authenticated caller, are recorded: the service's own writes (bootstrap, the demo seed) have no administrator.
 */
@Injectable()
export class AdminEvents
  extends AnsweredWrites
  implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown
{
  private readonly logger = new Logger('AdminEvents');
  private readonly refusals: RefusalAggregates;
  private readonly unwritten: Counter;
  private readonly unwrittenAttributes = Object.fromEntries(
    UNWRITTEN_REASONS.map((reason) => [reason, Object.freeze({ reason })]),
  ) as Record<UnwrittenReason, { reason: UnwrittenReason }>;
  private readonly tenantNames = new Map<number, { name: string | null; at: number }>();
  /** Refusals this node did not write as rows of their own since it started, by reason. */
  readonly unwrittenSinceStart: Record<UnwrittenReason, number> = {
    aggregated: 0,
    'actor-bound': 0,
    'write-failed': 0,
  };
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly repo: AdminEventRepository,
    private readonly clock: Clock,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(REDIS) redis: Redis | null,
    meters: ServiceMeterProvider,
  ) {
    super();
    this.unwritten = meters.provider.getMeter(SERVICE_NAME).createCounter(UNWRITTEN_REFUSALS, {
      description:
        'Refused administrative writes not written as an AdminEvent row of their own: counted in an open row (aggregated), past their actor\'s rows for the minute (actor-bound), or their row could not be written (write-failed).',
    });
    // Every series from the start, so increase() sees the first flood after a restart.
    for (const attributes of Object.values(this.unwrittenAttributes)) this.unwritten.add(0, attributes);
    const budget = new SharedRowBudget(
      redis,
      REFUSAL_ROWS_KEY_PREFIX,
      REFUSAL_WINDOW_MS,
      REFUSAL_ROWS_PER_ACTOR,
    );
    this.refusals = new RefusalAggregates(
      {
        open: async (row) => this.repo.insertCounted({ ...row, ActorTenantName: await this.tenantName(row) }),
        raise: (id, to) => this.repo.raiseCount(id, to),
      },
      {
        take: (actorGuid, window) => budget.take(actorGuid, window),
        unwritten: (reason, n) => this.countUnwritten(reason, n),
        summary: (summary) => this.summarise(summary),
        failed: (err, what) => this.logger.error({ err }, what),
      },
      clock.now(),
    );
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.refusals.flush(this.clock.now()), REFUSAL_FLUSH_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** The refusal rows' last counts, before the database closes (a draining node has stopped answering). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.refusals.close();
    await this.refusals.settled();
  }

  /**
   * Runs `write` (the change's one conditional statement, or the few of one change) in ONE transaction with its
   * AdminEvent row: the row is inserted after the statement, only when it changed something (a result other
   * than undefined, null or false), and both commit or neither does. `write` makes its statements in the
   * transaction it is given (`repo.in(tx)`). For an actor without an AdminWriteContext (not acting through an
   * administrative route: bootstrap, the demo seed) the write runs as it is, with no transaction.
   */
  async applied<T>(
    actor: Actor,
    describe: AdminWrite | ((result: T) => AdminWrite),
    write: (tx?: Transaction) => Promise<T>,
  ): Promise<T> {
    const context = actor.adminWrite;
    if (!context || context.recorded) return write();
    const result = await this.dataSource.transaction(async (tx) => {
      // The actor's tenant as it was before the change (a tenant may rename itself).
      const tenantName = await this.repo.tenantName(actor.tenantId, tx);
      const written = await write(tx);
      if (changedNothing(written)) return written;
      const { target, changes } = typeof describe === 'function' ? describe(written) : describe;
      await this.repo.insert(
        {
          ...this.row(actor, context, target, {
            outcome: AdminEventOutcome.Applied,
            status: context.route.successStatus,
            changes: changes ?? [],
          }),
          ActorTenantName: tenantName,
        },
        tx,
      );
      return written;
    });
    if (!changedNothing(result)) context.recorded = true;
    return result;
  }

  /**
   * `applied` for a record of the actor's tenant changed from `before` to `after` (null before: created; null
   * after: the record `write` answers), its fields compared column by column (fieldChanges).
   */
  recordChange<E extends { Guid: string; Name: string }, R extends E | undefined>(
    actor: Actor,
    before: E | null,
    after: E | null,
    write: (tx?: Transaction) => Promise<R>,
  ): Promise<R> {
    return this.applied(
      actor,
      (written: R) => recordChange(actor.tenantId, before, after ?? written ?? null),
      write,
    );
  }

  /** A write request was answered: a refusal of an administrative route is counted (RefusalAggregates). */
  answered(actor: Actor | undefined, status: number, message: string | null): void {
    const context = actor?.adminWrite;
    if (!actor || !context || context.recorded || status < 400 || status >= 500 || status === 401) return;
    this.refusals.add(this.refusalOf(actor, context, status, message));
  }

  /** Resolves when every refusal row this node is opening or writing has been written. */
  settled(): Promise<void> {
    return this.refusals.settled();
  }

  /** Writes the open refusal rows' counts now (as every REFUSAL_FLUSH_MS), closing the minute when it is over. */
  async flushRefusals(): Promise<void> {
    await this.refusals.flush(this.clock.now());
    await this.refusals.settled();
  }

  private refusalOf(actor: Actor, context: AdminWriteContext, status: number, message: string | null): Refusal {
    const { targetGuid } = context;
    return {
      actorGuid: actor.userGuid,
      action: context.route.action,
      status,
      targetGuid: inertText(targetGuid, ADMIN_EVENT_LIMITS.guid),
      at: this.clock.now(),
      row: () =>
        this.row(
          actor,
          context,
          { guid: targetGuid, name: null, tenantId: actor.tenantId },
          { outcome: AdminEventOutcome.Refused, status, changes: [], message },
        ),
    };
  }

  private countUnwritten(reason: UnwrittenReason, n: number): void {
    this.unwrittenSinceStart[reason] += n;
    this.unwritten.add(n, this.unwrittenAttributes[reason]);
  }

  private summarise(summary: RefusalSummary): void {
    this.logger.warn(
      summary,
      `Refused administrative writes in the minute from ${summary.window}: ${summary.refusals}, in ${summary.rows} rows; not rows of their own: ${summary.aggregated} counted in a row, ${summary.actorBound} past their actor's ${REFUSAL_ROWS_PER_ACTOR} rows, ${summary.writeFailed} whose row failed`,
    );
  }

  /** The refusing actor's tenant's name, read once a minute per tenant. */
  private async tenantName(row: Omit<AdminEvent, 'Id'>): Promise<string | null> {
    const now = this.clock.now();
    const kept = this.tenantNames.get(row.ActorTenantRegistryId);
    if (kept && now - kept.at < REFUSAL_WINDOW_MS && now >= kept.at) return kept.name;
    const name = await this.repo.tenantName(row.ActorTenantRegistryId);
    if (this.tenantNames.size >= TENANT_NAMES_KEPT) this.tenantNames.clear();
    this.tenantNames.set(row.ActorTenantRegistryId, { name, at: now });
    return name;
  }

  private row(
    actor: Actor,
    context: AdminWriteContext,
    target: AdminTarget,
    answer: { outcome: AdminEventOutcome; status: number; changes: FieldChange[]; message?: string | null },
  ): Omit<AdminEvent, 'Id'> {
    const { route, client } = context;
    const L = ADMIN_EVENT_LIMITS;
    return {
      CreatedDate: new Date(this.clock.now()),
      ActorUserGuid: actor.userGuid,
      ActorUser: inertText(actor.userName, L.userName) ?? '',
      ActorTenantRegistryId: actor.tenantId,
      ActorTenantName: null,
      CredentialKind: actor.credential,
      // spec: API key record — the first eight characters are the display-safe identifier for auditing.
      ApiKeyIdentifier: inertText(context.apiKeyIdentifier, 16),
      Action: route.action,
      TargetType: route.targetType,
      TargetGuid: inertText(target.guid, L.guid),
      TargetName: inertText(target.name, L.name),
      TenantRegistryId: target.tenantId,
      Changes: answer.changes.length ? JSON.stringify(answer.changes) : null,
      EventCount: 1,
      LastTargetGuid: null,
      LastDate: null,
      OutcomeId: answer.outcome,
      StatusCode: answer.status,
      Message: inertText(answer.message ?? null, L.message),
      RemoteIp: inertText(client.clientIp, L.ip),
      LocalIp: inertText(client.localIp, L.ip),
      UserAgent: inertText(client.userAgent, L.userAgent),
    };
  }
}
