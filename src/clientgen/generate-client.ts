/**
 * The `client` generator of `kop generate`: writes api/<group>/<version>/<kind-lower>.client.ts
 * for every served kind version, into the shared tree (so `--check` and `--dry-run` cover them).
 */
import type { GeneratorInput } from '../generate/generator.js';
import { loadApiModel } from '../schema/model.js';
import { generateClients } from './generate-clients.js';

export async function generate({ tree, project, context }: GeneratorInput): Promise<void> {
  const model = await loadApiModel(tree.root, { project });
  const files = generateClients(model);
  for (const file of files) tree.write(file.path, file.content, { kind: 'generated' });
  context.out.debug(`client: ${files.length} typed client(s)`);
}
