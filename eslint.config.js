// @ts-check
// kop's own lint: ESLint with typescript-eslint's type-checked rules (the same setup `kop init`
// scaffolds, templates/init/eslint.config.js.hbs). `npm run lint` runs it.
import eslint from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** Node's globals, for the plain JavaScript files (scripts in bin/, bench/, hack/). */
const nodeGlobals = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'performance',
    'fetch',
    'AbortController',
    'AbortSignal',
    'TextEncoder',
    'TextDecoder',
    'structuredClone',
    'queueMicrotask',
  ].map((name) => [name, 'readonly']),
);

export default defineConfig(
  globalIgnores([
    'dist/',
    'coverage/',
    'node_modules/',
    // The book (docs/) is a package of its own, with VitePress's config and build output.
    'docs/',
    // Projects and inputs the tests compare or compile on their own, not kop's code.
    'examples/',
    'test/golden/',
    'test/**/fixtures/',
    'test/**/cases/',
    'test/schema/errors/',
    'templates/',
    'hack/core-types/',
    // The book's tutorial projects: each lints with its own config (hack/tutorials.mjs runs it).
    'testdata/',
  ]),
  eslint.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // vitest.config.ts is outside tsconfig.json's program; it gets a default one.
        projectService: { allowDefaultProject: ['vitest.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // kop writes `!` on indexed access (`match[1]!`) as if noUncheckedIndexedAccess were on, so
      // that turning it on is a small change; without it the rule calls every such `!` needless.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // An async function without await still turns a throw into a rejection, which its callers
      // await; interface implementations (ExistingCluster's no-op methods) are async for that.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Rejecting with an AbortSignal's reason (an AbortError, as fetch does) or passing on a caught
      // error rejects with whatever was thrown, which is not always typed as an Error.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
    },
  },
  {
    // Marker arguments are typed by their definition in the registry and parsed to that type
    // (src/markers/arguments.ts: a `string` argument is always a string), which the
    // Record<string, JSONValue> they arrive in cannot express: String(args.x) narrows, it does not
    // stringify objects.
    files: ['src/schema/**/*.ts', 'src/rbac/**/*.ts', 'src/webhook-manifests/**/*.ts', 'src/markers/**/*.ts'],
    rules: { '@typescript-eslint/no-base-to-string': 'off' },
  },
  {
    // Fields of parsed documents (a kubeconfig, an AdmissionReview, manifests) that Kubernetes
    // defines as strings; String() turns a wrong scalar into text for a message or a key.
    files: [
      'src/helm/chart-templates.ts',
      'src/runtime/client/config/kubeconfig.ts',
      'src/runtime/webhook/admission-handler.ts',
    ],
    rules: { '@typescript-eslint/no-base-to-string': 'off' },
  },
  {
    // Tests read parsed YAML and JSON (CRDs, manifests, API answers) by path; a wrong path fails the
    // assertion right there, so typing every intermediate value would add casts and catch nothing.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Tests stringify whatever was thrown for a message, throw odd values on purpose, look at a
      // handler without calling it, and match aligned output whose spaces read as they print.
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/unbound-method': 'off',
      'no-regex-spaces': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: nodeGlobals },
  },
);
