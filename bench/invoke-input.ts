/* Parts of `npm run bench:invoke`, for what hostile-input hardening costs:
 *   - input: the cost the request input rules add to one Invoke, measured directly (the raw-body scan of
 *     the body parser's verify hook, and RequestInputGuard), in µs per invocation;
 *   - case-latency: how long after an Invoke is answered its case exists, with the default
 *     ArchiveBulkCopyIntervalMilliseconds (cases are created once the bulk copy holding their archive row has
 *     committed: docs/decisions.md, "The Archiver's order"). */
import { Test } from '@nestjs/testing';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { Reflector } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { loadSettings } from '@app/config';
import { Actor, Permission } from '@app/access';
import { RequestInputGuard, RequestInputRules, scanJsonBody } from '@app/input-rules';
import { ArchiverService, CaseRecord, DEMO_MODEL_GUID, demoTransaction, InvokeService } from '@app/engine';
import { InvokeController } from '../libs/engine/src/invoke.controller';
import { AppModule } from '../apps/server/src/app.module';
import { landlordActor } from '../test/factories/identity.factory';
import { createSqliteDirectory } from '../test/support/databases';

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

/** µs per call of `fn`, the median of `rounds` rounds of `n` calls. */
function timePerCall(fn: () => void, n: number, rounds = 15): number {
  const results: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    results.push(Number(process.hrtime.bigint() - start) / 1000 / n);
  }
  return percentile(results, 50);
}

export function inputChecksBench(): void {
  const body = Buffer.from(JSON.stringify(demoTransaction(1)));
  const escaped = Buffer.from(
    JSON.stringify({ ...demoTransaction(2), note: 'caf\u00e9 \u2603 "quoted" \\ path' }),
  );
  const large = Buffer.from(
    JSON.stringify({ items: Array.from({ length: 2000 }, (_, i) => ({ ...demoTransaction(i), i })) }),
  );
  const guard = new RequestInputGuard(new RequestInputRules(new Reflector()));
  const request = {
    body: JSON.parse(body.toString()) as unknown,
    url: `/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`,
    headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
    is: () => false,
    query: {},
  };
  const context = new ExecutionContextHost(
    [request, {}, () => undefined],
    InvokeController,
    InvokeController.prototype.invoke,
  );
  const withTrace = new ExecutionContextHost(
    [{ ...request, url: `${request.url}?trace=true`, query: { trace: 'true' } }, {}, () => undefined],
    InvokeController,
    InvokeController.prototype.invoke,
  );
  const scan = timePerCall(() => scanJsonBody(body), 200_000);
  const scanEscaped = timePerCall(() => scanJsonBody(escaped), 200_000);
  const scanLarge = timePerCall(() => scanJsonBody(large), 50, 9);
  const guardCost = timePerCall(() => guard.canActivate(context), 200_000);
  const guardTrace = timePerCall(() => guard.canActivate(withTrace), 200_000);
  console.log('Request input rules on Invoke, measured directly, medians of rounds:');
  console.log(
    `  raw-body scan (depth, UTF-8, escapes), the demo body (${body.length} B): ${scan.toFixed(3)} µs; with escapes (${escaped.length} B): ${scanEscaped.toFixed(3)} µs; ${(large.length / 1024).toFixed(0)} KiB: ${scanLarge.toFixed(0)} µs (${(((large.length / scanLarge) * 1e6) / 2 ** 20).toFixed(0)} MiB/s)`,
  );
  console.log(
    `  RequestInputGuard: ${guardCost.toFixed(3)} µs per Invoke; with ?trace=true ${guardTrace.toFixed(3)} µs`,
  );
  console.log(
    `  together ${(scan + guardCost).toFixed(2)} µs per Invoke of the demo body (compare the server CPU per invocation of the HTTP part: 1 / its "per server CPU second")`,
  );
}

export async function caseLatencyBench(): Promise<void> {
  const settings = loadSettings({
    DataDirectory: createSqliteDirectory(),
    JwtKey: 'bench-jwt-key-0123456789abcdefghijklmnopqrstuvwxyz',
    ApiHmacKey: 'bench-api-hmac-key-0123456789abcdefghijklmnopqrstuvwxyz',
    BootstrapAdministratorPassword: 'Bench-Password-123!',
    LogLevel: 'silent',
  });
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot(settings)] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  try {
    const actor: Actor = { ...(await landlordActor(app)), permissions: new Set([Permission.Invoke]) };
    const invoker = app.get(InvokeService);
    const count = Number(process.env.BENCH_CASES ?? 300);
    const rate = 100; // invocations a second, each raising a case on its own account
    const answered = new Map<string, number>();
    for (let i = 0; i < count; i++) {
      // The demo model's "Large amount" rule (> 5000) raises a case in Review.
      const body = { ...demoTransaction(i), account: { id: `ACC-LAT-${i}` }, amount: 6000, country: 'NL' };
      const answer = await invoker.invoke(actor, DEMO_MODEL_GUID, body);
      answered.set(answer.entityAnalysisModelInstanceEntryGuid, Date.now());
      await new Promise((r) => setTimeout(r, 1000 / rate));
    }
    await app.get(ArchiverService).drain();
    const cases = await app.get(DataSource).getRepository(CaseRecord).find();
    const latencies = cases
      .filter((c) => answered.has(c.EntityAnalysisModelInstanceEntryGuid))
      .map((c) => c.CreatedDate.getTime() - answered.get(c.EntityAnalysisModelInstanceEntryGuid)!);
    console.log(
      `Case latency (SQLite, ${count} invocations at ${rate}/s, each raising a case; ArchiveBulkCopyIntervalMilliseconds ${settings.ArchiveBulkCopyIntervalMilliseconds}):`,
    );
    console.log(
      `  ${latencies.length} cases; from the Invoke's answer to the case row: p50 ${percentile(latencies, 50)} ms, p95 ${percentile(latencies, 95)} ms, max ${Math.max(...latencies)} ms`,
    );
  } finally {
    await app.close();
  }
}
