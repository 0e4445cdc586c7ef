import { isDeepStrictEqual } from 'node:util';
import type { KubernetesObject, ResourceClient } from '../client/index.js';
import { isNotFound, retryOnConflict } from '../client/index.js';

/** What {@link createOrUpdate} did. */
export type CreateOrUpdateOperation = 'created' | 'updated' | 'unchanged';

/**
 * Reads the object `name` (or starts from an empty one), lets `mutate` bring it to the desired
 * state, then creates it, updates it (only when `mutate` changed something), or leaves it alone.
 * Updates carry the resourceVersion of the read; a 409 conflict re-reads and mutates again.
 * `mutate` must be idempotent and only set the fields it owns.
 */
export async function createOrUpdate<T extends KubernetesObject>(
  client: ResourceClient<T>,
  name: string,
  mutate: (object: T) => void | Promise<void>,
): Promise<{ object: T; operation: CreateOrUpdateOperation }> {
  return retryOnConflict(async () => {
    let existing: T | undefined;
    try {
      existing = await client.get(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (!existing) {
      const fresh = { apiVersion: client.apiVersion, kind: client.type.kind, metadata: { name, ...(client.namespace ? { namespace: client.namespace } : {}) } } as T;
      await mutate(fresh);
      checkIdentity(fresh, name, client.namespace);
      return { object: await client.create(fresh), operation: 'created' as const };
    }
    const desired = structuredClone(existing);
    await mutate(desired);
    checkIdentity(desired, name, client.namespace);
    if (isDeepStrictEqual(existing, desired)) return { object: existing, operation: 'unchanged' as const };
    return { object: await client.update(desired), operation: 'updated' as const };
  });
}

function checkIdentity(object: KubernetesObject, name: string, namespace: string | undefined): void {
  if (object.metadata?.name !== name || (namespace !== undefined && object.metadata?.namespace !== namespace)) {
    throw new TypeError(`createOrUpdate: mutate must not change metadata.name or metadata.namespace of ${name}`);
  }
}
