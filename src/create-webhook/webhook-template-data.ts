/**
 * The data of templates/webhook, what `kop create webhook` (and `kop create api --conversion`)
 * renders for a kind: the wiring every webhook shares, a defaulter, a validator and conversion
 * functions per spoke version, each with its test.
 */
import type { ResourceNames } from '../project/index.js';
import { templateFolder } from '../scaffold/index.js';

/** What templates/webhook/common reads: the wiring shared by every webhook of the project. */
export interface WebhookCommonTemplateData {
  licenseHeaderTs: string;
  licenseHeaderYaml: string;
}

/** What a defaulter or a validator reads of its kind. */
interface AdmissionTemplateData extends Pick<ResourceNames, 'group' | 'version' | 'kind' | 'kindLower' | 'plural'> {
  /** The kind's ResourceType descriptor, and where the webhook imports it and the kind's type from. */
  descriptor: string;
  descriptorModule: string;
  typesModule: string;
  /** The kind has a string `spec.foo`, which the examples default and validate (spec-example.ts). */
  fooExample: boolean;
  /** The prefix of the example labels: the project's domain. */
  labelPrefix: string;
  /** The group in the webhook marker: `""` for the core group. */
  markerGroup: string;
  licenseHeaderTs: string;
}

/** What templates/webhook/defaulting reads. */
export interface DefaultingTemplateData extends AdmissionTemplateData {
  /** The path the webhook is served at, and the one --defaulting-path gave (undefined: the default). */
  defaultingPath: string;
  customDefaultingPath: string | undefined;
  /** The webhook's name in the marker. */
  defaultingName: string;
}

/** What templates/webhook/validation reads. */
export interface ValidationTemplateData extends AdmissionTemplateData {
  /** The path the webhook is served at, and the one --validation-path gave (undefined: the default). */
  validationPath: string;
  customValidationPath: string | undefined;
  /** The webhook's name in the marker. */
  validationName: string;
}

/**
 * The fixture the tests create objects from: `valid<Kind>()` for a kind whose types the project
 * has; a built-in kind's tests carry a sample of their own (`sampleFields`).
 */
export type WebhookFixtureTemplateData =
  { fixtureFunction: string; fixtureModule: string } | { fixtureFunction: false };

/** What templates/webhook/defaulting-test and validation-test read: a webhook's test through a real apiserver. */
export type AdmissionTestTemplateData = Pick<
  AdmissionTemplateData,
  | 'group'
  | 'version'
  | 'kind'
  | 'kindLower'
  | 'descriptor'
  | 'typesModule'
  | 'fooExample'
  | 'labelPrefix'
  | 'licenseHeaderTs'
> &
  Pick<ResourceNames, 'apiVersion'> &
  WebhookFixtureTemplateData & {
    /** Where the test imports the descriptor from. */
    descriptorTestModule: string;
    namespaced: boolean;
    /** Object-literal lines a sample of a built-in kind needs ('' for none). */
    sampleFields: string;
  };

/** What templates/webhook/conversion reads: conversion between the hub and one spoke version. */
export interface ConversionTemplateData extends Pick<
  ResourceNames,
  'group' | 'version' | 'kind' | 'kindLower' | 'fullGroup'
> {
  descriptor: string;
  /** The spoke version, and its name with a capital first letter (in function names). */
  spoke: string;
  spokeUpper: string;
  licenseHeaderTs: string;
}

/** What templates/webhook/conversion-test reads. */
export interface ConversionTestTemplateData extends Omit<ConversionTemplateData, 'spokeUpper'> {
  namespaced: boolean;
}

export const WEBHOOK_COMMON_TEMPLATES = templateFolder<WebhookCommonTemplateData>('webhook/common');
export const DEFAULTING_TEMPLATES = templateFolder<DefaultingTemplateData>('webhook/defaulting');
export const DEFAULTING_TEST_TEMPLATES = templateFolder<AdmissionTestTemplateData>('webhook/defaulting-test');
export const VALIDATION_TEMPLATES = templateFolder<ValidationTemplateData>('webhook/validation');
export const VALIDATION_TEST_TEMPLATES = templateFolder<AdmissionTestTemplateData>('webhook/validation-test');
export const CONVERSION_TEMPLATES = templateFolder<ConversionTemplateData>('webhook/conversion');
export const CONVERSION_TEST_TEMPLATES = templateFolder<ConversionTestTemplateData>('webhook/conversion-test');

/** What create webhook builds once for a kind: the data of every folder but a conversion's spoke. */
export type WebhookTemplateData = WebhookCommonTemplateData &
  DefaultingTemplateData &
  ValidationTemplateData &
  AdmissionTestTemplateData &
  Omit<ConversionTemplateData & ConversionTestTemplateData, 'spoke' | 'spokeUpper'>;
