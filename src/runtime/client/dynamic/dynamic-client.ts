import type { RestClient } from '../rest/rest-client.js';
import type { UnstructuredObject } from '../types/meta.js';
import type { ResourceType } from '../resource/options.js';
import { ResourceClient } from '../resource/resource-client.js';
import { DiscoveryClient } from '../discovery/discovery-client.js';
import { RestMapper, type GroupKind } from '../discovery/rest-mapper.js';

/** A group/version/resource, the coordinates of the dynamic client. */
export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/**
 * A client for one resource of any type, with unstructured objects. Without `inNamespace()` it
 * works cluster-wide: on cluster-scoped kinds, or to list/watch a namespaced kind everywhere.
 */
export class DynamicResourceClient extends ResourceClient<UnstructuredObject> {
  /** Scopes this client to one namespace. */
  inNamespace(namespace: string): ResourceClient<UnstructuredObject> {
    return new ResourceClient<UnstructuredObject>(this.rest, this.type, namespace);
  }
}

/**
 * Reads and writes any resource by group/version/resource or by group/kind (through the REST
 * mapper), with objects as plain JSON. For kinds known at compile time use `Client` with their descriptor.
 */
export class DynamicClient {
  readonly discovery: DiscoveryClient;
  readonly mapper: RestMapper;

  constructor(
    readonly rest: RestClient,
    mapper?: RestMapper,
  ) {
    this.discovery = new DiscoveryClient(rest);
    this.mapper = mapper ?? new RestMapper(this.discovery);
  }

  /** A client for a resource whose coordinates you know. `kind` only fills in missing object kinds. */
  resource(gvr: GroupVersionResource, kind = ''): DynamicResourceClient {
    const type: ResourceType<UnstructuredObject> = { ...gvr, kind, namespaced: false };
    return new DynamicResourceClient(this.rest, type);
  }

  /** A client for a kind, resolved to its resource (and scope) through discovery. */
  async forKind(gk: GroupKind): Promise<DynamicResourceClient> {
    const m = await this.mapper.mapping(gk);
    return new DynamicResourceClient(this.rest, {
      group: m.group,
      version: m.version,
      resource: m.resource,
      kind: m.kind,
      namespaced: m.namespaced,
    });
  }
}
