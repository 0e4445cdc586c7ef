// The book's tutorials as the commands their pages show, in order, with the reader's own edits
// between them. test/tutorials/run-tutorials.mjs runs them; each page (docs/tutorial/<name>.md)
// must show every `run` command verbatim, and includes code from the project the steps make
// (testdata/tutorials/<name>/), so a page cannot show a command or code that does not work.
//
// Steps:
//   { run: ['kop', ...args] }   a kop command, as the page spells it after `kop` / `npx kop`
//   { run: ['npm', 'install', name] }   a dependency the reader adds; the runner writes it into
//                               package.json as npm does, with the range kop's own package.json has
//                               (the project is tested with kop's node_modules linked, no registry)
//   { edit: stage }             the reader's edits: every file of testdata/tutorials/<name>.edits/<stage>/
//                               copied over the project

/** A command as the page spells it; no argument of these tutorials has a space in it. */
const run = (/** @type {string} */ command) => ({ run: command.split(' ') });

/** @type {Record<string, { page: string, from?: string, steps: Array<{ run: string[] } | { edit: string }> }>} */
export const TUTORIALS = {
  cronjob: {
    page: 'docs/tutorial/cronjob.md',
    steps: [
      run('kop init --domain tutorial.kubebuilder.io'),
      run('kop create api --group batch --version v1 --kind CronJob'),
      run('npm install cron-parser'),
      { edit: 'api' },
      run('kop generate'),
      run('kop create webhook --group batch --version v1 --kind CronJob --defaulting --programmatic-validation'),
      { edit: 'webhook' },
      run('kop generate'),
      run('kop build-installer'),
    ],
  },
  multiversion: {
    page: 'docs/tutorial/multiversion.md',
    // Goes on in the CronJob tutorial's project, as its reader does.
    from: 'cronjob',
    steps: [
      run('kop create api --group batch --version v2 --kind CronJob --no-controller'),
      { edit: 'v2' },
      run('kop create webhook --group batch --version v1 --kind CronJob --conversion --spoke v2'),
      { edit: 'conversion' },
      run('kop generate'),
      run('kop build-installer'),
    ],
  },
};

/** The tutorials in the order they build on each other. */
export const TUTORIAL_NAMES = /** @type {Array<keyof typeof TUTORIALS>} */ (['cronjob', 'multiversion']);
