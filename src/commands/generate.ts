import type { Command } from 'commander';
import { UsageError } from '../base/index.js';
import type { GenerateOptions, GeneratorEntry } from '../generate/index.js';
import type { MakeContext } from './command-module.js';

/**
 * The generators of `kop generate`, in the order `kop generate` runs them. Each is also
 * a sub-command (`kop generate manifests`). To add one, append an entry whose `load`
 * loads a `Generator` (see src/generate/generator.ts).
 */
export const generators: GeneratorEntry[] = [
  {
    name: 'manifests',
    description:
      'CRDs (config/crd) from the API types, the manager role (config/rbac/role.yaml) from rbac markers and webhook configurations (config/webhook/manifests.yaml) from webhook markers',
    load: async () => (await import('../generate/index.js')).manifestsGenerator,
  },
  {
    name: 'client',
    description:
      'typed clients (api/<group>/<version>/<kind>.client.ts) for every kind, on kop/runtime, and apply configurations (<kind>.apply.ts) for kinds created with --ssa',
    load: async () => (await import('../generate/index.js')).clientGenerator,
  },
];

interface GenerateFlags {
  check?: boolean;
  maxDescriptionLength?: string;
  allowDangerousTypes?: boolean;
  generateEmbeddedObjectMeta?: boolean;
}

function withFlags(command: Command): Command {
  return command
    .option('--check', 'write nothing; exit non-zero and name the generated files that are stale')
    .option(
      '--max-description-length <bytes>',
      "cap every CRD description at this many bytes (0 removes them), for this run only; `kop edit --max-description-length` sets the project's cap",
    )
    .option(
      '--allow-dangerous-types',
      'map TypeScript number to "type: number" (floats) instead of refusing it, for this run only; `kop edit --allow-dangerous-types` sets it for the project',
    )
    .option('--no-allow-dangerous-types', "refuse TypeScript number for this run, whatever the project's setting")
    .option(
      '--generate-embedded-object-meta',
      "give embedded object metadata (a PodTemplateSpec's) name, namespace, labels, annotations and finalizers in the CRD, for this run only; `kop edit --generate-embedded-object-meta` sets it for the project",
    )
    .option(
      '--no-generate-embedded-object-meta',
      "embedded object metadata without properties for this run, whatever the project's setting",
    );
}

function parseFlags(flags: GenerateFlags): GenerateOptions {
  let maxDescriptionLength: number | undefined;
  if (flags.maxDescriptionLength !== undefined) {
    maxDescriptionLength = Number(flags.maxDescriptionLength);
    if (!Number.isInteger(maxDescriptionLength) || maxDescriptionLength < 0) {
      throw new UsageError(
        `--max-description-length must be a whole number of bytes, not "${flags.maxDescriptionLength}"`,
      );
    }
  }
  return {
    check: flags.check ?? false,
    maxDescriptionLength,
    // Undefined when not given: PROJECT's crd settings apply (withProjectSettings).
    allowDangerousTypes: flags.allowDangerousTypes,
    generateEmbeddedObjectMeta: flags.generateEmbeddedObjectMeta,
  };
}

/** `kop generate [manifests|...]`: rewrites the generated files of the project. */
export function register(program: Command, makeContext: MakeContext): void {
  const generate = withFlags(program.command('generate'))
    .description(
      `rewrite generated files: ${generators.map((g) => g.name).join(', ')} (all when no sub-command is given)`,
    )
    .action(async (flags: GenerateFlags) => {
      const { runGenerate } = await import('../generate/index.js');
      await runGenerate({ ...parseFlags(flags), generators }, makeContext());
    });
  for (const entry of generators) {
    withFlags(generate.command(entry.name))
      .description(entry.description)
      .action(async (flags: GenerateFlags) => {
        const { runGenerate } = await import('../generate/index.js');
        await runGenerate(
          { ...parseFlags({ ...generate.opts<GenerateFlags>(), ...flags }), generators: [entry] },
          makeContext(),
        );
      });
  }
}
