/**
 * The `client` generator of `kop generate`: writes api/<group>/<version>/<kind-lower>.client.ts
 * for every served kind version, and <kind-lower>.apply.ts for those created with --ssa, into the
 * shared tree (so `--check` and `--dry-run` cover them).
 */
import type { Generator, GeneratorInput } from './generator.js';
import { loadApiModel } from '../schema/index.js';
import { generateClients, generateApplyConfigurations } from '../clientgen/index.js';
import { removeLeftoverGeneratedFiles } from './leftovers.js';

/** Where API types, and so their clients, live. */
const API_DIR = 'api';

export async function generate({ tree, project, context }: GeneratorInput): Promise<void> {
  const model = await loadApiModel(tree.root, { project });
  const files = generateClients(model);
  // Server-side apply configurations of the kinds created with --ssa (PROJECT api.ssa).
  const applyConfigurations = generateApplyConfigurations(model, project);
  for (const file of [...files, ...applyConfigurations]) tree.write(file.path, file.content, { kind: 'generated' });
  // Clients of kinds or versions that were removed would import types that no longer exist.
  const generatedName = (name: string) => name.endsWith('.client.ts') || name.endsWith('.apply.ts');
  await removeLeftoverGeneratedFiles(tree, API_DIR, generatedName, project.generated);
  context.out.debug(
    `client: ${files.length} typed client(s), ${applyConfigurations.length} apply configuration file(s)`,
  );
}

/** `kop generate client`, as the generators table loads it. */
export const clientGenerator: Generator = { generate };
