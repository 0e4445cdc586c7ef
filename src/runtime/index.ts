export * from './client/index.js';
export * from './controller/index.js';
