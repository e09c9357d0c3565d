import { applyDecorators, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';
import { problemResponse } from '@app/problems';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from './idempotency-key';
import { IdempotencyGuard } from './idempotency.guard';
import { IdempotentReplayFilter } from './idempotent-replay.filter';
import { RUNNING_RETRY_AFTER_SECONDS } from './idempotency.service';

/** The operation extension that marks an idempotent route until declareIdempotency writes it out. */
const MARK = 'x-idempotency-key';

/**
 * A route that takes an Idempotency-Key: the guard that claims the key or answers from it, the filter that
 * writes a kept success (no interceptor: a route with one runs Nest's interceptor chain on every request, keyed
 * or not), and the mark from which the OpenAPI document
 * declares the header, the `Idempotent-Replayed` answer header and the 409 and 422 problems
 * (declareIdempotency), so the document cannot drift from the routes that honour the key.
 */
export function Idempotent() {
  return applyDecorators(
    UseGuards(IdempotencyGuard),
    UseFilters(IdempotentReplayFilter),
    ApiExtension(MARK, true),
  );
}

const RUNNING_409 =
  'A request with this Idempotency-Key is still being processed (urn:problem-type:conflict); Retry-After';
const MISMATCH_422 =
  'The Idempotency-Key was used with another request: another path, query or body (urn:problem-type:unprocessable)';

interface ResponseLike {
  description: string;
  headers?: Record<string, unknown>;
}

/** Writes the Idempotency-Key parts of every marked operation of the document, and removes the mark. */
export function declareIdempotency(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    for (const op of [item.get, item.put, item.post, item.delete, item.patch]) {
      if (!op || !(MARK in op)) continue;
      delete (op as Record<string, unknown>)[MARK];
      (op.parameters ??= []).push({
        name: IDEMPOTENCY_KEY_HEADER,
        in: 'header',
        required: false,
        description:
          'Makes a retry safe: the first answer is kept (IdempotencyRetentionHours) per user, route and key; a retry with the same request gets it back with `Idempotent-Replayed: true`. 1 to 255 printable ASCII characters (a UUID).',
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
      });
      const responses = op.responses as Record<string, ResponseLike>;
      for (const [status, response] of Object.entries(responses)) {
        if (!/^2/.test(status)) continue;
        response.headers = {
          ...response.headers,
          [IDEMPOTENT_REPLAYED_HEADER]: {
            description:
              '`true` when this is the kept first answer to a request with the same Idempotency-Key',
            schema: { type: 'string', enum: ['true'] },
          },
        };
      }
      merge(responses, 409, RUNNING_409);
      responses[409].headers = {
        ...responses[409].headers,
        'Retry-After': {
          description: `Seconds to wait before trying again (${RUNNING_RETRY_AFTER_SECONDS})`,
          schema: { type: 'integer', minimum: 1 },
        },
      };
      merge(responses, 422, MISMATCH_422);
    }
  }
}

function merge(responses: Record<string, ResponseLike>, status: number, description: string): void {
  const existing = responses[status];
  if (existing) existing.description = `${existing.description}; or ${description}`;
  else responses[status] = problemResponse(status, description);
}
