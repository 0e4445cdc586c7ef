import type { KubernetesObject } from '../client/types/meta.js';
import type { ResourceType } from '../client/resource/options.js';
import { apiVersionOf } from '../client/resource/options.js';
import { errorMessage, isPlainObject, statusReply, type WebhookCall, type WebhookReply } from './webhook-handler.js';

/**
 * An object as the apiserver may send it for conversion: any field may be missing, at any depth.
 * For server-side apply it converts the pruned objects that stand for field sets, with no spec
 * and even no metadata, besides whole objects. (The runtime gives the answer the input's
 * metadata, so a conversion need not carry it.)
 */
export type PartialObject<T> = T extends readonly (infer U)[]
  ? PartialObject<U>[]
  : T extends object
    ? string extends keyof T
      ? { [K in keyof T]: PartialObject<T[K]> } // a map: its entries are there or not, none undefined
      : { [K in keyof T]?: PartialObject<T[K]> }
    : T;

/**
 * Conversion of one spoke version to and from the hub (the storage version). Each takes and
 * gives a {@link PartialObject}: what came in without a field goes out without it. (Functions
 * typed on whole objects are accepted too, as they were before.)
 */
export interface SpokeConversion<Hub extends KubernetesObject, Spoke extends KubernetesObject> {
  /** The spoke object as the hub version. */
  convertTo(spoke: PartialObject<Spoke>): PartialObject<Hub> | Promise<PartialObject<Hub>>;
  /** The hub object as this spoke version. */
  convertFrom(hub: PartialObject<Hub>): PartialObject<Spoke> | Promise<PartialObject<Spoke>>;
}

/** apiextensions.k8s.io/v1 ConversionReview: the body of both the request and the answer. */
export interface ConversionReview {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'ConversionReview';
  request?: { uid: string; desiredAPIVersion: string; objects: KubernetesObject[] };
  response?: {
    uid: string;
    convertedObjects: KubernetesObject[];
    result: { status: 'Success' | 'Failure'; message?: string };
  };
}

/** One kind's conversions: its hub version and each spoke version's functions. */
interface KindConversions {
  hub: ResourceType;
  spokes: Map<string, SpokeConversion<KubernetesObject, KubernetesObject>>;
}

/**
 * The conversions of every kind, served together on `/convert` (the apiserver names the kind in
 * each object). Each object goes from its apiVersion to the desired one: hub to spoke with the
 * spoke's `convertFrom`, spoke to hub with `convertTo`, spoke to spoke through the hub, and the
 * same version unchanged.
 */
export class ConversionRegistry {
  private readonly kinds = new Map<string, KindConversions>();

  /**
   * Registers the conversions of `hub`'s kind. Registering the same hub again adds its spokes (the
   * scaffold registers each spoke from its own file); throws when the kind has another hub, a spoke
   * is registered twice, or a spoke is the hub's version or of another kind.
   */
  register(
    hub: ResourceType,
    spokes: ReadonlyMap<ResourceType, SpokeConversion<KubernetesObject, KubernetesObject>>,
  ): void {
    const key = kindKey(hub.group, hub.kind);
    const registered = this.kinds.get(key);
    if (registered !== undefined && registered.hub.version !== hub.version)
      throw new Error(
        `conversion of ${hub.kind}.${hub.group} is registered already with the hub ${registered.hub.version}; a kind has one hub, so register ${hub.version} as a spoke of it`,
      );
    const byVersion = new Map(registered?.spokes);
    for (const [spoke, conversion] of spokes) {
      if (spoke.group !== hub.group || spoke.kind !== hub.kind)
        throw new Error(
          `spoke ${spoke.kind}.${spoke.group}/${spoke.version} is not a version of the hub's kind ${hub.kind}.${hub.group}`,
        );
      if (spoke.version === hub.version)
        throw new Error(`${hub.kind}.${hub.group} ${hub.version} is the hub; a spoke must be another version`);
      if (byVersion.has(spoke.version))
        throw new Error(`spoke ${spoke.version} of ${hub.kind}.${hub.group} is given twice`);
      byVersion.set(spoke.version, conversion);
    }
    if (spokes.size === 0) throw new Error(`conversion of ${hub.kind}.${hub.group} needs at least one spoke version`);
    this.kinds.set(key, { hub, spokes: byVersion });
  }

  /** True when no kind is registered. */
  get empty(): boolean {
    return this.kinds.size === 0;
  }

