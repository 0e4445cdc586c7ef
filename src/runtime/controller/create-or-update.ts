import { isDeepStrictEqual } from 'node:util';
import type { Client, ObjectKey } from '../client/client.js';
import type { KubernetesObject } from '../client/types/meta.js';
import type { ResourceType } from '../client/resource/options.js';
import { apiVersionOf } from '../client/resource/options.js';
import { isNotFound } from '../client/errors/api-error.js';
import { retryOnConflict } from '../client/retry/retry-on-conflict.js';

/** What {@link createOrUpdate} did. */
export type CreateOrUpdateOperation = 'created' | 'updated' | 'unchanged';

/**
 * Reads the object `key` names (or starts from an empty one), lets `mutate` bring it to the
 * desired state, then creates it, updates it (only when `mutate` changed something), or leaves it
 * alone, as controller-runtime's `controllerutil.CreateOrUpdate`. Under a manager the read comes
 * from the cache; updates carry the resourceVersion of the read, so a stale read ends in a 409,
 * which re-reads and mutates again. `mutate` must be idempotent and only set the fields it owns.
 */
export async function createOrUpdate<T extends KubernetesObject>(
  client: Client,
  type: ResourceType<T>,
  key: ObjectKey,
  mutate: (object: T) => void | Promise<void>,
): Promise<{ object: T; operation: CreateOrUpdateOperation }> {
  const namespace = type.namespaced ? key.namespace : undefined;
  const scoped: ScopedWriter<T> = {
    apiVersion: apiVersionOf(type),
    kind: type.kind,
    namespace,
    get: (name) => client.get(type, { namespace, name }),
    create: (object) => client.create(type, object),
    update: (object) => client.update(type, object),
  };
  return upsert(scoped, key.name, mutate);
}

/** One kind in one scope, as createOrUpdate needs it. */
interface ScopedWriter<T extends KubernetesObject> {
  apiVersion: string;
  kind: string;
  namespace: string | undefined;
  get(name: string): Promise<T>;
  create(object: T): Promise<T>;
  update(object: T): Promise<T>;
}

function upsert<T extends KubernetesObject>(
  client: ScopedWriter<T>,
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
      const fresh = {
        apiVersion: client.apiVersion,
        kind: client.kind,
        metadata: { name, ...(client.namespace ? { namespace: client.namespace } : {}) },
      } as T;
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
