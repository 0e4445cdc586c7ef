/** What `kop init` settles before it scaffolds: apart from run-init.ts so the template data can name it. */
import type { PackedKop } from './kop-source.js';

/** Licenses `kop init` can scaffold. */
export const LICENSES = ['apache2', 'none'] as const;
export type License = (typeof LICENSES)[number];

/** Answers after prompting, defaulting and validation. */
export interface InitAnswers {
  domain: string;
  projectName: string;
  owner: string;
  license: License;
  namespaced: boolean;
  multigroup: boolean;
  /** The npm spec of the project's kop dependency (see kop-source.ts). */
  kopSource: string;
  /** kop packed into the project, when `kopSource` names `.kop/<filename>`. */
  kopPack?: PackedKop;
}
