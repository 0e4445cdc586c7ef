// Kubebuilder's testdata script (test/testdata/generate.sh as on Kubebuilder's master after v4.15.0:
// v4.15.0's commands plus the `--ssa` APIs added in June 2026), as data: per reference project, the command lines it runs, in order, with
// `kubebuilder` replaced by `kop` and every flag spelt as Kubebuilder spells it (pflag's
// `--flag=true|false`, `--make=false` included: kop accepts and ignores it). Shell quoting is
// resolved, so each command is the argv the program receives. Written for kop from the public
// list of commands. Where the script runs `make all` and `make build-installer`, the list holds a
// `{ make }` step that the runner maps to kop's equivalents (`kop generate` + `npm run build`,
// `kop build-installer`); `go mod init` and `go mod tidy` have none (npm's lockfile is kop init's).
// One value differs from Kubebuilder's spelling: cert-manager's `--external-api-module` (see
// CERT_MANAGER_MODULE), with a `{ copy }` step that puts the CRD file it names in the project.

/** The Kubebuilder release whose testdata script this is. */
export const KUBEBUILDER_SCRIPT_VERSION = 'master after v4.15.0 (test/testdata/generate.sh with --ssa)';

/** The reference projects, in the order the script makes them. */
export const PROJECT_NAMES = /** @type {const} */ (['project-v4', 'project-v4-multigroup', 'project-v4-with-plugins']);

const CERT_MANAGER_PATH = '--external-api-path=github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1';
const CERT_MANAGER_MODULE = '--external-api-module=github.com/cert-manager/cert-manager@v1.20.2';

/** `kop init` as the script runs it for every project, with the project's own init flags. */
function init(...flags) {
  return [
    'kop',
    'init',
    '--plugins=go/v4',
    ...flags,
    '--domain',
    'testproject.org',
    '--license',
    'apache2',
    '--owner',
    'The Kubernetes authors',
  ];
}

/** `kop create api --group g --version v --kind K` followed by `rest`. */
function api(group, version, kind, ...rest) {
  return ['kop', 'create', 'api', '--group', group, '--version', version, '--kind', kind, ...rest];
}

/** `kop create webhook --group g --version v --kind K` followed by `rest`. */
function webhook(group, version, kind, ...rest) {
  return ['kop', 'create', 'webhook', '--group', group, '--version', version, '--kind', kind, ...rest];
}

/** The APIs of project-v4: several controllers per kind, conversion, custom webhook paths, external and core kinds, SSA. */
const projectV4 = [
  init(),
  api('crew', 'v1', 'Captain', '--controller=true', '--resource=true', '--make=false', '--controller-name=captain'),
  api('crew', 'v1', 'Captain', '--controller=true', '--resource=true', '--make=false', '--force'),
  api(
    'crew',
    'v1',
    'Captain',
    '--controller=true',
    '--resource=false',
    '--make=false',
    '--controller-name=captain-backup',
  ),
  webhook('crew', 'v1', 'Captain', '--defaulting', '--make=false'),
  webhook('crew', 'v1', 'Captain', '--programmatic-validation', '--make=false'),

  api('crew', 'v1', 'FirstMate', '--controller=true', '--resource=true', '--make=false'),
  api('crew', 'v2', 'FirstMate', '--controller=false', '--resource=true', '--make=false'),
  webhook('crew', 'v1', 'FirstMate', '--conversion', '--make=false', '--spoke', 'v2'),

  api('crew', 'v1', 'Sailor', '--controller=true', '--resource=true', '--make=false'),
  webhook('crew', 'v1', 'Sailor', '--defaulting', '--defaulting-path=/custom-mutate-sailor', '--make=false'),
  webhook(
    'crew',
    'v1',
    'Sailor',
    '--programmatic-validation',
    '--validation-path=/custom-validate-sailor',
    '--make=false',
  ),

  api(
    'crew',
    'v1',
    'Admiral',
    '--plural=admirales',
    '--controller=true',
    '--resource=true',
    '--namespaced=false',
    '--make=false',
  ),
  webhook('crew', 'v1', 'Admiral', '--plural=admirales', '--defaulting', '--make=false'),
  webhook(
    'crew',
    'v1',
    'Admiral',
    '--plural=admirales',
    '--programmatic-validation',
    '--validation-path=/custom-validate-admiral',
    '--make=false',
  ),

  api(
    'cert-manager',
    'v1',
    'Certificate',
    '--controller=true',
    '--resource=false',
    '--make=false',
    CERT_MANAGER_PATH,
    '--external-api-domain=io',
    CERT_MANAGER_MODULE,
  ),
  webhook(
    'cert-manager',
    'v1',
    'Issuer',
    '--defaulting',
    CERT_MANAGER_PATH,
    '--external-api-domain=io',
    CERT_MANAGER_MODULE,
  ),
  webhook('core', 'v1', 'Pod', '--defaulting'),
  webhook('apps', 'v1', 'Deployment', '--defaulting'),
  webhook('apps', 'v1', 'Deployment', '--programmatic-validation'),

  api('crew', 'v1', 'Navigator', '--controller=true', '--resource=true', '--ssa', '--make=false'),
];

