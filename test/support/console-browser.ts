import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page, Request } from 'playwright-core';

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

/** What a chart's canvas holds (uPlot draws on one canvas per chart). */
export interface ChartPaint {
  /** The canvas's pixel size and its box's CSS size, with the device pixel ratio. */
  canvasWidth: number;
  canvasHeight: number;
  boxWidth: number;
  ratio: number;
  /** Pixels that are not transparent. */
  painted: number;
  /** Separate runs of columns holding one of the given colours (bars of a histogram), when given. */
  runs: number;
}

interface CanvasLike {
  width: number;
  height: number;
  getContext(kind: '2d'): {
    getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
  };
}
interface ChartBox {
  clientWidth: number;
  querySelector(selector: string): CanvasLike | null;
}

/**
 * Reads the chart's canvas back: how much is painted and, for bar colours, how many separate bars
 * (column runs holding one of those colours, within ±12 per channel). Proves a chart was drawn, not only laid out.
 */
export function chartPaint(chart: Locator, colours: [number, number, number][] = []): Promise<ChartPaint> {
  return chart.evaluate((el, wanted) => {
    const box = el as unknown as ChartBox;
    const ratio = (globalThis as unknown as { devicePixelRatio: number }).devicePixelRatio;
    const canvas = box.querySelector('canvas');
    if (!canvas)
      return { canvasWidth: 0, canvasHeight: 0, boxWidth: box.clientWidth, ratio, painted: 0, runs: 0 };
    const { width, height } = canvas;
    const data = canvas.getContext('2d').getImageData(0, 0, width, height).data;
    let painted = 0;
    const columns = new Array<boolean>(width).fill(false);
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 4;
        if (data[i + 3] === 0) continue;
        painted++;
        if (
          wanted.some(
            (c) =>
              Math.abs(data[i] - c[0]) <= 12 &&
              Math.abs(data[i + 1] - c[1]) <= 12 &&
              Math.abs(data[i + 2] - c[2]) <= 12,
          )
        )
          columns[x] = true;
      }
    let runs = 0;
    for (let x = 0; x < width; x++) if (columns[x] && (x === 0 || !columns[x - 1])) runs++;
    return { canvasWidth: width, canvasHeight: height, boxWidth: box.clientWidth, ratio, painted, runs };
  }, colours);
}

/** The console's widths that matter: a phone, a laptop, a desktop. */
export const PHONE = { width: 390, height: 844 };
export const LAPTOP = { width: 1366, height: 900 };
export const DESKTOP = { width: 1920, height: 1080 };

/** How many CSS pixels the page scrolls sideways (0: it fits its window). */
export function sidewaysScroll(page: Page): Promise<number> {
  return page.evaluate(() => {
    const root = (
      globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
    ).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}

/** A full-page screenshot at a viewport width, named `<name>-<width>`. */
export async function screenshotAt(
  page: Page,
  name: string,
  size: { width: number; height: number },
): Promise<string> {
  await page.setViewportSize(size);
  // let a chart follow its box's new width (ResizeObserver, then uPlot's redraw)
  await page.waitForTimeout(300);
  return screenshot(page, `${name}-${size.width}`);
}
