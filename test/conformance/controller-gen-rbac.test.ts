/**
 * Conformance of config/rbac/role.yaml: the rbac markers in rbac/markers.txt through kop
 * and through controller-gen v0.21.0 (`rbac:roleName=manager-role`) give the same roles.
 * Needs Go, like controller-gen.test.ts.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { rbacMarkersInText } from '../../src/rbac/rbac-markers.js';
import { buildRoles, formatRoles } from '../../src/rbac/role.js';
import { controllerGenOnMarkers, goAvailable, parseDocuments } from './controller-gen-tool.js';

const MARKERS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'rbac', 'markers.txt');
const hasGo = await goAvailable();

describe.skipIf(!hasGo)('rbac conformance with controller-gen', () => {
  it('gives the same ClusterRole and Roles', { timeout: 300_000 }, async () => {
    const lines = (await fs.readFile(MARKERS, 'utf8')).split('\n').filter((line) => line.startsWith('+'));
    const ours = formatRoles(
      buildRoles(rbacMarkersInText(lines.map((line) => `// ${line}`).join('\n'), 'markers.txt')),
    );
    const theirs = await controllerGenOnMarkers(['rbac:roleName=manager-role'], lines);
    expect(parseDocuments(ours)).toEqual(parseDocuments(theirs));
  });
});