/** The same kinds across groups (Bar in foo and fiz), a dotted group, a core-kind controller. */
const projectV4MultigroupApis = [
  api('crew', 'v1', 'Captain', '--controller=true', '--resource=true', '--make=false', '--controller-name=captain'),
  api(
    'crew',
    'v1',
    'Captain',
    '--controller=true',
    '--resource=false',
    '--make=false',
    '--controller-name=captain-backup',
  ),
  webhook('crew', 'v1', 'Captain', '--defaulting', '--make=false'),
  webhook('crew', 'v1', 'Captain', '--programmatic-validation', '--make=false'),

  api('ship', 'v1beta1', 'Frigate', '--controller=true', '--resource=true', '--make=false'),
  api('ship', 'v1', 'Destroyer', '--controller=true', '--resource=true', '--namespaced=false', '--make=false'),
  webhook('ship', 'v1', 'Destroyer', '--defaulting', '--make=false'),
  api('ship', 'v2alpha1', 'Cruiser', '--controller=true', '--resource=true', '--namespaced=false', '--make=false'),
  webhook('ship', 'v2alpha1', 'Cruiser', '--programmatic-validation', '--make=false'),

  api('sea-creatures', 'v1beta1', 'Kraken', '--controller=true', '--resource=true', '--make=false'),
  api('sea-creatures', 'v1beta2', 'Leviathan', '--controller=true', '--resource=true', '--make=false'),
  api('foo.policy', 'v1', 'HealthCheckPolicy', '--controller=true', '--resource=true', '--make=false'),
  api('apps', 'v1', 'Deployment', '--controller=true', '--resource=false', '--make=false'),
  api('foo', 'v1', 'Bar', '--controller=true', '--resource=true', '--make=false'),
  api('fiz', 'v1', 'Bar', '--controller=true', '--resource=true', '--make=false'),

  api(
    'cert-manager',
    'v1',
    'Certificate',
    '--controller=true',
    '--resource=false',
    '--make=false',
    CERT_MANAGER_PATH,
    '--external-api-domain=io',
    CERT_MANAGER_MODULE,
  ),
  webhook(
    'cert-manager',
    'v1',
    'Issuer',
    '--defaulting',
    CERT_MANAGER_PATH,
    '--external-api-domain=io',
    CERT_MANAGER_MODULE,
  ),
  webhook('core', 'v1', 'Pod', '--programmatic-validation', '--make=false'),
  webhook('apps', 'v1', 'Deployment', '--defaulting', '--make=false'),
  webhook('apps', 'v1', 'Deployment', '--programmatic-validation', '--make=false'),

  api('sea-creatures', 'v1', 'Prawn', '--controller=true', '--resource=true', '--ssa', '--make=false'),
];

/** What the multigroup and with-plugins projects share: deploy-image kinds, a conversion, Grafana. */
const optionalPlugins = [
  api(
    'example.com',
    'v1alpha1',
    'Memcached',
    '--image=memcached:1.6.26-alpine3.19',
    '--image-container-command=memcached,--memory-limit=64,-o,modern,-v',
    '--image-container-port=11211',
    '--run-as-user=1001',
    '--plugins=deploy-image/v1-alpha',
    '--make=false',
  ),
  api(
    'example.com',
    'v1alpha1',
    'Busybox',
    '--image=busybox:1.36.1',
    '--plugins=deploy-image/v1-alpha',
    '--make=false',
  ),
  webhook('example.com', 'v1alpha1', 'Memcached', '--programmatic-validation', '--make=false'),
  api('example.com', 'v1', 'Wordpress', '--controller=true', '--resource=true', '--make=false'),
  api('example.com', 'v2', 'Wordpress', '--controller=false', '--resource=true', '--make=false'),
  webhook('example.com', 'v1', 'Wordpress', '--conversion', '--make=false', '--spoke', 'v2'),
  ['kop', 'edit', '--plugins=grafana.kubebuilder.io/v1-alpha'],
];

/** A make target the script runs between commands (`make all`, `make build-installer`). */
const make = (target) => ({ make: target });
const MAKE_STEPS = [make('all'), make('build-installer')];

/**
 * Per project, the script's steps in order: command lines (argv, `kop` first) and the make targets
 * it runs between them (before the with-plugins project's Helm and auto-update edits, as there).
 * @type {Record<(typeof PROJECT_NAMES)[number], Array<string[] | { make: 'all' | 'build-installer' }>>}
 */
export const KUBEBUILDER_SCRIPTS = {
  'project-v4': [...projectV4, ...MAKE_STEPS],
  'project-v4-multigroup': [init('--multigroup'), ...projectV4MultigroupApis, ...optionalPlugins, ...MAKE_STEPS],
  'project-v4-with-plugins': [
    init('--namespaced'),
    ['kop', 'edit', '--namespaced', '--force'],
    ...optionalPlugins,
    ...MAKE_STEPS,
    ['kop', 'edit', '--plugins=helm.kubebuilder.io/v2-alpha'],
    ['kop', 'edit', '--plugins=autoupdate.kubebuilder.io/v1-alpha'],
  ],
};
