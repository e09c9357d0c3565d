/*
 * A V8 CPU profile (`node --cpu-prof`) read back by time window: the samples taken while one kind of load ran,
 * as µs of the main thread per answer, by function (its own time, and with everything it called) and by
 * package. Used by bench/profile.bench.ts to say where one route's answer spends more than another's.
 * The profile's sample times and process.hrtime are the same monotonic clock, so a window measured by the
 * process sending the load selects the samples of the server process that answered it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A stretch of load, in µs of the monotonic clock, and the answers it got. */
export interface LoadWindow {
  start: number;
  end: number;
  answers: number;
}

/** µs of the main thread per answer, by name. */
export type PerAnswer = Map<string, number>;

export interface WindowTally {
  answers: number;
  /** sampled time while the thread ran JavaScript, native code or the collector (idle left out) */
  busy: number;
  idle: number;
  /** each function's own time */
  self: PerAnswer;
  /** each function with everything it called (a recursive function counted once per sample) */
  inclusive: PerAnswer;
  /** own time by package (node_modules), Node's own module, the project's file, or V8's pseudo-frames */
  groups: PerAnswer;
}

/** The monotonic clock in µs, as the profile's sample times count it. */
export const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1000n);

const ROOT = join(__dirname, '..') + '/';

/** A frame's function, with its file (the project's relative, a package's under its name) and compiled line. */
function functionOf(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  if (!url) return functionName || '(anonymous)';
  const file = url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '')
    .replace(ROOT, '');
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
}

/** The package, Node module or project file a frame belongs to; native and V8 frames by their own name. */
function groupOf(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : `native ${functionName}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  return url.startsWith('node:') ? url : url.replace(/^file:\/\//, '').replace(ROOT, '');
}

const add = (m: PerAnswer, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);

/** Reads a .cpuprofile and tallies the samples inside each group of windows (by the group's name). */
export function tallyProfile(file: string, windows: Map<string, LoadWindow[]>): Map<string, WindowTally> {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  // a sample's time is the start plus the deltas so far; it lasts until the next sample
  const at: number[] = [];
  let t = profile.startTime;
  for (const d of profile.timeDeltas) at.push((t += d));

  const tallies = new Map<string, WindowTally>();
  for (const [name, ws] of windows) {
    const tally: WindowTally = {
      answers: ws.reduce((s, w) => s + w.answers, 0),
      busy: 0,
      idle: 0,
      self: new Map(),
      inclusive: new Map(),
      groups: new Map(),
    };
    for (let i = 0; i + 1 < profile.samples.length; i++) {
      if (!ws.some((w) => at[i] >= w.start && at[i] < w.end)) continue;
      const lasted = at[i + 1] - at[i];
      const node = byId.get(profile.samples[i])!;
      if (node.callFrame.functionName === '(idle)') {
        tally.idle += lasted;
        continue;
      }
      tally.busy += lasted;
      add(tally.self, functionOf(node), lasted);
      add(tally.groups, groupOf(node), lasted);
      const counted = new Set<string>();
      for (let id: number | undefined = node.id; id !== undefined; id = parentOf.get(id)) {
        const f = functionOf(byId.get(id)!);
        if (f === '(root)' || counted.has(f)) continue;
        counted.add(f);
        add(tally.inclusive, f, lasted);
      }
    }
    const per = (m: PerAnswer) => {
      for (const [k, v] of m) m.set(k, v / tally.answers);
    };
    per(tally.self);
    per(tally.inclusive);
    per(tally.groups);
    tally.busy /= tally.answers;
    tally.idle /= tally.answers;
    tallies.set(name, tally);
  }
  return tallies;
}

/** The names whose µs per answer differ most between `base` and `other` (other − base), largest first. */
export function largestDifferences(
  base: PerAnswer,
  other: PerAnswer,
  count: number,
): { name: string; base: number; other: number; more: number }[] {
  const names = new Set([...base.keys(), ...other.keys()]);
  return [...names]
    .map((name) => {
      const b = base.get(name) ?? 0;
      const o = other.get(name) ?? 0;
      return { name, base: b, other: o, more: o - b };
    })
    .sort((x, y) => Math.abs(y.more) - Math.abs(x.more))
    .slice(0, count);
}

/** The names with the most µs per answer. */
export function largest(m: PerAnswer, count: number): [string, number][] {
  return [...m].sort((a, b) => b[1] - a[1]).slice(0, count);
}
