/**
 * Which vitest project a test file belongs to, by what it does (vitest.config.ts builds the
 * projects from these lists; test/repository/vitest-projects.test.ts checks them). A file in neither
 * list is a unit test, and test/helpers/unit-guard.ts fails it if it is not.
 */

/**
 * Tests that start a real control plane (kube-apiserver + etcd, from kop/testing) and need
 * nothing else: the runtime against an apiserver, kop/testing itself. Besides these, every
 * `*.live.test.ts`.
 */
export const LIVE_TESTS = [
  'test/**/*.live.test.ts',
  'test/runtime/client/client-go-semantics.test.ts',
  'test/runtime/client/client.test.ts',
  'test/runtime/client/exec-impersonation.test.ts',
  'test/runtime/client/list-complete.test.ts',
  'test/schema/apiserver.test.ts',
  'test/testing/control-plane.test.ts',
  'test/testing/discovery.test.ts',
  'test/testing/existing-cluster.test.ts',
  'test/testing/orphans.test.ts',
  'test/testing/restart-api-server.test.ts',
  'test/testing/start-stop.test.ts',
  'test/testing/webhooks-live.test.ts',
  'test/testing/webhooks.test.ts',
];

/**
 * End-to-end tests: they run the built CLI, install and run scaffolded projects (npm, tsc,
 * vitest, esbuild, kubectl, helm), compile generated code with tsc, or use the Go toolchain
 * and the network (controller-gen, the module proxy, the envtest index). Besides these, every
 * `*.e2e.test.ts`.
 */
export const E2E_TESTS = [
  'test/e2e/**/*.test.ts',
  'test/**/*.e2e.test.ts',
  'test/api/core-types.test.ts',
  'test/api/scaffold-conformance.test.ts',
  'test/clientgen/apply-configurations.test.ts',
  'test/clientgen/generate-clients.test.ts',
  'test/conformance/*.test.ts',
  'test/import/corpus.test.ts',
  'test/import/e2e-external.test.ts',
  'test/testing/build-helm.test.ts',
  'test/testing/envtest-download.test.ts',
  'test/testing/envtest-modules.test.ts',
  'test/testing/setup-envtest.test.ts',
  'test/cli/cli.test.ts',
];
