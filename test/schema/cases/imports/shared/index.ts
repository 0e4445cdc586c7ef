export * from './common.js';
export { type Endpoint as Backend } from './common.js';
