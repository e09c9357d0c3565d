// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';

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
          patterns: [{ group: ['express/*'], message: 'Express belongs at the edge (see the express rule).' }],
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
