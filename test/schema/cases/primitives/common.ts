import type { int32 } from 'kop/api';

/** Common fields shared by several specs. */
export interface Common {
  /** Paused stops reconciliation. */
  paused?: boolean;
  /** Priority orders work between objects. */
  priority?: int32;
}

/** Owner names who runs the thing. */
export interface Owner {
  /** Team that owns it. */
  team: string;
}
