/**
 * The `client` generator of `kop generate`: writes api/<group>/<version>/<kind-lower>.client.ts
 * for every served kind version, into the shared tree (so `--check` and `--dry-run` cover them).
 */
import type { GeneratorInput } from './generator.js';
import { loadApiModel } from '../schema/model.js';
import { generateClients } from '../clientgen/generate-clients.js';
import { removeLeftoverGeneratedFiles } from './leftovers.js';

/** Where API types, and so their clients, live. */
const API_DIR = 'api';

export async function generate({ tree, project, context }: GeneratorInput): Promise<void> {
  const model = await loadApiModel(tree.root, { project });
  const files = generateClients(model);
  for (const file of files) tree.write(file.path, file.content, { kind: 'generated' });
  // Clients of kinds or versions that were removed would import types that no longer exist.
  await removeLeftoverGeneratedFiles(tree, API_DIR, (name) => name.endsWith('.client.ts'), project.generated);
  context.out.debug(`client: ${files.length} typed client(s)`);
}
