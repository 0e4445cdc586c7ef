/**
 * The public module of src/rbac/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export { RBAC_SCAN_PREFIX, parseRbacMarkers } from './rbac-markers.js';
export { buildRoles, formatRoles } from './role.js';
