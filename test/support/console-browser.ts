import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page, Request } from 'playwright-core';

/**
 * Where the console's browser tests save their screenshots (one PNG per test step that matters), at
 * Playwright's default window size (1280×720). `CONSOLE_SCREENSHOTS` overrides it.
 */
export const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS ?? join(tmpdir(), 'console-screenshots');

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * axe-core's serious and critical violations on the page as it is now. axe is evaluated through the
 * DevTools protocol, which the page's CSP does not govern, so the page keeps its real policy.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run()).violations as {
      id: string;
      impact: string | null;
      help: string;
      nodes: { target: string[] }[];
    }[];
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.flatMap((n) => n.target) }));
}

/** What the page reported that it must never: CSP violations and uncaught errors. */
export function watchPage(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return problems;
}

/** Every request body the page sent, by URL path, in order. */
export function recordBodies(page: Page): { path: string; method: string; body: string | null }[] {
  const sent: { path: string; method: string; body: string | null }[] = [];
  page.on('request', (r: Request) =>
    sent.push({ path: new URL(r.url()).pathname, method: r.method(), body: r.postData() }),
  );
  return sent;
}
