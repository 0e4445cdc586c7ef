// The kop commands, after `kop init --domain example.com`, whose scaffold examples/redis-operator
// fills in (its README lists them too). `npm run example` (hack/example.mjs) and the example's
// e2e test both run them from here.
export const REDIS_EXAMPLE_COMMANDS = [
  ['create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'RedisCluster', '--yes'],
  ['create', 'api', '--group', 'cache', '--version', 'v1beta1', '--kind', 'RedisCluster', '--no-controller', '--yes'],
  [
    'create',
    'webhook',
    '--group',
    'cache',
    '--version',
    'v1alpha1',
    '--kind',
    'RedisCluster',
    '--defaulting',
    '--programmatic-validation',
    '--conversion',
    '--spoke',
    'v1beta1',
  ],
];
