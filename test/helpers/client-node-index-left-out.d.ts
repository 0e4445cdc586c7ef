/**
 * Stands in for @kubernetes/client-node's index in the TypeScript programs that tests build over
 * src/ (template-data-check.ts, test/api/public-api-report.test.ts,
 * test/api/builtin-descriptors.test.ts), through the `paths`
 * of ts-program-options.ts. Its generated API is most of such a program (about 800 of 1,300 files,
 * 8 of 14 MB), yet src/ reaches it only through the import() inside a method of transport.ts, for
 * an auth provider, so no declaration those checks read takes a type from it. Were one to, its
 * type would be `any` here: an `any` emitted in kop/runtime/client fails the report's check of its declarations, the API report would
 * show `any` where the type was, and a template data type with keys from it would lack them,
 * which the template data check reports for each key read.
 */
export {};
