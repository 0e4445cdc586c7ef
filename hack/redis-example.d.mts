/** Types of hack/redis-example.mjs, for the example's e2e test. */
export const REDIS_EXAMPLE_COMMANDS: readonly (readonly string[])[];
