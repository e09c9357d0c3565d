import { ArgumentsHost, Catch, Inject, Injectable, Logger } from '@nestjs/common';
import type { Request } from 'express';
import { clientContextOf } from '@app/http-edge';
import { ProblemFilter, RequestRefusal } from '@app/problems';
import { refusedCharacter } from '@app/input-rules';
import { RequestWithActor } from '@app/access';
import { SIGN_IN_SETTINGS, type SignInSettings } from '@app/config';
import { SignInDto } from './dto/authentication.dto';
import { validateSync } from 'class-validator';
import { AuthenticationType, FailureType, LoginAttempt, LoginRecorder } from '@app/audit';
import { IdentityAuthService } from '@app/identity';
import { PasscodeTokens } from './second-factor/passcode-tokens';
import { accountFailure } from './sign-in.service';

/**
 * spec: UserLogin rule 1 — every sign-in attempt writes one row, including a request refused before its
 * handler ran (the validation, the input rules, the GUID pipe: RequestRefusal). The answer stays the 400
 * problem; the row says who was named, as far as the request names anyone. One subclass per sign-in route.
 */
abstract class RefusedSignInAuditFilter extends ProblemFilter {
  private readonly log = new Logger('SignIn');

  constructor(protected readonly logins: LoginRecorder) {
    super();
  }

  /** Only refusals of the request itself: the service records its own outcomes (401s, a refused new password). */
  override catch(exception: RequestRefusal, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<Request>();
    void this.record(request).finally(() => super.catch(exception, host));
  }

  /** What the refused request's row records. */
  protected abstract attempt(request: Request, body: Record<string, unknown>): Promise<LoginAttempt>;

  private async record(request: Request): Promise<void> {
    try {
      const raw: unknown = request.body;
      const body = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
      await this.logins.record(clientContextOf(request), await this.attempt(request, body));
    } catch (err) {
      // The 400 still goes out; the lost row is said loudly.
      this.log.error(
        `A refused sign-in request could not be recorded: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
}

/**
 * ByUserNamePassword: FailureTypeId 1–3 for the user named (unknown, not active, locked), else 6, no usable
 * password supplied. A name no user can have (one the validation refuses) is not looked up: FailureTypeId 1,
 * the name kept as inert text (spec: the audit columns are bounded and stripped).
 */
@Injectable()
@Catch(RequestRefusal)
export class SignInAuditFilter extends RefusedSignInAuditFilter {
  constructor(
    logins: LoginRecorder,
    private readonly identity: IdentityAuthService,
  ) {
    super(logins);
  }

  protected async attempt(_request: Request, body: Record<string, unknown>): Promise<LoginAttempt> {
    const userName = typeof body.userName === 'string' ? body.userName : null;
    const user =
      userName === null || !possibleUserName(userName) ? null : await this.identity.findSignInUser(userName);
    return {
      userName,
      tenantId: user?.tenantId ?? null,
      authenticationType: AuthenticationType.UserNamePassword,
      failureType: accountFailure(user) ?? FailureType.NoPassword,
    };
  }
}

/**
 * Passcode: FailureTypeId 11 (the second step did not complete), naming the user of the passcode token when
 * it proves one, else nobody.
 */
@Injectable()
@Catch(RequestRefusal)
export class PasscodeAuditFilter extends RefusedSignInAuditFilter {
  constructor(
    logins: LoginRecorder,
    private readonly identity: IdentityAuthService,
    private readonly tokens: PasscodeTokens,
    @Inject(SIGN_IN_SETTINGS.token) private readonly settings: SignInSettings,
  ) {
    super(logins);
  }

  protected async attempt(_request: Request, body: Record<string, unknown>): Promise<LoginAttempt> {
    const pending = typeof body.passcodeToken === 'string' ? this.tokens.verify(body.passcodeToken) : null;
    const user = pending ? await this.identity.findSignInUserByGuid(pending.userGuid) : null;
    return {
      userName: pending?.typedName ?? '',
      tenantId: user?.tenantId ?? null,
      authenticationType:
        pending?.authenticationType ??
        (this.settings.NegotiateAuthentication
          ? AuthenticationType.Negotiate
          : AuthenticationType.UserNamePassword),
      failureType: FailureType.SecondFactorMismatch,
    };
  }
}

/**
 * ChangePassword (a signed-in user): 6 when the current password is not usable as sent, else 14 (the new
 * password or its repeat was refused).
 */
@Injectable()
@Catch(RequestRefusal)
export class ChangePasswordAuditFilter extends RefusedSignInAuditFilter {
  // Declared here: Nest reads the constructor's parameter types from the decorated class itself.
  constructor(logins: LoginRecorder) {
    super(logins);
  }

  protected async attempt(request: Request, body: Record<string, unknown>): Promise<LoginAttempt> {
    const actor = (request as RequestWithActor).actor;
    return {
      userName: actor?.userName ?? '',
      tenantId: actor?.tenantId ?? null,
      authenticationType: AuthenticationType.UserNamePassword,
      failureType:
        typeof body.password === 'string' && body.password !== ''
          ? FailureType.NewPasswordRefused
          : FailureType.NoPassword,
    };
  }
}

/** False for a name the sign-in validation refuses (a control character, too long): no user has it. */
function possibleUserName(userName: string): boolean {
  return (
    validateSync(Object.assign(new SignInDto(), { userName }), { skipMissingProperties: true }).length ===
      0 && refusedCharacter(userName) === undefined
  );
}
