import { ArgumentsHost, Catch, Injectable, Logger } from '@nestjs/common';
import type { Request } from 'express';
import { ProblemFilter, refusedCharacter, RequestRefusal } from '@app/common';
import { SignInDto } from './dto/authentication.dto';
import { validateSync } from 'class-validator';
import { AuthenticationType, FailureType, LoginRecorder } from '@app/audit';
import { IdentityAuthService } from '@app/identity';
import { accountFailure } from './sign-in.service';

/**
 * spec: UserLogin rule 1 — every sign-in attempt writes one row, including a body the validation or the
 * input rules refuse (a user name that is not a string, too long, or holding a control character, U+0000 or
 * a lone surrogate; a password that is not a string). The answer stays the 400 problem; the row says who was
 * named, as far as the body names anyone: FailureTypeId 1–3 for the user named (unknown, not active,
 * locked), else 6, no usable password supplied. A name no user can have (one the validation refuses) is
 * not looked up: FailureTypeId 1, the name kept as inert text (spec: the audit columns are bounded and
 * stripped).
 */
@Injectable()
@Catch(RequestRefusal)
export class SignInAuditFilter extends ProblemFilter {
  private readonly log = new Logger('SignIn');

  constructor(
    private readonly logins: LoginRecorder,
    private readonly identity: IdentityAuthService,
  ) {
    super();
  }

  /** Only refusals of the request itself: the service records its own outcomes (401s, a refused new password). */
  override catch(exception: RequestRefusal, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<Request>();
    void this.record(request).finally(() => super.catch(exception, host));
  }

  private async record(request: Request): Promise<void> {
    try {
      const body: unknown = request.body;
      const named =
        body !== null && typeof body === 'object' ? (body as Record<string, unknown>).userName : undefined;
      const userName = typeof named === 'string' ? named : null;
      const user =
        userName === null || !possibleUserName(userName)
          ? null
          : await this.identity.findSignInUser(userName);
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

/** False for a name the sign-in validation refuses (a control character, too long): no user has it. */
function possibleUserName(userName: string): boolean {
  return (
    validateSync(Object.assign(new SignInDto(), { userName }), { skipMissingProperties: true }).length ===
      0 && refusedCharacter(userName) === undefined
  );
}
