import request from 'supertest';
import { DataSource } from 'typeorm';
import type { INestApplicationContext } from '@nestjs/common';
import { UserLogin, UserLogout } from '@app/audit';

export interface SignedIn {
  token: string;
  /** The whole `authentication-jwt=...` pair, ready for a Cookie header. */
  cookie: string;
  setCookies: string[];
  body: { token: string; expiresAt: string; sessionStartedAt: string };
}

export function setCookiesOf(res: request.Response): string[] {
  const raw = res.headers['set-cookie'] as unknown;
  return Array.isArray(raw) ? (raw as string[]) : typeof raw === 'string' ? [raw] : [];
}

export function cookieValue(setCookies: string[], name: string): string | undefined {
  const line = setCookies.find((c) => c.startsWith(`${name}=`));
  return line ? decodeURIComponent(line.slice(name.length + 1).split(';')[0]) : undefined;
}

/** Signs in over HTTP and fails the test unless it answers 200. */
export async function signIn(url: string, userName: string, password: string): Promise<SignedIn> {
  const res = await request(url).post('/api/Authentication/ByUserNamePassword').send({ userName, password });
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${JSON.stringify(res.body)}`);
  const setCookies = setCookiesOf(res);
  const token = res.body.token as string;
  return { token, cookie: `authentication-jwt=${token}`, setCookies, body: res.body };
}

export function loginRows(app: INestApplicationContext, createdUser?: string): Promise<UserLogin[]> {
  return app
    .get(DataSource)
    .getRepository(UserLogin)
    .find({ where: createdUser === undefined ? {} : { CreatedUser: createdUser }, order: { Id: 'ASC' } });
}

export function logoutRows(app: INestApplicationContext, userName?: string): Promise<UserLogout[]> {
  return app
    .get(DataSource)
    .getRepository(UserLogout)
    .find({ where: userName === undefined ? {} : { UserName: userName }, order: { Id: 'ASC' } });
}
