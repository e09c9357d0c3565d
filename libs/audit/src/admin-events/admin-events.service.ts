import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { type Actor, clientContextOf, Clock, inertText } from '@app/common';
import type { Transaction } from '@app/database';
import { REDIS } from '@app/redis';
import { AdminEvent } from '../entities/admin-event.entity';
import {
  ADMIN_EVENT_LIMITS,
  AdminEventOutcome,
  type AdminTarget,
  type FieldChange,
  recordChange,
} from './admin-event-types';
import { AdminEventRepository } from './admin-event.repository';
import { AdminRoute, AdminRoutes } from './admin-routes';
import {
  actingRequest,
  AdminRequest,
  type AdminRequestState,
  AnsweredWrites,
} from './admin-request.middleware';
import { SharedWindow } from '../shared-window';

/** What an accepted administrative write did: its target as it was, and the fields it changed. */
export interface AdminWrite {
  target: AdminTarget;
  changes?: FieldChange[];
}

/** Identical refusals (same actor, address, action, target and answer) are recorded at most once a minute. */
export const REFUSAL_WINDOW_MS = 60_000;
/** Refusal keys remembered by one node; the memory cannot grow past it whatever callers send. */
export const REFUSAL_CAPACITY = 10_000;
/** Redis key prefix of the refusal window shared by every node. */
export const REFUSAL_KEY_PREFIX = 'decisioning:admin-refusal:';

/** A write's result that says it changed nothing (the conditional statement matched no row). */
function changedNothing(result: unknown): boolean {
  return result === undefined || result === null || result === false;
}

/**
 * THE writer of AdminEvent rows (issue 39). An accepted administrative write is recorded by `applied`, in the
 * same transaction as its statement; a refused one (any 4xx answer but 401) when its answer is finished, at
 * most once a minute per identical refusal across every node (SharedWindow). Only writes made through a route
 * marked @AdminAction, by an authenticated caller, are recorded: the service's own writes (bootstrap, the demo
 * seed) have no administrator.
 */
@Injectable()
export class AdminEvents extends AnsweredWrites {
  private readonly logger = new Logger('AdminEvents');
  private readonly refusals: SharedWindow;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly repo: AdminEventRepository,
    private readonly routes: AdminRoutes,
    private readonly clock: Clock,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(REDIS) redis: Redis | null,
  ) {
    super();
    this.refusals = new SharedWindow(redis, REFUSAL_KEY_PREFIX, REFUSAL_WINDOW_MS, REFUSAL_CAPACITY);
  }

  /**
   * Runs `write` (the change's one conditional statement, or the few of one change) in ONE transaction with its
   * AdminEvent row: the row is inserted after the statement, only when it changed something (a result other
   * than undefined, null or false), and both commit or neither does. `write` makes its statements in the
   * transaction it is given (`repo.in(tx)`). Outside an administrative route's request (`actor` acts through
   * none: bootstrap, the demo seed) the write runs as it is, with no transaction.
   */
  async applied<T>(
    actor: Actor,
    describe: AdminWrite | ((result: T) => AdminWrite),
    write: (tx?: Transaction) => Promise<T>,
  ): Promise<T> {
    const state = actingRequest(actor);
    const route = state ? this.routes.of(state.req) : undefined;
    if (!state || !route || !state.req.actor || state.recorded) return write();
    const result = await this.dataSource.transaction(async (tx) => {
      const written = await write(tx);
      if (changedNothing(written)) return written;
      const { target, changes } = typeof describe === 'function' ? describe(written) : describe;
      await this.repo.insert(
        this.row(state.req, route, target, {
          outcome: AdminEventOutcome.Applied,
          status: route.successStatus,
          changes: changes ?? [],
        }),
        tx,
      );
      return written;
    });
    if (!changedNothing(result)) state.recorded = true;
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

  /** A write request was answered: a refusal of an administrative route is recorded (rate-limited). */
  answered(state: AdminRequestState, status: number): void {
    if (state.recorded || status < 400 || status >= 500 || status === 401) return;
    const route = this.routes.of(state.req);
    if (!route || !state.req.actor) return;
    const work = this.recordRefusal(state.req, route, status).catch((err: unknown) =>
      this.logger.error({ err, action: route.action }, 'Recording a refused administrative write failed'),
    );
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  /** Resolves when every refusal this node is recording has been written (tests read the trail after it). */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  private async recordRefusal(req: AdminRequest, route: AdminRoute, status: number): Promise<void> {
    const actor = req.actor!;
    const params = (req.params ?? {}) as Record<string, string | undefined>;
    const targetGuid = route.targetParam === null ? null : (params[route.targetParam ?? 'guid'] ?? null);
    const problem = req.answeredProblem;
    const identical = createHash('sha256')
      .update(
        JSON.stringify([
          actor.userGuid,
          clientContextOf(req).clientIp,
          route.action,
          targetGuid,
          status,
          problem?.type ?? null,
          problem?.detail ?? null,
        ]),
      )
      .digest('base64url');
    if (!(await this.refusals.admit(identical, this.clock.now()))) return;
    await this.repo.insert(
      this.row(
        req,
        route,
        { guid: targetGuid, name: null, tenantId: actor.tenantId },
        { outcome: AdminEventOutcome.Refused, status, changes: [], message: problem?.detail ?? null },
      ),
    );
  }

  private row(
    req: AdminRequest,
    route: AdminRoute,
    target: AdminTarget,
    answer: { outcome: AdminEventOutcome; status: number; changes: FieldChange[]; message?: string | null },
  ): Omit<AdminEvent, 'Id'> {
    const actor = req.actor!;
    const client = clientContextOf(req);
    const key = req.headers['x-api-key'];
    const L = ADMIN_EVENT_LIMITS;
    return {
      CreatedDate: new Date(this.clock.now()),
      ActorUserGuid: actor.userGuid,
      ActorUser: inertText(actor.userName, L.userName) ?? '',
      ActorTenantRegistryId: actor.tenantId,
      CredentialKind: actor.credential,
      // spec: API key record — the first eight characters are the display-safe identifier for auditing.
      ApiKeyIdentifier:
        actor.credential === 'api-key' && typeof key === 'string' ? inertText(key.slice(0, 8), 16) : null,
      Action: route.action,
      TargetType: route.targetType,
      TargetGuid: inertText(target.guid, L.guid),
      TargetName: inertText(target.name, L.name),
      TenantRegistryId: target.tenantId,
      Changes: answer.changes.length ? JSON.stringify(answer.changes) : null,
      OutcomeId: answer.outcome,
      StatusCode: answer.status,
      Message: inertText(answer.message ?? null, L.message),
      RemoteIp: inertText(client.clientIp, L.ip),
      LocalIp: inertText(client.localIp, L.ip),
      UserAgent: inertText(client.userAgent, L.userAgent),
    };
  }
}
