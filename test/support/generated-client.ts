import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export const ROOT = join(__dirname, '..', '..');
export const BIN = join(ROOT, 'node_modules', '.bin');

/** A folder under node_modules/.cache, so a program written there resolves this project's packages. */
export function workDir(prefix: string): string {
  const base = join(ROOT, 'node_modules', '.cache');
  spawnSync('mkdir', ['-p', base]);
  return mkdtempSync(join(base, prefix));
}

export function run(file: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(file, args, {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** What building a client program gave: tsc's output (empty when it type-checks) and the loaded program. */
export interface BuiltClient<P> {
  typeErrors: string;
  program: P | null;
}

/**
 * A program written against a client generated from a document, as an integrator builds it: the types made
 * by openapi-typescript from `dir`/openapi.json into schema.ts, `source` written as client.ts and type-checked
 * by `tsc --strict`; when it type-checks, compiled as tsc would (CommonJS) and loaded into this process (its
 * server answers from this event loop).
 */
export function buildClientProgram<P>(dir: string, source: string): BuiltClient<P> {
  const types = run(process.execPath, [
    join(BIN, '..', 'openapi-typescript', 'bin', 'cli.js'),
    join(dir, 'openapi.json'),
    '-o',
    join(dir, 'schema.ts'),
  ]);
  if (types.status !== 0) return { typeErrors: `openapi-typescript: ${types.stderr}`, program: null };
  writeFileSync(join(dir, 'client.ts'), source);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'es2022',
        module: 'commonjs',
        moduleResolution: 'node10',
        lib: ['es2022', 'dom'],
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
        skipLibCheck: true,
      },
      files: ['client.ts', 'schema.ts'],
    }),
  );
  const tsc = run(process.execPath, [
    join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    join(dir, 'tsconfig.json'),
  ]);
  const typeErrors = tsc.stdout + tsc.stderr;
  if (typeErrors !== '' || tsc.status !== 0) return { typeErrors: typeErrors || 'tsc failed', program: null };
  const js = ts.transpileModule(readFileSync(join(dir, 'client.ts'), 'utf8'), {
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
    },
  }).outputText;
  writeFileSync(join(dir, 'client.js'), js);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return { typeErrors: '', program: require(join(dir, 'client.js')) as P };
}
