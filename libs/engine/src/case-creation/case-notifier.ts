import { Inject, Injectable } from '@nestjs/common';
import { createTransport, Transporter } from 'nodemailer';
import { CASE_NOTIFICATION_SETTINGS, type CaseNotificationSettings } from '@app/config';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** The outbound side of case creation: e-mail through SMTP (nodemailer) and HTTP callbacks (fetch). */
@Injectable()
export class CaseNotifier {
  private transport?: Transporter;

  constructor(
    @Inject(CASE_NOTIFICATION_SETTINGS.token) private readonly settings: CaseNotificationSettings,
  ) {}

  async sendMail(mail: Mail): Promise<void> {
    if (!this.settings.SmtpHost) throw new Error('SmtpHost is not set');
    this.transport ??= createTransport({
      host: this.settings.SmtpHost,
      port: this.settings.SmtpPort,
      secure: this.settings.SmtpSecure,
      ...(this.settings.SmtpUser
        ? { auth: { user: this.settings.SmtpUser, pass: this.settings.SmtpPassword ?? '' } }
        : {}),
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
    await this.transport.sendMail({
      from: this.settings.SmtpFrom,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
    });
  }

  /** POST sends `body` as JSON; GET sends no body. Anything but a 2xx answer, or the timeout, throws. */
  async call(url: string, method: 'POST' | 'GET', body: unknown): Promise<void> {
    const res = await fetch(url, {
      method,
      redirect: 'manual',
      signal: AbortSignal.timeout(this.settings.HttpEndpointTimeoutMilliseconds),
      ...(method === 'POST'
        ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }
        : {}),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status < 200 || res.status > 299) throw new Error(`HTTP callback answered ${res.status}`);
  }

  close(): void {
    this.transport?.close();
  }
}
