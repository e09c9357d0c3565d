import { type ArgumentsHost, Catch, type ExceptionFilter, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Response } from 'express';
import { IdempotentReplay } from './idempotency.guard';

/** Writes a kept first answer (a success) as the handler's value was written: its status, headers and body. */
@Injectable()
@Catch(IdempotentReplay)
export class IdempotentReplayFilter implements ExceptionFilter<IdempotentReplay> {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch({ answer }: IdempotentReplay, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
    this.adapterHost.httpAdapter.reply(res, answer.body, answer.status ?? 200);
  }
}
