/** The apiextensions.k8s.io/v1 CustomResourceDefinition, as much of it as kop writes and reads. */
import type { JSONSchemaProps } from './json-schema.js';

/** apiextensions.k8s.io/v1 CustomResourceDefinition, as much of it as kop writes. */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: {
    /** Written only for a kind recorded `create api --no-conversion` (the apiserver's default otherwise). */
    conversion?: { strategy: 'None' };
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames?: string[];
      categories?: string[];
    };
    scope: 'Namespaced' | 'Cluster';
    versions: CrdVersion[];
  };
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema: { openAPIV3Schema: JSONSchemaProps };
  subresources?: {
    status?: Record<string, never>;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: {
    name: string;
    type: string;
    jsonPath: string;
    description?: string;
    format?: string;
    priority?: number;
  }[];
  selectableFields?: { jsonPath: string }[];
}
