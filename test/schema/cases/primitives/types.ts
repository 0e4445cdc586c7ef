// +groupName=shapes.example.com
// +versionName=v1

import type { int32, int64, ObjectMeta } from 'kop/api';
import type { Common, Owner } from './common.js';

/** Name is a DNS label. */
export type Name = string;

/** Tier picks a service level. */
export type Tier = 'gold' | 'silver' | 'bronze';

/** Endpoint is a host and a port. */
export interface Endpoint {
  /** Host to connect to. */
  host: string;
  port?: int32;
}

/** Contact has the fields of Owner and an email. */
export type Contact = Owner & { email?: string };

/** WidgetSpec lists one field of every shape. */
export interface WidgetSpec extends Common {
  /** Title is free text. */
  title: string;
  enabled?: boolean;
  count?: int32;
  /** Size is a 64-bit integer. */
  size?: int64;
  name?: Name;
  /** Tier of service; this doc replaces the type's. */
  tier?: Tier;
  otherTier?: Tier;
  tags?: string[];
  aliases?: Array<string>;
  readonly frozen?: readonly string[];
  matrix?: int32[][];
  limits?: Record<string, int32>;
  /** Endpoints by name. */
  endpoints?: Record<string, Endpoint>;
  primary: Endpoint;
  /** Backup endpoint. */
  backup?: Endpoint;
  replicas?: Endpoint[];
  contact?: Contact;
  'quoted-name'?: string;
  /**
   * Note may be null.
   * +nullable
   */
  note?: string | null;
  /** Optional in TypeScript with undefined spelled out. */
  hint?: string | undefined;
}

/** WidgetStatus is what was observed. */
export interface WidgetStatus {
  ready: boolean;
}

/**
 * Widget exercises every type mapping.
 *
 * A second paragraph of documentation.
 * +kubebuilder:object:root=true
 */
export interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: WidgetSpec;
  status?: WidgetStatus;
}
