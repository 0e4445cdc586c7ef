/**
 * kop at a terminal: without flags, `kop init` and `kop create api` ask their questions (the
 * prompts of @clack/prompts), check each answer as it is given, take defaults on Enter, and
 * stop with nothing written on Ctrl-C. Driven through a real pseudo-terminal (test/helpers/
 * terminal.ts). Needs `npm run build` first.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireBuilt } from '../helpers/cli-project.js';
import { KEY, TerminalSession } from '../helpers/terminal.js';

const TIMEOUT = 60_000;

describe('kop at a terminal', () => {
  let parent: string;
  let project: string;
  const sessions: TerminalSession[] = [];
  const session = (args: string[], cwd = project) => {
    const started = new TerminalSession(args, cwd);
    sessions.push(started);
    return started;
  };
  const read = (file: string) => readFile(path.join(project, file), 'utf8');

  beforeAll(async () => {
    requireBuilt();
    parent = await mkdtemp(path.join(tmpdir(), 'kop-e2e-tty-'));
    project = path.join(parent, 'shop');
    await mkdir(project);
  });
  afterEach(() => sessions.splice(0).forEach((s) => s.close()));
  afterAll(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it(
    'kop init asks for what no flag gave, refuses a bad answer in place, and takes defaults on Enter',
    async () => {
      const init = session(['init', '--skip-install']);
      await init.expect('Domain of your API groups');
      init.type('Bad_Domain' + KEY.enter);
      await init.expect('invalid domain "Bad_Domain"');
      init.type(KEY.backspace.repeat('Bad_Domain'.length) + 'example.org' + KEY.enter);
      await init.expect('Project name');
      // The folder's name is the default.
      await init.expect('shop');
      init.type(KEY.enter);
      await init.expect('Copyright owner');
      init.type('Jane Doe' + KEY.enter);
      await init.expect('License');
      init.type(KEY.down + KEY.enter);
      await init.expect('CREATE PROJECT');
      expect(await init.exited, init.screen).toBe(0);

      const record = await read('PROJECT');
      expect(record).toMatch(/^domain: example\.org$/m);
      expect(record).toMatch(/^projectName: shop$/m);
      const boilerplate = await read('hack/boilerplate.txt');
      expect(boilerplate).toMatch(/^Copyright \d{4} Jane Doe\.$/m);
      // License "none": no licence file and no SPDX line.
      expect(boilerplate).not.toMatch(/SPDX/);
      expect(existsSync(path.join(project, 'LICENSE'))).toBe(false);
    },
    TIMEOUT,
  );

  it(
    'kop create api asks for the kind, checks the name, and a "No" to the controller scaffolds none',
    async () => {
      const create = session(['create', 'api']);
      await create.expect('API group');
      create.type('cache' + KEY.enter);
      await create.expect('API version');
      create.type(KEY.enter);
      await create.expect('Kind');
      create.type('memcached' + KEY.enter);
      await create.expect(/UpperCamelCase|upper-case/);
      create.type(KEY.backspace.repeat('memcached'.length) + 'Memcached' + KEY.enter);
      await create.expect('Create the Memcached API types?');
      create.type(KEY.enter);
      await create.expect(/controller|reconciler/i);
      create.type(KEY.right + KEY.enter);
      await create.expect('CREATE api/cache/v1alpha1/memcached.types.ts');
      expect(await create.exited, create.screen).toBe(0);

      expect(await read('PROJECT')).toMatch(/kind: Memcached/);
      expect(existsSync(path.join(project, 'api/cache/v1alpha1/memcached.types.ts'))).toBe(true);
      expect(existsSync(path.join(project, 'src/controllers/memcached.controller.ts'))).toBe(false);
    },
    TIMEOUT,
  );

  it(
    'kop create api for a new version of a kind asks how it converts; "webhook" scaffolds the conversion',
    async () => {
      const create = session(['create', 'api', '--group', 'cache', '--version', 'v1beta1', '--kind', 'Memcached']);
      await create.expect('Create the Memcached API types?');
      create.type(KEY.enter);
      await create.expect(/controller|reconciler/i);
      create.type(KEY.right + KEY.enter);
      await create.expect('How do Memcached objects convert between v1beta1 and v1alpha1?');
      // The choices are webhook, none, later (the default): up twice is webhook.
      create.type(KEY.up + KEY.up + KEY.enter);
      await create.expect('CREATE src/webhooks/cache/v1beta1/memcached.conversion.ts');
      expect(await create.exited, create.screen).toBe(0);
      expect(await read('PROJECT')).toMatch(/spoke:\n\s+- v1beta1/);
    },
    TIMEOUT,
  );

  it(
    'Ctrl-C at a question stops the command with nothing written',
    async () => {
      const before = await readdir(path.join(project, 'api/cache/v1alpha1'));
      const projectBefore = await read('PROJECT');
      const create = session(['create', 'api']);
      await create.expect('API group');
      create.type('apps2' + KEY.enter);
      await create.expect('API version');
      create.type(KEY.ctrlC);
      await create.expect('cancelled');
      expect(await create.exited).not.toBe(0);
      expect(await readdir(path.join(project, 'api/cache/v1alpha1'))).toEqual(before);
      expect(existsSync(path.join(project, 'api/apps2'))).toBe(false);
      expect(await read('PROJECT')).toBe(projectBefore);
    },
    TIMEOUT,
  );
});
