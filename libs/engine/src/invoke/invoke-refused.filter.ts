import { type ArgumentsHost, Catch, type ExceptionFilter, Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { InvokeAdmission, InvokeRefused } from './invoke-admission';

/**
 * The Invoke handler's refusal (InvokeAdmission.admit, counted there) answered as the door answers it:
 * InvokeAdmission's preformatted 503 with Retry-After, with no request line of its own.
 */
@Injectable()
@Catch(InvokeRefused)
export class InvokeRefusedFilter implements ExceptionFilter<InvokeRefused> {
  constructor(private readonly admission: InvokeAdmission) {}

  catch(refused: InvokeRefused, host: ArgumentsHost): void {
    this.admission.answer(host.switchToHttp().getResponse<ServerResponse>(), refused.reason);
  }
}
