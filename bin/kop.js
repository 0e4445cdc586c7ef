#!/usr/bin/env node
import module from 'node:module';

// Node 22.1 and later keep V8's compiled code of kop and its dependencies between runs (in the
// temp folder), which spares every command that parses API types most of the cost of loading
// the 9 MB TypeScript compiler. Before the import below, so that kop's own modules are cached too.
module.enableCompileCache?.();

const { main } = await import('../dist/cli/main.js');
process.exitCode = await main(process.argv);
