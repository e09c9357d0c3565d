import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { HttpStatus } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { match } from 'path-to-regexp';
import { COOKIE_SCHEME } from '@app/access';
import { PROBLEM_CONTENT_TYPE, ProblemException, ProblemType } from '@app/problems';
import { ArchiverService } from '../archiver/archiver.service';
import { CaseCreationService } from '../case-creation/case-creation.service';

/** Why a new invocation is refused: the Archiver queue is full, or the case backlog is (case lag). */
export type InvokeRefusal = 'archiver' | 'caseLag';

/** The seconds a refused caller is told to wait (Retry-After). */
export const INVOKE_RETRY_AFTER_SECONDS = 1;

export const INVOKE_REFUSAL_DETAILS: Readonly<Record<InvokeRefusal, string>> = {
  archiver: 'The Archiver queue is full; retry shortly.',
  caseLag:
    'Case creation is behind (its backlog holds CaseCreationQueueCapacity activations); retry shortly.',
};

/** The Invoke route, as its controller declares it (`route-methods.spec` checks the application registers it). */
export const INVOKE_ROUTE = '/api/Invoke/EntityAnalysisModel/:guid';

/**
 * The refusal InvokeAdmission.admit throws when the queues filled between the door (before the body is read) and
 * the handler; InvokeRefusedFilter answers it with the same preformatted answer as the door.
 */
export class InvokeRefused extends ProblemException {
  constructor(readonly reason: InvokeRefusal) {
    super(
      HttpStatus.SERVICE_UNAVAILABLE,
      'Service Unavailable',
      INVOKE_REFUSAL_DETAILS[reason],
      ProblemType.unavailable,
      {},
      { 'Retry-After': String(INVOKE_RETRY_AFTER_SECONDS) },
    );
  }
}

/** A refusal's whole answer, made once: a shed request costs no exception, no filter and no serialisation. */
export interface PreformattedAnswer {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: Buffer;
}

function preformatted(reason: InvokeRefusal): PreformattedAnswer {
  const body = Buffer.from(
    JSON.stringify({
      type: ProblemType.unavailable,
      title: 'Service Unavailable',
      status: 503,
      detail: INVOKE_REFUSAL_DETAILS[reason],
    }),
  );
  return {
    status: 503,
    headers: {
      'Content-Type': `${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
      'Content-Length': String(body.length),
      'Retry-After': String(INVOKE_RETRY_AFTER_SECONDS),
      'Cache-Control': 'no-store',
    },
    body,
  };
}

/** How often the shed requests are summarised in one log line. */
const SUMMARY_INTERVAL_MS = 1_000;

/** Where an answer that shed load is marked (a symbol: nothing a client can set). */
const SHED = Symbol('shed');

/**
 * Whether an answer was load shed by InvokeAdmission: its request line is not written, as the shedding is
 * counted and summarised once a second instead (a line per refusal would flood the log exactly when the node is
 * overloaded). Other 5xx keep their line at `error`.
 */
export function isShed(res: object): boolean {
  return (res as Record<symbol, boolean | undefined>)[SHED] === true;
}

/** The request carries a credential (any of the three carriers the precedence guard reads). */
function carriesCredential(req: IncomingMessage): boolean {
  const h = req.headers;
  return (
    h['x-api-key'] !== undefined ||
    h.authorization !== undefined ||
    (typeof h.cookie === 'string' && h.cookie.includes(`${COOKIE_SCHEME}=`))
  );
}

/**
 * THE overload shedding of Invoke: whether a new invocation is taken now, its 503 answer (preformatted once, with
 * Retry-After), the count of refusals and their summary. Under overload a node answers what it can, sheds the
 * rest cheaply, and never starves the work it accepted: refused while the Archiver queue holds
 * ArchiverQueueCapacity, or the case backlog CaseCreationQueueCapacity (its own bound: the Archiver never waits
 * for case creation). Asked at two moments of a request, each counting a refusal once: at the door (`atDoor`,
 * before the body is read, so a shed request costs no body, route walk or exception) and at the handler
 * (`admit`, in the turn that enqueues: the queues may have filled while the body arrived, and the queue's bound
 * must hold). The refusals are logged as ONE `warn` line a second with their count, never one line per request.
 */
@Injectable()
export class InvokeAdmission implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('LoadShedding');
  private readonly answers: Readonly<Record<InvokeRefusal, PreformattedAnswer>> = {
    archiver: preformatted('archiver'),
    caseLag: preformatted('caseLag'),
  };
  private readonly isInvokePath = match(INVOKE_ROUTE, { sensitive: false, trailing: true, decode: false });
  /** Refusals since the last summary, by reason. */
  private readonly pending: Record<InvokeRefusal, number> = { archiver: 0, caseLag: 0 };
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly archiver: ArchiverService,
    private readonly cases: CaseCreationService,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => this.summarise(), SUMMARY_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.summarise();
  }

  /**
   * The handler's check, synchronous in the turn that enqueues: nothing can take the free slot in between.
   * Throws InvokeRefused, counted, when refused.
   */
  admit(): void {
    const reason = this.refusal();
    if (reason === null) return;
    this.count(reason);
    throw new InvokeRefused(reason);
  }

  /**
   * The door, before the body is read (a step of the front layer): while refusing, an Invoke request that
   * carries a credential is answered at once and counted; its body is never read or parsed (Node discards it).
   * The credential is not checked first: checking it is most of a request's cost, and a 503 says nothing about
   * it; a request with none goes on to its 401. Answers true when it answered.
   */
  atDoor(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'POST') return false;
    const reason = this.refusal();
    if (reason === null || !carriesCredential(req)) return false;
    const url = req.url ?? '';
    const query = url.indexOf('?');
    if (!this.isInvokePath(query < 0 ? url : url.slice(0, query))) return false;
    this.count(reason);
    this.answer(res, reason);
    return true;
  }

  /** Writes a refusal's preformatted answer, marked shed (no request line of its own). Counts nothing. */
  answer(res: ServerResponse, reason: InvokeRefusal): void {
    const answer = this.answers[reason];
    (res as unknown as Record<symbol, boolean>)[SHED] = true;
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  }

  /** Why a new invocation would be refused now, or null when it is taken. Synchronous and allocation-free. */
  private refusal(): InvokeRefusal | null {
    if (!this.archiver.hasCapacity()) return 'archiver';
    if (!this.cases.hasCapacity()) return 'caseLag';
    return null;
  }

  private count(reason: InvokeRefusal): void {
    this.pending[reason]++;
  }

  private summarise(): void {
    const { archiver, caseLag } = this.pending;
    if (!archiver && !caseLag) return;
    this.pending.archiver = 0;
    this.pending.caseLag = 0;
    this.logger.warn(
      {
        refused: archiver + caseLag,
        archiverQueueFull: archiver,
        caseLag,
        archiverDepth: this.archiver.depth,
        caseBacklog: this.cases.depth,
      },
      'Invoke refused requests with 503 (overload) in the last second',
    );
  }
}
