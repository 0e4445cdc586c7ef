/**
 * The data of templates/init, the files of a new project: `kop init` renders them, and
 * `kop edit --namespaced` renders them twice to see what the flag changes.
 */
import type { Context } from '../base/index.js';
import { boilerplateComment, commentText, templateFolder } from '../scaffold/index.js';
import { isPackedSpec, localPathOf } from './kop-source.js';
import { PROJECT_NODE_ENGINES } from './node-engines.js';
import type { InitAnswers } from './init-answers.js';

/** What templates/init reads. */
export interface InitTemplateData {
  projectName: string;
  owner: string;
  /** The copyright year, from the context's clock (tests fix it). */
  year: string;
  /** package.json's description. */
  description: string;
  /** Whether the project is Apache-2.0 (LICENSE, package.json, the license header). */
  licenseApache: boolean;
  /** package.json's license: an SPDX id, or UNLICENSED. */
  packageLicense: string;
  /** Whether the manager watches only its own namespace (namespace-scoped RBAC). */
  namespaced: boolean;
  /** The namespace the manager is deployed to: `<projectName>-system`. */
  namespace: string;
  /** config/default's namePrefix: `<projectName>-`. */
  namePrefix: string;
  /** The npm spec of the project's kop dependency (see kop-source.ts). */
  kopSource: string;
  /** `kopSource` names a tarball in `.kop/`, which the Dockerfile and CI copy in. */
  kopPacked: boolean;
  /** `kopSource` is a local folder, which no container build can reach. */
  kopFromPath: boolean;
  /** package.json's `engines.node`. */
  nodeEngines: string;
  /** hack/boilerplate's comment, written at the top of each TypeScript file. */
  licenseHeader: string;
}

/** templates/init. */
export const INIT_TEMPLATES = templateFolder<InitTemplateData>('init');

/** The values init's templates are rendered with. */
export function initTemplateData(
  answers: Omit<InitAnswers, 'kopPack'>,
  context: Pick<Context, 'now'>,
): InitTemplateData {
  const year = String(context.now().getUTCFullYear());
  const boilerplateLines = [
    `Copyright ${year} ${commentText(answers.owner)}.`,
    ...(answers.license === 'apache2' ? ['SPDX-License-Identifier: Apache-2.0'] : []),
  ];
  return {
    projectName: answers.projectName,
    owner: answers.owner,
    year,
    description: `Kubernetes operator ${answers.projectName}, written in TypeScript with kop`,
    licenseApache: answers.license === 'apache2',
    packageLicense: answers.license === 'apache2' ? 'Apache-2.0' : 'UNLICENSED',
    namespaced: answers.namespaced,
    namespace: `${answers.projectName}-system`,
    namePrefix: `${answers.projectName}-`,
    kopSource: answers.kopSource,
    kopPacked: isPackedSpec(answers.kopSource),
    kopFromPath: !isPackedSpec(answers.kopSource) && localPathOf(answers.kopSource) !== undefined,
    nodeEngines: PROJECT_NODE_ENGINES,
    licenseHeader: boilerplateComment('src/x.ts', boilerplateLines),
  };
}
