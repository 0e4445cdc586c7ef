import { describe, expect, it } from 'vitest';
import { specFitsFooExample } from '../../src/create-webhook/spec-example.js';

describe('specFitsFooExample', () => {
  const cases: Array<{ name: string; given: string; want: boolean }> = [
    { name: "create api's spec", given: 'export interface QueueSpec {\n  /** doc */\n  foo?: string;\n}', want: true },
    {
      name: 'foo beside other optional fields',
      given: "export interface QueueSpec {\n  foo?: string;\n  'size'?: number;\n}",
      want: true,
    },
    {
      name: 'no foo (deploy-image)',
      given: 'export interface QueueSpec {\n  size?: int32;\n  containerPort?: int32;\n}',
      want: false,
    },
    { name: 'foo of another type', given: 'export interface QueueSpec {\n  foo?: number;\n}', want: false },
    { name: 'foo required', given: 'export interface QueueSpec {\n  foo: string;\n}', want: false },
    {
      name: 'another required field',
      given: 'export interface QueueSpec {\n  foo?: string;\n  size: number;\n}',
      want: false,
    },
    {
      name: 'an index signature',
      given: 'export interface QueueSpec {\n  foo?: string;\n  [key: string]: unknown;\n}',
      want: false,
    },
    { name: 'an extended spec', given: 'export interface QueueSpec extends Base {\n  foo?: string;\n}', want: false },
    { name: "another kind's spec", given: 'export interface OtherSpec {\n  foo?: string;\n}', want: false },
    {
      name: 'foo only in a nested type',
      given: 'export interface QueueSpec {\n  inner?: { foo?: string };\n}',
      want: false,
    },
  ];
  it.each(cases)('$name', async ({ given, want }) => {
    expect(await specFitsFooExample(given, 'Queue')).toBe(want);
  });
});
