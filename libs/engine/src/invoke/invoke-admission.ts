import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { HttpStatus } from '@nestjs/common';
import { PROBLEM_CONTENT_TYPE, ProblemException, ProblemType } from '@app/common';
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

/**
 * The refusal thrown when the queues fill between the early check (before the body is read) and the
 * handler: the same answer through the problem filter; the controller marks it shed (markShed).
 */
export class InvokeRefused extends ProblemException {
  constructor(reason: InvokeRefusal) {
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

/**
 * Whether Invoke takes a new invocation now, and the count of those it refused (under overload a
 * node answers what it can, sheds the rest cheaply, and never starves the work it accepted). Refused while
 * the Archiver queue holds ArchiverQueueCapacity, or the case backlog CaseCreationQueueCapacity (its own
 * bound: the Archiver never waits for case creation). The refusals are counted and logged as ONE `warn` line
 * a second with their count, never one line per request.
 */
@Injectable()
export class InvokeAdmission implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('LoadShedding');
  private readonly answers: Readonly<Record<InvokeRefusal, PreformattedAnswer>> = {
    archiver: preformatted('archiver'),
    caseLag: preformatted('caseLag'),
  };
  private readonly pending: Record<InvokeRefusal, number> = { archiver: 0, caseLag: 0 };
  /** Refusals since start, by reason. */
  readonly refused: Record<InvokeRefusal, number> = { archiver: 0, caseLag: 0 };
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

  /** Why a new invocation would be refused now, or null when it is taken. Synchronous and allocation-free. */
  refusal(): InvokeRefusal | null {
    if (!this.archiver.hasCapacity()) return 'archiver';
    if (!this.cases.hasCapacity()) return 'caseLag';
    return null;
  }

  /** Counts one refusal and gives its preformatted answer. */
  shed(reason: InvokeRefusal): PreformattedAnswer {
    this.pending[reason]++;
    this.refused[reason]++;
    return this.answers[reason];
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
