// +groupName=known.example.com
// +versionName=v1

import type { Condition, Duration, IntOrString, MicroTime, ObjectMeta, Quantity, Time } from 'kop/api';
import * as api from 'kop/api';

/** ScheduleSpec uses the well-known value types. */
export interface ScheduleSpec {
  /** StartAt is a timestamp. */
  startAt?: Time;
  precise?: MicroTime;
  /** Every is a Go duration such as 1h30m. */
  every?: Duration;
  memory?: Quantity;
  /**
   * Storage has its own limits on top of the quantity pattern.
   * +kubebuilder:validation:XValidation:rule="quantity(self).isGreaterThan(quantity('1Gi'))",message="at least 1Gi"
   */
  storage?: Quantity;
  maxUnavailable?: IntOrString;
  // +kubebuilder:default="25%"
  maxSurge?: IntOrString;
  /** Namespaced references to kop/api types work too. */
  timeout?: api.Duration;
  limits?: Record<string, Quantity>;
  template?: { metadata?: ObjectMeta };
}

/** ScheduleStatus reports conditions. */
export interface ScheduleStatus {
  /**
   * Conditions of the schedule.
   * +listType=map
   * +listMapKey=type
   */
  conditions?: Condition[];
  lastRun?: Time;
}

/**
 * Schedule uses well-known types.
 * +kubebuilder:object:root=true
 * +kubebuilder:subresource:status
 */
export interface Schedule {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: ScheduleSpec;
  status?: ScheduleStatus;
}
