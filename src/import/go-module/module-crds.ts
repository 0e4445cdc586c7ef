/**
 * The CRD of a kind, found among a Go module's files: most operators publish their CRDs inside
 * their module (cert-manager under deploy/crds/, Kubebuilder projects under config/crd/bases/).
 * Every .yaml, .yml and .json file is searched, except under testdata/ and vendor/ (the go
 * command leaves those out of builds too, and test copies there are often older or broken);
 * files that are not plain YAML (Helm templates) are passed over.
 */
import { KopError } from '../../base/index.js';
import { parseDocuments, type CrdDocument } from '../crd-documents.js';
import type { FetchedModule } from './fetch-go-module.js';

/** The CRD document serving `kind` in `group` and the file it was found in. */
export interface ModuleCrd {
  document: CrdDocument;
  /** Its path in the module, and the text of that file. */
  file: string;
  text: string;
}

interface CrdShape {
  kind?: unknown;
  spec?: { group?: unknown; names?: { kind?: unknown } };
}

/** Finds the CRD of `kind` in `group` (a full group, `cert-manager.io`) among the module's files. */
export function findModuleCrd(module: FetchedModule, wanted: { group: string; kind: string }): ModuleCrd {
  const prefix = `${module.path}@${module.version}/`;
  const searched = module.entries
    .map((e) => ({ entry: e, file: e.name.slice(prefix.length) }))
    .filter(({ file }) => /\.(ya?ml|json)$/i.test(file) && !/(^|\/)(testdata|vendor)\//.test(file));
  const matches: ModuleCrd[] = [];
  const others = new Set<string>();
  let skipped = 0;
  for (const { entry, file } of searched) {
    const text = entry.read().toString('utf8');
    // Most files are not CRDs: reading only those that could be keeps this to the few that are.
    if (!text.includes('CustomResourceDefinition')) continue;
    let documents: CrdDocument[];
    try {
      documents = parseDocuments(text, entry.name);
    } catch {
      skipped++;
      continue;
    }
    for (const document of documents) {
      const value = document.value as CrdShape | null;
      if (value?.kind !== 'CustomResourceDefinition') continue;
      const { group, names } = value.spec ?? {};
      if (group === wanted.group && names?.kind === wanted.kind) matches.push({ document, file, text });
      else if (typeof group === 'string' && typeof names?.kind === 'string') others.add(`${names.kind} ${group}`);
    }
  }
  if (matches.length === 0) {
    const found = [...others].sort();
    throw new KopError(
      `${module.path}@${module.version}: no CustomResourceDefinition of ${wanted.kind} in group ${wanted.group} among its ${searched.length} .yaml, .yml and .json files (outside testdata/ and vendor/)${skipped > 0 ? `; ${skipped} that mention CustomResourceDefinition are not plain YAML (Helm templates?) and were passed over` : ''}${found.length > 0 ? `; its CRDs are ${found.slice(0, 12).join(', ')}${found.length > 12 ? `, and ${found.length - 12} more` : ''}` : '; it has no CRD'}; nothing was written`,
      found.some((f) => f.startsWith(`${wanted.kind} `))
        ? 'pass the --group and --external-api-domain of the kind as the module defines it'
        : "pass the CRD file itself as --external-api-module (./crds/<file>.yaml), or the module that publishes the kind's CRD",
    );
  }
  // Copies of one CRD in several places (deploy/crds and a chart, say): the shallowest path, then the first by name.
  matches.sort((a, b) => a.file.split('/').length - b.file.split('/').length || (a.file < b.file ? -1 : 1));
  return matches[0]!;
}
