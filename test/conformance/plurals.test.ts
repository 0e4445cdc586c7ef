/**
 * Plurals: the CRD names controller-gen v0.21.0 gives 150 kinds (a Go package with one root type
 * per kind, run through `controller-gen crd`), against kop's pluralOfKind. Kinds chosen for the
 * rules that bite: Latin and Greek endings, -f/-fe, -y, -o, -s/-x/-z, acronyms, compounds,
 * words that are plural already. Needs Go, like controller-gen.test.ts.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { pluralOfKind } from '../../src/project/plural.js';
import { MODULE_DIR, controllerGen, goAvailable, parseDocuments } from './controller-gen-tool.js';

const KINDS = `
Schema Medium Virus Corpus Cactus Focus Radius Octopus Nucleus Syllabus Genus Alumnus Stimulus Status Bus Campus Census Bonus
Datum Criterion Phenomenon Taxon Index Vertex Matrix Appendix Helix Apex Codex Axis Crisis Analysis Base Thesis Diagnosis Synopsis
Hypothesis Oasis Alias Chassis Series Species Deer Sheep Fish Moose News Information Equipment Money Rice Person Child Man Woman Human
Foot Tooth Goose Mouse Louse Ox Die Leaf Loaf Knife Wife Life Wolf Half Shelf Elf Dwarf Hoof Thief Roof Chief Safe Scarf Hive Move
Policy Gateway Key Day Toy Guy Soliloquy Query Proxy Entry Registry Repository Quota Agenda Formula Vertebra Larva Nebula Antenna
Potato Tomato Hero Photo Piano Echo Video Radio Studio Zoo Buffalo Memo Portfolio Cargo Volcano
Box Fox Tax Fix Buzz Quiz Fez Waltz Topaz Church Batch Match Bush Wish Class Pass Boss Glass
Bureau Plateau Chateau Stadium Aquarium Symposium Curriculum Medium Memorandum Spectrum Serum Museum Forum Album Premium Maximum
Use Cause House Clause Excuse Pause Course Horse Purpose Release Response License Database Cookie Movie Shoe Toe Graffiti
RedisCluster MemcachedCluster HTTPRoute TLSRoute IngressTLS GRPCRoute APIService CertificateRequest ClusterIssuer ServiceMonitor
PodDisruptionBudget NetworkPolicy BackupPolicy DNSEndpoint VPNGateway MyApi MyIps KafkaTopic EtcdBackup S3Bucket ID Cidr
`
  .split(/\s+/)
  .filter(Boolean)
  .filter((kind, i, all) => all.indexOf(kind) === i);

const hasGo = await goAvailable();

describe.skipIf(!hasGo)('plurals conformance with controller-gen', () => {
  it(`gives each of ${KINDS.length} kinds controller-gen's plural`, { timeout: 600_000 }, async () => {
    expect(KINDS.length).toBeGreaterThanOrEqual(150);
    const work = await fs.mkdtemp(path.join(os.tmpdir(), 'kop-plurals-'));
    try {
      await fs.cp(MODULE_DIR, work, { recursive: true });
      await fs.mkdir(path.join(work, 'api', 'v1'), { recursive: true });
      const types = KINDS.map(
        (kind) =>
          `// +kubebuilder:object:root=true\ntype ${kind} struct {\n\tmetav1.TypeMeta   \`json:",inline"\`\n\tmetav1.ObjectMeta \`json:"metadata,omitempty"\`\n}\n`,
      );
      await fs.writeFile(
        path.join(work, 'api', 'v1', 'types.go'),
        `// +groupName=plurals.example.com\npackage v1\n\nimport metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"\n\n${types.join('\n')}`,
      );
      await execa(await controllerGen(), ['crd', 'paths=./api/...', 'output:crd:dir=out'], {
        cwd: work,
        env: { GOFLAGS: '-mod=mod' },
      });
      const theirs: Record<string, string> = {};
      for (const file of await fs.readdir(path.join(work, 'out'))) {
        for (const doc of parseDocuments(await fs.readFile(path.join(work, 'out', file), 'utf8')) as {
          spec: { names: { kind: string; plural: string } };
        }[]) {
          theirs[doc.spec.names.kind] = doc.spec.names.plural;
        }
      }
      const ours = Object.fromEntries(KINDS.map((kind) => [kind, pluralOfKind(kind)]));
      expect(Object.keys(theirs).sort()).toEqual([...KINDS].sort());
      expect(ours).toEqual(theirs);
    } finally {
      await fs.rm(work, { recursive: true, force: true });
    }
  });
});
