/**
 * Container image references and kustomize's `images:` transformer, applied to objects that
 * are already rendered. `kop deploy --image` and `kop build-installer --image` use it instead of
 * `kustomize edit set image`, which rewrites config/manager/kustomization.yaml as a side effect.
 */

/** An image reference split as kustomize splits it: name, then an optional tag and digest. */
export interface ImageReference {
  /** Registry, path and repository, e.g. `registry.example.com:5000/team/operator`. */
  name: string;
  tag?: string;
  /** `sha256:...`, without the `@`. */
  digest?: string;
}

/** One `images:` entry of a kustomization. */
export interface ImageOverride {
  /** The image name to match (tag and digest ignored). */
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}

const NAME_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$/;
const HOST =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:]+\])(?::[0-9]+)?$/;

/** Splits `name[:tag][@digest]`; the tag's colon is the one after the last `/` (a registry port is not a tag). */
export function splitImage(image: string): ImageReference {
  let rest = image;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at !== -1) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) return { name: rest.slice(0, colon), tag: rest.slice(colon + 1), digest };
  return { name: rest, digest };
}

/**
 * Parses an image reference as a container runtime accepts it (the distribution reference
 * grammar), or returns why it is not one: the message names the part at fault.
 */
export function parseImageReference(image: string): ImageReference | string {
  if (image.trim() !== image || image === '')
    return `"${image}" is not an image reference (e.g. registry.example.com/team/operator:v1.2.0)`;
  const reference = splitImage(image);
  if (reference.digest !== undefined && !DIGEST.test(reference.digest))
    return `the digest "${reference.digest}" of "${image}" is not algorithm:hex (e.g. sha256:<64 hex digits>)`;
  if (reference.tag !== undefined && !TAG.test(reference.tag))
    return `the tag "${reference.tag}" of "${image}" is not a valid tag (letters, digits, '_', '.', '-'; at most 128)`;
  const parts = reference.name.split('/');
  // The first part is a registry host when it has a dot or a port, or is localhost.
  const first = parts[0]!;
  const hasHost =
    parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost' || first.startsWith('['));
  if (hasHost && !HOST.test(first))
    return `the registry "${first}" of "${image}" is not a host name with an optional port`;
  for (const component of hasHost ? parts.slice(1) : parts) {
    if (!NAME_COMPONENT.test(component)) {
      return `"${component}" in "${image}" is not a valid repository name part (lower-case letters, digits and separators '.', '_', '__', '-')`;
    }
  }
  if (reference.name.length > 255) return `the repository name of "${image}" is longer than 255 characters`;
  return reference;
}

/** The override `kustomize edit set image <name>=<image>` writes. */
export function overrideFor(name: string, image: ImageReference): ImageOverride {
  return {
    name,
    newName: image.name,
    ...(image.tag !== undefined ? { newTag: image.tag } : {}),
    ...(image.digest !== undefined ? { digest: image.digest } : {}),
  };
}

/** Fields that hold lists of containers anywhere in an object: pods, pod templates, job templates. */
const CONTAINER_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);

/**
 * Kustomize's image transformer: every container image (in any `containers`, `initContainers`
 * or `ephemeralContainers` list of any object) whose name equals `override.name` gets the new
 * name, tag and digest; a digest replaces the tag, and a new tag drops an old digest. Objects are
 * changed in place; returns how many containers matched, including those whose image already was
 * the one asked for (`controller:latest` over `controller:latest` is found, not missing).
 */
export function setImages(objects: readonly unknown[], override: ImageOverride): number {
  let matched = 0;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (CONTAINER_LISTS.has(key) && Array.isArray(value)) {
        for (const container of value) {
          if (
            container &&
            typeof container === 'object' &&
            typeof (container as { image?: unknown }).image === 'string'
          ) {
            const current = (container as { image: string }).image;
            if (splitImage(current).name !== override.name) continue;
            (container as { image: string }).image = transformImage(current, override);
            matched++;
          }
        }
      }
      visit(value);
    }
  };
  visit(objects);
  return matched;
}

/** One image through one override; unchanged when the name does not match. */
export function transformImage(image: string, override: ImageOverride): string {
  const current = splitImage(image);
  if (current.name !== override.name) return image;
  const name = override.newName ?? current.name;
  let tag = current.tag;
  let digest = current.digest;
  if (override.newTag !== undefined) {
    tag = override.newTag;
    digest = undefined;
  }
  if (override.digest !== undefined) {
    digest = override.digest;
    tag = undefined;
  }
  return `${name}${tag !== undefined ? `:${tag}` : ''}${digest !== undefined ? `@${digest}` : ''}`;
}