  /** Converts one object to `desiredAPIVersion`; throws what the user's function threw, or why it cannot. */
  async convert(object: KubernetesObject, desiredAPIVersion: string): Promise<KubernetesObject> {
    if (!isPlainObject(object) || typeof object.apiVersion !== 'string' || typeof object.kind !== 'string')
      throw new Error('object has no apiVersion and kind');
    const from = splitApiVersion(object.apiVersion);
    const to = splitApiVersion(desiredAPIVersion);
    if (from.group !== to.group)
      throw new Error(`cannot convert ${object.kind} from group "${from.group}" to "${to.group}"`);
    if (from.version === to.version) return { ...object, apiVersion: desiredAPIVersion };
    const conversions = this.kinds.get(kindKey(from.group, object.kind));
    if (!conversions) throw new Error(`no conversion registered for kind ${object.kind}.${from.group}`);
    const { hub } = conversions;
    const spokeOf = (version: string): SpokeConversion<KubernetesObject, KubernetesObject> => {
      const spoke = conversions.spokes.get(version);
      if (!spoke)
        throw new Error(
          `${String(object.kind)}.${from.group} has no version ${version} registered (hub ${hub.version}, spokes ${[...conversions.spokes.keys()].join(', ')})`,
        );
      return spoke;
    };
    let asHub: KubernetesObject;
    if (from.version === hub.version) asHub = structuredClone(object);
    else {
      const spoke = spokeOf(from.version);
      asHub = withMetadata(
        await explainPartial(object, () => spoke.convertTo(structuredClone(object))),
        object,
        apiVersionOf(hub),
      );
    }
    // asHub has its metadata settled already; settling it again would bring back an annotation the conversion removed.
    if (to.version === hub.version) return asHub;
    const spoke = spokeOf(to.version);
    return withMetadata(await explainPartial(object, () => spoke.convertFrom(asHub)), object, desiredAPIVersion);
  }

  /** Answers a ConversionReview: every object converted, or a Failure result with no objects. */
  async handle(call: WebhookCall): Promise<WebhookReply> {
    const { body } = call;
    if (!isPlainObject(body) || body.apiVersion !== 'apiextensions.k8s.io/v1' || body.kind !== 'ConversionReview') {
      return statusReply(
        400,
        'BadRequest',
        "expected an apiextensions.k8s.io/v1 ConversionReview; list only v1 in the CRD's conversionReviewVersions",
      );
    }
    const request = body.request;
    if (!isPlainObject(request) || typeof request.uid !== 'string' || request.uid === '')
      return statusReply(400, 'BadRequest', 'ConversionReview has no request with a uid');
    const uid = request.uid;
    const reply = (response: NonNullable<ConversionReview['response']>): WebhookReply => ({
      status: 200,
      body: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response } satisfies ConversionReview,
    });
    const failure = (message: string): WebhookReply =>
      reply({ uid, convertedObjects: [], result: { status: 'Failure', message } });
    if (typeof request.desiredAPIVersion !== 'string' || request.desiredAPIVersion === '')
      return failure('ConversionReview has no desiredAPIVersion');
    if (!Array.isArray(request.objects)) return failure('ConversionReview has no objects');
    const desired = request.desiredAPIVersion;
    const converted: KubernetesObject[] = [];
    for (const [index, object] of (request.objects as unknown[]).entries()) {
      try {
        converted.push(await this.convert(object as KubernetesObject, desired));
      } catch (error) {
        const name = isPlainObject(object) && isPlainObject(object.metadata) ? object.metadata.name : undefined;
        const message = `converting object ${index}${typeof name === 'string' ? ` (${name})` : ''} to ${desired}: ${errorMessage(error)}`;
        call.logger.info('conversion failed', { uid, error: message });
        return failure(message);
      }
    }
    return reply({ uid, convertedObjects: converted, result: { status: 'Success' } });
  }
}

/**
 * The result with apiVersion set, kind kept and the input's metadata, whatever the conversion
 * returned: the apiserver takes everything but labels and annotations from the original and
 * refuses an answer without metadata, which a conversion of a pruned object (server-side apply
 * sends some without metadata) easily returns. Labels and annotations the result sets (a
 * conversion may keep what the other version cannot hold in an annotation) replace the input's.
 */
function withMetadata(
  result: PartialObject<KubernetesObject>,
  input: KubernetesObject,
  apiVersion: string,
): KubernetesObject {
  if (!isPlainObject(result)) throw new Error('the conversion function returned no object');
  const metadata: Record<string, unknown> = isPlainObject(input.metadata) ? structuredClone(input.metadata) : {};
  const returned: unknown = result.metadata;
  if (isPlainObject(returned)) {
    for (const field of ['labels', 'annotations'] as const) {
      if (!(field in returned)) continue;
      if (returned[field] === undefined || returned[field] === null) delete metadata[field];
      else metadata[field] = structuredClone(returned[field]);
    }
  }
  return { ...result, apiVersion, kind: input.kind, metadata } as KubernetesObject;
}

/**
 * Runs a conversion function; when it throws on a partial object (no metadata, no name or no
 * spec: what the apiserver converts for server-side apply, after pruning), the error says so.
 */
async function explainPartial(
  input: KubernetesObject,
  convert: () => PartialObject<KubernetesObject> | Promise<PartialObject<KubernetesObject>>,
): Promise<PartialObject<KubernetesObject>> {
  try {
    return await convert();
  } catch (error) {
    const missing = [
      !isPlainObject(input.metadata) ? 'metadata' : typeof input.metadata.name !== 'string' ? 'metadata.name' : '',
      !('spec' in input) ? 'spec' : '',
    ].filter(Boolean);
    if (missing.length === 0) throw error;
    throw new Error(
      `${errorMessage(error)}; the object is partial (no ${missing.join(', no ')}): for server-side apply the apiserver converts pruned objects, so a conversion must accept any field missing`,
      { cause: error },
    );
  }
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

function kindKey(group: string, kind: string): string {
  return `${kind}.${group}`;
}
