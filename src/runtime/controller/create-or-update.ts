import { isDeepStrictEqual } from 'node:util';
import type { Client, KubernetesObject, ObjectKey, ResourceClient, ResourceType } from '../client/index.js';
import { apiVersionOf, isNotFound, retryOnConflict } from '../client/index.js';

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
): Promise<{ object: T; operation: CreateOrUpdateOperation }>;
/**
 * The same through the manager's client (reads from the cache, as controller-runtime's
 * `controllerutil.CreateOrUpdate` does; a stale read ends in a 409 and is read again).
 */
export async function createOrUpdate<T extends KubernetesObject>(
  client: Client,
  type: ResourceType<T>,
  key: ObjectKey,
  mutate: (object: T) => void | Promise<void>,
): Promise<{ object: T; operation: CreateOrUpdateOperation }>;
export async function createOrUpdate<T extends KubernetesObject>(
  ...args:
    | [ResourceClient<T>, string, (object: T) => void | Promise<void>]
    | [Client, ResourceType<T>, ObjectKey, (object: T) => void | Promise<void>]
): Promise<{ object: T; operation: CreateOrUpdateOperation }> {
  if (args.length === 4) {
    const [manager, type, key, mutate] = args;
    const namespace = type.namespaced ? key.namespace : undefined;
    const scoped: ScopedWriter<T> = {
      apiVersion: apiVersionOf(type),
      kind: type.kind,
      namespace,
      get: (name) => manager.get(type, { namespace, name }),
      create: (object) => manager.create(type, object),
      update: (object) => manager.update(type, object),
    };
    return upsert(scoped, key.name, mutate);
  }
  const [resource, name, mutate] = args;
  return upsert(
    {
      apiVersion: resource.apiVersion,
      kind: resource.type.kind,
      namespace: resource.namespace,
      get: (n) => resource.get(n),
      create: (object) => resource.create(object),
      update: (object) => resource.update(object),
    },
    name,
    mutate,
  );
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
