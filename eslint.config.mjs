// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';

/** The longest function, in lines of code (blank and comment lines aside): docs/ARCHITECTURE.md "Rules of the code". */
const MAX_FUNCTION_LINES = 80;

/** Whether a function is the body of a `describe` (a group of tests, not a unit of logic). */
function isDescribeBody(node) {
  const call = node.parent;
  if (call?.type !== 'CallExpression' || !call.arguments.includes(node)) return false;
  let callee = call.callee;
  if (callee.type === 'CallExpression') callee = callee.callee; // describe.each(table)(name, body)
  if (callee.type === 'MemberExpression') callee = callee.object; // describe.each, describe.skip
  return callee.type === 'Identifier' && callee.name === 'describe';
}

/**
 * max-lines-per-function for tests: every function of a test file is held to MAX_FUNCTION_LINES, the tests
 * and their helpers included, except the body of a `describe`, which only groups them.
 */
const testFunctionLines = {
  meta: { type: 'suggestion', schema: [] },
  create(context) {
    const source = context.sourceCode;
    const check = (node) => {
      if (isDescribeBody(node)) return;
      const commentLines = new Set();
      for (const c of source.getCommentsInside(node))
        for (let l = c.loc.start.line; l <= c.loc.end.line; l++) commentLines.add(l);
      let count = 0;
      for (let l = node.loc.start.line; l <= node.loc.end.line; l++) {
        const text = source.lines[l - 1].trim();
        if (text !== '' && !(commentLines.has(l) && /^(\/\/|\/\*|\*)/.test(text))) count++;
      }
      if (count > MAX_FUNCTION_LINES)
        context.report({
          node,
          message: `Function has too many lines (${count}). Maximum allowed is ${MAX_FUNCTION_LINES}.`,
        });
    };
    return { FunctionDeclaration: check, FunctionExpression: check, ArrowFunctionExpression: check };
  },
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'data/**',
      'coverage/**',
      '*.mjs',
      '*.js',
      'apps/console/src/api/schema.gen.ts',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-extraneous-class': 'off',
      '@typescript-eslint/unbound-method': 'off',
      'no-eval': 'error',
      'no-new-func': 'error',
      // No AsyncLocalStorage (docs/decisions.md, "Transactions and the acting request passed explicitly"): once used,
      // Node's async hooks run for every promise of every request. Pass the value instead.
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ImportDeclaration[source.value=/^(node:)?async_hooks$/]',
          message:
            'node:async_hooks turns on hooks for every promise of every request: pass the value explicitly.',
        },
      ],
      // Small units (docs/ARCHITECTURE.md "Rules of the code"): files under 450 lines, functions under 80.
      'max-lines': ['error', { max: 450, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': [
        'error',
        { max: MAX_FUNCTION_LINES, skipBlankLines: true, skipComments: true, IIFEs: true },
      ],
    },
  },
  {
    // HTTP stays at the edge (docs/ARCHITECTURE.md "Rules of the code", issue 18): Express objects only in
    // controllers, guards, interceptors (an answer's headers), filters and middleware, the one response helper that writes cookie instructions,
    // the app's composition (create-app installs the middleware), its HTTP adapter and the fast paths beside
    // Express (apps/server/src/fast-paths). Services, recorders and strategies take plain inputs (ClientContext,
    // HttpRequestLike).
    files: ['libs/**/*.ts', 'apps/server/**/*.ts'],
    ignores: [
      '**/*.controller.ts',
      '**/*.guard.ts',
      '**/*.interceptor.ts',
      '**/*.filter.ts',
      '**/*.middleware.ts',
      '**/*.spec.ts',
      'libs/auth/src/http/session-response.ts',
      'libs/grid/src/grids/grid-answers.ts',
      'apps/server/src/create-app.ts',
      'apps/server/src/express-adapter.ts',
      'apps/server/src/fast-paths/**',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'express',
              message:
                'Express belongs in controllers, guards, filters and middleware: pass plain inputs (ClientContext) down and return results.',
            },
          ],
          patterns: [
            { group: ['express/*'], message: 'Express belongs at the edge (see the express rule).' },
          ],
        },
      ],
    },
  },
  {
    // The console (apps/console): React's rules of hooks, on top of the typed rules above.
    files: ['apps/console/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
  },
  {
    // Tests: the same limit on every function but a describe's body (testFunctionLines).
    files: ['test/**/*.spec.ts', '**/*.spec.ts'],
    plugins: { local: { rules: { 'test-function-lines': testFunctionLines } } },
    rules: {
      'max-lines-per-function': 'off',
      'local/test-function-lines': 'error',
    },
  },
  {
    // Migrations are never edited once they have run (docs/ARCHITECTURE.md); their `up` is a declarative list.
    files: ['libs/database/src/migrations/*.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
  {
    files: ['test/**/*.ts', '**/*.spec.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
