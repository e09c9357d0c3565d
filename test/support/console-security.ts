import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { ALL_PERMISSIONS } from '@app/access';
import { UserRegistry } from '@app/identity';
import { createUser, landlordActor, type CreatedUser } from '../factories/identity.factory';
import { launchChromium } from './chromium';
import { watchPage } from './console-browser';
import { signInThroughPage } from './console-telemetry';
import { startTestApp, type TestApp } from './test-app';

/** What a Security pages spec works with: one service, one browser, a landlord administrator signed in. */
export interface SecurityConsole {
  t: TestApp;
  browser: Browser;
  admin: CreatedUser;
  landlordTenant: string;
  /** The administrator's page, with clipboard access. */
  page: Page;
  /** What watchPage saw on that page (console errors, CSP violations) since the start. */
  problems: string[];
  /** Further browser contexts a test opens (other users), closed after the file. */
  others: BrowserContext[];
}

/**
 * The set-up of the Security pages specs, registered in the calling describe: SQLite, Debian's Chromium,
 * an administrator of the landlord with every permission signed in through the Login page. The object is
 * filled in beforeAll; tests read it when they run.
 */
export function securityConsole(): SecurityConsole {
  const s = { others: [] as BrowserContext[] } as SecurityConsole;
  let context: BrowserContext | undefined;
  beforeAll(async () => {
    s.t = await startTestApp('sqlite');
    s.landlordTenant = (await landlordActor(s.t.app)).tenantGuid;
    s.admin = await createUser(s.t.app, { tenantGuid: s.landlordTenant, permissions: ALL_PERMISSIONS });
    s.browser = await launchChromium();
    context = await s.browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.t.url });
    s.page = await signInThroughPage(context, s.t.url, s.admin.name, s.admin.password);
    s.problems = watchPage(s.page);
  });
  afterAll(async () => {
    for (const c of s.others) await c.close();
    await context?.close();
    await s.browser?.close();
    await s.t?.close();
  });
  return s;
}

/** The user's row as stored. */
export function storedUser(t: TestApp, guid: string): Promise<UserRegistry | null> {
  return t.app.get(DataSource).getRepository(UserRegistry).findOneBy({ Guid: guid });
}
