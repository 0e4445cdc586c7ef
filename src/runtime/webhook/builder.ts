import type { KubernetesObject } from '../client/types/meta.js';
import type { ResourceType } from '../client/resource/options.js';
import type { Defaulter, Validator } from './admission.js';
import { defaultingHandler, validatingHandler } from './admission-handler.js';
import type { SpokeConversion } from './conversion.js';
import type { WebhookHandler } from './webhook-handler.js';

/** Where builders register what they build (the manager). */
export interface WebhookRegistrar {
  /** Registers every route or none: throws when a path is taken. */
  registerWebhooks(routes: ReadonlyArray<readonly [path: string, handler: WebhookHandler]>): void;
  /** Registers one kind's conversions; throws when the kind has them already. */
  registerConversion(
    hub: ResourceType,
    spokes: ReadonlyMap<ResourceType, SpokeConversion<KubernetesObject, KubernetesObject>>,
  ): void;
}

/** The part of a default webhook path after `/mutate` or `/validate`: `-<group with dots as dashes>-<version>-<lower-case kind>`. */
function pathSuffix(type: Pick<ResourceType, 'group' | 'version' | 'kind'>): string {
  return `-${type.group.replace(/\./g, '-')}-${type.version}-${type.kind.toLowerCase()}`;
}

/** controller-runtime's mutating path of a kind: `/mutate-cache-example-com-v1-rediscluster` (`/mutate--v1-pod` for the core group). */
export function defaultingPath(type: Pick<ResourceType, 'group' | 'version' | 'kind'>): string {
  return `/mutate${pathSuffix(type)}`;
}

/** controller-runtime's validating path of a kind: `/validate-cache-example-com-v1-rediscluster`. */
export function validatingPath(type: Pick<ResourceType, 'group' | 'version' | 'kind'>): string {
  return `/validate${pathSuffix(type)}`;
}

/**
 * Builds the admission webhooks of one kind (`manager.webhook(type)`), as controller-runtime's
 * `ctrl.NewWebhookManagedBy(mgr).For(obj)`: a defaulter serves the mutating path, a validator the
 * validating one; `complete()` registers them.
 */
export class WebhookBuilder<T extends KubernetesObject> {
  private defaulter: Defaulter<T> | undefined;
  private validator: Validator<T> | undefined;
  private defaulterPath: string | undefined;
  private validatorPath: string | undefined;
  private completed = false;

  constructor(
    private readonly type: ResourceType<T>,
    private readonly registrar: WebhookRegistrar,
  ) {}

  /** Serves a mutating webhook that runs `defaulter`. */
  withDefaulter(defaulter: Defaulter<T>): this {
    this.defaulter = defaulter;
    return this;
  }

  /** Serves a validating webhook that runs `validator`. */
  withValidator(validator: Validator<T>): this {
    this.validator = validator;
    return this;
  }

  /** Serves the defaulter on `path` instead of {@link defaultingPath}. */
  withDefaulterPath(path: string): this {
    this.defaulterPath = path;
    return this;
  }

  /** Serves the validator on `path` instead of {@link validatingPath}. */
  withValidatorPath(path: string): this {
    this.validatorPath = path;
    return this;
  }

  /** Registers the webhooks; throws when there is neither defaulter nor validator, or a path is taken. */
  complete(): void {
    if (this.completed) throw new Error(`the webhooks of ${this.type.kind} are complete already`);
    if (!this.defaulter && !this.validator)
      throw new Error(
        `webhook for ${this.type.kind}: give withDefaulter(...) or withValidator(...) (or both) before complete()`,
      );
    if (this.defaulterPath !== undefined && !this.defaulter)
      throw new Error(`webhook for ${this.type.kind}: withDefaulterPath needs withDefaulter`);
    if (this.validatorPath !== undefined && !this.validator)
      throw new Error(`webhook for ${this.type.kind}: withValidatorPath needs withValidator`);
    const routes: [string, WebhookHandler][] = [];
    if (this.defaulter)
      routes.push([this.defaulterPath ?? defaultingPath(this.type), defaultingHandler(this.type, this.defaulter)]);
    if (this.validator)
      routes.push([this.validatorPath ?? validatingPath(this.type), validatingHandler(this.type, this.validator)]);
    this.registrar.registerWebhooks(routes);
    this.completed = true;
  }
}

/**
 * Builds the conversion webhook of one kind (`manager.conversion(hubType)`): the hub is the
 * storage version, each `spoke(type, { convertTo, convertFrom })` adds another version. All kinds
 * are served together on `/convert`.
 */
export class ConversionBuilder<Hub extends KubernetesObject> {
  private readonly spokes = new Map<ResourceType, SpokeConversion<KubernetesObject, KubernetesObject>>();
  private completed = false;

  constructor(
    private readonly hub: ResourceType<Hub>,
    private readonly registrar: WebhookRegistrar,
  ) {}

  /** Adds the spoke version `type` with its conversions to and from the hub. */
  spoke<Spoke extends KubernetesObject>(type: ResourceType<Spoke>, conversion: SpokeConversion<Hub, Spoke>): this {
    this.spokes.set(type, conversion as unknown as SpokeConversion<KubernetesObject, KubernetesObject>);
    return this;
  }

  /** Registers the conversions; throws without a spoke, or when the kind has conversions already. */
  complete(): void {
    if (this.completed) throw new Error(`the conversion of ${this.hub.kind} is complete already`);
    this.registrar.registerConversion(this.hub, this.spokes);
    this.completed = true;
  }
}
