/**
 * Conformance of config/rbac/role.yaml: the rbac markers in rbac/markers.txt through kop
 * and through controller-gen v0.21.0 (`rbac:roleName=manager-role`) give the same roles.
 * Needs Go, like controller-gen.test.ts.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { rbacMarkersInText } from '../../src/rbac/rbac-markers.js';
import { buildRoles, formatRoles } from '../../src/rbac/role.js';
import { controllerGen, goAvailable, MODULE_DIR } from './controller-gen-tool.js';

const MARKERS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'rbac', 'markers.txt');
const hasGo = await goAvailable();

describe.skipIf(!hasGo)('rbac conformance with controller-gen', () => {
  it('gives the same ClusterRole and Roles', { timeout: 300_000 }, async () => {
    const lines = (await fs.readFile(MARKERS, 'utf8')).split('\n').filter((line) => line.startsWith('+'));
    const ours = formatRoles(buildRoles(rbacMarkersInText(lines.map((line) => `// ${line}`).join('\n'), 'markers.txt')));

    const work = await fs.mkdtemp(path.join(os.tmpdir(), 'kop-rbac-'));
    try {
      await fs.cp(MODULE_DIR, work, { recursive: true });
      await fs.mkdir(path.join(work, 'controllers'));
      // Package-level markers: a comment group not attached to a declaration.
      await fs.writeFile(path.join(work, 'controllers', 'rbac.go'), `package controllers\n\n${lines.map((l) => `// ${l}`).join('\n')}\n\nfunc unused() {}\n`);
      const result = await execa(await controllerGen(), ['rbac:roleName=manager-role', 'paths=./controllers/...', 'output:stdout'], {
        cwd: work,
        env: { GOFLAGS: '-mod=mod' },
      });
      const parse = (text: string) => parseAllDocuments(text).map((doc) => doc.toJS()).filter((doc) => doc !== null);
      expect(parse(ours)).toEqual(parse(result.stdout));
    } finally {
      await fs.rm(work, { recursive: true, force: true });
    }
  });
});
