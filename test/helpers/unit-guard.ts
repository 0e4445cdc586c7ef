/**
 * The `unit` project's promise, enforced: a unit test starts no control plane, runs no npm and
 * no built CLI, and opens no connection off this machine. vitest.config.ts loads this file as a
 * setup file of the `unit` project only; it wraps node:child_process and net.Socket#connect in
 * the test worker, so a file that breaks the promise fails with a message naming the project it
 * belongs in, instead of quietly making `npx vitest --project unit` slow.
 */
import { installUnitGuard } from './unit-guard-core.js';

installUnitGuard();
