import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type DefaultTheme } from 'vitepress';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * The tutorials are written and tested apart from the rest of the book (their projects are
 * regenerated from the commands the pages show). Until a tutorial page exists, the sidebar
 * leaves it out and links to it are not counted as dead; once it exists, both apply in full.
 */
const TUTORIALS = [
  { text: 'A CronJob operator', link: '/tutorial/cronjob', file: 'tutorial/cronjob.md' },
  { text: 'Several API versions', link: '/tutorial/multiversion', file: 'tutorial/multiversion.md' },
];
const presentTutorials = TUTORIALS.filter((t) => existsSync(root + t.file));
const missingTutorialLinks = TUTORIALS.filter((t) => !presentTutorials.includes(t)).map((t) => t.link);

const sidebar: DefaultTheme.SidebarItem[] = [
  {
    text: 'Introduction',
    items: [
      { text: 'What kop is', link: '/guide/introduction' },
      { text: 'Quick start', link: '/guide/quick-start' },
    ],
  },
  { text: 'Tutorials', items: presentTutorials.map(({ text, link }) => ({ text, link })) },
  {
    text: 'How-to',
    items: [
      { text: 'Testing', link: '/howto/testing' },
      { text: 'Webhooks and certificates', link: '/howto/webhooks' },
      { text: 'Metrics and monitoring', link: '/howto/metrics' },
      { text: 'Caches and memory', link: '/howto/caches' },
      { text: 'Sharding across replicas', link: '/howto/sharding' },
      { text: 'Tracing and observability', link: '/howto/observability' },
      { text: 'Evolving an API', link: '/howto/api-versions' },
      { text: 'Upgrading a project', link: '/howto/upgrading' },
      { text: 'Importing CRDs', link: '/howto/import-crds' },
      { text: 'External and built-in kinds', link: '/howto/external-kinds' },
      { text: 'A Helm chart', link: '/howto/helm' },
      { text: 'Multigroup projects', link: '/howto/multigroup' },
      { text: 'Deploying', link: '/howto/deploying' },
      { text: 'Plugins', link: '/howto/plugins' },
      { text: 'The inner loop: kop dev', link: '/howto/dev' },
    ],
  },
  { text: 'Coming from Kubebuilder', items: [{ text: 'Side by side', link: '/kubebuilder' }] },
  {
    text: 'Reference',
    items: [
      { text: 'Commands and the project file', link: '/reference/commands' },
      { text: 'API types and markers', link: '/reference/api-types' },
      { text: 'Clients', link: '/reference/client' },
      { text: 'Writing a controller', link: '/reference/controllers' },
      { text: 'CLI (generated)', link: '/reference/cli' },
      { text: 'Markers (generated)', link: '/reference/markers' },
      { text: 'Public API (generated)', link: '/reference/runtime' },
    ],
  },
  {
    text: 'Contributing',
    items: [
      { text: 'Architecture', link: '/architecture' },
      { text: 'Benchmarks', link: '/benchmarks' },
    ],
  },
].filter((group) => group.items.length > 0);

export default defineConfig({
  title: 'The kop book',
  description: 'kop: scaffold, generate and run Kubernetes operators written in TypeScript',
  cleanUrls: true,
  lastUpdated: false,
  // Dead links fail the build (VitePress's default); only the tutorials not written yet are let through.
  ignoreDeadLinks: missingTutorialLinks.map((link) => (url: string) => url.replace(/\.md$/, '') === link),
  themeConfig: {
    nav: [
      { text: 'Quick start', link: '/guide/quick-start' },
      { text: 'Reference', link: '/reference/commands' },
    ],
    sidebar,
    search: { provider: 'local' },
    outline: [2, 3],
  },
});
