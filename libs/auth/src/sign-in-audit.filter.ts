import { ArgumentsHost, BadRequestException, Catch, Injectable, Logger } from '@nestjs/common';
import type { Request } from 'express';
import { ProblemFilter } from '@app/common';
import { AuthenticationType, FailureType, LoginRecorder } from '@app/audit';
import { IdentityAuthService } from '@app/identity';
import { accountFailure } from './sign-in.service';

/**
 * spec: UserLogin rule 1 — every sign-in attempt writes one row, including a body the validation refuses
 * (a user name that is not a string or is too long, a password that is not a string). The answer stays the
 * validation's 400 problem; the row says who was named, as far as the body names anyone: FailureTypeId 1–3
 * for the user named (unknown, not active, locked), else 6, no usable password supplied.
 */
@Injectable()
@Catch(BadRequestException)
export class SignInAuditFilter extends ProblemFilter {
  private readonly log = new Logger('SignIn');

  constructor(
    private readonly logins: LoginRecorder,
    private readonly identity: IdentityAuthService,
  ) {
    super();
  }

  override catch(exception: BadRequestException, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<Request>();
    void this.record(request).finally(() => super.catch(exception, host));
  }

  private async record(request: Request): Promise<void> {
    try {
      const body: unknown = request.body;
      const named =
        body !== null && typeof body === 'object' ? (body as Record<string, unknown>).userName : undefined;
      const userName = typeof named === 'string' ? named : null;
      const user = userName === null ? null : await this.identity.findSignInUser(userName);
      await this.logins.record(request, {
        userName,
        tenantId: user?.tenantId ?? null,
        authenticationType: AuthenticationType.UserNamePassword,
        failureType: accountFailure(user) ?? FailureType.NoPassword,
      });
    } catch (err) {
      // The 400 still goes out; the lost row is said loudly.
      this.log.error(
        `A refused sign-in body could not be recorded: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
}
