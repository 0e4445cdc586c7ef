/**
 * The public module of src/plugins/: what kop's other folders use of it. They import the folder only
 * through this file (test/repository/layering.test.ts checks); its own files import each other directly.
 */
export type { EditStep } from './edit-step.js';
export { CUSTOM_METRICS_CONFIG } from './grafana/custom-metrics.js';
export { GRAFANA_PLUGIN, PLUGINS, recordedSettings, resolvePlugins, splitPluginNames } from './registry.js';
export type { KopPlugin } from './registry.js';
export { runCreateApiWithPlugins } from './run-create-api-plugins.js';
export type { CreateApiWithPluginsOptions } from './run-create-api-plugins.js';
